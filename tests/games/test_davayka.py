"""Davay-ka! engine: every rule as a small case, then seeded random real-time playouts."""

from __future__ import annotations

import dataclasses
import json
from collections import Counter
from random import Random
from typing import Any

import pytest

from bot.games.cards import Card, parse_card, shuffled, standard_deck
from bot.games.davayka import (
    DAVAYKA,
    ERROR_CODES,
    EVENT_CODES,
    DavaykaState,
    Flip,
    Move,
    Play,
    Ready,
    fits,
    lay_out,
    make_state,
)
from bot.games.davayka.rules import MAX_ROUNDS, STALL_SECONDS
from bot.games.engine import Event, IllegalAction, Outcome, Step

# --- helpers ----------------------------------------------------------------------------------


def cs(text: str) -> tuple[Card, ...]:
    """Cards from space-separated codes, e.g. ``cs("As Kh")``."""
    return tuple(parse_card(code) for code in text.split())


def c(code: str) -> Card:
    return parse_card(code)


def row(*piles: str) -> tuple[tuple[Card, ...], ...]:
    """A row from piles given bottom → top, e.g. ``row("2c 9h", "", "Kd")``."""
    return tuple(cs(p) for p in piles)


def codes(events: tuple[Event, ...]) -> list[str]:
    return [e.code for e in events]


def event(events: tuple[Event, ...], code: str) -> Event:
    found = [e for e in events if e.code == code]
    assert len(found) == 1, (code, events)
    return found[0]


def apply(state: DavaykaState, seat: int, action: Any, now: float = 1.0) -> Step[DavaykaState]:
    return DAVAYKA.apply(state, seat, action, Random(0), now)


def refused(state: DavaykaState, seat: int, action: Any, now: float = 1.0) -> str:
    with pytest.raises(IllegalAction) as info:
        apply(state, seat, action, now)
    return info.value.code


def all_cards(state: DavaykaState) -> list[Card]:
    cards = [x for r in state.rows for pile in r for x in pile]
    cards += [x for stock in state.stocks for x in stock]
    cards += [x for pile in state.centres for x in pile]
    return cards


_FIELD_NAMES: dict[type, tuple[str, ...]] = {}


def _collect_cards(value: Any, out: list[Card]) -> None:
    kind = type(value)
    if kind is Card:
        out.append(value)
    elif kind is tuple or kind is list:
        for item in value:
            _collect_cards(item, out)
    else:
        names = _FIELD_NAMES.get(kind)
        if names is None:
            is_data = dataclasses.is_dataclass(value) and not isinstance(value, type)
            names = tuple(f.name for f in dataclasses.fields(value)) if is_data else ()
            _FIELD_NAMES[kind] = names
        for name in names:
            _collect_cards(getattr(value, name), out)


def walk_cards(value: Any) -> list[Card]:
    """Every Card object inside a (nested) view."""
    out: list[Card] = []
    _collect_cards(value, out)
    return out


def face_down(state: DavaykaState) -> list[Card]:
    hidden = [x for r in state.rows for pile in r for x in pile[:-1]]
    return hidden + [x for stock in state.stocks for x in stock]


# --- deal and layout --------------------------------------------------------------------------


def test_new_game_deals_26_each_in_a_4_3_2_1_row_with_16_stock() -> None:
    state = DAVAYKA.new_game(2, {}, Random(7), 100.0)
    deck = shuffled(standard_deck(), Random(7))
    for seat in (0, 1):
        hand = deck[seat::2]
        assert [len(p) for p in state.rows[seat]] == [4, 3, 2, 1]
        assert len(state.stocks[seat]) == 16
        # Pass by pass from the top: pile 4 gets the 4th card, pile 1 the 1st, 5th, 8th, 10th.
        assert state.rows[seat][3] == (hand[3],)
        assert state.rows[seat][0] == (hand[0], hand[4], hand[7], hand[9])
        assert state.stocks[seat] == tuple(hand[10:])
    assert Counter(all_cards(state)) == Counter(standard_deck())
    assert state.phase == "ready" and state.centres == ()
    assert DAVAYKA.next_deadline(state) == 105.0
    view = DAVAYKA.view(state, None)
    assert view.deadline_kind == "countdown" and view.phase_deadline == 105.0
    assert [p.hidden for p in view.seats[0].piles] == [3, 2, 1, 0]
    assert DAVAYKA.acting_seats(state) == (0, 1)
    assert DAVAYKA.legal_actions(state, 0) == [Ready()]


@pytest.mark.parametrize(
    ("count", "sizes", "stock"),
    [(26, [4, 3, 2, 1], 16), (11, [4, 3, 2, 1], 1), (10, [4, 3, 2, 1], 0), (7, [2, 2, 2, 1], 0),
     (5, [2, 1, 1, 1], 0), (4, [1, 1, 1, 1], 0), (1, [1, 0, 0, 0], 0)],
)  # fmt: skip
def test_lay_out_pass_by_pass_stops_when_cards_run_out(
    count: int, sizes: list[int], stock: int
) -> None:
    cards = standard_deck()[:count]
    layout, rest = lay_out(cards)
    assert [len(p) for p in layout] == sizes
    assert len(rest) == stock
    if count == 5:
        # One card on each of piles 1–4, then the fifth on pile 1.
        assert layout == ((cards[0], cards[4]), (cards[1],), (cards[2],), (cards[3],))


def test_options_are_read_and_turn_seconds_is_ignored() -> None:
    options = {"countdown": 3, "idle_seconds": 5, "forfeit_seconds": 60, "turn_seconds": 7}
    state = DAVAYKA.new_game(2, options, Random(1), 0.0)
    assert (state.countdown, state.idle_seconds, state.forfeit_seconds) == (3.0, 5.0, 60.0)
    assert DAVAYKA.next_deadline(state) == 3.0
    default = DAVAYKA.new_game(2, {"idle_seconds": "x", "countdown": -1}, Random(1), 0.0)
    assert (default.countdown, default.idle_seconds, default.forfeit_seconds) == (5, 10, 120)
    assert [o.key for o in DAVAYKA.options] == ["countdown", "idle_seconds", "forfeit_seconds"]
    assert "turn_seconds" not in [o.key for o in DAVAYKA.options]


def test_only_two_players() -> None:
    assert (DAVAYKA.min_players, DAVAYKA.max_players) == (2, 2)
    with pytest.raises(ValueError):
        DAVAYKA.new_game(3, {}, Random(1), 0.0)


# --- start ----------------------------------------------------------------------------------


