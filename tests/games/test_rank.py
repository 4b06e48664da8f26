"""Tests of the Rank engine: every case of rules/rank.md, the readings, playouts, the computer."""

from __future__ import annotations

import dataclasses
import json
from collections import Counter
from random import Random
from typing import Any

import pytest

from bot.games.cards import ACE, JOKER, KING, QUEEN, Card, parse_card, standard_deck
from bot.games.engine import DEALER, TURN_SECONDS, Event, IllegalAction
from bot.games.rank import (
    ERROR_CODES,
    EVENT_CODES,
    RANK,
    Draw,
    EndTurn,
    Keep,
    Pass,
    Play,
    PlayJoker,
    RankAction,
    RankState,
    RankView,
)
from bot.games.rank.model import AUTO_ROUND_LIMITS, RING, adjacent, sort_hand
from bot.games.rank.rules import default_action

NOW = 1000.0


def cards(text: str) -> tuple[Card, ...]:
    return tuple(parse_card(code) for code in text.split())


def make(hands: list[str], stock: str = "", discard: str = "5c", **fields: Any) -> RankState:
    """A state from card codes; in ``stock`` and ``discard`` the last card is the top."""
    return RankState(
        hands=tuple(sort_hand(cards(hand)) for hand in hands),
        stock=cards(stock),
        discard=cards(discard),
        **fields,
    )


def act(
    state: RankState, seat: int, action: RankAction, seed: int = 0
) -> tuple[RankState, list[str]]:
    step = RANK.apply(state, seat, action, Random(seed), NOW)
    return step.state, [event.code for event in step.events]


def play(code: str) -> Play:
    return Play(parse_card(code))


def legal(state: RankState, seat: int | None = None) -> set[RankAction]:
    seat = state.turn if seat is None else seat
    assert seat is not None
    return set(RANK.legal_actions(state, seat))


ALL_JOKERS = {PlayJoker(rank) for rank in RING}


def refused(state: RankState, seat: int, action: RankAction) -> str:
    with pytest.raises(IllegalAction) as error:
        RANK.apply(state, seat, action, Random(0), NOW)
    assert error.value.code in ERROR_CODES
    return error.value.code


