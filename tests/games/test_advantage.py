"""Tests for the Advantage engine: every case of rules/advantage.md, then seeded playouts."""

from __future__ import annotations

import dataclasses
import json
from collections import Counter
from random import Random
from typing import Any

import pytest

from bot.games.advantage import (
    ADVANTAGE,
    ERROR_CODES,
    EVENT_CODES,
    AdvantageState,
    AdvantageView,
    Draw,
    Drop,
    Exchange,
    Keep,
    Pass,
)
from bot.games.advantage.matching import drop_rule, exchange_rule
from bot.games.advantage.state import (
    PHASE_DROP,
    PHASE_DROP_DRAWN,
    PHASE_EXCHANGE,
    PHASE_EXCHANGE_DRAWN,
    PHASE_OVER,
)
from bot.games.cards import Card, parse_card, standard_deck
from bot.games.engine import DEALER, TURN_SECONDS, Event, IllegalAction, OptionSpec, Step

R = ADVANTAGE


def c(code: str) -> Card:
    return parse_card(code)


def cs(text: str) -> tuple[Card, ...]:
    return tuple(parse_card(code) for code in text.split())


def make(
    *,
    hands: tuple[str, str] = ("", ""),
    private: tuple[str, str] = ("", ""),
    piles: tuple[str, str, str] = ("5h", "9d", "Kh"),
    stock: str = "",
    pairs: tuple[str, str] = ("", ""),
    dealer: int = 0,
    **fields: Any,
) -> AdvantageState:
    """A hand-built position. Piles are bottom to top; the stock is drawn from its end."""
    return AdvantageState(
        dealer=dealer,
        stock=cs(stock),
        public=(cs(hands[0]), cs(hands[1])),
        private=(cs(private[0]), cs(private[1])),
        piles=tuple(cs(p) for p in piles),
        pairs=(cs(pairs[0]), cs(pairs[1])),
        **fields,
    )


def act(state: AdvantageState, seat: int, code: str, now: float = 1.0) -> Step[AdvantageState]:
    return R.apply(state, seat, R.decode_action(code), Random(0), now)


def codes(state: AdvantageState, seat: int) -> list[str]:
    return [R.encode_action(a) for a in R.legal_actions(state, seat)]


def event_codes(step: Step[AdvantageState]) -> list[str]:
    return [e.code for e in step.events]


def refused(state: AdvantageState, seat: int, action: Any) -> str:
    with pytest.raises(IllegalAction) as info:
        R.apply(state, seat, action, Random(0), 1.0)
    return info.value.code


# -- the game object ----------------------------------------------------------------------


def test_rules_object_and_option() -> None:
    assert (R.key, R.min_players, R.max_players) == ("advantage", 2, 2)
    assert R.options == (OptionSpec("strict_colours", (False, True), False),)
    with pytest.raises(ValueError):
        R.new_game(3, {}, Random(1), 0.0)


# -- deal -----------------------------------------------------------------------------------


def test_deal_three_public_cards_each_three_piles_and_the_stock() -> None:
    state = R.new_game(2, {DEALER: 1}, Random(5), 100.0)
    assert state.dealer == 1 and state.to_move == 0  # the non-dealer acts first
    assert [len(h) for h in state.public] == [3, 3]
    assert state.private == ((), ())
    assert [len(p) for p in state.piles] == [1, 1, 1]
    assert len(state.stock) == 43
    everything = [*state.stock, *state.hand(0), *state.hand(1), *(p[0] for p in state.piles)]
    assert sorted(everything, key=lambda x: x.code) == sorted(
        standard_deck(), key=lambda x: x.code
    )
    assert state.phase == PHASE_DROP and state.cycle == 1 and state.last_cycle == 0
    assert R.next_deadline(state) == 160.0


def test_first_dealer_by_lot_uses_the_rng_only() -> None:
    dealers = {R.new_game(2, {DEALER: None}, Random(seed), 0.0).dealer for seed in range(30)}
    assert dealers == {0, 1}
    a = R.new_game(2, {}, Random(9), 0.0)
    b = R.new_game(2, {}, Random(9), 0.0)
    assert a == b


def test_turn_seconds_option_sets_the_window() -> None:
    state = R.new_game(2, {TURN_SECONDS: 20, DEALER: 0}, Random(1), 50.0)
    assert R.next_deadline(state) == 70.0
    assert R.view(state, None).deadline == 70.0


