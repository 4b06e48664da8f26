"""A computer seat's pace (issue #21): in a game of turns it moves a pause after the change
that gave it the move; in real time a pause after it got what it does — the other player's
quicker moves do not put it off (else it waited for him to stop, and lost 52–0)."""

from __future__ import annotations

from random import Random

from bot.games.cards import parse_card
from bot.games.davayka import DAVAYKA, make_state
from bot.games.rank import RANK
from bot.services.games import GameStore

DELAY = 1.5


def cs(text: str) -> tuple:  # type: ignore[type-arg]
    return tuple(parse_card(code) for code in text.split())


def test_in_real_time_the_other_players_moves_do_not_put_the_computer_off() -> None:
    store = GameStore(computer_delay=DELAY)
    # Seat 1 (the computer) has had a move (7♦ onto 8♠) since 10 s; seat 0 plays on at 11 s.
    state = make_state(
        rows=[[cs("2c 3c 9h"), cs("Qd")], [cs("7d"), cs("Jc")]],
        stocks=[cs("5h"), cs("6h")],
        centres=[cs("8s"), cs("Kh")],
        idle_since=(10.0, 10.0),
        idle_seconds=10.0,
    )
    after = DAVAYKA.apply(state, 0, DAVAYKA.decode_action("p1x1"), Random(0), 11.0).state
    assert DAVAYKA.legal_actions(after, 1), "the computer still has its move"
    assert store.deadline(DAVAYKA, after, {1}, now=11.0) == 10.0 + DELAY


def test_in_a_game_of_turns_the_computer_moves_a_pause_after_the_change() -> None:
    store = GameStore(computer_delay=DELAY)
    state = RANK.new_game(2, {}, Random(1), 100.0)
    seat = RANK.acting_seats(state)[0]
    assert store.deadline(RANK, state, {seat}, now=105.0) == 105.0 + DELAY