def test_both_ready_starts_round_each_flipping_onto_his_own_centre_pile() -> None:
    state = DAVAYKA.new_game(2, {}, Random(3), 0.0)
    stocks = state.stocks
    step = apply(state, 0, Ready(), 1.0)
    assert codes(step.events) == ["davayka.ready"]
    assert step.state.phase == "ready" and step.state.pressed == (True, False)
    assert refused(step.state, 0, Ready()) == "davayka.already_pressed"
    assert DAVAYKA.legal_actions(step.state, 0) == []
    assert DAVAYKA.acting_seats(step.state) == (1,)
    step = apply(step.state, 1, Ready(), 2.0)
    state = step.state
    assert codes(step.events)[:3] == ["davayka.ready", "davayka.go", "davayka.flipped"]
    assert state.centres == ((stocks[0][0],), (stocks[1][0],))
    assert state.centre_owners == (0, 1)
    assert state.stocks == (stocks[0][1:], stocks[1][1:])
    flips = [e for e in step.events if e.code == "davayka.flipped"]
    assert [(e.seat, e.args["card"], e.args["centre"]) for e in flips] == [
        (0, stocks[0][0], 0),
        (1, stocks[1][0], 1),
    ]
    assert state.phase in ("play", "stall")


def test_countdown_starts_the_round_with_a_timeout_for_who_was_not_ready() -> None:
    state = apply(DAVAYKA.new_game(2, {}, Random(3), 0.0), 0, Ready(), 1.0).state
    assert DAVAYKA.on_deadline(state, Random(0), 4.9) == Step(state, ())
    step = DAVAYKA.on_deadline(state, Random(0), 5.0)
    assert codes(step.events)[:2] == ["davayka.timeout", "davayka.go"]
    assert step.events[0].seat == 1 and step.events[0].args == {"kind": "countdown"}
    assert len(step.state.centres) == 2
    assert refused(step.state, 1, Ready()) == "davayka.too_late"


# --- play -----------------------------------------------------------------------------------


def play_state(**kwargs: Any) -> DavaykaState:
    """Seat 0: 9♥ on pile 1 over two face-down cards, K♣ on pile 2; seat 1: 7♦, 2♠.
    Centres: 8♠ (seat 0's), A♥ (seat 1's)."""
    defaults: dict[str, Any] = {
        "rows": [row("3c 4c 9h", "Kc"), row("7d", "", "2s")],
        "stocks": [cs("5h 5d"), cs("6h 6d")],
        "centres": [cs("8s"), cs("Ah")],
    }
    defaults.update(kwargs)
    return make_state(**defaults)


def test_both_players_may_move_at_once() -> None:
    state = play_state()
    assert DAVAYKA.acting_seats(state) == (0, 1)
    assert DAVAYKA.legal_actions(state, 0) == [Play(0, 0, 1), Play(1, 1, 1)]
    assert DAVAYKA.legal_actions(state, 1) == [Play(0, 0, 1), Play(2, 1, 1)]
    # Either order works: the second press is judged on the state it meets.
    after = apply(state, 1, Move(2, c("2s"), 1)).state
    after = apply(after, 0, Move(0, c("9h"), 0)).state
    assert after.centres == (cs("8s 9h"), cs("Ah 2s"))


@pytest.mark.parametrize(
    ("card", "onto", "expected"),
    [("Kc", "Ah", True), ("2c", "Ah", True), ("Ac", "Kh", True), ("Ac", "2h", True),
     ("Tc", "9h", True), ("8c", "9h", True), ("Qc", "Ah", False), ("3c", "Ah", False),
     ("Ac", "Ah", False), ("Jc", "9h", False), ("Ac", "Qh", False), ("Kc", "2h", False)],
)  # fmt: skip
def test_one_rank_up_or_down_with_ace_wrapping_to_king_and_two(
    card: str, onto: str, expected: bool
) -> None:
    assert fits(c(card), c(onto)) is expected


def test_wraps_work_on_either_centre_pile() -> None:
    state = make_state(
        rows=[row("Kc", "2d", "Ah", "5s"), row("9c")],
        stocks=[cs("7h"), cs("7d")],
        centres=[cs("Ad"), cs("Kd 2s")],
    )
    assert DAVAYKA.legal_actions(state, 0) == [Play(0, 0, 1), Play(1, 0, 1), Play(2, 1, 1)]
    # A king fitting both piles is offered twice: the player picks the centre.
    state = make_state(
        rows=[row("Kc", "2d", "Ah", "7s"), row("9c")],
        stocks=[cs("7h"), cs("7d")],
        centres=[cs("Qs"), cs("As")],
    )
    assert DAVAYKA.legal_actions(state, 0) == [Play(0, 0, 1), Play(0, 1, 1), Play(1, 1, 1)]
    state = apply(state, 0, Move(1, c("2d"), 1)).state
    state = apply(state, 0, Move(0, c("Kc"), 0)).state
    state = apply(state, 0, Move(2, c("Ah"), 0)).state  # the ace onto the king
    assert state.centres == (cs("Qs Kc Ah"), cs("As 2d"))


def test_a_move_uncovers_and_turns_up_the_next_card() -> None:
    state = play_state()
    step = apply(state, 0, Move(0, c("9h"), 0), 4.0)
    assert codes(step.events) == ["davayka.played", "davayka.turned_up"]
    played, turned = step.events
    assert played.seat == 0 and played.args == {
        "card": c("9h"),
        "pile": 0,
        "centre": 0,
        "auto": 0,
    }
    assert turned.args == {"card": c("4c"), "pile": 0}
    pile = DAVAYKA.view(step.state, 1).seats[0].piles[0]
    assert (pile.top, pile.hidden) == (c("4c"), 1)
    assert step.state.last_move is not None and step.state.last_move.card == c("9h")
    assert step.state.last_press == (4.0, 0.0)


# --- stall -----------------------------------------------------------------------------------


def stall_state(**kwargs: Any) -> DavaykaState:
    """Nobody can move (rows 9♥/K♣ and 7♦/J♠ against 4♠ and 4♥); next flips 5♦ and Q♣."""
    defaults: dict[str, Any] = {
        "rows": [row("2c 9h", "Kc"), row("7d", "", "Js")],
        "stocks": [cs("5d 2h"), cs("Qc 2d")],
        "centres": [cs("4s"), cs("4h")],
        "phase": "stall",
        "opened": 10.0,
    }
    defaults.update(kwargs)
    return make_state(**defaults)