# -- matching -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("card", "top", "ok"),
    [
        ("5h", "Kd", True),  # same colour
        ("5c", "Js", True),  # same colour, black
        ("5h", "5s", True),  # same rank
        ("As", "Kc", True),  # ace of the top's colour
        ("Th", "Ks", True),  # a ten goes on any card
        ("Tc", "2d", True),
        ("5h", "Ks", False),
        ("Ah", "Ks", False),  # an ace of the other colour
        ("5s", "Th", False),  # a ten on top is no wildcard when dropping
    ],
)
def test_drop_matching(card: str, top: str, ok: bool) -> None:
    assert drop_rule(c(card), c(top), False) is ok
    state = make(hands=("", card), piles=(top, top, top))
    assert any(isinstance(a, Drop) for a in R.legal_actions(state, 1)) is ok


@pytest.mark.parametrize(
    ("card", "top", "ok"),
    [
        ("5h", "Kd", True),  # same colour
        ("5h", "5s", True),  # same rank
        ("As", "Kc", True),  # ace of the top's colour
        ("5s", "Th", True),  # any card may be exchanged for a pile topped by a ten
        ("Kd", "Tc", True),
        ("Th", "Ks", False),  # holding a ten is no wildcard when exchanging
        ("5h", "Ks", False),
        ("Ac", "Kd", False),
    ],
)
def test_exchange_matching(card: str, top: str, ok: bool) -> None:
    assert exchange_rule(c(card), c(top), False) is ok
    state = make(hands=("", card), piles=(top, top, top), phase=PHASE_EXCHANGE)
    assert any(isinstance(a, Exchange) for a in R.legal_actions(state, 1)) is ok


@pytest.mark.parametrize(
    ("card", "top", "drop_ok", "exchange_ok"),
    [
        ("5h", "Kd", False, False),  # number on face: colour no longer joins them
        ("Kh", "5d", False, False),
        ("5h", "9d", True, True),  # number on number
        ("Jh", "Kd", True, True),  # face on face
        ("Ah", "5d", True, True),  # an ace joins the numbers …
        ("Ah", "Qd", True, True),  # … and the faces
        ("5d", "Ah", True, True),
        ("Kd", "Ah", True, True),
        ("Ks", "Kh", True, True),  # same rank still matches
        ("Th", "Ks", True, False),  # a ten still goes on anything when dropping
        ("Ks", "Th", False, True),  # any card still exchanges for a ten
        ("Ts", "Kc", True, False),
    ],
)
def test_strict_colours(card: str, top: str, drop_ok: bool, exchange_ok: bool) -> None:
    assert drop_rule(c(card), c(top), True) is drop_ok
    assert exchange_rule(c(card), c(top), True) is exchange_ok
    drop_state = make(hands=("", card), piles=(top, top, top), strict_colours=True)
    assert any(isinstance(a, Drop) for a in R.legal_actions(drop_state, 1)) is drop_ok
    swap_state = make(
        hands=("", card), piles=(top, top, top), phase=PHASE_EXCHANGE, strict_colours=True
    )
    assert any(isinstance(a, Exchange) for a in R.legal_actions(swap_state, 1)) is exchange_ok


def test_strict_colours_comes_from_the_lobby_option() -> None:
    assert R.new_game(2, {"strict_colours": True}, Random(1), 0.0).strict_colours
    assert not R.new_game(2, {}, Random(1), 0.0).strict_colours


# -- drop phase -----------------------------------------------------------------------------


def test_drop_is_compulsory_and_draws_a_replacement() -> None:
    state = make(hands=("", "3s 6h"), stock="2c 8c", piles=("5h", "9d", "Ks"))
    assert codes(state, 1) == ["d3s2", "d6h0", "d6h1"]
    assert refused(state, 1, Draw()) == "advantage.must_drop"
    assert refused(state, 1, Pass()) == "advantage.must_drop"
    step = act(state, 1, "d6h1")
    new = step.state
    assert new.piles[1] == cs("9d 6h")
    assert new.public[1] == cs("3s")
    assert new.private[1] == cs("8c")  # the replacement comes from the stock, face down
    assert new.stock == cs("2c")
    assert (new.phase, new.to_move) == (PHASE_DROP, 0)
    assert not new.quiet
    assert event_codes(step) == ["advantage.dropped", "advantage.drew", "advantage.drew_cards"]
    assert step.events[0].args == {"card": c("6h"), "pile": 1}
    assert step.events[2].only_seat == 1


def test_drop_with_empty_stock_draws_nothing() -> None:
    state = make(hands=("", "6h 2c"), piles=("5h", "9d", "Ks"))
    new = act(state, 1, "d6h0").state
    assert new.hand(1) == cs("2c") and new.stock == ()