# --- deck and deal -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("players", "deck_size"), [(2, 54), (3, 54), (4, 54), (5, 108), (10, 108)]
)
def test_deal_five_cards_each_from_the_right_deck(players: int, deck_size: int) -> None:
    state = RANK.new_game(players, {DEALER: 1}, Random(players), NOW)
    assert [len(hand) for hand in state.hands] == [5] * players
    every = [c for hand in state.hands for c in hand] + list(state.stock) + list(state.discard)
    assert len(every) == deck_size
    assert Counter(every) == Counter(standard_deck(jokers=2) * (deck_size // 54))
    assert len(state.discard) == 1 and not state.discard[0].is_joker
    assert state.dealer == 1 and state.turn == 2 % players
    assert state.phase == "play" and state.round == 1
    assert state.round_limit == AUTO_ROUND_LIMITS[players], "about ten minutes by default"
    assert RANK.next_deadline(state) == NOW + 60
    assert all(hand == sort_hand(hand) for hand in state.hands)


def test_dealer_by_lot_is_seeded_and_rematch_passes_the_deal() -> None:
    first = RANK.new_game(6, {}, Random(3), NOW)
    assert first == RANK.new_game(6, {}, Random(3), NOW)
    dealers = {RANK.new_game(6, {}, Random(seed), NOW).dealer for seed in range(40)}
    assert dealers == set(range(6))
    options = RANK.rematch_options(first, {"round_limit": 50, TURN_SECONDS: 30})
    assert options == {"round_limit": 50, TURN_SECONDS: 30, DEALER: (first.dealer + 1) % 6}
    last = dataclasses.replace(first, dealer=5)
    assert RANK.rematch_options(last, {})[DEALER] == 0


def test_options_round_limit_and_turn_seconds() -> None:
    assert [(o.key, o.choices, o.default) for o in RANK.options] == [
        ("round_limit", (0, 25, 50, 100, 200), 0)
    ]
    state = RANK.new_game(3, {"round_limit": 200, TURN_SECONDS: 20}, Random(1), NOW)
    assert state.round_limit == 200 and RANK.next_deadline(state) == NOW + 20
    # 0 (the default): about ten minutes' worth, fewer rounds the more players take turns.
    limits = [
        RANK.new_game(n, {"round_limit": 0}, Random(1), NOW).round_limit for n in range(2, 11)
    ]
    assert limits == sorted(limits, reverse=True) and limits[1] == 50
    with pytest.raises(ValueError):
        RANK.new_game(1, {}, Random(1), NOW)
    with pytest.raises(ValueError):
        RANK.new_game(11, {}, Random(1), NOW)


def turns_up_a_joker(seed: int, players: int) -> bool:
    """Whether new_game(seed) would turn up a joker right after the deal (dealer given)."""
    deck = standard_deck(jokers=2)
    Random(seed).shuffle(deck)
    return deck[-(5 * players + 1)] is JOKER


def test_a_joker_turned_up_goes_back_into_the_stock() -> None:
    players = 3
    seed = next(seed for seed in range(10_000) if turns_up_a_joker(seed, players))
    state = RANK.new_game(players, {DEALER: 0}, Random(seed), NOW)
    assert not state.discard[0].is_joker and JOKER in state.stock
    assert state.stock.count(JOKER) + sum(h.count(JOKER) for h in state.hands) == 2
    assert len(state.stock) == 54 - 15 - 1


# --- the rank ring and the turn ----------------------------------------------------------


def test_rank_ring_adjacency_wraps_from_king_to_ace() -> None:
    assert adjacent(KING, ACE) and adjacent(ACE, KING)
    assert adjacent(ACE, 2) and adjacent(2, 3) and adjacent(QUEEN, KING) and adjacent(9, 10)
    assert not adjacent(2, KING) and not adjacent(ACE, ACE) and not adjacent(ACE, QUEEN)
    assert not adjacent(JOKER.rank, ACE) and not adjacent(KING, JOKER.rank)


def test_on_a_king_ace_and_queen_are_ordinary_plays() -> None:
    state = make(["Ah Qs 2d 7c", "9c"], stock="3c", discard="Kd")
    assert legal(state) == {play("Ah"), play("Qs")}
    state = make(["Kh 2s 3d", "9c"], stock="3c", discard="As")
    assert legal(state) == {play("Kh"), play("2s")}


def test_forced_play_forbids_draw_joker_and_ace_escape() -> None:
    state = make(["6h As XJ 9c", "9d"], stock="3c", discard="5c")
    assert legal(state) == {play("6h")}
    assert refused(state, 0, Draw()) == "rank.must_play"
    assert refused(state, 0, PlayJoker(6)) == "rank.must_play"
    assert refused(state, 0, play("As")) == "rank.must_play"
    assert refused(state, 0, play("9c")) == "rank.must_play"
    assert refused(state, 0, play("8h")) == "rank.illegal_card"
    assert refused(state, 0, Pass()) == "rank.cannot_pass"
    assert refused(state, 0, Keep()) == "rank.wrong_phase"
    assert refused(state, 1, play("9d")) == "rank.not_your_turn"
    after, codes = act(state, 0, play("6h"))
    assert codes == ["rank.played"]
    assert after.discard[-1] == parse_card("6h") and after.turn == 1
    assert after.hands[0] == sort_hand(cards("As XJ 9c"))


def test_without_an_adjacent_card_any_ace_joker_or_draw() -> None:
    state = make(["As Ad XJ 9c", "9d"], stock="3c", discard="5c")
    assert legal(state) == {play("As"), play("Ad"), Draw()} | ALL_JOKERS
    after, _ = act(state, 0, play("Ad"))
    assert after.discard[-1] == parse_card("Ad") and after.turn == 1
    # The next player now faces the ace: 2 or K.
    assert RANK.view(after, None).top == parse_card("Ad")


def test_an_ace_escape_on_an_ace() -> None:
    state = make(["Ac 9c", "9d"], stock="3c", discard="Ah")
    assert legal(state) == {play("Ac"), Draw()}


def test_joker_names_a_rank_then_a_follow_up_card() -> None:
    # The seed's example: "plays a joker, names 6, plays a 5".
    state = make(["XJ 5s 7h 9c", "9d 2h"], stock="3c", discard="Jc")
    after, codes = act(state, 0, PlayJoker(6))
    assert codes == ["rank.joker"]
    assert after.phase == "follow" and after.turn == 0 and after.named_rank == 6
    assert legal(after) == {play("5s"), play("7h"), EndTurn()}
    assert RANK.view(after, None).named_rank == 6 and RANK.view(after, None).top == JOKER
    assert refused(after, 0, play("9c")) == "rank.illegal_card"
    assert refused(after, 0, Draw()) == "rank.wrong_phase"
    done, codes = act(after, 0, play("5s"))
    assert codes == ["rank.played"]
    assert done.discard[-2:] == cards("XJ 5s") and done.named_rank is None
    assert done.turn == 1 and done.phase == "play"
    assert done.hands[0] == cards("7h 9c")


def test_joker_without_follow_up_leaves_the_named_rank_on_top() -> None:
    state = make(["XJ 5s 9c", "9d 3h"], stock="3c", discard="Jc")
    after, _ = act(state, 0, PlayJoker(6))
    done, codes = act(after, 0, EndTurn())
    assert codes == ["rank.ended_turn"]
    assert done.turn == 1 and done.named_rank == 6 and done.discard[-1] == JOKER
    # The next player plays on the named rank 6, not on the joker.
    assert legal(done) == {Draw()}
    state = make(["XJ 9c", "7d 3h"], stock="3c", discard="Jc")
    done, _ = act(state, 0, PlayJoker(6))
    assert legal(done) == {play("7d")}


def test_joker_with_no_possible_follow_up_ends_the_turn_by_itself() -> None:
    state = make(["XJ 9c", "9d"], stock="3c", discard="Jc")
    after, codes = act(state, 0, PlayJoker(2))
    assert codes == ["rank.joker"]
    assert after.turn == 1 and after.phase == "play" and after.named_rank == 2


def test_draw_an_unplayable_card_ends_the_turn() -> None:
    state = make(["9c", "9d"], stock="3c Jh", discard="5c")
    step = RANK.apply(state, 0, Draw(), Random(0), NOW)
    assert [e.code for e in step.events] == ["rank.drew", "rank.drew_card"]
    assert step.events[0].args == {} and step.events[0].only_seat is None
    assert step.events[1].only_seat == 0 and step.events[1].args == {"card": parse_card("Jh")}
    assert step.state.turn == 1 and step.state.hands[0] == cards("9c Jh")


def test_draw_a_playable_card_then_play_it_or_keep_it() -> None:
    state = make(["9c", "9d"], stock="3c 6h", discard="5c", opened=NOW - 50)
    drawn, _ = act(state, 0, Draw())
    assert drawn.phase == "drawn" and drawn.turn == 0 and drawn.drawn == parse_card("6h")
    assert drawn.hands[0] == cards("6h 9c")
    assert RANK.next_deadline(drawn) == NOW + 60  # a fresh window for the decision
    assert legal(drawn) == {play("6h"), Keep()}
    assert refused(drawn, 0, play("9c")) == "rank.play_drawn_card"
    assert refused(drawn, 0, Draw()) == "rank.wrong_phase"
    played, codes = act(drawn, 0, play("6h"))
    assert codes == ["rank.played"] and played.discard[-1] == parse_card("6h")
    assert played.turn == 1 and played.hands[0] == cards("9c")
    kept, codes = act(drawn, 0, Keep())
    assert codes == ["rank.kept"] and kept.turn == 1 and kept.hands[0] == cards("6h 9c")
    assert kept.discard[-1] == parse_card("5c") and kept.drawn is None


def test_a_drawn_ace_may_be_played() -> None:
    state = make(["9c", "9d"], stock="3c Ah", discard="5c")
    drawn, _ = act(state, 0, Draw())
    assert legal(drawn) == {play("Ah"), Keep()}


def test_a_drawn_joker_still_allows_its_follow_up_from_the_hand() -> None:
    state = make(["9c Jd", "9d"], stock="3c XJ", discard="5c")
    drawn, _ = act(state, 0, Draw())
    assert drawn.phase == "drawn" and drawn.drawn == JOKER
    assert legal(drawn) == ALL_JOKERS | {Keep()}
    follow, _ = act(drawn, 0, PlayJoker(10))
    assert follow.phase == "follow" and legal(follow) == {play("9c"), play("Jd"), EndTurn()}
    done, _ = act(follow, 0, play("Jd"))
    assert done.discard[-2:] == cards("XJ Jd") and done.hands[0] == cards("9c")
    assert done.turn == 1


def test_drawing_from_an_empty_stock_reshuffles_the_discard_pile() -> None:
    state = make(["9c", "9d"], stock="", discard="3c Jh XJ 2d 5c")
    step = RANK.apply(state, 0, Draw(), Random(4), NOW)
    assert step.events[0].code == "rank.reshuffled"
    assert step.events[0].args == {"count": 4}
    after = step.state
    assert after.discard == cards("5c")
    assert len(after.stock) == 3 and len(after.hands[0]) == 2
    assert Counter(after.stock + after.hands[0]) == Counter(cards("3c Jh XJ 2d 9c"))


def test_pass_only_when_nothing_to_draw_and_no_escape() -> None:
    stuck = make(["9c Jc", "9d"], stock="", discard="5c")
    assert legal(stuck) == {Pass()}
    assert refused(stuck, 0, Draw()) == "rank.cannot_draw"
    after, codes = act(stuck, 0, Pass())
    assert codes == ["rank.passed"] and after.turn == 1 and after.passes == 1
    with_ace = make(["9c Ac", "9d"], stock="", discard="5c")
    assert legal(with_ace) == {play("Ac")}
    assert refused(with_ace, 0, Pass()) == "rank.cannot_pass"
    with_joker = make(["9c XJ", "9d"], stock="", discard="5c")
    assert legal(with_joker) == ALL_JOKERS


def test_round_counts_when_every_holder_had_a_turn() -> None:
    state = make(["9c 9s", "9d 9h", "Tc Th"], stock="3c 3d 3h 3s Jc Jd", discard="5c")
    state, _ = act(state, 0, Draw())
    state, _ = act(state, 1, Draw())
    assert state.round == 1 and state.turn == 2
    state, _ = act(state, 2, Draw())
    assert state.round == 2 and state.turn == 0


# --- going out and coming back -----------------------------------------------------------


def test_last_card_makes_the_exit_pending() -> None:
    state = make(["6h", "9d 8c", "Kc Kd"], stock="3c 4d 2h", discard="5c")
    after, codes = act(state, 0, play("6h"))
    assert codes == ["rank.played", "rank.last_card"]
    assert after.pending == 0 and after.turn == 1 and after.out == ()
    view = RANK.view(after, None)
    assert view.pending == 0 and view.hand_sizes == (0, 2, 2) and not view.finished


def test_next_player_plays_so_the_pending_player_returns_with_two_cards() -> None:
    state = make(["6h", "7d 9c", "Kc Kd"], stock="3c 4d 2h", discard="5c")
    state, _ = act(state, 0, play("6h"))
    step = RANK.apply(state, 1, play("7d"), Random(0), NOW)
    codes = [e.code for e in step.events]
    assert codes == ["rank.played", "rank.returned", "rank.returned_cards"]
    assert step.events[1].seat == 0 and step.events[1].args == {"count": 2}
    assert "cards" not in step.events[1].args  # the cards themselves only in private
    assert step.events[2].only_seat == 0 and step.events[2].args == {"cards": cards("2h 4d")}
    after = step.state
    assert after.pending is None and after.out == ()
    assert after.hands[0] == cards("2h 4d") and after.discard[-1] == parse_card("7d")
    assert after.turn == 2
    after, _ = act(after, 2, Draw())
    assert after.turn == 0  # back in his own seat


def test_next_player_draws_so_the_pending_player_is_out_even_holding_an_ace() -> None:
    state = make(["6h", "As 9c", "Kc Kd"], stock="3c 4d 2h", discard="5c")
    state, _ = act(state, 0, play("6h"))
    assert play("As") in legal(state) and Draw() in legal(state)
    after, codes = act(state, 1, Draw())
    assert codes == ["rank.drew", "rank.drew_card", "rank.out"]
    assert after.out == (0,) and after.pending is None and after.hands[0] == ()
    # The drawn 2h does not fit the 6: the turn ends, and seat 0 is skipped from now on.
    assert after.turn == 2
    after, _ = act(after, 2, Draw())
    assert after.turn == 1


def test_out_for_good_even_when_the_drawn_card_is_then_played() -> None:
    state = make(["6h", "9c Jd", "Kc Kd"], stock="3c 4d 7h", discard="5c")
    state, _ = act(state, 0, play("6h"))
    drawn, codes = act(state, 1, Draw())
    assert codes[-1] == "rank.out" and drawn.phase == "drawn" and drawn.out == (0,)
    played, codes = act(drawn, 1, play("7h"))
    assert codes == ["rank.played"] and played.out == (0,) and played.hands[0] == ()


def test_a_joker_or_ace_escape_also_brings_the_pending_player_back() -> None:
    state = make(["6h", "XJ 9c", "Kc Kd"], stock="3c 4d 2h", discard="5c")
    state, _ = act(state, 0, play("6h"))
    after, codes = act(state, 1, PlayJoker(10))
    assert codes == ["rank.joker", "rank.returned", "rank.returned_cards"]
    assert after.phase == "follow" and len(after.hands[0]) == 2
    state = make(["6h", "As 9c", "Kc Kd"], stock="3c 4d 2h", discard="5c")
    state, _ = act(state, 0, play("6h"))
    after, codes = act(state, 1, play("As"))
    assert "rank.returned" in codes and len(after.hands[0]) == 2


def test_returning_takes_what_there_is_reshuffling_first() -> None:
    state = make(["6h", "7d 9c", "Kc Kd"], stock="3c", discard="Jh 5c")
    state, _ = act(state, 0, play("6h"))  # discard: Jh 5c 6h, stock: 3c
    step = RANK.apply(state, 1, play("7d"), Random(0), NOW)
    codes = [e.code for e in step.events]
    assert codes == [
        "rank.played",
        "rank.reshuffled",
        "rank.returned",
        "rank.returned_cards",
    ]
    assert step.events[2].args == {"count": 2}
    after = step.state
    assert after.discard == cards("7d")  # the card just played stays on top
    assert Counter(after.hands[0] + after.stock) == Counter(cards("3c Jh 5c 6h"))


def test_returning_with_fewer_cards_to_be_had() -> None:
    state = make(["6h", "7d 9c", "Kc Kd"], stock="", discard="5c")
    state, _ = act(state, 0, play("6h"))
    # The stock is empty; the discard pile under the 7d is 5c 6h: both are his.
    after, _ = act(state, 1, play("7d"))
    assert after.hands[0] == cards("5c 6h") and after.out == ()
    # Only his own last card under the 7d: he takes that one.
    state = make(["", "7d 9c", "Kc Kd"], stock="", discard="6h", pending=0, turn=1)
    step = RANK.apply(state, 1, play("7d"), Random(0), NOW)
    assert step.events[-2].code == "rank.returned" and step.events[-2].args == {"count": 1}
    assert step.state.hands[0] == cards("6h") and step.state.discard == cards("7d")


def test_a_pass_lets_the_exit_stand() -> None:
    state = make(["", "9c", "Kc Kd"], stock="", discard="6h", pending=0, turn=1)
    assert legal(state) == {Pass()}
    after, codes = act(state, 1, Pass())
    assert codes == ["rank.passed", "rank.out"] and after.out == (0,)


def test_bs_own_last_card_is_judged_by_the_player_after_him() -> None:
    state = make(["6h", "7d", "Kc Kd", "2c 3c"], stock="3d 4d 2h 2s", discard="5c")
    state, _ = act(state, 0, play("6h"))
    step = RANK.apply(state, 1, play("7d"), Random(0), NOW)
    codes = [e.code for e in step.events]
    assert codes == ["rank.played", "rank.returned", "rank.returned_cards", "rank.last_card"]
    after = step.state
    assert after.pending == 1 and len(after.hands[0]) == 2 and after.turn == 2
    out, codes = act(after, 2, Draw())
    assert codes[-1] == "rank.out" and out.out == (1,) and out.pending is None


def test_two_players_the_game_waits_for_the_judgement() -> None:
    state = make(["6h", "9c Jd"], stock="3c 4d 2h", discard="5c")
    state, _ = act(state, 0, play("6h"))
    assert not state.finished and state.turn == 1
    over, codes = act(state, 1, Draw())
    assert codes == ["rank.drew", "rank.drew_card", "rank.out", "rank.lost"]
    assert over.finished and over.loser == 1 and over.turn is None and over.phase == "over"
    assert RANK.outcome(over) is not None and RANK.outcome(over).places == (1, 2)  # type: ignore[union-attr]
    assert RANK.next_deadline(over) is None and RANK.legal_actions(over, 1) == ()
    assert refused(over, 1, Draw()) == "rank.game_over"


def test_loser_and_finishing_order() -> None:
    state = make(["", "6h", "9c Jd", "Qc Qd"], stock="3c 4d 2h", discard="5c", out=(0,), turn=1)
    state, _ = act(state, 1, play("6h"))  # seat 1 pending
    state, codes = act(state, 2, Draw())  # seat 1 out: place 2
    assert codes[-1] == "rank.out" and state.out == (0, 1) and not state.finished
    state = dataclasses.replace(
        state, hands=(cards(""), cards(""), cards("Tc"), cards("Qc Qd")), turn=2
    )
    state = dataclasses.replace(state, discard=cards("9h"), named_rank=None)
    state, _ = act(state, 2, play("Tc"))  # seat 2 pending
    over, codes = act(state, 3, Draw())
    assert codes[-2:] == ["rank.out", "rank.lost"]
    assert over.out == (0, 1, 2) and over.loser == 3
    outcome = RANK.outcome(over)
    assert outcome is not None and outcome.places == (1, 2, 3, 4)
    view = RANK.view(over, None)
    assert view.finished and view.loser == 3 and view.turn is None and view.deadline is None


# --- backstops ---------------------------------------------------------------------------


def test_stalled_round_ends_the_game_places_by_fewer_cards() -> None:
    state = make(["9c Jc", "9d", "9h Jh", "Td Th Ts"], stock="", discard="5c", out=())
    codes: list[str] = []
    for seat in range(3):
        state, codes = act(state, seat, Pass())
        assert not state.finished
    state, codes = act(state, 3, Pass())
    assert codes == ["rank.passed", "rank.stalled", "rank.backstop"]
    assert state.finished and state.loser is None and state.ended_by == "stalled"
    outcome = RANK.outcome(state)
    assert outcome is not None and outcome.places == (2, 1, 2, 4)  # equal counts share


def test_a_pass_after_a_play_does_not_stall() -> None:
    state = make(["9c", "9d 6d"], stock="", discard="5c")
    state, _ = act(state, 0, Pass())
    state, _ = act(state, 1, play("6d"))
    assert state.passes == 0 and not state.finished


def test_round_limit_ends_the_game_pending_exit_stands() -> None:
    state = make(
        ["", "6h", "9c Jd", "Qc Qd 2s"],
        stock="3c 4d 2h",
        discard="5c",
        out=(0,),
        turn=1,
        round=3,
        round_limit=3,
        had_turn=0b1100,
    )
    over, codes = act(state, 1, play("6h"))
    assert codes == [
        "rank.played",
        "rank.last_card",
        "rank.out",
        "rank.round_limit",
        "rank.backstop",
    ]
    assert over.out == (0, 1) and over.pending is None and over.ended_by == "round_limit"
    assert over.loser is None and over.round == 3
    outcome = RANK.outcome(over)
    assert outcome is not None and outcome.places == (1, 2, 3, 4)


def test_round_limit_counts_rounds() -> None:
    state = make(["9c", "9d"], stock="3c Jd 2h 3h 3s", discard="5c", round_limit=2)
    state, _ = act(state, 0, Draw())
    state, _ = act(state, 1, Draw())
    assert state.round == 2 and not state.finished
    state, _ = act(state, 0, Draw())
    state, codes = act(state, 1, Draw())
    assert codes[-2:] == ["rank.round_limit", "rank.backstop"] and state.finished
    outcome = RANK.outcome(state)
    assert outcome is not None and outcome.places == (1, 1)


# --- timeouts ----------------------------------------------------------------------------


def timeout(state: RankState, seed: int = 0) -> tuple[RankState, list[Event]]:
    step = RANK.on_deadline(state, Random(seed), NOW)
    assert step.events[0].code == "rank.timeout" and step.events[0].seat == state.turn
    return step.state, list(step.events[1:])


def test_timeout_plays_the_first_adjacent_card() -> None:
    state = make(["Kd 4h 4s 6c As", "9d"], stock="3c", discard="5c")
    after, events = timeout(state)
    assert [e.code for e in events] == ["rank.played"]
    assert events[0].args["card"] == parse_card("4s") and after.discard[-1] == parse_card("4s")


def test_timeout_plays_an_ace_before_a_joker() -> None:
    state = make(["XJ 9c Ah Ac", "9d"], stock="3c", discard="5c")
    after, events = timeout(state)
    assert events[0].args["card"] == parse_card("Ah") and after.hands[0] == cards("Ac 9c XJ")


def test_timeout_joker_names_one_above_the_first_natural_and_plays_it() -> None:
    state = make(["XJ Kc 9c 9h", "9d"], stock="3c", discard="5c")
    after, events = timeout(state)
    assert [e.code for e in events] == ["rank.joker", "rank.played"]
    assert events[0].args["rank"] == 10 and events[1].args["card"] == parse_card("9h")
    assert after.turn == 1 and after.hands[0] == cards("9c Kc")
    state = make(["XJ Kc", "9d"], stock="3c", discard="5c")
    after, events = timeout(state)
    assert events[0].args["rank"] == ACE and events[1].args["card"] == parse_card("Kc")


def test_timeout_with_only_jokers_names_ace_and_plays_nothing_more() -> None:
    state = make(["XJ XJ", "9d"], stock="3c", discard="5c")
    after, events = timeout(state)
    assert [e.code for e in events] == ["rank.joker"]
    assert events[0].args["rank"] == ACE and after.turn == 1 and after.hands[0] == (JOKER,)


def test_timeout_draws_and_plays_the_drawn_card() -> None:
    state = make(["9c", "9d"], stock="3c 4h", discard="5c")
    after, events = timeout(state)
    assert [e.code for e in events] == ["rank.drew", "rank.drew_card", "rank.played"]
    assert after.discard[-1] == parse_card("4h") and after.turn == 1
    state = make(["9c", "9d"], stock="3c Jh", discard="5c")
    after, events = timeout(state)
    assert [e.code for e in events] == ["rank.drew", "rank.drew_card"]
    assert after.turn == 1 and after.hands[0] == cards("9c Jh")


def test_timeout_draws_a_joker_and_plays_it_with_a_follow_up() -> None:
    state = make(["9c Jh", "9d"], stock="3c XJ", discard="5c")
    after, events = timeout(state)
    assert [e.code for e in events] == ["rank.drew", "rank.drew_card", "rank.joker", "rank.played"]
    assert events[2].args["rank"] == 10 and events[3].args["card"] == parse_card("9c")
    assert after.turn == 1 and after.hands[0] == cards("Jh")


def test_timeout_passes_when_nothing_is_possible() -> None:
    state = make(["9c", "9d"], stock="", discard="5c")
    after, events = timeout(state)
    assert [e.code for e in events] == ["rank.passed"] and after.turn == 1


def test_timeout_in_phase_drawn_plays_the_drawn_card() -> None:
    state = make(["9c", "9d"], stock="3c 6s", discard="5c")
    drawn, _ = act(state, 0, Draw())
    after, events = timeout(drawn)
    assert [e.code for e in events] == ["rank.played"] and after.discard[-1] == parse_card("6s")


def test_timeout_in_phase_follow_plays_the_first_follow_up() -> None:
    state = make(["XJ 5s 7h 7c 9c", "9d"], stock="3c", discard="Jc")
    follow, _ = act(state, 0, PlayJoker(6))
    after, events = timeout(follow)
    assert [e.code for e in events] == ["rank.played"]
    assert events[0].args["card"] == parse_card("5s") and after.turn == 1
    assert default_action(follow) == play("5s")


def test_timeout_on_a_finished_game_does_nothing() -> None:
    over = make(["", "9d"], stock="", discard="5c", turn=None, phase="over", out=(0,), loser=1)
    step = RANK.on_deadline(over, Random(0), NOW)
    assert step.state == over and step.events == ()


# --- views, codes, storage ---------------------------------------------------------------


def test_views_show_own_cards_only() -> None:
    state = make(["9c XJ", "9d 2h"], stock="3c 6h", discard="Jc 5c", dealer=1, opened=NOW)
    drawn, _ = act(state, 0, Draw())
    public = RANK.view(drawn, None)
    assert public == RankView(
        seat=None,
        players=2,
        hand=(),
        hand_sizes=(3, 2),
        top=parse_card("5c"),
        named_rank=None,
        stock_size=1,
        discard_size=2,
        turn=0,
        phase="drawn",
        drawn=None,
        out=(),
        pending=None,
        round=1,
        round_limit=200,
        dealer=1,
        deadline=NOW + 60,
        finished=False,
        loser=None,
    )
    own = RANK.view(drawn, 0)
    assert own.hand == cards("6h 9c XJ") and own.drawn == parse_card("6h")
    other = RANK.view(drawn, 1)
    assert other.hand == cards("2h 9d") and other.drawn is None


def test_hands_sort_ace_first_then_suits_jokers_last() -> None:
    state = make(["XJ Kc 2h As 2s Ah", "9d"], stock="3c", discard="5c")
    assert RANK.view(state, 0).hand == cards("As Ah 2s 2h Kc XJ")


def test_action_codes_round_trip() -> None:
    actions: list[RankAction] = [play("Ts"), play("Ah"), Draw(), Keep(), EndTurn(), Pass()]
    actions += [PlayJoker(rank) for rank in RING]
    for action in actions:
        code = RANK.encode_action(action)
        assert len(code) <= 24 and code.isascii() and code.isalnum()
        assert RANK.decode_action(code) == action
    assert RANK.encode_action(play("Ts")) == "pTs"
    assert RANK.encode_action(PlayJoker(QUEEN)) == "jQ"
    assert RANK.encode_action(PlayJoker(10)) == "jT"


@pytest.mark.parametrize(
    "garbage",
    ["", "p", "pXJ", "pT", "pTsx", "j", "jX", "j1", "D", "dd", "x ", "🃏", "\x00", "jQ\n"],
)
def test_decode_refuses_garbage(garbage: str) -> None:
    with pytest.raises(IllegalAction) as error:
        RANK.decode_action(garbage)
    assert error.value.code == "bad_action"


def test_decode_never_crashes_on_random_strings() -> None:
    rng = Random(5)
    alphabet = "pjdkexTsAhXJ2Q0 -_.♠"
    for _ in range(3000):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randrange(5)))
        try:
            RANK.decode_action(text)
        except IllegalAction as error:
            assert error.code == "bad_action"


