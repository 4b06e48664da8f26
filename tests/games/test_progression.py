"""Progression: scoring, stacking, taking, the backstop, deals, the match, the computer player
and thousands of seeded random deals (conservation, round trips, no leaks)."""

from __future__ import annotations

import json
from dataclasses import fields, is_dataclass, replace
from random import Random
from typing import Any

import pytest

from bot.games.cards import SUITS, Card, Suit, parse_cards, standard_deck
from bot.games.engine import DEALER, TURN_SECONDS, Event, IllegalAction, Outcome, Step
from bot.games.progression import (
    BETWEEN_DEALS_SECONDS,
    DRAW,
    ERROR_CODES,
    EVENT_CODES,
    NEXT,
    PROGRESSION,
    PlayCard,
    ProgressionAction,
    ProgressionState,
    TakeCard,
    build_state,
    can_stack,
    card_value,
    stack_score,
    timeout_card,
)

P = PROGRESSION
RNG = Random(0)
EMPTY: tuple[tuple[Card, ...], ...] = ((), (), (), ())
SPADES, HEARTS, DIAMONDS, CLUBS = SUITS


def cards(text: str) -> tuple[Card, ...]:
    return parse_cards(text.split())


def one(text: str) -> Card:
    return cards(text)[0]


def stacks(spades: str = "", hearts: str = "", diamonds: str = "", clubs: str = "") -> Any:
    return tuple(cards(s) for s in (spades, hearts, diamonds, clubs))


def codes(step_events: tuple[Event, ...]) -> list[str]:
    return [e.code for e in step_events]


def play(
    state: ProgressionState, action: str, seat: int | None = None, now: float = 1.0
) -> Step[ProgressionState]:
    who = state.to_move if seat is None else seat
    return P.apply(state, who, P.decode_action(action), RNG, now)


def simple(**kwargs: Any) -> ProgressionState:
    """Seat 0 to play with a small hand; the others hold a card each; the rest is the pile."""
    hands = kwargs.pop("hands", [cards("5d 9h"), cards("2c"), cards("3c")])
    return build_state(hands, **kwargs)


# --- scoring: every worked example of the rules file, and the table's edges ----------------


@pytest.mark.parametrize(
    ("stack", "score"),
    [
        ("As Ks", -30),
        ("As Ks Qs", -40),
        ("Js", -20),
        ("Ks 3s 4s", 0),
        ("5s 9s", 2),
        ("Ks Js 2s 6s 7s 8s", 33),
        ("Qs 9s Ts", 14),
        ("As Ks Qs Js 2s 3s 4s 5s 6s 7s 8s 9s Ts", 210),
    ],
)
def test_worked_examples(stack: str, score: int) -> None:
    assert stack_score(cards(stack)) == score


@pytest.mark.parametrize(
    ("stack", "score"),
    [("", 0), ("2s", 0), ("3s 9s", 0), ("Ks 3s 9s", 0), ("4s 9s", 1), ("As Ks 4s 9s", 3)],
)
def test_score_table_edges(stack: str, score: int) -> None:
    # Empty 0; 1..12 is 0 whatever the faces; 13 is the first positive value.
    assert stack_score(cards(stack)) == score


def test_card_values() -> None:
    assert [card_value(c) for c in cards("As Ks Qs Js Ts 9s 2s")] == [0, 0, 0, 0, 10, 9, 2]


# --- the private-stack rule ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("stack", "new", "allowed"),
    [
        ("", "7s", True),
        ("", "As", True),
        ("As", "Ks", True),  # face on face
        ("Ks", "As", True),  # faces in any order
        ("As", "Qs", True),  # Q on A is fine
        ("As", "Js", True),  # J on A is fine
        ("As Ks", "2s", True),  # numbers after faces
        ("5s", "Ks", False),  # face on number refused
        ("5s", "3s", False),  # lower number refused
        ("7s", "7s", False),  # equal number refused
        ("3s", "9s", True),  # ranks may be skipped
        ("Qs 3s 4s", "Ts", True),
        ("Qs 3s 9s", "As", False),
    ],
)
def test_can_stack(stack: str, new: str, allowed: bool) -> None:
    assert can_stack(cards(stack), one(new)) is allowed


def test_own_stack_refuses_face_on_number_and_lower_number() -> None:
    state = simple(
        hands=[cards("Kh 4h Th 3s"), (), ()], stacks=[stacks(hearts="5h"), EMPTY, EMPTY]
    )
    legal = P.legal_actions(state, 0)
    assert PlayCard(one("Kh"), False) not in legal
    assert PlayCard(one("4h"), False) not in legal
    assert PlayCard(one("Th"), False) in legal
    assert PlayCard(one("3s"), False) in legal  # an empty stack takes anything
    for code in ("mKh", "m4h"):
        with pytest.raises(IllegalAction) as refused:
            play(state, code)
        assert refused.value.code == "progression.cannot_stack"
    # The same cards go onto the public stack of their suit.
    assert PlayCard(one("Kh"), True) in legal and PlayCard(one("4h"), True) in legal