def test_drop_stuck_draws_then_may_drop_the_drawn_card() -> None:
    state = make(hands=("", "2s 3c"), stock="Jc 7d", piles=("5h", "9d", "Kh"))
    assert codes(state, 1) == ["w"]
    assert refused(state, 1, Pass()) == "advantage.must_draw"
    step = act(state, 1, "w")
    new = step.state
    assert (new.phase, new.to_move, new.drawn) == (PHASE_DROP_DRAWN, 1, c("7d"))
    assert new.private[1] == cs("7d")
    assert codes(new, 1) == ["d7d0", "d7d1", "d7d2", "k"]
    assert refused(new, 1, Drop(c("2s"), 2)) == "advantage.not_drawn_card"
    assert refused(new, 1, Draw()) == "advantage.wrong_phase"
    assert refused(new, 1, Pass()) == "advantage.wrong_phase"
    dropped = act(new, 1, "d7d1").state
    assert dropped.piles[1] == cs("9d 7d")
    assert dropped.private[1] == cs("Jc")  # the replacement
    assert (dropped.phase, dropped.to_move, dropped.drawn) == (PHASE_DROP, 0, None)


def test_drop_stuck_may_keep_the_drawn_card() -> None:
    state = make(hands=("", "2s"), stock="Jc 7d", piles=("5h", "9d", "Kh"))
    kept = act(act(state, 1, "w").state, 1, "k")
    assert event_codes(kept) == ["advantage.kept"]
    assert kept.state.hand(1) == cs("2s 7d")
    assert kept.state.private[1] == cs("7d")
    assert kept.state.stock == cs("Jc")
    assert (kept.state.phase, kept.state.to_move) == (PHASE_DROP, 0)
    assert kept.state.quiet  # keeping is no drop


def test_drop_stuck_drawn_card_that_does_not_fit_ends_the_turn() -> None:
    state = make(hands=("", "2s"), stock="7d 3c", piles=("5h", "9d", "Kh"))
    step = act(state, 1, "w")
    assert event_codes(step) == ["advantage.drew", "advantage.drew_cards", "advantage.no_fit"]
    assert step.events[2].args == {"phase": PHASE_DROP}
    assert (step.state.phase, step.state.to_move) == (PHASE_DROP, 0)
    assert step.state.private[1] == cs("3c")


def test_drop_stuck_with_empty_stock_passes() -> None:
    state = make(hands=("", "2s"), piles=("5h", "9d", "Kh"))
    assert codes(state, 1) == ["s"]
    assert refused(state, 1, Draw()) == "advantage.stock_empty"
    step = act(state, 1, "s")
    assert event_codes(step) == ["advantage.passed"]
    assert (step.state.phase, step.state.to_move) == (PHASE_DROP, 0)


def test_after_both_drop_turns_the_exchange_phase_starts_with_the_non_dealer() -> None:
    state = make(hands=("2s", "3s"), piles=("5h", "9d", "Kh"), to_move=0)
    step = act(state, 0, "s")
    assert (step.state.phase, step.state.to_move) == (PHASE_EXCHANGE, 1)
    assert event_codes(step)[-1] == "advantage.exchange_started"


# -- exchange phase -------------------------------------------------------------------------


def test_exchange_takes_the_whole_pile_as_public_cards() -> None:
    state = make(
        hands=("", "4c"),
        private=("", "8s"),
        piles=("5h", "2d 7h Qs", "Kh"),
        phase=PHASE_EXCHANGE,
    )
    assert "x8s1" in codes(state, 1) and codes(state, 1)[-1] == "s"
    step = act(state, 1, "x8s1")
    new = step.state
    assert new.public[1] == cs("4c 2d 7h Qs")
    assert new.private[1] == ()  # the private card given is public now, on its own pile
    assert new.piles == (cs("5h"), cs("8s"), cs("Kh"))
    assert (new.phase, new.to_move) == (PHASE_EXCHANGE, 0)
    assert new.quiet  # an exchange is no drop
    assert step.events[0] == Event(
        "advantage.exchanged", 1, {"card": c("8s"), "pile": 1, "cards": cs("2d 7h Qs")}
    )
    other = R.view(new, 0).seats[1]
    assert other.public == cs("2d 4c 7h Qs") and other.private_count == 0


def test_exchange_may_pass() -> None:
    state = make(hands=("", "5c"), piles=("5h", "9d", "Kh"), phase=PHASE_EXCHANGE)
    assert codes(state, 1) == ["x5c0", "s"]
    assert refused(state, 1, Draw()) == "advantage.can_exchange"
    step = act(state, 1, "s")
    assert event_codes(step) == ["advantage.passed"]
    assert step.events[0].args == {"phase": PHASE_EXCHANGE}
    assert step.state.to_move == 0