def test_bad_joker_rank_is_refused() -> None:
    state = make(["XJ 9c", "9d"], stock="3c", discard="5c")
    assert refused(state, 0, PlayJoker(0)) == "bad_action"
    assert refused(make(["9c", "9d"], stock="3c", discard="5c"), 0, PlayJoker(5)) == (
        "rank.no_joker"
    )


def test_dump_load_round_trip_is_json() -> None:
    state = make(["9c XJ", "9d 2h"], stock="3c 6h", discard="Jc 5c", opened=NOW)
    drawn, _ = act(state, 0, Draw())
    for s in (state, drawn, RANK.new_game(7, {}, Random(2), NOW)):
        data = json.loads(json.dumps(RANK.dump(s)))
        assert RANK.load(data) == s


def test_codes_are_declared() -> None:
    assert len(set(EVENT_CODES)) == len(EVENT_CODES)
    assert all(code.startswith("rank.") for code in EVENT_CODES)
    assert {"rank.played", "rank.joker", "rank.drew", "rank.drew_card", "rank.kept"} <= set(
        EVENT_CODES
    )
    assert "bad_action" in ERROR_CODES and "rank.not_your_turn" in ERROR_CODES
    assert RANK.key == "rank" and (RANK.min_players, RANK.max_players) == (2, 10)


