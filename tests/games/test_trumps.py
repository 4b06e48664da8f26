"""Tests of the Your Trumps engine: every rule as a small case, then seeded random playouts."""

from __future__ import annotations

import dataclasses
import json
from collections import Counter
from collections.abc import Iterable
from random import Random
from typing import Any

import pytest

from bot.games.cards import Card, Suit, parse_card, standard_deck
from bot.games.engine import DEALER, TURN_SECONDS, Event, IllegalAction, Outcome
from bot.games.trumps import (
    ERROR_CODES,
    EVENT_CODES,
    TRUMPS,
    ChooseTrump,
    PlayCard,
    Take,
    TrumpsAction,
    TrumpsState,
    TrumpsView,
)
from bot.games.trumps.state import MAX_MOVES

S, H, D, C = Suit.SPADES, Suit.HEARTS, Suit.DIAMONDS, Suit.CLUBS
NOW = 1000.0


def cs(text: str) -> tuple[Card, ...]:
    return tuple(parse_card(code) for code in text.split())


def c1(code: str) -> Card:
    return parse_card(code)


def state(
    hand0: str,
    hand1: str,
    trumps: tuple[Suit, Suit] = (S, H),
    *,
    pile: str = "",
    phase: str = "beat_or_take",
    to_move: int = 0,
    moves: int = 0,
) -> TrumpsState:
    return TrumpsState.from_hands(
        (cs(hand0), cs(hand1)),
        trumps,
        pile=cs(pile),
        phase=phase,
        to_move=to_move,
        moves=moves,
        opened=NOW,
    )


def act(st: TrumpsState, code: str, seat: int | None = None) -> tuple[TrumpsState, list[Event]]:
    mover = st.to_move if seat is None else seat
    assert mover is not None
    step = TRUMPS.apply(st, mover, TRUMPS.decode_action(code), Random(0), NOW + 1)
    return step.state, list(step.events)


def codes_of(actions: Iterable[TrumpsAction]) -> list[str]:
    return [TRUMPS.encode_action(a) for a in actions]


def refused(st: TrumpsState, code: str, seat: int | None = None) -> str:
    with pytest.raises(IllegalAction) as info:
        act(st, code, seat)
    return info.value.code


# -- set-up, trumps and the deal -----------------------------------------------------------


def test_module_constants() -> None:
    assert TRUMPS.key == "trumps"
    assert (TRUMPS.min_players, TRUMPS.max_players) == (2, 2)
    assert [(o.key, o.choices, o.default) for o in TRUMPS.options] == [
        ("deck52", (False, True), False)
    ]
    assert len(set(EVENT_CODES)) == len(EVENT_CODES)
    assert all(c.startswith("trumps.") for c in EVENT_CODES)
    assert "bad_action" in ERROR_CODES