def test_exchange_stuck_draws_then_may_exchange_the_drawn_card() -> None:
    state = make(hands=("", "2s"), stock="Jc 9s", piles=("5h", "9d", "Kh"), phase=PHASE_EXCHANGE)
    assert codes(state, 1) == ["w", "s"]
    new = act(state, 1, "w").state
    assert (new.phase, new.to_move, new.drawn) == (PHASE_EXCHANGE_DRAWN, 1, c("9s"))
    assert codes(new, 1) == ["x9s1", "s"]  # the same rank
    assert refused(new, 1, Draw()) == "advantage.wrong_phase"
    assert refused(new, 1, Keep()) == "advantage.wrong_phase"
    assert refused(new, 1, Exchange(c("9s"), 0)) == "advantage.no_match"
    swapped = act(new, 1, "x9s1").state
    assert swapped.public[1] == cs("2s 9d")
    assert swapped.piles[1] == cs("9s")
    passed = act(new, 1, "s").state
    assert passed.private[1] == cs("9s") and passed.to_move == 0


def test_exchange_stuck_drawn_card_that_does_not_fit_ends_the_turn() -> None:
    state = make(hands=("", "2s"), stock="9h 3c", piles=("5h", "9d", "Kh"), phase=PHASE_EXCHANGE)
    step = act(state, 1, "w")
    assert event_codes(step)[-1] == "advantage.no_fit"
    assert (step.state.phase, step.state.to_move) == (PHASE_EXCHANGE, 0)


def test_exchange_stuck_with_empty_stock_only_passes() -> None:
    state = make(hands=("", "2s"), piles=("5h", "9d", "Kh"), phase=PHASE_EXCHANGE)
    assert codes(state, 1) == ["s"]
    assert refused(state, 1, Draw()) == "advantage.stock_empty"


# -- pairs ----------------------------------------------------------------------------------


def test_pairs_are_laid_aside_with_two_draws_each_and_chains() -> None:
    # Seat 1 (the non-dealer) lays 7s 7h, draws 2c then 9s; 2c pairs with 2d, so it lays that
    # too and draws Kd then 4h. Then seat 0 lays its pair and draws the last two cards.
    state = make(
        hands=("Qs Qd", "7h 2d 7s"),
        piles=("5h", "9d", "Kh"),
        stock="Jc 3d 4h Kd 9s 2c",
        phase=PHASE_EXCHANGE,
        to_move=0,
    )
    step = act(state, 0, "s")
    new = step.state
    assert new.pairs[1] == cs("7s 7h 2d 2c")
    assert new.hand(1) == cs("9s Kd 4h")
    assert new.private[1] == cs("9s Kd 4h") and new.public[1] == ()
    assert new.pairs[0] == cs("Qs Qd")
    assert new.private[0] == cs("3d Jc")
    assert new.stock == ()
    assert (new.phase, new.to_move, new.cycle) == (PHASE_DROP, 1, 2)
    assert (new.last_cycle, new.quiet) == (1, True)  # a fresh cycle, begun with no stock
    pair_events = [e for e in step.events if e.code == "advantage.pair"]
    assert [(e.seat, e.args["rank"], e.args["cards"]) for e in pair_events] == [
        (1, 7, cs("7s 7h")),
        (1, 2, cs("2d 2c")),
        (0, 12, cs("Qs Qd")),
    ]
    assert R.view(new, None).seats[1].pairs == ((c("7s"), c("7h")), (c("2d"), c("2c")))


def test_three_of_a_kind_lays_one_pair_in_suit_order() -> None:
    state = make(hands=("", "7c 7d 7h"), phase=PHASE_EXCHANGE, to_move=0)
    new = act(state, 0, "s").state
    assert new.pairs[1] == cs("7h 7d")
    assert new.hand(1) == cs("7c")


def test_four_of_a_kind_lays_two_pairs() -> None:
    state = make(
        hands=("", "7c 7d 7h 7s 3c"), stock="2h 4h 5h 6h", phase=PHASE_EXCHANGE, to_move=0
    )
    step = act(state, 0, "s")
    assert step.state.pairs[1] == cs("7s 7h 7d 7c")
    assert step.state.hand(1) == cs("3c 6h 5h 4h 2h")
    assert step.state.pair_count(1) == 2


def test_pairs_with_a_short_stock_draw_what_is_left() -> None:
    state = make(hands=("", "7c 7d"), stock="2h", phase=PHASE_EXCHANGE, to_move=0)
    step = act(state, 0, "s")
    assert step.state.hand(1) == cs("2h")
    assert "advantage.stock_empty" in event_codes(step)


# -- end ------------------------------------------------------------------------------------