# --- the computer player -----------------------------------------------------------------


def test_computer_keeps_its_ace_and_sheds_the_lonely_card() -> None:
    state = make(["Ah Qs Jd Jh 7c", "9d"], stock="3c", discard="Kd")
    # Q and A are adjacent to K; it keeps the ace.
    assert RANK.choose(state, 0, Random(0)) == play("Qs")
    state = make(["3c 5c 6h 9d", "9s"], stock="3d", discard="4s")
    # 3 and 5 are equally flexible to lose; the 3 has no neighbour in hand, the 5 has the 6.
    assert RANK.choose(state, 0, Random(0)) == play("3c")
    state = make(["3c 5c 5h 9d", "9s"], stock="3d", discard="4s")
    # Losing a 5 keeps every rank the hand can follow.
    action = RANK.choose(state, 0, Random(0))
    assert isinstance(action, Play) and action.card.rank == 5


def test_computer_uses_a_joker_naming_a_rank_it_can_follow() -> None:
    state = make(["XJ 9c 9h Kd", "9s"], stock="3d", discard="5s")
    action = RANK.choose(state, 0, Random(0))
    assert isinstance(action, PlayJoker)
    follow, _ = act(state, 0, action)
    assert follow.phase == "follow"
    follow_up = RANK.choose(follow, 0, Random(0))
    assert isinstance(follow_up, Play) and adjacent(follow_up.card.rank, action.rank)