def test_play_onto_own_stack_and_public_stack() -> None:
    state = simple(
        hands=[cards("Qs 2h"), (), ()],
        stacks=[stacks(spades="As"), EMPTY, EMPTY],
        public=stacks(hearts="9h Kh"),
    )
    step = play(state, "mQs", now=5.0)
    assert step.state.stacks[0][0] == cards("As Qs")
    assert step.state.hands[0] == cards("2h")
    assert step.state.phase == "take" and step.state.to_move == 0
    assert step.events == (Event("progression.played_own", 0, {"card": one("Qs")}),)
    # A public stack takes any card of its suit, lower or not.
    step = play(state, "u2h")
    assert step.state.public[1] == cards("9h Kh 2h")
    assert step.events[0].code == "progression.played_public"


def test_play_refuses_card_not_in_hand_wrong_turn_wrong_phase() -> None:
    state = simple()
    for seat, code, error in (
        (0, "m7h", "progression.not_in_hand"),
        (1, "u2c", "progression.not_your_turn"),
        (0, "d", "progression.wrong_phase"),
        (0, "n", "progression.wrong_phase"),
    ):
        with pytest.raises(IllegalAction) as refused:
            play(state, code, seat)
        assert refused.value.code == error
        assert refused.value.code in ERROR_CODES
    assert P.legal_actions(state, 1) == []


# --- taking ----------------------------------------------------------------------------------


def test_cannot_take_the_card_just_played() -> None:
    state = simple(hands=[cards("5h 2s"), (), ()], public=stacks(spades="Ks", hearts="9h"))
    after = play(state, "u5h").state
    assert after.just_played == one("5h") and after.played_public
    assert TakeCard(HEARTS) not in P.legal_actions(after, 0)
    assert TakeCard(SPADES) in P.legal_actions(after, 0)
    with pytest.raises(IllegalAction) as refused:
        play(after, "th")
    assert refused.value.code == "progression.just_played"
    # Played to the own stack instead: every non-empty public stack may be taken.
    after = play(state, "m5h").state
    assert set(P.legal_actions(after, 0)) == {DRAW, TakeCard(SPADES), TakeCard(HEARTS)}


def test_empty_public_stack_cannot_be_taken() -> None:
    state = play(simple(hands=[cards("5h"), (), ()], public=stacks(clubs="4c")), "m5h").state
    assert P.legal_actions(state, 0) == [DRAW, TakeCard(CLUBS)]
    with pytest.raises(IllegalAction) as refused:
        play(state, "td")
    assert refused.value.code == "progression.empty_stack"


def test_take_public_top_keeps_draw_pile_and_counts_toward_backstop() -> None:
    state = play(simple(hands=[cards("5h"), (), ()], public=stacks(clubs="4c Jc")), "m5h").state
    step = play(state, "tc", now=7.0)
    new = step.state
    assert new.hands[0] == cards("Jc")
    assert new.public[3] == cards("4c")
    assert new.draw == state.draw
    assert new.no_draw_turns == 1
    assert new.phase == "play" and new.to_move == 1 and new.opened == 7.0
    assert step.events == (Event("progression.took", 0, {"card": one("Jc")}),)


def test_draw_takes_the_top_of_the_pile_privately() -> None:
    state = play(simple(no_draw_turns=2), "m5d").state
    top = state.draw[-1]
    step = play(state, "d")
    assert step.state.hands[0] == (one("9h"), top)
    assert step.state.draw == state.draw[:-1]
    assert step.state.no_draw_turns == 0
    drew, private = step.events
    assert drew == Event("progression.drew", 0, {"left": len(state.draw) - 1})
    assert private == Event("progression.drew_card", 0, {"card": top}, only_seat=0)


def test_backstop_forces_a_draw_after_three_turns_without_one() -> None:
    state = simple(
        hands=[cards("5d 8h"), cards("6d"), cards("7d")],
        public=stacks(spades="2s 3s 4s 5s"),
    )
    for turn in range(3):
        state = play(state, "u" + state.hands[state.to_move][0].code).state
        step = play(state, "ts")
        state = step.state
        assert state.no_draw_turns == turn + 1
    assert codes(step.events)[-1] == "progression.backstop"
    assert step.events[-1].seat == 0
    assert P.view(state, None).must_draw
    state = play(state, "u" + state.hands[0][0].code).state
    assert P.legal_actions(state, 0) == [DRAW]
    with pytest.raises(IllegalAction) as refused:
        play(state, "ts")
    assert refused.value.code == "progression.must_draw"
    state = play(state, "d").state
    assert state.no_draw_turns == 0
    assert not P.view(state, None).must_draw