def test_stall_opens_a_window_when_nobody_can_move() -> None:
    state = make_state(
        rows=[row("2c 9h", "3h"), row("7d", "", "Js")],
        stocks=[cs("5d"), cs("Qc")],
        centres=[cs("4s"), cs("4h")],
    )
    step = apply(state, 0, Move(1, c("3h"), 0), 20.0)
    assert codes(step.events) == ["davayka.played", "davayka.stall"]
    assert step.state.phase == "stall"
    assert DAVAYKA.next_deadline(step.state) == 20.0 + STALL_SECONDS
    assert DAVAYKA.view(step.state, None).deadline_kind == "stall"
    assert DAVAYKA.legal_actions(step.state, 0) == [Flip()]
    assert DAVAYKA.legal_actions(step.state, 1) == [Flip()]


def test_stall_both_pressing_flips_at_once_onto_own_piles() -> None:
    state = stall_state()
    step = apply(state, 1, Flip(), 11.0)
    assert codes(step.events) == ["davayka.flip_pressed"]
    assert step.state.phase == "stall" and step.state.pressed == (False, True)
    assert refused(step.state, 1, Flip()) == "davayka.already_pressed"
    step = apply(step.state, 0, Flip(), 11.5)
    assert codes(step.events) == ["davayka.flip_pressed", "davayka.flipped", "davayka.flipped"]
    assert step.state.centres == (cs("4s 5d"), cs("4h Qc"))
    assert step.state.stocks == (cs("2h"), cs("2d"))
    # K♣ fits Q♣ now: play goes on and the idle windows open at the flip.
    assert step.state.phase == "play"
    assert step.state.idle_since == (11.5, 11.5)


def test_stall_window_closing_flips_with_timeout_for_who_did_not_press() -> None:
    state = apply(stall_state(), 0, Flip(), 11.0).state
    assert DAVAYKA.on_deadline(state, Random(0), 12.9).events == ()
    step = DAVAYKA.on_deadline(state, Random(0), 13.0)
    assert codes(step.events)[:3] == ["davayka.timeout", "davayka.flipped", "davayka.flipped"]
    assert step.events[0].seat == 1 and step.events[0].args == {"kind": "stall"}
    assert step.state.centres == (cs("4s 5d"), cs("4h Qc"))
    assert refused(step.state, 0, Flip()) == "davayka.too_late"


def test_stall_repeats_until_someone_can_move() -> None:
    state = stall_state(stocks=[cs("5d Qh"), cs("3c Qd")])
    step = DAVAYKA.on_deadline(state, Random(0), 13.0)
    # 5♦ and 3♣ help nobody: a new window opens at the flip.
    assert step.state.phase == "stall" and step.state.opened == 13.0
    assert codes(step.events)[-1] == "davayka.stall"
    step = DAVAYKA.on_deadline(step.state, Random(0), 16.0)
    assert step.state.phase == "play"
    assert step.state.centres == (cs("4s 5d Qh"), cs("4h 3c Qd"))


def test_empty_stock_recycles_own_centre_pile_turned_over_bottom_first() -> None:
    state = stall_state(stocks=[(), cs("Qc")], centres=[cs("3s 5c 4s"), cs("4h")])
    step = apply(apply(state, 0, Flip()).state, 1, Flip())
    recycled = event(step.events, "davayka.recycled")
    assert recycled.seat == 0 and recycled.args == {"count": 3, "centre": 0}
    # The pile's bottom card (3♠) is flipped first; the rest follows in the same order.
    assert step.state.centres == (cs("3s"), cs("4h Qc"))
    assert step.state.stocks == (cs("5c 4s"), ())
    assert step.state.recycles == (1, 0)


def test_second_consecutive_recycle_is_shuffled() -> None:
    pile = cs("3s 5c 4s 6c 7c 8c")
    state = stall_state(stocks=[(), cs("Qc")], centres=[pile, cs("4h")], recycles=(1, 0))
    step = DAVAYKA.on_deadline(state, Random(5), 13.0)
    expected = shuffled(pile, Random(5))
    assert expected != list(pile)
    reshuffled = event(step.events, "davayka.reshuffled")
    assert reshuffled.seat == 0 and reshuffled.args == {"count": 6, "centre": 0}
    assert "davayka.recycled" not in codes(step.events)
    assert step.state.centres[0] == (expected[0],)
    assert step.state.stocks[0] == tuple(expected[1:])
    assert step.state.recycles == (2, 0)


def test_a_row_card_played_resets_the_recycle_counters() -> None:
    state = play_state(recycles=(2, 1))
    assert apply(state, 1, Move(0, c("7d"), 0)).state.recycles == (0, 0)


def stuck_state(rows: list[Any], recycles: tuple[int, int] = (2, 2), **kwargs: Any) -> Any:
    return stall_state(
        rows=rows, stocks=[(), ()], centres=[cs("4s 5d"), cs("4h Qd")], recycles=recycles, **kwargs
    )


def test_three_recycles_each_end_the_round_fewer_row_cards_wins() -> None:
    state = stuck_state([row("9h"), row("7d", "", "Js 8h")])
    step = DAVAYKA.on_deadline(state, Random(2), 13.0)
    won = event(step.events, "davayka.round_won")
    assert won.seat == 0 and won.args == {"round": 1, "reason": "stuck", "taken": 5}
    after = step.state
    assert after.phase == "ready" and after.round_no == 2 and after.rounds_won == (1, 0)
    # Winner: his stock (one card after the flip) and his row; loser: both centres + his row.
    mine = [x for p in after.rows[0] for x in p] + list(after.stocks[0])
    theirs = [x for p in after.rows[1] for x in p] + list(after.stocks[1])
    assert len(mine) == 2 and c("9h") in mine
    assert Counter(mine + theirs) == Counter(all_cards(state))
    assert {c("7d"), c("Js"), c("8h")} <= set(theirs)


def test_the_round_needs_every_stock_recycled_three_times() -> None:
    state = stuck_state([row("9h"), row("7d", "", "Js 8h")], recycles=(2, 0))
    step = DAVAYKA.on_deadline(state, Random(2), 13.0)
    assert step.state.round_no == 1 and step.state.recycles == (3, 1)
    assert step.state.phase in ("play", "stall")