def end_of_cycle(**fields: Any) -> AdvantageState:
    """The dealer (seat 0) about to pass the last exchange turn of a cycle."""
    return make(
        hands=("2s", "3s"), piles=("5h", "9d", "Kh"), phase=PHASE_EXCHANGE, to_move=0, **fields
    )


def test_cycle_beginning_with_stock_empty_and_quiet_ends_the_game() -> None:
    step = act(end_of_cycle(last_cycle=2, quiet=True, pairs=("Qs Qd", "")), 0, "s")
    assert step.state.phase == PHASE_OVER and step.state.end_reason == "quiet"
    assert step.events[-1] == Event(
        "advantage.won", 0, {"pairs": 1, "other_pairs": 0, "reason": "quiet"}
    )
    assert R.acting_seats(step.state) == ()
    assert R.legal_actions(step.state, 0) == []
    assert R.next_deadline(step.state) is None
    assert refused(step.state, 0, Pass()) == "advantage.game_over"


def test_a_drop_or_a_pair_keeps_the_game_going() -> None:
    step = act(end_of_cycle(last_cycle=2, quiet=False), 0, "s")
    new = step.state
    assert (new.phase, new.cycle, new.last_cycle, new.quiet) == (PHASE_DROP, 2, 3, True)
    assert step.events[-1] == Event(
        "advantage.cycle_started", None, {"cycle": 2, "last_cycle": 3, "last_cycles": 6}
    )
    view = R.view(new, None)
    assert (view.last_cycle, view.last_cycles) == (3, 6)
    # A pair laid in the pairs phase counts too.
    paired = act(
        make(hands=("2s 2c", "3s"), phase=PHASE_EXCHANGE, to_move=0, last_cycle=1), 0, "s"
    )
    assert paired.state.phase == PHASE_DROP and paired.state.last_cycle == 2


def test_a_drop_in_the_cycle_counts_against_the_quiet_end() -> None:
    state = make(hands=("6h", "3s"), piles=("5h", "9d", "Kh"), to_move=0, last_cycle=1)
    assert state.quiet
    dropped = act(state, 0, "d6h0").state
    assert not dropped.quiet
    passed = act(act(dropped, 1, "s").state, 0, "s").state
    assert passed.phase == PHASE_DROP and passed.last_cycle == 2


def test_cycle_in_which_the_stock_runs_out_is_not_one_of_the_last_six() -> None:
    state = end_of_cycle(last_cycle=0, quiet=True)
    assert R.view(state, None).last_cycle is None
    new = act(state, 0, "s").state
    assert (new.phase, new.cycle, new.last_cycle) == (PHASE_DROP, 2, 1)
    assert R.view(new, None).last_cycle == 1


def test_cycle_with_stock_left_does_not_count() -> None:
    new = act(end_of_cycle(last_cycle=0, quiet=True, stock="4c"), 0, "s").state
    assert (new.phase, new.last_cycle) == (PHASE_DROP, 0)


def test_backstop_ends_the_game_after_the_sixth_last_cycle() -> None:
    step = act(end_of_cycle(last_cycle=6, quiet=False), 0, "s")
    assert step.state.phase == PHASE_OVER and step.state.end_reason == "backstop"
    assert step.events[-1] == Event("advantage.tied", None, {"pairs": 0, "reason": "backstop"})
    five = act(end_of_cycle(last_cycle=5, quiet=False), 0, "s").state
    assert five.phase == PHASE_DROP and five.last_cycle == 6


def test_most_pairs_wins_and_equal_is_a_draw() -> None:
    won = act(end_of_cycle(last_cycle=6, pairs=("", "2h 2d")), 0, "s").state
    assert won.winner() == 1 and R.view(won, None).winner == 1 and R.view(won, 0).finished
    outcome = R.outcome(won)
    assert outcome is not None
    assert outcome.places == (2, 1) and outcome.scores == (0.0, 1.0)
    tied = act(end_of_cycle(last_cycle=6, pairs=("4h 4d", "2h 2d")), 0, "s").state
    assert tied.winner() is None
    outcome = R.outcome(tied)
    assert outcome is not None and outcome.places == (1, 1)
    assert R.outcome(end_of_cycle()) is None


def test_the_loser_deals_the_rematch_and_a_draw_keeps_the_dealer() -> None:
    won = act(end_of_cycle(last_cycle=6, pairs=("", "2h 2d")), 0, "s").state
    assert R.rematch_options(won, {"strict_colours": True}) == {
        "strict_colours": True,
        DEALER: 0,
    }
    lost = act(end_of_cycle(last_cycle=6, pairs=("2h 2d", "")), 0, "s").state
    assert R.rematch_options(lost, {DEALER: 0})[DEALER] == 1
    tied = act(end_of_cycle(last_cycle=6, dealer=0), 0, "s").state
    assert R.rematch_options(tied, {DEALER: 0})[DEALER] == 0