# --- the end of a deal -----------------------------------------------------------------------


def _last_card_state(**kwargs: Any) -> ProgressionState:
    """Seat 0 to take, one card left in the draw pile."""
    hands = kwargs.pop("hands", [cards("9h 2c 3c 4c"), cards("5c"), cards("6c")])
    own = kwargs.pop(
        "stacks",
        [
            stacks("Ks Js 2s 6s 7s 8s", "As", "Qd 9d Td"),
            stacks("5s 9s", "Ah Kh"),
            stacks(clubs="Ac Kc 7c"),
        ],
    )
    state = build_state(hands, stacks=own, draw=cards("Tc"), public=stacks(hearts="8h"), **kwargs)
    return play(state, "u9h", 0, now=1.0).state


def test_deal_ends_exactly_when_the_last_card_is_taken() -> None:
    state = _last_card_state()
    step = play(state, "d", now=50.0)
    end = step.state
    assert end.phase == "between_deals"
    assert end.draw == ()
    assert end.hands[0] == cards("2c 3c 4c Tc")  # cards left in hand do not count
    sheet = end.sheet
    assert sheet is not None and sheet.deal == 1
    assert [row.stack_scores for row in sheet.rows] == [
        (33, -20, 14, 0),
        (2, -30, 0, 0),
        (0, 0, 0, 0),
    ]
    assert [row.deal_score for row in sheet.rows] == [27, -28, 0]
    assert end.totals == (27, -28, 0)
    assert [row.total for row in sheet.rows] == [27, -28, 0]
    assert codes(step.events) == [
        "progression.drew",
        "progression.drew_card",
        "progression.deal_ended",
        "progression.deal_score",
        "progression.deal_score",
        "progression.deal_score",
    ]
    assert step.events[3].args == {"score": 27, "total": 27}
    # The pause: 20 s after the deal ended, independent of turn_seconds.
    assert P.next_deadline(end) == 50.0 + BETWEEN_DEALS_SECONDS
    # The deal waits for every seat: nobody has pressed Next yet.
    assert end.ready == (False, False, False)
    assert P.acting_seats(end) == (0, 1, 2)
    assert all(P.legal_actions(end, seat) == [NEXT] for seat in range(3))
    assert P.outcome(end) is None


def test_take_from_public_with_one_card_left_does_not_end_the_deal() -> None:
    state = build_state(
        [cards("9h 2c"), cards("5c"), cards("6c")], draw=cards("Tc"), public=stacks(spades="4s")
    )
    state = play(state, "u9h").state
    state = play(state, "ts").state
    assert state.phase == "play" and state.to_move == 1 and state.draw == cards("Tc")


def test_running_scores_in_view() -> None:
    view = P.view(_last_card_state(), None)
    assert view.stack_scores[0] == (33, -20, 14, 0)
    assert view.deal_scores == (27, -28, 0)


def _ready_all_but(state: ProgressionState, last: int, now: float) -> ProgressionState:
    """Every seat but ``last`` presses Next (in seat order)."""
    for seat in range(3):
        if seat != last:
            state = P.apply(state, seat, NEXT, Random(3), now).state
    return state


def test_between_deals_next_when_every_seat_is_ready_and_by_deadline() -> None:
    end = play(_last_card_state(dealer=2), "d", now=50.0).state
    assert end.dealer == 2
    with pytest.raises(IllegalAction) as refused:
        play(end, "u2c", 0)
    assert refused.value.code == "progression.wrong_phase"
    waiting = _ready_all_but(end, 1, 51.0)
    assert waiting.phase == "between_deals" and waiting.ready == (True, False, True)
    step = P.apply(waiting, 1, NEXT, Random(3), 52.0)
    new = step.state
    assert codes(step.events)[:2] == ["progression.next", "progression.deal_started"]
    assert step.events[0].seat == 1
    assert step.events[1].args == {"deal": 2, "dealer_seat": 0}
    dealt = [e for e in step.events if e.code == "progression.dealt"]
    assert [e.only_seat for e in dealt] == [0, 1, 2]
    assert new.deal == 2 and new.dealer == 0 and new.to_move == 1  # the deal passes left
    assert new.phase == "play" and new.opened == 52.0
    assert [len(h) for h in new.hands] == [5, 5, 5] and len(new.draw) == 37
    assert new.stacks == (EMPTY,) * 3 and new.public == EMPTY
    assert new.totals == end.totals and new.sheet == end.sheet  # the sheet stays on show
    assert new.ready == (False, False, False)
    # The deadline does the same and no player is blamed for the pause.
    timed = P.on_deadline(end, Random(3), 58.0)
    assert "progression.timeout" not in codes(timed.events)
    assert timed.state.deal == 2 and timed.state.hands == new.hands