def test_three_recycles_with_equal_rows_is_a_drawn_round_each_keeps_his_own() -> None:
    state = stuck_state([row("9h", "Tc"), row("7d", "", "2s")])
    step = DAVAYKA.on_deadline(state, Random(2), 13.0)
    assert event(step.events, "davayka.round_drawn").args == {"round": 1}
    after = step.state
    assert after.rounds_won == (0, 0) and after.round_no == 2 and after.phase == "ready"
    mine = {x for p in after.rows[0] for x in p} | set(after.stocks[0])
    theirs = {x for p in after.rows[1] for x in p} | set(after.stocks[1])
    assert mine == set(cs("9h Tc 4s 5d")) and theirs == set(cs("7d 2s 4h Qd"))


# --- round end, next layout, one centre pile --------------------------------------------------


def test_out_ends_the_round_winner_keeps_stock_loser_takes_centres_and_row() -> None:
    state = make_state(
        rows=[row("9h"), row("2c 7d", "", "Js")],
        stocks=[cs("2h 3h 4h 5h 6h"), cs("Tc Td Th")],
        centres=[cs("Ks 8s"), cs("Ah")],
    )
    step = apply(state, 0, Move(0, c("9h"), 0), 30.0)
    assert codes(step.events) == [
        "davayka.played",
        "davayka.out",
        "davayka.round_won",
        "davayka.laid_out",
    ]
    assert event(step.events, "davayka.round_won").args == {
        "round": 1,
        "reason": "out",
        "taken": 7,
    }
    after = step.state
    assert after.rounds_won == (1, 0) and after.round_no == 2 and after.phase == "ready"
    # The winner lays out his five stock cards: piles of 2, 1, 1, 1 and no stock.
    assert after.rows[0] == (cs("2h 6h"), cs("3h"), cs("4h"), cs("5h"))
    assert after.stocks[0] == ()
    # The loser's cards: his stock, then both centre piles, then his row (each bottom first).
    loser = cs("Tc Td Th Ks 8s 9h Ah 2c 7d Js")
    assert after.rows[1] == lay_out(loser)[0] and after.stocks[1] == ()
    assert after.centres == () and DAVAYKA.next_deadline(after) == 35.0


def test_player_without_stock_means_one_centre_pile_owned_by_the_other() -> None:
    small, rest = standard_deck()[:5], standard_deck()[5:]
    row0, stock0 = lay_out(small)
    row1, stock1 = lay_out(rest)
    state = make_state(rows=[row0, row1], stocks=[stock0, stock1], phase="ready")
    step = DAVAYKA.on_deadline(state, Random(0), 5.0)
    after = step.state
    assert after.centres == ((stock1[0],),) and after.centre_owners == (1,)
    view = DAVAYKA.view(after, 0)
    assert len(view.centres) == 1 and view.centres[0].owner == 1
    assert [e.seat for e in step.events if e.code == "davayka.flipped"] == [1]


def test_one_centre_pile_both_play_on_it_and_only_the_stock_holder_flips() -> None:
    state = make_state(
        rows=[row("9h", "Kc"), row("Td", "3c")],
        stocks=[(), cs("5s 6s")],
        centres=[cs("8s")],
    )
    assert state.centre_owners == (1,)
    assert DAVAYKA.legal_actions(state, 0) == [Play(0, 0, 1)]
    assert refused(state, 0, Move(1, c("Kc"), 1)) == "davayka.too_late"
    assert refused(state, 0, Play(1, 1, 1)) == "davayka.too_late"  # K♣ fits nowhere
    state = apply(state, 0, Move(0, c("9h"), 0)).state
    state = apply(state, 1, Move(0, c("Td"), 0), 2.0).state
    assert state.centres == (cs("8s 9h Td"),) and state.phase == "stall"
    step = DAVAYKA.on_deadline(state, Random(0), 5.0)
    assert [(e.seat, e.args["card"]) for e in step.events if e.code == "davayka.flipped"] == [
        (1, c("5s"))
    ]
    assert step.state.centres == (cs("8s 9h Td 5s"),)
    assert step.state.stocks == ((), cs("6s"))


def test_one_centre_pile_stall_and_recycle_by_the_stock_holder() -> None:
    state = make_state(
        rows=[row("9h", "Kc"), row("2c")],
        stocks=[(), ()],
        centres=[cs("4s 5s")],
        centre_owners=(1,),
        phase="stall",
        opened=0.0,
    )
    step = DAVAYKA.on_deadline(state, Random(0), 3.0)
    assert [e.seat for e in step.events if e.code == "davayka.flipped"] == [1]
    assert event(step.events, "davayka.recycled").seat == 1
    assert step.state.centres == (cs("4s"),) and step.state.stocks == ((), cs("5s"))
    assert step.state.recycles == (0, 1)
    # Only the stock holder's recycles count: three of his end the round.
    stuck = dataclasses.replace(state, recycles=(0, 2))
    step = DAVAYKA.on_deadline(stuck, Random(0), 3.0)
    won = event(step.events, "davayka.round_won")
    # One row card against two: the stock holder wins; seat 0 takes the pile and his row.
    assert won.seat == 1 and won.args == {"round": 1, "reason": "stuck", "taken": 3}


# --- end of the game -----------------------------------------------------------------------


def test_winning_the_round_with_no_stock_wins_the_game() -> None:
    state = make_state(
        rows=[row("9h"), row("2c 7d", "", "Js")],
        stocks=[(), cs("Tc Td Th")],
        centres=[cs("8s")],
    )
    step = apply(state, 0, Move(0, c("9h"), 0), 40.0)
    assert codes(step.events)[-1] == "davayka.game_won"
    assert step.events[-1].seat == 0 and step.events[-1].args == {"reason": "cards"}
    after = step.state
    assert after.phase == "over" and after.winner == 0
    assert DAVAYKA.outcome(after) == Outcome((1, 2))
    assert DAVAYKA.next_deadline(after) is None
    assert DAVAYKA.acting_seats(after) == ()
    assert DAVAYKA.legal_actions(after, 1) == []
    assert refused(after, 1, Ready()) == "davayka.game_over"
    view = DAVAYKA.view(after, None)
    assert view.finished and view.winner == 0 and view.end_reason == "cards"
    assert view.seats[0].cards == 0 and view.seats[1].cards == 8
    assert DAVAYKA.on_deadline(after, Random(0), 10_000.0) == Step(after, ())