def test_computer_prefers_an_ace_escape_to_drawing_and_plays_its_drawn_card() -> None:
    state = make(["Ac 9c", "9s"], stock="3d", discard="5s")
    assert RANK.choose(state, 0, Random(0)) == play("Ac")
    state = make(["9c", "9s"], stock="3d 4h", discard="5s")
    assert RANK.choose(state, 0, Random(0)) == Draw()
    drawn, _ = act(state, 0, Draw())
    assert RANK.choose(drawn, 0, Random(0)) == play("4h")
    state = make(["9c", "9s"], stock="3d XJ", discard="5s")
    drawn, _ = act(state, 0, Draw())
    action = RANK.choose(drawn, 0, Random(0))
    assert isinstance(action, PlayJoker) and adjacent(action.rank, 9)


def test_computer_names_a_rank_the_next_player_can_hardly_answer() -> None:
    # Every 4 and every 6 has been played: after a bare joker naming 5 the next player can
    # follow only with an escape.
    state = make(["XJ", "9s"], stock="3d", discard="4s 4h 4d 4c 6s 6h 6d 6c 9c")
    assert RANK.choose(state, 0, Random(0)) == PlayJoker(5)


def test_computer_beats_random_players() -> None:
    places: Counter[int] = Counter()
    games = 160
    for seed in range(games):
        rng = Random(seed)
        computer = seed % 4
        state = RANK.new_game(4, {"round_limit": 50}, rng, NOW)
        while not state.finished:
            seat = state.turn
            assert seat is not None
            if seat == computer:
                action = RANK.choose(state, seat, rng)
            else:
                action = rng.choice(RANK.legal_actions(state, seat))
            state = RANK.apply(state, seat, action, rng, NOW).state
        outcome = RANK.outcome(state)
        assert outcome is not None
        places[outcome.places[computer]] += 1
    # Chance is 1/4 wins and an average place of 2.5.
    assert places[1] / games > 0.3
    assert sum(place * n for place, n in places.items()) / games < 2.3