def test_one_quick_next_does_not_cut_the_pause_short_for_the_others() -> None:
    """Two people and a computer: the first person's Next only marks him ready; the computer
    (an acting seat until it presses) and the second person follow; the last press deals."""
    end = play(_last_card_state(), "d", now=50.0).state
    anna, boris, computer = 0, 1, 2
    first = P.apply(end, anna, NEXT, Random(3), 51.0)
    assert first.events == (Event("progression.next", anna),)
    pause = first.state
    assert pause.phase == "between_deals" and pause.deal == 1
    assert pause.ready == (True, False, False)
    assert P.next_deadline(pause) == 50.0 + BETWEEN_DEALS_SECONDS  # the pause keeps its end
    assert P.acting_seats(pause) == (boris, computer)
    assert P.legal_actions(pause, anna) == []  # her button is gone…
    assert P.legal_actions(pause, boris) == [NEXT]
    with pytest.raises(IllegalAction) as refused:  # …and a second press is refused
        P.apply(pause, anna, NEXT, Random(3), 52.0)
    assert refused.value.code == "progression.already_ready"
    assert P.choose(pause, computer, Random(0)) == NEXT
    pause = P.apply(pause, computer, NEXT, Random(3), 52.0).state
    assert pause.phase == "between_deals" and P.acting_seats(pause) == (boris,)
    last = P.apply(pause, boris, NEXT, Random(3), 53.0)
    assert codes(last.events)[:2] == ["progression.next", "progression.deal_started"]
    dealt = last.state
    assert dealt.deal == 2 and dealt.phase == "play" and dealt.opened == 53.0
    # The next pause starts with nobody ready again.
    assert dealt.ready == (False, False, False)
    fast = replace(dealt, draw=dealt.draw[-1:], phase="take", just_played=None)
    again = P.apply(fast, fast.to_move, DRAW, Random(3), 60.0).state
    assert again.phase == "between_deals" and again.deal == 2
    assert again.ready == (False, False, False) and P.acting_seats(again) == (0, 1, 2)


def test_the_deadline_deals_whoever_has_pressed() -> None:
    end = play(_last_card_state(), "d", now=50.0).state
    pause = _ready_all_but(end, 2, 51.0)
    step = P.on_deadline(pause, Random(3), 50.0 + BETWEEN_DEALS_SECONDS)
    assert "progression.timeout" not in codes(step.events)
    assert codes(step.events)[0] == "progression.deal_started"
    assert step.state.deal == 2 and step.state.ready == (False, False, False)


def test_who_is_ready_is_saved_and_an_old_save_without_it_loads() -> None:
    end = play(_last_card_state(), "d", now=50.0).state
    pause = P.apply(end, 1, NEXT, Random(3), 51.0).state
    data = json.loads(json.dumps(P.dump(pause)))
    assert data["ready"] == [False, True, False]
    assert P.load(data) == pause and P.view(P.load(data), None).ready == (False, True, False)
    # A pause saved before presses were kept per seat: nobody has pressed yet.
    del data["ready"]
    old = P.load(data)
    assert old.ready == (False, False, False)
    assert all(P.legal_actions(old, seat) == [NEXT] for seat in range(3))


# --- the match -------------------------------------------------------------------------------