def test_after_round_30_fewer_cards_in_all_wins() -> None:
    state = make_state(
        rows=[row("9h"), row("2c 7d", "", "Js")],
        stocks=[cs("2h 3h"), cs("Tc Td Th")],
        centres=[cs("8s")],
        round_no=MAX_ROUNDS,
    )
    step = apply(state, 0, Move(0, c("9h"), 0))
    assert step.state.phase == "over" and step.state.winner == 0
    assert step.events[-1].args == {"reason": "rounds"}
    assert DAVAYKA.view(step.state, None).end_reason == "rounds"
    # Before round 30 the same move simply leads to the next round.
    earlier = apply(dataclasses.replace(state, round_no=MAX_ROUNDS - 1), 0, Move(0, c("9h"), 0))
    assert earlier.state.phase == "ready" and earlier.state.round_no == MAX_ROUNDS


def test_after_round_30_equal_cards_is_a_draw_and_drawn_rounds_count() -> None:
    state = stuck_state([row("9h"), row("7d")], round_no=MAX_ROUNDS)
    step = DAVAYKA.on_deadline(state, Random(0), 13.0)
    assert codes(step.events)[-2:] == ["davayka.round_drawn", "davayka.game_drawn"]
    assert step.events[-1].args == {"reason": "rounds"}
    assert step.state.winner is None and DAVAYKA.outcome(step.state) == Outcome((1, 1))


# --- too late versus illegal --------------------------------------------------------------------


def test_pressing_an_already_played_card_again_is_too_late() -> None:
    state = apply(play_state(), 0, Move(0, c("9h"), 0)).state
    assert refused(state, 0, Move(0, c("9h"), 0)) == "davayka.too_late"
    assert refused(state, 0, Move(0, c("9h"), 1)) == "davayka.too_late"


def test_the_other_player_being_faster_is_too_late() -> None:
    # Both 9♥ (seat 0) and 7♦ (seat 1) fit the 8♠; seat 1's 7♦ lands first.
    state = apply(play_state(), 1, Move(0, c("7d"), 0)).state
    assert refused(state, 0, Move(0, c("9h"), 0)) == "davayka.too_late"
    # A one-second-old panel is judged on its merits: K♣ onto A♥ still fits.
    assert apply(state, 0, Move(1, c("Kc"), 1)).state.centres[1] == cs("Ah Kc")


def test_moves_no_panel_could_offer_are_illegal() -> None:
    state = play_state()
    assert refused(state, 0, Move(0, c("4c"), 0)) == "davayka.illegal"  # face down
    assert refused(state, 0, Move(0, c("Kc"), 1)) == "davayka.illegal"  # another pile
    assert refused(state, 0, Move(0, c("7d"), 0)) == "davayka.illegal"  # opponent's card
    assert refused(state, 0, Move(2, c("2s"), 1)) == "davayka.illegal"
    assert refused(state, 2, Move(0, c("9h"), 0)) == "davayka.illegal"  # no such seat
    assert refused(state, 0, Move(5, c("9h"), 0)) == "davayka.illegal"
    assert refused(state, 0, Move(0, c("9h"), 2)) == "davayka.illegal"
    assert refused(state, 0, "nonsense") == "davayka.illegal"


def test_a_card_played_and_recycled_since_is_still_too_late() -> None:
    state = stall_state(stocks=[cs("5d 9d"), cs("Qc")])
    assert refused(state, 0, Move(0, c("5d"), 0)) == "davayka.too_late"


def test_stale_presses_out_of_their_phase_are_too_late() -> None:
    stall = stall_state()
    # A Move from a panel drawn before the stall began: the card still tops its pile.
    assert refused(stall, 0, Move(0, c("9h"), 0)) == "davayka.too_late"
    play = play_state()
    assert refused(play, 0, Flip()) == "davayka.too_late"
    assert refused(play, 0, Ready()) == "davayka.too_late"
    ready = DAVAYKA.new_game(2, {}, Random(1), 0.0)
    top = ready.rows[0][3][-1]
    assert refused(ready, 0, Move(3, top, 0)) == "davayka.too_late"
    assert refused(ready, 0, Flip()) == "davayka.too_late"


# --- the idle window (autopilot) and the forfeit ------------------------------------------------


def idle_state(**kwargs: Any) -> DavaykaState:
    """Seat 0: pile 1 (5♣) fits nothing, pile 2 (Q♦) fits only centre 1, pile 3 (9♥) centre 0.
    Seat 1: 7♦ fits centre 0, J♣ nothing yet."""
    defaults: dict[str, Any] = {
        "rows": [row("5c", "2c Qd", "9h"), row("7d", "Jc")],
        "stocks": [cs("5h"), cs("6h")],
        "centres": [cs("8s"), cs("Kh")],
    }
    defaults.update(kwargs)
    return make_state(**defaults)


def test_idle_autopilot_plays_leftmost_fitting_pile_onto_first_fitting_centre() -> None:
    state = idle_state()
    state = apply(state, 1, Move(0, c("7d"), 0), 3.0).state
    # Seat 1 moved at 3 s; seat 0 has been idle since 0 s with moves available.
    assert state.idle_since == (0.0, 3.0)
    assert DAVAYKA.next_deadline(state) == 10.0
    assert DAVAYKA.view(state, None).deadline_kind == "idle"
    assert DAVAYKA.on_deadline(state, Random(0), 9.9).events == ()
    step = DAVAYKA.on_deadline(state, Random(0), 10.0)
    assert codes(step.events)[:2] == ["davayka.timeout", "davayka.played"]
    assert step.events[0].seat == 0 and step.events[0].args == {"kind": "idle"}
    played = step.events[1]
    assert played.seat == 0 and played.args["card"] == c("Qd") and played.args["centre"] == 1
    assert played.args["auto"] == 1
    assert step.state.last_move is not None and step.state.last_move.auto
    # Only seat 0 was idle; an autopilot move is no press: his forfeit clock keeps running.
    # His idle window reopens; seat 1's opens as the Q♦ gives his J♣ a move.
    assert step.state.phase == "play" and step.state.idle_since == (10.0, 10.0)
    # Seat 1 had nothing to press from his move at 3 s until the Q♦ at 10 s: his clock
    # stood still meanwhile, so it counts as if he had pressed at 10 s.
    assert step.state.last_press == (0.0, 10.0)
    # Seat 0 has nothing to press now (2♣, 5♣, 9♥ against 7♦ and Q♦): his clock stands still.
    assert step.state.paused == (10.0, None)


def test_idle_autopilot_plays_for_each_idle_player_in_seat_order() -> None:
    step = DAVAYKA.on_deadline(idle_state(), Random(0), 10.0)
    moves = [(e.seat, e.args["card"]) for e in step.events if e.code == "davayka.played"]
    # Seat 0 first (Q♦ onto K♥), then seat 1's leftmost fitting pile (7♦ onto 8♠).
    assert moves == [(0, c("Qd")), (1, c("7d"))]