# -- timeouts -------------------------------------------------------------------------------


def timed_out(state: AdvantageState) -> Step[AdvantageState]:
    step = R.on_deadline(state, Random(0), 500.0)
    assert step.events[0] == Event("advantage.timeout", state.to_move)
    return step


def test_timeout_drop_lowest_card_on_first_pile_that_takes_it() -> None:
    state = make(hands=("", "9s 3s Kd"), piles=("5h", "4s", "8c"), stock="2d")
    step = timed_out(state)
    assert step.events[1].code == "advantage.dropped"
    assert step.events[1].args == {"card": c("3s"), "pile": 1}
    assert step.state.opened == 500.0


def test_timeout_drop_stuck_draws_and_drops_the_drawn_card_if_it_fits() -> None:
    state = make(hands=("", "2s"), piles=("5h", "9d", "Kh"), stock="Jc 6d")
    step = timed_out(state)
    assert event_codes(step)[1:] == [
        "advantage.drew",
        "advantage.drew_cards",
        "advantage.dropped",
        "advantage.drew",
        "advantage.drew_cards",
        "advantage.stock_empty",
    ]
    assert step.state.piles[0] == cs("5h 6d")
    assert (step.state.phase, step.state.to_move) == (PHASE_DROP, 0)


def test_timeout_drop_stuck_keeps_a_drawn_card_that_does_not_fit() -> None:
    state = make(hands=("", "2s"), piles=("5h", "9d", "Kh"), stock="6d 3c")
    step = timed_out(state)
    assert event_codes(step)[-1] == "advantage.no_fit"
    assert step.state.hand(1) == cs("2s 3c") and step.state.to_move == 0


def test_timeout_after_a_manual_draw_drops_the_drawn_card() -> None:
    state = act(make(hands=("", "2s"), piles=("5h", "9d", "Kh"), stock="Jc 6d"), 1, "w").state
    step = timed_out(state)
    assert step.events[1].args == {"card": c("6d"), "pile": 0}


def test_timeout_drop_stuck_with_empty_stock_passes() -> None:
    step = timed_out(make(hands=("", "2s"), piles=("5h", "9d", "Kh")))
    assert event_codes(step)[1:] == ["advantage.passed"]


@pytest.mark.parametrize("phase", [PHASE_EXCHANGE, PHASE_EXCHANGE_DRAWN])
def test_timeout_exchange_passes(phase: str) -> None:
    state = make(hands=("", "5c"), piles=("5h", "9d", "Kh"), phase=phase)
    step = timed_out(state)
    assert event_codes(step)[1:] == ["advantage.passed"]
    assert step.state.public[1] == cs("5c")


def test_timeout_on_a_finished_game_does_nothing() -> None:
    over = act(end_of_cycle(last_cycle=6), 0, "s").state
    assert R.on_deadline(over, Random(0), 9.0) == Step(over)


# -- errors, codes, storage, views -----------------------------------------------------------


def test_refusals() -> None:
    state = make(hands=("", "6h 2s"), piles=("5h", "9d", "Kh"), stock="3c")
    assert refused(state, 0, Drop(c("6h"), 0)) == "advantage.not_your_turn"
    assert refused(state, 1, Drop(c("7h"), 0)) == "advantage.not_in_hand"
    assert refused(state, 1, Drop(c("2s"), 0)) == "advantage.no_match"
    assert refused(state, 1, Drop(c("6h"), 3)) == "advantage.bad_pile"
    assert refused(state, 1, Exchange(c("6h"), 0)) == "advantage.wrong_phase"
    assert refused(state, 1, Keep()) == "advantage.wrong_phase"
    swap = dataclasses.replace(state, phase=PHASE_EXCHANGE)
    assert refused(swap, 1, Drop(c("6h"), 0)) == "advantage.wrong_phase"
    assert refused(swap, 1, Exchange(c("2s"), 0)) == "advantage.no_match"
    assert refused(swap, 1, "nonsense") == "bad_action"
    assert set(ERROR_CODES) >= {
        "bad_action",
        "advantage.not_your_turn",
        "advantage.not_in_hand",
        "advantage.no_match",
        "advantage.bad_pile",
        "advantage.wrong_phase",
        "advantage.game_over",
        "advantage.must_drop",
        "advantage.must_draw",
        "advantage.can_exchange",
        "advantage.stock_empty",
        "advantage.not_drawn_card",
    }