def test_match_tie_for_highest_plays_another_deal_then_ends() -> None:
    # Seats 0 and 1 both reach 210: the target is reached but the highest is shared.
    state = _last_card_state(totals=(183, 238, 100), dealer=1)
    step = play(state, "d", now=10.0)
    tied = step.state
    assert tied.totals == (210, 210, 100)
    assert tied.phase == "between_deals"
    assert codes(step.events)[-1] == "progression.tie"
    assert step.events[-1].args == {"total": 210}
    assert P.outcome(tied) is None
    second = P.on_deadline(tied, Random(1), 20.0).state
    assert second.deal == 2 and second.dealer == 2 and second.to_move == 0
    # Fast-forward the second deal to its last card: seat 1 scores 2, seat 0 nothing.
    last = replace(
        second,
        hands=(cards("9h 2c 3c 4c"), cards("5c"), cards("6c")),
        stacks=(EMPTY, stacks("5s 9s"), EMPTY),
        public=stacks(hearts="8h"),
        draw=cards("Tc"),
    )
    last = play(last, "u9h", 0).state
    step = play(last, "d", now=30.0)
    over = step.state
    assert over.phase == "over"
    assert over.totals == (210, 212, 100)
    assert step.events[-1] == Event("progression.match_won", 1, {"total": 212})
    assert P.outcome(over) == Outcome((2, 1, 3), (210.0, 212.0, 100.0))
    assert P.next_deadline(over) is None
    assert P.acting_seats(over) == ()
    assert P.legal_actions(over, 1) == []
    with pytest.raises(IllegalAction) as refused:
        P.apply(over, 0, NEXT, RNG, 31.0)
    assert refused.value.code == "progression.game_over"
    view = P.view(over, 2)
    assert view.finished and view.places == (2, 1, 3) and view.winner == 1
    assert view.sheet is not None and view.sheet.deal == 2 and view.phase == "over"
    assert P.on_deadline(over, RNG, 40.0).state == over
    # A rematch is dealt by the player left of the last dealer.
    assert P.rematch_options(over, {"target": 200, DEALER: 1}) == {"target": 200, DEALER: 0}


def test_match_ends_with_unique_leader_and_shared_places_below() -> None:
    state = _last_card_state(totals=(173, 28, 0), target=200)
    over = play(state, "d").state
    assert over.totals == (200, 0, 0)
    assert P.outcome(over) == Outcome((1, 2, 2), (200.0, 0.0, 0.0))


def test_reaching_target_is_not_enough_when_another_is_higher() -> None:
    # Seat 0 reaches 100 but seat 2 has more: seat 2 wins (the highest total wins).
    state = _last_card_state(totals=(80, 0, 150), target=100)
    over = play(state, "d").state
    assert over.phase == "over"
    assert P.outcome(over) == Outcome((2, 3, 1), (107.0, -28.0, 150.0))


def test_nobody_at_target_plays_on_even_with_a_tie() -> None:
    state = _last_card_state(totals=(0, 55, 27), target=100)
    step = play(state, "d")
    assert step.state.phase == "between_deals"
    assert step.state.totals == (27, 27, 27)
    assert "progression.tie" not in codes(step.events)


# --- timeouts --------------------------------------------------------------------------------


def test_timeout_card_order() -> None:
    # Face cards are worth 0, so they go first: J before Q, K, A; then suit ♠ ♥ ♦ ♣.
    assert timeout_card(cards("2s Qs Jh 9d Ac")) == one("Jh")
    assert timeout_card(cards("Jh Js")) == one("Js")
    assert timeout_card(cards("Ah Kd")) == one("Kd")
    assert timeout_card(cards("9s 3c 3d Td")) == one("3d")


def test_timeout_in_play_phase_plays_to_public_and_draws() -> None:
    state = simple(hands=[cards("5d Ks 3h"), (), ()], stacks=[stacks(spades="As"), EMPTY, EMPTY])
    top = state.draw[-1]
    step = P.on_deadline(state, RNG, 99.0)
    assert codes(step.events) == [
        "progression.timeout",
        "progression.played_public",
        "progression.drew",
        "progression.drew_card",
    ]
    assert step.events[0].seat == 0
    assert step.events[1].args == {"card": one("Ks")}
    assert step.state.public[0] == cards("Ks")
    assert step.state.hands[0] == (*cards("5d 3h"), top)
    assert step.state.to_move == 1 and step.state.opened == 99.0


def test_timeout_in_take_phase_draws() -> None:
    state = play(simple(public=stacks(clubs="Ac")), "m9h").state
    step = P.on_deadline(state, RNG, 99.0)
    assert codes(step.events) == [
        "progression.timeout",
        "progression.drew",
        "progression.drew_card",
    ]
    assert step.state.public[3] == cards("Ac")


def test_each_phase_is_its_own_window() -> None:
    state = simple(turn_seconds=30.0, opened=100.0)
    assert P.next_deadline(state) == 130.0
    state = play(state, "m9h", now=125.0).state
    assert P.next_deadline(state) == 155.0
    assert P.view(state, 0).deadline == 155.0


# --- new game, options, codec, dump ----------------------------------------------------------