def test_no_autopilot_for_a_player_without_a_move() -> None:
    state = idle_state(rows=[row("5c"), row("7d", "Jc")])
    assert [v.idle_at for v in DAVAYKA.view(state, None).seats] == [None, 10.0]
    step = DAVAYKA.on_deadline(state, Random(0), 10.0)
    assert [e.seat for e in step.events if e.code == "davayka.played"] == [1]


def test_the_idle_window_opens_when_a_player_gets_a_move() -> None:
    # Seat 1's J♣ fits nothing until seat 0 plays Q♦ onto K♥ at 8 s.
    state = idle_state(rows=[row("5c", "2c Qd"), row("Jc")], centres=[cs("8s"), cs("Kh")])
    assert DAVAYKA.legal_actions(state, 1) == []
    state = apply(state, 0, Move(1, c("Qd"), 1), 8.0).state
    assert DAVAYKA.legal_actions(state, 1) == [Play(0, 1, 1)]
    assert state.idle_since == (8.0, 8.0)
    assert DAVAYKA.next_deadline(state) == 18.0


def test_forfeit_after_pressing_nothing_for_the_forfeit_window() -> None:
    state = stall_state(last_press=(0.0, 50.0), opened=200.0)
    assert DAVAYKA.next_deadline(state) == 120.0
    assert DAVAYKA.view(state, 1).deadline_kind == "forfeit"
    assert DAVAYKA.on_deadline(state, Random(0), 119.9).events == ()
    step = DAVAYKA.on_deadline(state, Random(0), 120.0)
    assert codes(step.events) == ["davayka.timeout", "davayka.forfeited", "davayka.game_won"]
    assert step.events[0].args == {"kind": "forfeit"} and step.events[1].seat == 0
    assert step.events[2].seat == 1 and step.events[2].args == {"reason": "forfeit"}
    assert step.state.winner == 1 and DAVAYKA.outcome(step.state) == Outcome((2, 1))
    # Cards stay where they were: nothing is lost.
    assert Counter(all_cards(step.state)) == Counter(all_cards(state))


def test_any_accepted_press_resets_the_forfeit_clock() -> None:
    state = stall_state(last_press=(0.0, 0.0), opened=100.0)
    state = apply(state, 0, Flip(), 101.0).state
    step = DAVAYKA.on_deadline(state, Random(0), 120.0)
    assert step.state.winner == 0 and step.events[-1].seat == 0
    assert refused(state, 0, Flip()) == "davayka.already_pressed"


def test_both_forfeiting_at_once_is_a_draw() -> None:
    # A stall window nobody presses in, both clocks started at 0 s (and the window is long
    # past: the flip is not what is due first).
    state = stall_state(last_press=(0.0, 0.0), opened=200.0)
    step = DAVAYKA.on_deadline(state, Random(0), 120.0)
    assert step.state.phase == "over" and step.state.winner is None
    assert step.state.end_reason == "forfeit"
    assert codes(step.events)[-1] == "davayka.game_drawn"


def test_late_pollers_resolve_in_order() -> None:
    start = DAVAYKA.new_game(2, {}, Random(9), 0.0)
    # Nobody presses anything: countdown, flips, autopilot moves … then a forfeit.
    before = DAVAYKA.on_deadline(start, Random(4), 119.99).state
    assert before.phase != "over"
    late = DAVAYKA.on_deadline(start, Random(4), 500.0)
    assert late.state.phase == "over" and late.state.end_reason == "forfeit"
    assert "davayka.forfeited" in codes(late.events)
    assert "davayka.played" in codes(late.events) and "davayka.go" in codes(late.events)
    # A punctual poller (every 0.25 s) reaches exactly the same state and events.
    state, rng, now = start, Random(4), 0.0
    events: list[Event] = []
    while state.phase != "over":
        now += 0.25
        step = DAVAYKA.on_deadline(state, rng, now)
        state, events = step.state, events + list(step.events)
    assert state == late.state and tuple(events) == late.events


def test_next_deadline_is_the_earliest_pending_one() -> None:
    state = idle_state(idle_since=(4.0, 2.0), last_press=(0.0, -100.0))
    assert DAVAYKA.next_deadline(state) == 12.0
    view = DAVAYKA.view(state, None)
    assert (view.deadline, view.deadline_kind) == (12.0, "idle")
    assert [s.idle_at for s in view.seats] == [14.0, 12.0]
    assert [s.forfeit_at for s in view.seats] == [120.0, 20.0]
    state = dataclasses.replace(state, last_press=(0.0, -115.0))
    assert DAVAYKA.view(state, None).deadline_kind == "forfeit"


# --- the computer player, codecs, dump/load, view --------------------------------------------


def test_computer_presses_ready_and_flip_and_prefers_uncovering_moves() -> None:
    assert DAVAYKA.choose(DAVAYKA.new_game(2, {}, Random(1), 0.0), 0, Random(0)) == Ready()
    assert DAVAYKA.choose(stall_state(), 1, Random(0)) == Flip()
    state = make_state(
        rows=[row("9h", "2c 3c 7h"), row("5c")],
        stocks=[cs("5h"), cs("6h")],
        centres=[cs("8s"), cs("Kh")],
    )
    for seed in range(10):
        assert DAVAYKA.choose(state, 0, Random(seed)) == Play(1, 0, 1)
    with pytest.raises(IllegalAction):
        DAVAYKA.choose(state, 1, Random(0))


def test_action_codes_round_trip_and_garbage_is_bad_action() -> None:
    state = play_state()
    actions = [Ready(), Flip(), *DAVAYKA.legal_actions(state, 0), Move(3, c("Ts"), 1)]
    for action in actions:
        code = DAVAYKA.encode_action(action)
        assert len(code) <= 24 and code.isascii() and code.isalnum()
        assert DAVAYKA.decode_action(code) == action
    assert DAVAYKA.encode_action(Move(2, c("Ts"), 0)) == "m2Ts0"
    garbage = ["", "m", "R", "ff", "m4As0", "m0As2", "m0XJ0", "mAAs0", "m0As0x", "m0as0"]
    garbage += ["m-1As0", "\x00", "m0Ts01", "r ", "m0Zs0", "mmmmm", "m0T\u00e90", "1" * 200]
    rng = Random(11)
    alphabet = "mrf0123456789TJQKAshdcX -_.\u00e9"
    garbage += [
        "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 7))) for _ in range(500)
    ]
    for text in garbage:
        try:
            action = DAVAYKA.decode_action(text)
        except IllegalAction as error:
            assert error.code == "bad_action"
        else:
            assert DAVAYKA.encode_action(action) == text