def test_action_codes_round_trip() -> None:
    actions: list[Any] = [Draw(), Keep(), Pass()]
    actions += [Drop(x, p) for x in standard_deck() for p in range(3)]
    actions += [Exchange(x, p) for x in standard_deck() for p in range(3)]
    for action in actions:
        code = R.encode_action(action)
        assert len(code) <= 24 and code.isascii() and code.replace(".", "").isalnum()
        assert R.decode_action(code) == action
    assert R.encode_action(Drop(c("As"), 1)) == "dAs1"
    assert R.encode_action(Exchange(c("Th"), 2)) == "xTh2"


@pytest.mark.parametrize(
    "code", ["", "d", "dAs", "dAs3", "dAs9", "dXJ0", "dZz0", "q", "ww", "xAs-1", "dAs00", " w"]
)
def test_decode_garbage(code: str) -> None:
    with pytest.raises(IllegalAction) as info:
        R.decode_action(code)
    assert info.value.code == "bad_action"


def test_decode_never_crashes_on_random_strings() -> None:
    rng = Random(3)
    alphabet = "dxwksAKQJT98765432shdcX0123 -_."
    for _ in range(3000):
        code = "".join(rng.choice(alphabet) for _ in range(rng.randrange(6)))
        try:
            R.decode_action(code)
        except IllegalAction as error:
            assert error.code == "bad_action"


def test_dump_load_round_trip_of_a_hand_built_state() -> None:
    state = act(make(hands=("", "2s"), piles=("5h", "9d", "Kh"), stock="Jc 6d"), 1, "w").state
    data = R.dump(state)
    assert R.load(json.loads(json.dumps(data))) == state


def test_views_show_public_cards_and_only_count_private_ones() -> None:
    state = make(
        hands=("Qs", "4c"),
        private=("8h 2c", "9s"),
        piles=("5h", "2d 7h", "Kh"),
        stock="3c",
        pairs=("Jd Jh", ""),
    )
    public = R.view(state, None)
    assert isinstance(public, AdvantageView)
    assert public.seats[0].public == cs("Qs") and public.seats[0].private == ()
    assert public.seats[0].private_count == 2 and public.seats[0].hand_size == 3
    assert public.seats[0].pairs == ((c("Jd"), c("Jh")),)
    assert public.piles[1].cards == cs("2d 7h")
    assert (public.piles[1].top, public.piles[1].size) == (c("7h"), 2)
    assert (public.stock, public.phase, public.to_move, public.dealer) == (1, "drop", 1, 0)
    assert public.drawn is None and not public.finished and public.winner is None
    own = R.view(state, 0)
    assert own.seats[0].private == cs("2c 8h") and own.seats[1].private == ()
    assert R.view(state, 1) == dataclasses.replace(
        public,
        viewer=1,
        seats=(public.seats[0], dataclasses.replace(public.seats[1], private=cs("9s"))),
    )


def test_drawn_card_shows_only_in_the_owners_view() -> None:
    state = act(make(hands=("", "2s"), piles=("5h", "9d", "Kh"), stock="Jc 6d"), 1, "w").state
    assert R.view(state, 1).drawn == c("6d")
    assert R.view(state, 0).drawn is None and R.view(state, None).drawn is None
    assert c("6d") not in set(cards_in(R.view(state, 0)))


# -- playouts -------------------------------------------------------------------------------


_FIELD_NAMES: dict[type, tuple[str, ...]] = {}
# Cards are interned, so identity sets are exact and skip Card's slow Enum-based hash.
_DECK_IDS = frozenset(id(x) for x in standard_deck())


def cards_in(value: Any) -> list[Card]:
    """Every Card anywhere inside a view (walks dataclasses and tuples)."""
    found: list[Card] = []
    stack = [value]
    while stack:
        item = stack.pop()
        kind = type(item)
        if kind is Card:
            found.append(item)
        elif kind is tuple:
            stack.extend(item)
        else:
            names = _FIELD_NAMES.get(kind)
            if names is None:
                fields = dataclasses.fields(item) if dataclasses.is_dataclass(item) else ()
                names = _FIELD_NAMES[kind] = tuple(f.name for f in fields)
            for name in names:
                stack.append(getattr(item, name))
    return found


def check_invariants(state: AdvantageState) -> None:
    everything = [*state.stock, *state.hand(0), *state.hand(1), *state.pairs[0], *state.pairs[1]]
    for pile in state.piles:
        everything.extend(pile)
    assert len(everything) == 52 and {id(x) for x in everything} == _DECK_IDS
    assert len(state.piles) == 3 and all(state.piles)
    assert len(state.pairs[0]) % 2 == 0 and len(state.pairs[1]) % 2 == 0
    assert 0 <= state.last_cycle <= 6