# --- random playouts ---------------------------------------------------------------------


_FIELDS: dict[type, tuple[str, ...]] = {}
_SCALARS = (int, float, str, bool, type(None))


def walk_cards(value: object, found: list[Card]) -> list[Card]:
    """Collect every Card inside a view, however deeply nested in tuples and dataclasses."""
    kind = type(value)
    if kind is Card:
        found.append(value)  # type: ignore[arg-type]
    elif kind in _SCALARS:
        pass
    elif kind is tuple or kind is list:
        for item in value:  # type: ignore[attr-defined]
            walk_cards(item, found)
    elif dataclasses.is_dataclass(value) and not isinstance(value, type):
        names = _FIELDS.get(kind)
        if names is None:
            names = _FIELDS[kind] = tuple(f.name for f in dataclasses.fields(value))
        for name in names:
            walk_cards(getattr(value, name), found)
    else:
        raise AssertionError(f"unexpected {kind} in a view")
    return found


def check_view(state: RankState, seat: int | None) -> None:
    """The public view holds only the top card; a seat's view adds only its own cards."""
    view = RANK.view(state, seat)
    # Cards are interned, so identity stands for the card (and is much cheaper to hash).
    allowed = {id(state.discard[-1])} if state.discard else set()
    if seat is not None:
        allowed.update(map(id, state.hands[seat]))
    for c in walk_cards(view, []):
        assert id(c) in allowed, (seat, c)