def test_dump_load_round_trips_through_json() -> None:
    states = [
        DAVAYKA.new_game(2, {}, Random(1), 12.5),
        play_state(recycles=(1, 2)),
        apply(play_state(), 0, Move(0, c("9h"), 0)).state,
        stall_state(pressed=(True, False)),
        make_state(rows=[row("9h"), row("Td")], stocks=[(), cs("5s")], centres=[cs("8s")]),
        DAVAYKA.on_deadline(DAVAYKA.new_game(2, {}, Random(9), 0.0), Random(4), 500.0).state,
    ]
    for state in states:
        data = json.loads(json.dumps(DAVAYKA.dump(state)))
        assert DAVAYKA.load(data) == state


def test_rematch_keeps_the_options() -> None:
    state = DAVAYKA.new_game(2, {}, Random(1), 0.0)
    options = {"idle_seconds": 5, "forfeit_seconds": 60}
    assert DAVAYKA.rematch_options(state, options) == options


def test_views_hold_no_face_down_card_and_are_the_same_for_everyone() -> None:
    state = play_state()
    public = DAVAYKA.view(state, None)
    assert set(walk_cards(public)) == set(cs("9h Kc 7d 2s 8s Ah"))
    assert dataclasses.replace(DAVAYKA.view(state, 0), seat=None) == public
    seat = public.seats[0]
    assert (seat.row_cards, seat.stock, seat.cards, seat.can_move) == (4, 2, 6, True)
    assert public.centres[1].top == c("Ah") and public.centres[1].owner == 1


# --- random playouts --------------------------------------------------------------------------

FULL_DECK = Counter(standard_deck())
MAX_STEPS = 20_000


def _playout(seed: int) -> tuple[int, set[str], set[str]]:
    """One seeded game of random presses interleaved with polled deadlines.

    Modes: both random; seat 0 is the computer player; seat 0 is away (only the deadlines act
    for him: autopilot, then forfeit); a slow poller with long gaps. Stale presses from older
    panels are mixed in: within a round they are accepted or "too late", never "illegal".
    """
    rng = Random(seed)
    mode = seed % 4
    options = {
        "countdown": rng.choice((3, 5, 10)),
        "idle_seconds": rng.choice((5, 10, 20)),
        "forfeit_seconds": rng.choice((60, 120, 300)),
    }
    now = float(rng.randint(0, 10**6))
    state = DAVAYKA.new_game(2, options, rng, now)
    gap = 20.0 if mode == 3 else 3.0
    seen_events: set[str] = set()
    seen_errors: set[str] = set()
    panels: list[tuple[int, int, Any]] = []  # (round, seat, action) offered earlier
    steps = 0
    while state.phase != "over":
        steps += 1
        assert steps < MAX_STEPS, f"seed {seed} does not end"
        seats = [s for s in DAVAYKA.acting_seats(state) if mode != 2 or s == 1]
        roll = rng.random()
        if roll < 0.1 or not seats:
            deadline = DAVAYKA.next_deadline(state)
            assert deadline is not None
            now = max(now + rng.uniform(0, gap), deadline if not seats else now)
            step = DAVAYKA.on_deadline(state, rng, now)
            for e in step.events:
                assert e.code != "davayka.timeout" or e.seat is not None
        elif roll < 0.14 and panels:
            round_no, seat, action = panels[rng.randrange(len(panels))]
            now += rng.uniform(0, 0.5)
            try:
                step = DAVAYKA.apply(state, seat, action, rng, now)
            except IllegalAction as error:
                seen_errors.add(error.code)
                if round_no == state.round_no and isinstance(action, Move):
                    assert error.code == "davayka.too_late", (seed, action, state)
                continue
        else:
            seat = rng.choice(seats)
            legal = DAVAYKA.legal_actions(state, seat)
            assert legal
            for action in legal:
                assert DAVAYKA.decode_action(DAVAYKA.encode_action(action)) == action
            if mode == 1 and seat == 0:
                action = DAVAYKA.choose(state, seat, rng)
                assert action in legal
            else:
                action = rng.choice(legal)
            panels.append((state.round_no, seat, action))
            del panels[:-12]
            now += rng.uniform(0, 0.5)
            step = DAVAYKA.apply(state, seat, action, rng, now)
        state = step.state
        seen_events.update(e.code for e in step.events)
        # Conservation after every step (a cheap count), the exact deck now and then.
        total = sum(map(len, state.stocks)) + sum(map(len, state.centres))
        total += sum(len(p) for r in state.rows for p in r)
        assert total == 52
        if steps % 25 == 0 or state.phase == "over":
            assert Counter(all_cards(state)) == FULL_DECK
            assert DAVAYKA.load(json.loads(json.dumps(DAVAYKA.dump(state)))) == state
        if steps % 2 == 0:
            # Cards are interned: identity sets are exact and much cheaper than hashing.
            # The seats' views differ from the public one only in ``seat``: walk them less.
            hidden = {id(x) for x in face_down(state)}
            for viewer in (None, 0, 1) if steps % 10 == 0 else (None,):
                shown = walk_cards(DAVAYKA.view(state, viewer))
                assert not any(id(x) in hidden for x in shown), (seed, viewer, state)
    assert DAVAYKA.outcome(state) is not None
    assert DAVAYKA.next_deadline(state) is None
    return steps, seen_events, seen_errors


def test_two_thousand_random_playouts_end_conserve_cards_and_leak_nothing() -> None:
    events: set[str] = set()
    errors: set[str] = set()
    lengths = []
    for seed in range(2000):
        steps, seen_events, seen_errors = _playout(seed)
        events |= seen_events
        errors |= seen_errors
        lengths.append(steps)
    assert events <= set(EVENT_CODES)
    assert errors <= set(ERROR_CODES)
    # The playouts reach the interesting corners, not just the happy path.
    assert {"davayka.reshuffled", "davayka.forfeited", "davayka.timeout"} <= events
    assert "davayka.too_late" in errors
    assert max(lengths) < MAX_STEPS


# --- a press names a pile (issue #19) ----------------------------------------------------------