def test_new_game_deal_and_options() -> None:
    assert (P.key, P.min_players, P.max_players) == ("progression", 3, 3)
    (spec,) = P.options
    assert (spec.key, spec.choices, spec.default) == ("target", (100, 200, 300), 200)
    state = P.new_game(3, {DEALER: 1, "target": 300, TURN_SECONDS: 45}, Random(5), 10.0)
    assert state.dealer == 1 and state.to_move == 2 and state.target == 300
    assert state.phase == "play" and state.deal == 1 and state.totals == (0, 0, 0)
    assert [len(h) for h in state.hands] == [5, 5, 5] and len(state.draw) == 37
    assert P.next_deadline(state) == 55.0
    default = P.new_game(3, {}, Random(5), 0.0)
    assert default.target == 200 and P.next_deadline(default) == 60.0
    assert default.dealer == P.new_game(3, {}, Random(5), 0.0).dealer  # by lot, from the rng
    dealers = {P.new_game(3, {}, Random(seed), 0.0).dealer for seed in range(30)}
    assert dealers == {0, 1, 2}
    with pytest.raises(ValueError):
        P.new_game(4, {}, Random(5), 0.0)
    assert P.rematch_options(state, {DEALER: 1}) == {DEALER: 2}


def test_action_codes_round_trip() -> None:
    actions: list[ProgressionAction] = [DRAW, NEXT, *(TakeCard(suit) for suit in SUITS)]
    actions += [PlayCard(c, public) for c in standard_deck() for public in (False, True)]
    for action in actions:
        code = P.encode_action(action)
        assert len(code) <= 24 and code.isascii() and code.replace(".", "").isalnum()
        assert P.decode_action(code) == action
    assert P.encode_action(PlayCard(one("7h"), False)) == "m7h"
    assert P.encode_action(PlayCard(one("Th"), True)) == "uTh"
    assert P.encode_action(TakeCard(Suit.SPADES)) == "ts"


@pytest.mark.parametrize(
    "garbage",
    [
        "",
        "m",
        "u",
        "t",
        "x",
        "D",
        "N",
        "dd",
        "tz",
        "tS",
        "m7",
        "m7x",
        "mXJ",
        "uXJ",
        "m7h ",
        "ts1",
        "mm7h",
        "7h",
        "\x00",
        "мAh",
        "m\u00e9h",
        "n\n",
    ],
)
def test_decode_garbage(garbage: str) -> None:
    with pytest.raises(IllegalAction) as refused:
        P.decode_action(garbage)
    assert refused.value.code == "bad_action"


def test_dump_load_round_trip_with_sheet() -> None:
    end = play(_last_card_state(), "d").state
    for state in (end, _last_card_state(), P.new_game(3, {}, Random(2), 3.5)):
        data = P.dump(state)
        assert P.load(json.loads(json.dumps(data))) == state


def test_views_hold_own_hand_only() -> None:
    state = P.new_game(3, {DEALER: 0}, Random(9), 0.0)
    public = P.view(state, None)
    assert public.hand is None and public.to_move == 1 and public.hand_sizes == (5, 5, 5)
    mine = P.view(state, 1)
    assert sorted(mine.hand or (), key=lambda c: c.code) == sorted(
        state.hands[1], key=lambda c: c.code
    )
    assert mine.draw_size == 37 and mine.phase == "play" and mine.target == 200
    assert mine.sheet is None and not mine.finished and mine.places is None


# --- the computer player ---------------------------------------------------------------------


def _choose(state: ProgressionState, seed: int = 0) -> str:
    return P.encode_action(P.choose(state, state.to_move, Random(seed)))


def test_bot_plays_face_cards_before_numbers() -> None:
    state = build_state([cards("9s As Ts"), cards("5d"), cards("6d")])
    assert _choose(state) == "mAs"


def test_bot_completes_a_multiplied_stack_late() -> None:
    state = build_state(
        [cards("Ts 2d"), cards("5d"), cards("6d")],
        stacks=[stacks("As Ks 9s"), EMPTY, EMPTY],
        draw=cards("8c 7c 6c"),
    )
    assert _choose(state) == "mTs"  # 9 -> 19: (19 - 12) x 3 = 21


@pytest.mark.parametrize("left", [1, 2, 3, 6, 10, 20])
def test_bot_avoids_lone_face_late_but_counts_the_pile(left: int) -> None:
    state = build_state(
        [cards("Ks 9d"), cards("5d"), cards("6d")], stacks=[stacks(diamonds="Td"), EMPTY, EMPTY]
    )
    assert _choose(replace(state, draw=state.draw[-left:])) != "mKs"


def test_bot_starts_a_face_stack_early() -> None:
    state = build_state(
        [cards("Ks 9d"), cards("5d"), cards("6d")], stacks=[stacks(diamonds="Td"), EMPTY, EMPTY]
    )
    assert _choose(replace(state, draw=state.draw[-37:])) == "mKs"