@pytest.mark.parametrize(("deck52", "size"), [(False, 36), (True, 52)])
def test_deck_and_full_deal(deck52: bool, size: int) -> None:
    st = TRUMPS.new_game(2, {"deck52": deck52, DEALER: 1}, Random(3), NOW)
    assert st.phase == "choose_trump" and st.to_move == 1 and st.dealer == 1
    assert st.hands == ((), ()) and len(st.stock) == size
    low = 2 if deck52 else 6
    assert Counter(st.stock) == Counter(standard_deck(low_rank=low))
    st, events = act(st, "td")
    assert st.to_move == 0 and st.trumps == (None, D) and st.hands == ((), ())
    st, events = act(st, "ts")
    assert st.trumps == (S, D)
    assert [len(h) for h in st.hands] == [size // 2, size // 2]
    assert st.stock == () and st.phase == "lead" and st.to_move == 0  # non-dealer leads
    assert [e.code for e in events] == ["trumps.trump_chosen", "trumps.dealt"]
    assert events[0].args == {"suit": "s"} and events[0].seat == 0
    assert events[1].args == {"count": size // 2} and events[1].seat == 1


def test_dealer_by_lot_and_from_options() -> None:
    dealers = {TRUMPS.new_game(2, {}, Random(seed), NOW).dealer for seed in range(20)}
    assert dealers == {0, 1}
    assert TRUMPS.new_game(2, {DEALER: 0}, Random(1), NOW).dealer == 0
    assert TRUMPS.new_game(2, {DEALER: None}, Random(1), NOW).dealer in (0, 1)
    with pytest.raises(ValueError):
        TRUMPS.new_game(3, {}, Random(1), NOW)


def test_trump_choice_dealer_first_then_only_free_suits() -> None:
    st = TRUMPS.new_game(2, {DEALER: 0}, Random(1), NOW)
    assert TRUMPS.legal_actions(st, 1) == []
    assert refused(st, "th", seat=1) == "trumps.not_your_turn"
    assert codes_of(TRUMPS.legal_actions(st, 0)) == ["ts", "th", "td", "tc"]
    st, _ = act(st, "th")
    assert codes_of(TRUMPS.legal_actions(st, 1)) == ["ts", "td", "tc"]
    assert refused(st, "th") == "trumps.suit_taken"
    assert refused(st, "pAs") == "trumps.wrong_phase"
    assert refused(st, "k") == "trumps.wrong_phase"


def test_hands_are_hidden_until_both_trumps_are_chosen() -> None:
    st = TRUMPS.new_game(2, {DEALER: 0}, Random(1), NOW)
    for seat in (None, 0, 1):
        v = TRUMPS.view(st, seat)
        assert v.hand == () and v.hand_sizes == (0, 0) and v.trumps == (None, None)
        assert v.phase == "choose_trump" and v.to_move == 0


# -- leading and beating ---------------------------------------------------------------------


def test_lead_any_card_then_the_other_faces_it() -> None:
    st = state("6c Ks", "7c 8c", phase="lead")
    assert codes_of(TRUMPS.legal_actions(st, 0)) == ["pKs", "p6c"]
    assert refused(st, "k") == "trumps.wrong_phase"
    assert refused(st, "pAh") == "trumps.not_in_hand"
    st, events = act(st, "pKs")
    assert [(e.code, e.seat, dict(e.args)) for e in events] == [
        ("trumps.led", 0, {"card": c1("Ks")})
    ]
    assert st.phase == "beat_or_take" and st.to_move == 1 and st.pile == cs("Ks")
    assert st.moves == 1


@pytest.mark.parametrize(
    ("top", "card", "ok"),
    [
        ("9c", "Tc", True),  # higher card of the suit
        ("9c", "8c", False),  # lower card of the suit
        ("9c", "Ad", False),  # another plain suit, however high
        ("Ac", "6s", True),  # any own trump beats a card that is not my trump
        ("Ah", "6s", True),  # ... also the opponent's trump (his trump is nothing special)
        ("9h", "Th", True),  # the opponent's trump is beaten by a higher card of its suit
        ("9h", "8h", False),
        ("9s", "Ts", True),  # my own trump: only a higher own trump
        ("9s", "8s", False),
        ("9s", "Ah", False),  # the opponent's trump does not beat my trump on my move
        ("9s", "Ac", False),
    ],
)
def test_what_beats_what(top: str, card: str, ok: bool) -> None:
    # Seat 0's trump is spades, seat 1's hearts; seat 0 faces ``top``.
    st = state(f"{card} 7d", "6d 7c", pile=top)
    legal = codes_of(TRUMPS.legal_actions(st, 0))
    assert (f"p{card}" in legal) is ok
    assert legal[-1] == "k"
    if ok:
        st2, events = act(st, f"p{card}")
        assert events[0].code == "trumps.beat"
        assert events[0].args == {"card": c1(card), "cards": (c1(top),)}
        assert st2.phase == "second" and st2.to_move == 0
    else:
        assert refused(st, f"p{card}") == "trumps.cannot_beat"


def test_only_my_own_trump_is_special_on_my_move() -> None:
    # Seat 1 (trump hearts) faces a spade, seat 0's trump: a heart beats it, for seat 1.
    st = state("6d 7d", "6h 9c", pile="As", to_move=1)
    assert codes_of(TRUMPS.legal_actions(st, 1)) == ["p6h", "k"]


def test_second_card_is_compulsory_and_any_card() -> None:
    st = state("Tc 6s Ah", "6d 7c", pile="9c")
    st, _ = act(st, "pTc")
    assert st.phase == "second" and st.to_move == 0
    assert refused(st, "k") == "trumps.wrong_phase"
    assert codes_of(TRUMPS.legal_actions(st, 0)) == ["p6s", "pAh"]
    st, events = act(st, "pAh")
    assert [(e.code, dict(e.args)) for e in events] == [("trumps.second", {"card": c1("Ah")})]
    assert st.phase == "beat_or_take" and st.to_move == 1 and st.pile == cs("9c Tc Ah")
    assert TRUMPS.view(st, None).facing == c1("Ah")
    assert st.moves == 2


def test_beating_with_the_last_card_wins_without_a_second_card() -> None:
    st = state("Tc", "6d 7c", pile="9c")
    st, events = act(st, "pTc")
    assert st.phase == "over" and st.winner == 0 and not st.drawn
    assert st.end_reason == "out" and st.to_move is None
    assert [e.code for e in events] == ["trumps.beat", "trumps.won"]
    assert events[1].seat == 0 and events[1].args == {"reason": "out"}
    assert TRUMPS.outcome(st) == Outcome((1, 2))


def test_not_your_turn_and_game_over() -> None:
    st = state("Tc 6d", "6h 7c", pile="9c")
    assert TRUMPS.legal_actions(st, 1) == []
    assert refused(st, "k", seat=1) == "trumps.not_your_turn"
    over, _ = act(state("Tc", "6d", pile="9c"), "pTc")
    assert TRUMPS.legal_actions(over, 0) == [] and TRUMPS.acting_seats(over) == ()
    assert refused(over, "k", seat=0) == "trumps.game_over"
    with pytest.raises(IllegalAction) as info:
        TRUMPS.on_deadline(over, Random(0), NOW)
    assert info.value.code == "trumps.game_over"
    assert TRUMPS.next_deadline(over) is None


# -- taking ------------------------------------------------------------------------------


PILES = "6d 7d 8d 9d Td Jd"


@pytest.mark.parametrize("size", [1, 2, 3, 4, 5, 6])
@pytest.mark.parametrize(
    ("top", "rule"),
    [
        ("Qc", "plain"),  # a plain suit: 3
        ("Qh", "plain"),  # the opponent's trump is not mine: 3
        ("Ah", "plain"),  # ... even its ace
        ("Qs", "own"),  # my own trump but not its ace: 5
        ("As", "all"),  # the ace of my own trump: the whole pile
    ],
)
def test_take_counts(size: int, top: str, rule: str) -> None:
    pile = cs(PILES)[: size - 1] + cs(top)
    st = TrumpsState.from_hands((cs("6c"), cs("7c 8c")), (S, H), pile=pile, phase="beat_or_take")
    expected = {"plain": min(3, size), "own": min(5, size), "all": size}[rule]
    assert TRUMPS.view(st, 0).take_count == expected
    assert TRUMPS.view(st, None).take_count == expected
    st2, events = act(st, "k")
    assert events == [
        Event(
            "trumps.took_pile" if expected > 5 else "trumps.took",
            0,
            {"count": expected, "cards": pile[size - expected :]},
        )
    ]
    assert len(st2.hands[0]) == 1 + expected and len(st2.pile) == size - expected
    assert set(pile[size - expected :]) <= set(st2.hands[0])
    assert st2.to_move == 1 and st2.moves == 1


def test_take_then_the_other_faces_the_newly_exposed_card() -> None:
    # Seat 1 faces 7s (not his trump): he takes Ts 8c 7s; seat 0 now faces his own 9c.
    st = state("6c Kd", "Ad Qh", pile="6h 9c Ts 8c 7s", to_move=1)
    st, _ = act(st, "k")
    assert st.phase == "beat_or_take" and st.to_move == 0 and st.pile == cs("6h 9c")
    v = TRUMPS.view(st, 0)
    assert v.facing == c1("9c") and v.take_count == 2
    assert st.hands[1] == cs("7s Ts Qh Ad 8c")  # sorted by suit ♠ ♥ ♦ ♣, then rank
    # Facing his own card he may beat it (no higher club: only his trump would) or take.
    assert codes_of(TRUMPS.legal_actions(st, 0)) == ["k"]


def test_taking_the_whole_pile_then_the_other_leads() -> None:
    st = state("6c Kd", "Ad Qh", pile="9c Ts 7s", to_move=1)
    st, _ = act(st, "k")
    assert st.pile == () and st.phase == "lead" and st.to_move == 0
    v = TRUMPS.view(st, None)
    assert v.facing is None and v.take_count == 0 and v.pile_top == ()
    assert codes_of(TRUMPS.legal_actions(st, 0)) == ["pKd", "p6c"]


def test_ace_of_own_trump_takes_the_whole_pile() -> None:
    st = state("6c Kd", "Ad Qh", pile="6d 7d 8d 9d Td Jd Qd Ah", to_move=1)
    assert codes_of(TRUMPS.legal_actions(st, 1)) == ["k"]  # nothing beats the ace
    st, events = act(st, "k")
    assert events[0].args["count"] == 8 and st.pile == () and st.phase == "lead"


# -- the end, the draw rule and the backstop ----------------------------------------------


def test_leading_the_last_card_wins() -> None:
    st = state("6c", "Ad Qh", phase="lead")
    st, events = act(st, "p6c")
    assert st.winner == 0 and st.end_reason == "out"
    assert [e.code for e in events] == ["trumps.led", "trumps.won"]


def test_draw_rule_after_a_lead() -> None:
    # Seat 1 holds one card, a heart (his trump), which beats the club: drawn.
    st = state("6c", "6h", phase="lead")
    st, events = act(st, "p6c")
    assert st.phase == "over" and st.winner is None and st.drawn
    assert st.end_reason == "draw_rule"
    assert events[-1] == Event("trumps.drawn", None, {"reason": "draw_rule", "card": c1("6h")})
    assert TRUMPS.outcome(st) == Outcome((1, 1))
    v = TRUMPS.view(st, None)
    assert v.finished and v.drawn and v.winner is None and v.end_reason == "draw_rule"


def test_draw_rule_after_a_beat_with_the_last_card() -> None:
    st = state("Tc", "Jc", pile="9c")
    st, events = act(st, "pTc")
    assert st.drawn and st.end_reason == "draw_rule"
    assert [e.code for e in events] == ["trumps.beat", "trumps.drawn"]


def test_draw_rule_after_a_second_card() -> None:
    st = state("Tc 7d", "8d", pile="9c")
    st, _ = act(st, "pTc")
    st, events = act(st, "p7d")
    assert st.drawn and st.end_reason == "draw_rule"
    assert [e.code for e in events] == ["trumps.second", "trumps.drawn"]


@pytest.mark.parametrize(
    ("last", "other", "why"),
    [
        ("7d", "6d", "lower card of the suit"),
        ("7d", "Ac", "another plain suit"),
        ("7h", "As", "the last card is his trump: only a higher heart would beat it"),
        ("7d", "8d 9d", "he holds two cards"),
    ],
)
def test_draw_rule_does_not_apply(last: str, other: str, why: str) -> None:
    st = state(f"Tc {last}", other, pile="9c")
    st, _ = act(st, "pTc")
    st, _ = act(st, f"p{last}")
    assert st.winner == 0 and st.end_reason == "out", why


def test_draw_rule_is_judged_by_the_other_players_trump() -> None:
    # Seat 0 lays a spade (his own trump); seat 1's single low heart (his trump) beats it.
    st = state("Ts", "6h", phase="lead")
    st, _ = act(st, "pTs")
    assert st.drawn


def test_backstop_fewer_cards_wins() -> None:
    st = state("6c 7c", "6d 7d 8d", pile="Tc", moves=MAX_MOVES - 1)
    st2, events = act(st, "k")  # seat 0 takes: 3 cards against 3
    assert st2.moves == MAX_MOVES and st2.drawn and st2.end_reason == "backstop"
    assert events[-1] == Event("trumps.drawn", None, {"reason": "backstop"})
    st3, events = act(state("6c Jc 7d", "6d 8d", pile="Tc", moves=MAX_MOVES - 1), "pJc")
    # The backstop also ends the game between a beat and its second card: 2 cards each.
    assert st3.phase == "over" and st3.drawn
    st4, events = act(state("6c Jc 7d", "6d", pile="Tc", moves=MAX_MOVES - 1), "pJc")
    assert st4.winner == 1 and st4.end_reason == "backstop"
    assert events[-1] == Event("trumps.won", 1, {"reason": "backstop"})


def test_emptying_a_hand_on_the_last_move_is_a_normal_win() -> None:
    st, _ = act(state("Jc", "6d 7d", pile="Tc", moves=MAX_MOVES - 1), "pJc")
    assert st.winner == 0 and st.end_reason == "out"


def test_backstop_moves_count_but_trump_choices_do_not() -> None:
    st = TRUMPS.new_game(2, {DEALER: 0}, Random(2), NOW)
    st, _ = act(st, "ts")
    st, _ = act(st, "th")
    assert st.moves == 0
    v = TRUMPS.view(st, 0)
    assert (v.moves, v.max_moves) == (0, 400)


# -- time -------------------------------------------------------------------------------


def test_deadlines() -> None:
    st = TRUMPS.new_game(2, {DEALER: 0, TURN_SECONDS: 30}, Random(2), NOW)
    assert TRUMPS.next_deadline(st) == NOW + 30
    assert TRUMPS.view(st, None).deadline == NOW + 30
    st = TRUMPS.new_game(2, {DEALER: 0}, Random(2), NOW)
    assert TRUMPS.next_deadline(st) == NOW + 60
    step = TRUMPS.apply(st, 0, ChooseTrump(D), Random(0), NOW + 7)
    assert TRUMPS.next_deadline(step.state) == NOW + 67


def test_timeout_trump_choice_is_the_first_free_suit() -> None:
    st = TRUMPS.new_game(2, {DEALER: 0}, Random(2), NOW)
    step = TRUMPS.on_deadline(st, Random(0), NOW + 60)
    assert step.events[0] == Event("trumps.timeout", 0)
    assert step.state.trumps == (S, None)
    step = TRUMPS.on_deadline(step.state, Random(0), NOW + 120)
    assert step.state.trumps == (S, H)
    assert [e.code for e in step.events] == [
        "trumps.timeout",
        "trumps.trump_chosen",
        "trumps.dealt",
    ]


def test_timeout_when_facing_a_card_takes() -> None:
    st = state("Tc 6d", "6h 7c", pile="9c")
    step = TRUMPS.on_deadline(st, Random(0), NOW + 60)
    assert [e.code for e in step.events] == ["trumps.timeout", "trumps.took"]
    assert step.state.pile == () and step.state.phase == "lead"


@pytest.mark.parametrize(
    ("hand", "phase", "expected"),
    [
        ("6s 7h 7d Ad", "lead", "7h"),  # lowest not of my trump (spades); ♥ before ♦
        ("6s 7h 7d Ad", "second", "7h"),
        ("6s Ts", "lead", "6s"),  # all trumps: the lowest
        ("Qc 8s Qh Ad", "lead", "Qh"),
    ],
)
def test_timeout_lead_and_second_lay_the_lowest_non_trump(
    hand: str, phase: str, expected: str
) -> None:
    pile = "" if phase == "lead" else "9c Jc"
    st = state(hand, "6c 7c", pile=pile, phase=phase)
    step = TRUMPS.on_deadline(st, Random(0), NOW + 60)
    assert step.events[0] == Event("trumps.timeout", 0)
    assert step.events[1].args["card"] == c1(expected)


# -- rematch, outcome, codes, storage and views ----------------------------------------------


def test_rematch_loser_deals_and_same_dealer_after_a_draw() -> None:
    won, _ = act(state("6c", "Ad Qh", phase="lead"), "p6c")
    assert TRUMPS.rematch_options(won, {"deck52": True, DEALER: 0}) == {
        "deck52": True,
        DEALER: 1,
    }
    lost, _ = act(state("6c Ad", "Qh", phase="lead", to_move=1), "pQh")
    assert lost.winner == 1
    assert TRUMPS.rematch_options(lost, {})[DEALER] == 0
    drawn, _ = act(state("6c", "6h", phase="lead"), "p6c")
    assert TRUMPS.rematch_options(drawn, {})[DEALER] == drawn.dealer == 1
    assert TRUMPS.outcome(state("6c", "6h", phase="lead")) is None


def test_action_codes_round_trip() -> None:
    actions: list[TrumpsAction] = [Take()]
    actions += [ChooseTrump(s) for s in (S, H, D, C)]
    actions += [PlayCard(c) for c in standard_deck()]
    for action in actions:
        code = TRUMPS.encode_action(action)
        assert len(code) <= 24 and code.isascii() and code.isalnum()
        assert TRUMPS.decode_action(code) == action
    assert TRUMPS.encode_action(PlayCard(c1("Th"))) == "pTh"


@pytest.mark.parametrize(
    "code",
    ["", "p", "k ", "K", "pXJ", "pZz", "tx", "t", "ts ", "pAsx", "♠", "\x00", "p10h", "kk"],
)
def test_decode_garbage(code: str) -> None:
    with pytest.raises(IllegalAction) as info:
        TRUMPS.decode_action(code)
    assert info.value.code == "bad_action"


def test_dump_load_round_trip_is_json() -> None:
    st = TRUMPS.new_game(2, {"deck52": True}, Random(9), NOW)
    for s in (st, state("6c Kd", "Ad Qh", pile="9c Ts 7s", to_move=1)):
        data = json.loads(json.dumps(TRUMPS.dump(s)))
        assert TRUMPS.load(data) == s
    over, _ = act(state("6c", "6h", phase="lead"), "p6c")
    assert TRUMPS.load(json.loads(json.dumps(TRUMPS.dump(over)))) == over


def test_view_fields() -> None:
    st = state("Kd 6c As 7h Ts", "Ad Qh", pile="6d 7d 8d 9d Td Jc 8c", to_move=0)
    mine = TRUMPS.view(st, 0)
    assert mine.hand == cs("Ts As 7h Kd 6c")
    assert mine.hand_sizes == (5, 2) and mine.pile_size == 7
    assert mine.pile_top == cs("8d 9d Td Jc 8c")  # top last
    assert mine.facing == c1("8c") and mine.take_count == 3
    assert mine.trumps == (S, H) and mine.phase == "beat_or_take" and mine.to_move == 0
    assert mine.deadline == NOW + 60 and not mine.finished and mine.deck_size == 36
    assert TRUMPS.view(st, 1).hand == cs("Qh Ad")
    public = TRUMPS.view(st, None)
    assert public.hand == () and public.seat is None


# -- the computer player ----------------------------------------------------------------


def ai(st: TrumpsState) -> str:
    assert st.to_move is not None
    return TRUMPS.encode_action(TRUMPS.choose(st, st.to_move, Random(0)))


def test_ai_beats_cheaply_with_a_plain_card_before_a_trump() -> None:
    assert ai(state("6s Jc Ac 9d Kd", "6d 7d 8d 9h Th", pile="Tc")) == "pJc"
    assert ai(state("6s 9s Qs 9d Kd", "6d 7d 8d 9h Th", pile="Tc")) == "p6s"


def test_ai_keeps_a_high_trump_rather_than_beating_a_lone_small_card() -> None:
    st = state("As 9d Kd 6h 7h", "6d 7d 8d 9h Th", pile="7c")
    assert ai(st) == "k"


def test_ai_second_card_is_one_the_opponent_cannot_beat_and_never_a_trump() -> None:
    # The opponent (trump hearts) holds no heart and no club: the queen of clubs is safe; the
    # ten of spades would be safe too, but it is the computer's own trump.
    st = state("Ts Qc 7d", "8d 9d Kd Ad 9s", pile="9c Jc", phase="second")
    assert ai(st) == "pQc"


def test_ai_leads_a_card_that_costs_the_opponent_a_trump() -> None:
    # He has no diamond: the king of diamonds takes one of his hearts; a club he beats cheaply.
    st = state("Kd 6c 8s", "7c 6h Qc 9c Jc", phase="lead")
    assert ai(st) == "pKd"


def test_ai_leads_low_when_everything_is_beaten_cheaply() -> None:
    st = state("Ad 6d Qc 8s", "7d Kd 7c Kc 9c", phase="lead")
    assert ai(st) == "p6d"


def test_ai_never_lets_a_nearly_empty_opponent_go_out() -> None:
    # He holds two cards: the 6d would be beaten (then he lays his last card and wins).
    st = state("6d Ac 9s", "7d 8d", phase="lead")
    assert ai(st) == "pAc"


def test_ai_uses_the_draw_rule_to_win_with_two_cards() -> None:
    # Beating with 6s leaves Tc, which the opponent's last card Jc beats (a draw);
    # beating with Tc leaves 6s, which it does not: a win.
    st = state("6s Tc", "Jc", pile="9c")
    assert ai(st) == "pTc"
    st, _ = act(st, "pTc")
    st, _ = act(st, ai(st))
    assert st.winner == 0


def test_ai_beats_with_the_last_card_that_avoids_a_draw() -> None:
    st = state("Jc", "Qc", pile="9c")
    assert ai(st) == "pJc"  # only card: the draw is better than taking and losing


def play_against_random(seed: int, ai_seat: int, deck52: bool) -> TrumpsState:
    rng = Random(seed)
    st = TRUMPS.new_game(2, {"deck52": deck52}, rng, NOW)
    now = NOW
    while st.to_move is not None:
        seat = st.to_move
        if seat == ai_seat:
            action = TRUMPS.choose(st, seat, rng)
        else:
            legal = TRUMPS.legal_actions(st, seat)
            action = legal[rng.randrange(len(legal))]
        now += 1
        st = TRUMPS.apply(st, seat, action, rng, now).state
    return st


def test_ai_beats_a_random_player() -> None:
    games = 400
    wins = draws = 0
    for seed in range(games):
        ai_seat = seed % 2
        st = play_against_random(seed, ai_seat, deck52=seed % 4 >= 2)
        wins += st.winner == ai_seat
        draws += st.drawn
    rate = wins / games
    print(f"trumps AI vs random: won {wins}/{games} ({rate:.1%}), drawn {draws}")
    assert rate >= 0.65


# -- seeded random playouts ---------------------------------------------------------------


_FIELDS: dict[type, tuple[str, ...]] = {}


def card_ids_in(obj: Any) -> list[int]:
    """The ids of every Card object reachable from a view (dataclasses, tuples, lists, dicts).

    Cards are interned, so identity is the card; ids keep the walk fast.
    """
    found: list[int] = []
    stack = [obj]
    while stack:
        item = stack.pop()
        if isinstance(item, Card):
            found.append(id(item))
        elif isinstance(item, (tuple, list)):
            stack.extend(item)
        elif isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, (str, int, float, bool, type(None), Suit)):
            continue
        else:
            names = _FIELDS.get(type(item))
            if names is None:
                assert dataclasses.is_dataclass(item), item
                names = _FIELDS[type(item)] = tuple(f.name for f in dataclasses.fields(item))
            stack.extend(getattr(item, name) for name in names)
    return found


def check_views(st: TrumpsState) -> None:
    public = {id(c) for c in st.pile[-5:]}
    for seat in (None, 0, 1):
        v = TRUMPS.view(st, seat)
        assert isinstance(v, TrumpsView)
        allowed = public if seat is None else public | {id(c) for c in st.hands[seat]}
        assert set(card_ids_in(v)) <= allowed, (seat, v)


def test_leak_check_can_fail() -> None:
    st = state("Kd 6c", "Ad Qh", pile="6d 7d 8d 9d Td Jc 8c")
    view = TRUMPS.view(st, 0)
    assert set(card_ids_in(view)) == {id(c) for c in cs("Kd 6c 8d 9d Td Jc 8c")}
    leaky = dataclasses.replace(view, pile_top=cs("7d 8d 9d Td Jc 8c"))
    with pytest.raises(AssertionError):
        assert set(card_ids_in(leaky)) <= {id(c) for c in cs("Kd 6c 8d 9d Td Jc 8c")}


def test_random_playouts() -> None:
    events_seen: set[str] = set()
    endings: Counter[str | None] = Counter()
    for seed in range(2000):
        rng = Random(seed)
        deck52 = seed % 2 == 1
        # Random against random mostly ends by the backstop; games with the computer on one
        # side or both reach the other endings (the draw rule mostly between two computers).
        ai_seats = ((), (0,), (1,), (0, 1))[seed % 4]
        st = TRUMPS.new_game(2, {"deck52": deck52}, rng, NOW)
        deck = Counter(id(c) for c in standard_deck(low_rank=2 if deck52 else 6))
        now = NOW
        steps = 0
        full_checks = seed < 100
        while st.to_move is not None:
            seat = st.to_move
            legal = TRUMPS.legal_actions(st, seat)
            assert legal and TRUMPS.acting_seats(st) == (seat,)
            assert TRUMPS.legal_actions(st, 1 - seat) == []
            if seat in ai_seats:
                action = TRUMPS.choose(st, seat, rng)
                assert action in legal
            elif rng.random() < 0.03:
                step = TRUMPS.on_deadline(st, rng, TRUMPS.next_deadline(st) or now)
                assert step.events[0] == Event("trumps.timeout", seat)
                action = None
            else:
                action = legal[rng.randrange(len(legal))]
                code = TRUMPS.encode_action(action)
                assert TRUMPS.decode_action(code) == action
            if action is not None:
                now += 1
                step = TRUMPS.apply(st, seat, action, rng, now)
            st = step.state
            steps += 1
            for event in step.events:
                events_seen.add(event.code)
                assert event.only_seat is None
            held = len(st.hands[0]) + len(st.hands[1]) + len(st.pile) + len(st.stock)
            assert held == len(deck)
            if full_checks or steps % 20 == 0:
                assert Counter(map(id, st.hands[0] + st.hands[1] + st.pile + st.stock)) == deck
                check_views(st)
            if steps % 50 == 0:
                assert TRUMPS.load(json.loads(json.dumps(TRUMPS.dump(st)))) == st
        assert steps <= MAX_MOVES + 2
        assert Counter(map(id, st.hands[0] + st.hands[1] + st.pile)) == deck
        assert TRUMPS.outcome(st) is not None and TRUMPS.next_deadline(st) is None
        assert TRUMPS.load(TRUMPS.dump(st)) == st
        check_views(st)
        endings[st.end_reason] += 1
    assert events_seen == set(EVENT_CODES)
    assert set(endings) == {"out", "draw_rule", "backstop"}


def test_a_game_replays_exactly_from_its_seed_and_actions() -> None:
    rng = Random(77)
    st = TRUMPS.new_game(2, {}, rng, NOW)
    log: list[tuple[int, str]] = []
    while st.to_move is not None and len(log) < 120:
        seat = st.to_move
        action = TRUMPS.choose(st, seat, rng)
        log.append((seat, TRUMPS.encode_action(action)))
        st = TRUMPS.apply(st, seat, action, rng, NOW).state
    rng2 = Random(77)
    replay = TRUMPS.new_game(2, {}, rng2, NOW)
    for seat, code in log:
        replay = TRUMPS.apply(replay, seat, TRUMPS.decode_action(code), rng2, NOW).state
    assert replay == st