def check_state(state: RankState, deck: Counter[int]) -> None:
    """Cards are conserved and the bookkeeping agrees with the hands."""
    every = list(map(id, state.stock)) + list(map(id, state.discard))
    for hand in state.hands:
        every.extend(map(id, hand))
    assert Counter(every) == deck
    assert state.discard and not (state.discard[-1].is_joker and state.named_rank is None)
    for seat in state.out:
        assert state.hands[seat] == ()
    assert len(set(state.out)) == len(state.out)
    if state.pending is not None:
        assert state.hands[state.pending] == () and state.pending not in state.out
    if state.finished:
        assert state.turn is None and RANK.outcome(state) is not None
        return
    assert state.turn is not None and state.hands[state.turn]
    assert RANK.legal_actions(state, state.turn)
    other = (state.turn + 1) % state.players
    assert other == state.turn or RANK.legal_actions(state, other) == ()
    if state.phase == "drawn":
        assert state.drawn in state.hands[state.turn]


def check_events(events: tuple[Event, ...]) -> None:
    for event in events:
        assert event.code in EVENT_CODES
        has_cards = any(isinstance(v, Card | tuple) for v in event.args.values())
        if has_cards and event.only_seat is None:
            assert event.code == "rank.played"  # the only public card is the one played


# Short round limits keep 2,000 games fast; every 50th game runs to the default 150 rounds.
PLAYOUTS = [(2, 40, 700), (4, 15, 600), (5, 8, 400), (10, 4, 300)]