@pytest.mark.parametrize("helped", [HEARTS, CLUBS])
def test_bot_does_not_feed_the_next_player(helped: Suit) -> None:
    nine = {HEARTS: "9h", CLUBS: "9c"}
    boosted = {HEARTS: "Ah Kh Qh 2h 3h 4h", CLUBS: "Ac Kc Qc 2c 3c 4c"}
    nxt = stacks(**{{HEARTS: "hearts", CLUBS: "clubs"}[helped]: boosted[helped]})
    state = build_state(
        [cards("9h 9c"), cards("5d"), cards("6d")],
        stacks=[stacks(hearts="Th", clubs="Tc"), nxt, EMPTY],
    )
    other = nine[CLUBS if helped is HEARTS else HEARTS]
    for seed in range(3):
        assert _choose(state, seed) == "u" + other


def test_bot_takes_a_card_it_needs_from_a_public_stack() -> None:
    need = build_state(
        [cards("Ts 2d 3d"), cards("5d"), cards("6d")],
        stacks=[stacks("As Ks 8s"), EMPTY, EMPTY],
        public=stacks(spades="9s"),
        draw=cards("8c 7h 6c 4h 2h 3h"),
    )
    need = play(need, "u2d").state
    assert _choose(need) == "ts"  # 8 9 (10 in hand): 27 - 12 = 15, times 3


def test_bot_presses_next_between_deals() -> None:
    end = play(_last_card_state(), "d").state
    assert P.choose(end, 2, Random(0)) == NEXT


def _deal_scores(seed: int, bot_seat: int) -> tuple[int, ...]:
    rng = Random(seed)
    state = P.new_game(3, {DEALER: seed % 3}, rng, 0.0)
    while state.phase in ("play", "take"):
        seat = state.to_move
        if seat == bot_seat:
            action = P.choose(state, seat, rng)
        else:
            action = rng.choice(P.legal_actions(state, seat))
        state = P.apply(state, seat, action, rng, 0.0).state
    assert state.sheet is not None
    return tuple(row.deal_score for row in state.sheet.rows)


def test_bot_beats_random_players() -> None:
    bot = others = 0
    for seed in range(30):
        scores = _deal_scores(seed, seed % 3)
        bot += scores[seed % 3]
        others += sum(scores) - scores[seed % 3]
    # Per deal: the bot scores tens of points; random players about nothing.
    assert bot / 30 > 40
    assert bot / 30 > others / 60 + 40


def test_bot_matches_end_with_a_winner() -> None:
    for seed in range(3):
        rng = Random(seed)
        state = P.new_game(3, {"target": 100}, rng, 0.0)
        for _ in range(5000):
            if state.phase == "over":
                break
            if state.phase == "between_deals":
                state = P.on_deadline(state, rng, 0.0).state
                continue
            action = P.choose(state, state.to_move, rng)
            assert action in P.legal_actions(state, state.to_move)
            state = P.apply(state, state.to_move, action, rng, 0.0).state
        outcome = P.outcome(state)
        assert outcome is not None and outcome.places.count(1) == 1
        assert outcome.scores is not None and max(outcome.scores) >= 100
        assert state.sheet is not None and state.totals == tuple(r.total for r in state.sheet.rows)


# --- random playouts -------------------------------------------------------------------------

_DECK_IDS = frozenset(id(c) for c in standard_deck())
_PRIMITIVES = (int, float, str, bool, type(None))
# Deals per chunk x chunks >= 2,000; chunks let pytest-xdist spread the work over cores.
_CHUNKS = 4
_DEALS_PER_CHUNK = 525


def _public_ids(state: ProgressionState) -> set[int]:
    # Cards are interned: identity sets are exact and far cheaper than hashing cards.
    seen = {id(c) for own in state.stacks for s in own for c in s}
    seen.update(id(c) for s in state.public for c in s)
    if state.sheet is not None:
        # The last deal's sheet is a record of a finished deal: public, whatever happened since.
        seen.update(id(c) for row in state.sheet.rows for s in row.stacks for c in s)
    return seen


def _walk_cards(value: Any, found: list[Card]) -> None:
    """Every Card anywhere inside a view (dataclasses, tuples, lists, dicts)."""
    if type(value) is Card:
        found.append(value)
    elif isinstance(value, _PRIMITIVES):
        return
    elif isinstance(value, tuple | list):
        for item in value:
            _walk_cards(item, found)
    elif isinstance(value, dict):
        for item in value.values():
            _walk_cards(item, found)
    elif is_dataclass(value) and not isinstance(value, type):
        for f in fields(value):
            _walk_cards(getattr(value, f.name), found)
    else:
        raise AssertionError(f"unexpected value in a view: {value!r}")