def check_no_leak(state: AdvantageState) -> None:
    """Views hold public cards and the viewer's own private cards, nothing else."""
    public = {id(x) for x in state.public[0] + state.public[1] + state.pairs[0] + state.pairs[1]}
    for pile in state.piles:
        public.update(id(x) for x in pile)
    for seat in (None, 0, 1):
        view = R.view(state, seat)
        allowed = public | {id(x) for x in state.private[seat]} if seat is not None else public
        assert all(id(x) in allowed for x in cards_in(view)), seat
        for s in (0, 1):
            assert view.seats[s].private_count == len(state.private[s])
            if s != seat:
                assert view.seats[s].private == ()


def check_events(step: Step[AdvantageState]) -> None:
    """Events everybody sees name no card that is still hidden (stock or a private hand)."""
    state = step.state
    hidden = {id(x) for x in state.stock + state.private[0] + state.private[1]}
    for event in step.events:
        assert event.code in EVENT_CODES
        if event.only_seat is None:
            assert not any(id(x) in hidden for x in cards_in(tuple(event.args.values())))


def test_seeded_random_playouts() -> None:
    seen_events: Counter[str] = Counter()
    reasons: Counter[str | None] = Counter()
    for seed in range(2000):
        rng = Random(seed)
        options = {"strict_colours": seed % 3 == 0, DEALER: None if seed % 2 else seed % 4 // 2}
        state = R.new_game(2, options, rng, 0.0)
        check_invariants(state)
        now = 0.0
        steps = 0
        while not state.finished:
            steps += 1
            assert steps < 400, f"seed {seed} does not end"
            seat = state.to_move
            assert R.acting_seats(state) == (seat,)
            assert R.legal_actions(state, 1 - seat) == []
            legal = R.legal_actions(state, seat)
            assert legal
            now += 1.0
            if seed % 10 == 0:
                assert R.choose(state, seat, rng) in legal
            if rng.random() < 0.08:
                step = R.on_deadline(state, rng, now)
                assert step.events[0].code == "advantage.timeout"
            else:
                action = rng.choice(legal)
                assert R.decode_action(R.encode_action(action)) == action
                step = R.apply(state, seat, action, rng, now)
            check_events(step)
            seen_events.update(e.code for e in step.events)
            state = step.state
            check_invariants(state)
            if seed % 2 == 0 or steps % 5 == 0:  # every step of half the games, keeps it fast
                check_no_leak(state)
            if steps % 17 == 0:
                assert R.load(json.loads(json.dumps(R.dump(state)))) == state
        assert R.load(R.dump(state)) == state
        assert state.end_reason in ("quiet", "backstop")
        reasons[state.end_reason] += 1
        outcome = R.outcome(state)
        assert outcome is not None
        assert outcome.scores == (float(state.pair_count(0)), float(state.pair_count(1)))
    assert set(seen_events) == set(EVENT_CODES)
    assert reasons["quiet"] > 0 and reasons["backstop"] > 0


def test_computer_player_beats_a_random_player() -> None:
    results: Counter[str] = Counter()
    for seed in range(300):
        rng = Random(10_000 + seed)
        bot_seat = seed % 2
        state = R.new_game(2, {"strict_colours": seed % 3 == 0}, rng, 0.0)
        while not state.finished:
            seat = state.to_move
            if seat == bot_seat:
                action = R.choose(state, seat, rng)
                assert action in R.legal_actions(state, seat)
            else:
                action = rng.choice(R.legal_actions(state, seat))
            state = R.apply(state, seat, action, rng, 0.0).state
        winner = state.winner()
        results["tie" if winner is None else "bot" if winner == bot_seat else "random"] += 1
    assert results["bot"] >= 3 * results["random"], results


def test_computer_player_keeps_pairs_and_takes_useful_piles() -> None:
    # It must drop, and drops the 4c rather than break its pair of nines.
    state = make(hands=("", "9s 9c 4c"), piles=("5c", "8s", "Jc"), stock="2h")
    action = R.choose(state, 1, Random(0))
    assert isinstance(action, Drop) and action.card == c("4c")
    # It exchanges for the pile holding a queen when it holds a queen.
    swap = make(hands=("", "Qd 3c"), piles=("5h", "Qs 7c", "2h"), phase=PHASE_EXCHANGE)
    assert R.choose(swap, 1, Random(0)) == Exchange(c("3c"), 1)
    # It keeps a card drawn when stuck.
    drawn = act(make(hands=("", "2s"), piles=("5h", "9d", "Kh"), stock="Jc 6d"), 1, "w").state
    assert R.choose(drawn, 1, Random(0)) == Keep()