def test_a_pile_press_plays_its_top_card_wherever_it_fits_when_it_arrives() -> None:
    # Seat 0 saw 9♥ fit the left 8♠; seat 1 was faster: the left is now 7♦. Still "my pile
    # 1" — the 9♥ — and it fits nowhere now: too late, nothing changes.
    state = play_state()
    faster = apply(state, 1, Play(0, 0, 1), 1.0).state
    assert refused(faster, 0, Play(0, 0, 1)) == "davayka.too_late"
    # The K♣ was shown fitting the right A♥; when the right has become a 2♠ it is too late,
    # but with a Q on the left it goes there instead: the press means the pile, not a pair.
    state = play_state(centres=[cs("Qd"), cs("Ah")])
    moved = apply(state, 1, Play(2, 1, 1), 1.0).state  # the 2♠ onto the A♥
    step = apply(moved, 0, Play(1, 1, 1), 2.0)
    played = [e for e in step.events if e.code == "davayka.played"]
    assert [(e.args["card"], e.args["centre"]) for e in played] == [(c("Kc"), 0)]


def test_a_pile_pressed_again_plays_the_card_uncovered_since() -> None:
    # Pile 1 holds 3♣ 4♣ 9♥ (9♥ on top); the centres 8♠ and 5♥ take the 9♥ and then the 4♣.
    state = play_state(centres=[cs("8s"), cs("5h")])
    state = apply(state, 0, Play(0, 0, 1), 1.0).state
    # The answer said "pile 1 now shows 4♣"; he taps the same place again, the panel not yet
    # redrawn: the 4♣ is played.
    step = apply(state, 0, Play(0, 0, 1), 1.7)
    played = [e for e in step.events if e.code == "davayka.played"]
    assert [(e.args["card"], e.args["centre"]) for e in played] == [(c("4c"), 1)]


def test_a_card_that_fits_both_goes_where_asked_else_left() -> None:
    both = make_state(
        rows=[row("Kc", "2d"), row("9c")],
        stocks=[cs("7h"), cs("7d")],
        centres=[cs("Qs"), cs("As")],
    )
    for asked, onto in ((1, 1), (0, 0), (None, 0)):
        step = apply(both, 0, Play(0, asked, 1), 1.0)
        assert step.state.centres[onto][-1] == c("Kc"), asked


def test_a_press_from_an_earlier_round_is_too_late_never_illegal() -> None:
    state = play_state(round_no=3)
    assert refused(state, 0, Play(0, 0, 2)) == "davayka.too_late"
    assert refused(state, 0, Play(0, 0, 1)) == "davayka.too_late"
    with pytest.raises(IllegalAction, match=r"davayka\.illegal"):
        apply(state, 0, Play(0, 0, 4), 1.0)
    # During the next round's countdown a pile pressed on the new panel: not yet.
    ready = play_state(round_no=3, phase="ready", centres=[])
    assert refused(ready, 0, Play(0, 0, 3)) == "davayka.not_yet"
    assert refused(ready, 0, Play(0, 0, 2)) == "davayka.too_late"


def test_the_issue_reproduction_a_second_tap_arriving_next_round_is_too_late() -> None:
    """Seat 1's panel offers two moves; he taps both; the first ends the round ("Аут");
    both press Ready; the second tap arrives in round 2: too late, not illegal."""
    state = make_state(
        rows=[row("2c 3c", "5c"), row("Jh")],
        stocks=[cs("5h 6h 7h 8h 9h Th"), cs("2d 3d 4d 5d 6d 7d 8d 9d")],
        centres=[cs("Qs"), cs("Ts")],
    )
    offered = DAVAYKA.legal_actions(state, 1)
    assert offered == [Play(0, 0, 1), Play(0, 1, 1)]
    state = apply(state, 1, offered[0], 1.0).state
    assert state.phase == "ready" and state.round_no == 2
    state = apply(state, 0, Ready(), 2.0).state
    state = apply(state, 1, Ready(), 2.5).state
    assert state.phase == "play"
    assert refused(state, 1, offered[1]) == "davayka.too_late"


def test_play_codes_round_trip() -> None:
    for action in (Play(0, 0, 1), Play(3, 1, 30), Play(2, None, 12)):
        code = DAVAYKA.encode_action(action)
        assert code.isascii() and code.isalnum() and len(code) <= 5
        assert DAVAYKA.decode_action(code) == action
    assert DAVAYKA.encode_action(Play(2, None, 7)) == "p2x7"
    for garbage in ("p4x1", "p2y1", "p2x0", "p2x01", "p2x100", "p2x", "p", "p21a"):
        with pytest.raises(IllegalAction):
            DAVAYKA.decode_action(garbage)


# --- the forfeit clock counts only time in which the player could act (issue #19) --------------


def test_waiting_for_the_other_player_never_forfeits() -> None:
    """idle 20 s, forfeit 60 s: seat 1 has no move; seat 0 moves once and walks away. The
    autopilot plays for seat 0 while it can; seat 0 is the one who forfeits, never seat 1."""
    state = make_state(
        rows=[row("2c 3c 4c 9h", "Ts", "Jd"), row("5c", "5d")],
        stocks=[cs("Ks Kd Kh"), cs("Qs Qd Qh")],
        centres=[cs("8s"), cs("8h")],
        idle_seconds=20.0,
        forfeit_seconds=60.0,
    )
    assert DAVAYKA.legal_actions(state, 1) == []
    state = apply(state, 0, Play(0, 0, 1), 1.0).state
    seats = DAVAYKA.view(state, None).seats
    assert seats[1].forfeit_at is None, "seat 1 has nothing to press: his clock stands still"
    step = DAVAYKA.on_deadline(state, Random(0), 1000.0)
    assert step.state.phase == "over" and step.state.end_reason == "forfeit"
    assert step.state.winner == 1, codes(step.events)


def test_the_clock_stands_still_after_ready_until_the_round_starts() -> None:
    start = DAVAYKA.new_game(2, {"countdown": 10}, Random(3), 0.0)
    state = apply(start, 0, Ready(), 1.0).state
    assert state.paused == (1.0, None)
    assert [s.forfeit_at for s in DAVAYKA.view(state, None).seats] == [None, 120.0]
    state = apply(state, 1, Ready(), 9.0).state  # the round starts at 9 s
    for seat in (0, 1):
        if DAVAYKA.legal_actions(state, seat):
            assert DAVAYKA.view(state, None).seats[seat].forfeit_at == 9.0 + 120.0


def test_a_state_saved_before_the_clock_could_stop_loads_running() -> None:
    data = DAVAYKA.dump(play_state())
    del data["paused"]
    assert DAVAYKA.load(data).paused == (None, None)