def _check_state(state: ProgressionState) -> None:
    held = [id(c) for h in state.hands for c in h]
    held += [id(c) for own in state.stacks for s in own for c in s]
    held += [id(c) for s in state.public for c in s]
    held += [id(c) for c in state.draw]
    assert len(held) == 52 and set(held) == _DECK_IDS
    assert sum(len(h) for h in state.hands) == 15 - (state.phase == "take")


def _check_finished_deal(state: ProgressionState) -> None:
    # Stacks only grow, so a legal final stack means every play onto it was legal.
    for own in state.stacks:
        for suit, stack in zip(SUITS, own, strict=True):
            assert all(c.suit is suit for c in stack)
            assert all(can_stack(stack[:i], stack[i]) for i in range(len(stack)))
    for suit, stack in zip(SUITS, state.public, strict=True):
        assert all(c.suit is suit for c in stack)
    assert state.sheet is not None
    assert [row.stacks for row in state.sheet.rows] == list(state.stacks)


def _check_views(state: ProgressionState) -> None:
    public = _public_ids(state)
    found: list[Card] = []
    _walk_cards(P.view(state, None), found)
    assert {id(c) for c in found} <= public
    for seat in range(3):
        found = []
        view = P.view(state, seat)
        _walk_cards(view, found)
        own = {id(c) for c in state.hands[seat]}
        assert {id(c) for c in found} <= public | own
        assert view.hand is not None and {id(c) for c in view.hand} == own


def _check_events(events: tuple[Event, ...], before: ProgressionState) -> None:
    public = _public_ids(before)
    for event in events:
        assert event.code in EVENT_CODES
        found: list[Card] = []
        _walk_cards(tuple(event.args.values()), found)
        if event.code in ("progression.dealt", "progression.drew_card"):
            assert event.only_seat == event.seat is not None
        elif event.code in ("progression.played_own", "progression.played_public"):
            # The played card was in the player's hand and is now on the table.
            assert event.seat is not None and found[0] in before.hands[event.seat]
        else:
            assert event.only_seat is None
            assert {id(c) for c in found} <= public


@pytest.mark.parametrize("chunk", range(_CHUNKS))
def test_random_deals(chunk: int) -> None:
    deals = 0
    actions = 0
    game = chunk * 10_000
    while deals < _DEALS_PER_CHUNK:
        rng = Random(game)
        options: dict[str, Any] = {"target": rng.choice((100, 200, 300))}
        if game % 2:
            options[DEALER] = game % 3
        state = P.new_game(3, options, rng, 0.0)
        now = 0.0
        steps = 0
        while state.phase != "over" and state.deal <= 3:
            now += 1.0
            phase = state.phase
            before = state
            if phase == "between_deals":
                steps = 0
                waiting = P.acting_seats(state)
                assert waiting == tuple(s for s in range(3) if not state.ready[s])
                if rng.random() < 0.3:
                    step = P.on_deadline(state, rng, now)
                else:
                    step = P.apply(state, rng.choice(waiting), NEXT, rng, now)
                if len(waiting) > 1 and step.events[0].code == "progression.next":
                    assert step.state.deal == state.deal and len(step.events) == 1
                else:
                    assert step.state.deal == state.deal + 1 and step.state.draw
            elif rng.random() < 0.04:
                step = P.on_deadline(state, rng, now)
                assert step.events[0] == Event("progression.timeout", state.to_move)
            else:
                seat = state.to_move
                legal = P.legal_actions(state, seat)
                assert legal and P.acting_seats(state) == (seat,)
                assert P.legal_actions(state, (seat + 1) % 3) == []
                if actions % 53 == 0:
                    assert P.choose(state, seat, rng) in legal
                action = rng.choice(legal)
                assert P.decode_action(P.encode_action(action)) == action
                step = P.apply(state, seat, action, rng, now)
            actions += 1
            steps += 1
            assert steps <= 300  # the backstop bounds a deal: at most 4 x 37 turns
            state = step.state
            _check_state(state)
            boundary = state.deal != before.deal or state.phase in ("between_deals", "over")
            if boundary or actions % 29 == 0:
                _check_events(step.events, before)
                _check_views(state)
            if state.phase in ("between_deals", "over"):
                deals += before.phase != "between_deals"  # a Next press is no new deal
                _check_finished_deal(state)
                assert P.load(json.loads(json.dumps(P.dump(state)))) == state
                assert (P.outcome(state) is not None) == (state.phase == "over")
            elif actions % 37 == 0:
                assert P.load(json.loads(json.dumps(P.dump(state)))) == state
        game += 1