@pytest.mark.parametrize(("players", "round_limit", "games"), PLAYOUTS)
def test_random_playouts(players: int, round_limit: int, games: int) -> None:
    deck = Counter(map(id, standard_deck(jokers=2) * (1 if players <= 4 else 2)))
    seen_codes: set[str] = set()
    ends: Counter[str | None] = Counter()
    for game in range(games):
        seed = players * 100_000 + game
        rng = Random(seed)
        limit = round_limit if game % 50 else 150
        computers = {seat for seat in range(players) if rng.random() < 0.3}
        now = NOW
        state = RANK.new_game(players, {"round_limit": limit, DEALER: None}, rng, now)
        check_state(state, deck)
        bound = limit * players * 3 + 1
        for step_number in range(bound + 1):
            if state.finished:
                break
            seat = state.turn
            assert seat is not None
            now += 1.0
            if rng.random() < 0.05:
                step = RANK.on_deadline(state, rng, now)
            else:
                legal_now = RANK.legal_actions(state, seat)
                if seat in computers:
                    action = RANK.choose(state, seat, rng)
                    assert action in legal_now
                else:
                    action = rng.choice(legal_now)
                assert RANK.decode_action(RANK.encode_action(action)) == action
                step = RANK.apply(state, seat, action, rng, now)
            assert step.state is not state
            state = step.state
            check_events(step.events)
            seen_codes.update(e.code for e in step.events)
            check_state(state, deck)
            check_view(state, None)
            check_view(state, seat)
            if step_number % 40 == 0:
                assert RANK.load(json.loads(json.dumps(RANK.dump(state)))) == state
                for each in range(players):
                    check_view(state, each)
        assert state.finished, f"seed {seed} did not end within {bound} steps"
        assert RANK.load(RANK.dump(state)) == state
        outcome = RANK.outcome(state)
        assert outcome is not None and len(outcome.places) == players
        assert sorted(outcome.places)[0] == 1
        if state.ended_by == "loser":
            assert state.loser is not None and outcome.places[state.loser] == players
        ends[state.ended_by] += 1
    assert ends["round_limit"] > 0
    assert {"rank.played", "rank.drew", "rank.timeout", "rank.backstop"} <= seen_codes
    if players <= 4:
        assert ends["loser"] > 0 and "rank.lost" in seen_codes and "rank.returned" in seen_codes
