"""What the messages say about the people at the table: who left and who was only away, whose
time ran out, and names that must not turn the text around them.

Snapshots are built as the services build them — from the seat rows, whose ``timeouts`` say
who is away (missed turns) and who left (left the group or blocked the bot).
"""

from __future__ import annotations

from datetime import UTC, datetime
from random import Random
from types import SimpleNamespace
from typing import Any

import pytest

from bot.games.engine import Event
from bot.games.rank import RANK
from bot.games.registry import get_rules
from bot.i18n import translator
from bot.services.snapshots import UNREACHABLE, build_snapshot, seat_infos
from bot.services.stats import Board, BoardLine, PlayedGame, PlayedSeat, PlayerStats
from bot.services.types import INVITED, REMATCH_OF, GameSnapshot
from bot.telegram.render import panel_content, result_content, solo_content, table_content
from bot.telegram.render.boards import render_board, render_history, render_stats
from tests.services.test_boards import rank_places_state

T = translator("en")
NOW = 1_800_000_000.0
#: Missed turns that hand a seat to the computer (the lobby's default).
AWAY = 2
#: First Strong Isolate and Pop Directional Isolate: a name between them keeps its direction.
FSI, PDI = "\u2068", "\u2069"


def snapshot(
    key: str,
    state: Any,
    *,
    names: tuple[str | None, ...] = ("Anna", "Boris"),
    timeouts: tuple[int, ...] | None = None,
    status: str | None = None,
    kind: str = "supergroup",
    events: tuple[Event, ...] = (),
    recent: tuple[Event, ...] = (),
    options: dict[str, Any] | None = None,
) -> GameSnapshot:
    """The snapshot of a game from rows, as the services build it."""
    rows = [
        SimpleNamespace(
            seat=i,
            user_id=None if name is None else 100 + i,
            name=name or "",
            dm_message_id=None,
            timeouts=0 if timeouts is None else timeouts[i],
        )
        for i, name in enumerate(names)
    ]
    options = options or {}
    over = state is not None and get_rules(key).outcome(state) is not None
    game = SimpleNamespace(
        id=7,
        number=3,
        chat_id=100 if kind == "private" else -100,
        topic_id=0,
        game_key=key,
        status=status or ("finished" if over else "playing"),
        version=5,
        seed=1,
        options=options,
        state=None,
        recent=[e.dump() for e in recent],
        creator_id=100,
        join_token="tok",
        table_message_id=None,
        deadline_at=NOW + 60,
    )
    chat = SimpleNamespace(kind=kind, language="en")
    infos = seat_infos(rows, {}, options)
    return build_snapshot(game, infos, chat, state=state, events=events)


def finished_rank(places: tuple[int, ...]) -> Any:
    state = RANK.new_game(len(places), {}, Random(4), NOW)
    return rank_places_state(state, places)


# -- left, or only away ----------------------------------------------------------------------


def test_an_idle_player_whose_computer_won_is_not_told_he_left_nor_placed_below_if_first() -> None:
    """Issue #28: away (his turns ran out), the computer emptied his hand — and everyone else
    was away at the end too, so nobody stayed. He was never told he left, nor that he is
    placed below anyone: idle is not leaving. Issue #35: nor that he won or drew — nobody
    stayed, so nobody won, and it is a loss for each, as the log line says."""
    state = finished_rank((1, 2))
    game = snapshot("rank", state, timeouts=(AWAY, AWAY), status="finished")
    assert game.outcome is not None and game.outcome.places == (2, 2)
    panel = panel_content(T, game, 0, NOW).text
    assert "you finished 2 of 2" in panel
    assert "💤 You were away and nobody stayed to the end: a loss for each, you included." in (
        panel
    )
    assert "left" not in panel and "below" not in panel
    for text in (table_content(T, game, NOW).text, result_content(T, game).text):
        assert "💤 Away at the end, the computer playing for them: Anna, Boris." in text
        assert "🏳 Nobody won: nobody stayed to the end, so it is a loss for each." in text
        assert "🥇" not in text and "draw" not in text and "Tied" not in text
        assert "Left the game" not in text and "below" not in text


def test_an_idle_player_below_one_who_stayed_is_told_he_was_away_not_that_he_left() -> None:
    state = finished_rank((1, 2))  # by the cards Anna, on autopilot, won
    game = snapshot("rank", state, timeouts=(AWAY, 0), status="finished")
    assert game.outcome is not None and game.outcome.places == (2, 1)
    panel = panel_content(T, game, 0, NOW).text
    assert "you finished 2 of 2" in panel
    assert (
        "💤 You were away and the computer played for you, so you are placed below those who"
        " stayed." in panel
    )
    assert "You left" not in panel
    for text in (table_content(T, game, NOW).text, result_content(T, game).text):
        assert (
            "💤 Away, the computer playing for them, so placed below those who stayed: Anna."
            in text
        )
        assert "Left the game" not in text
    assert "placed below" not in panel_content(T, game, 1, NOW).text


def test_a_player_who_left_the_group_or_blocked_the_bot_is_told_he_left() -> None:
    state = finished_rank((1, 2))
    game = snapshot("rank", state, timeouts=(UNREACHABLE, 0), status="finished")
    assert game.seats[0].left and game.outcome is not None and game.outcome.places == (2, 1)
    panel = panel_content(T, game, 0, NOW).text
    assert "🚪 You left the game before the end, so you are placed below those who stayed." in (
        panel
    )
    table = table_content(T, game, NOW).text
    assert "🚪 Left the game before the end, so placed below those who stayed: Anna." in table
    assert "🥈 Anna 🚪" in table, "the mark says what happened too"
    assert "Away" not in table


def test_a_missed_turns_seat_and_a_left_one_are_told_apart_while_the_game_goes_on() -> None:
    state = RANK.new_game(3, {}, Random(2), NOW)
    game = snapshot(
        "rank", state, names=("Anna", "Boris", "Carla"), timeouts=(AWAY, UNREACHABLE, 0)
    )
    assert [s.left for s in game.seats] == [False, True, False]
    assert "😴 You missed your turns" in panel_content(T, game, 0, NOW).text
    assert "🚪 You left the game, so the computer is playing for you." in (
        panel_content(T, game, 1, NOW).text
    )
    table = table_content(T, game, NOW).text
    assert "Anna 💤" in table and "Boris 🚪" in table


def test_everyone_away_is_no_loss_for_a_leaver_alone_in_the_log() -> None:
    """The log line that ends a game everyone left speaks of every person, not of leavers."""
    assert "who left" not in T("event.seat.all_away_ended")


# -- a time-out, said where the player looks -------------------------------------------------


def _playout(key: str, seats: int, seed: int) -> list[tuple[Any, int, tuple[Event, ...]]]:
    """States of a game right after a window ran out for a person in seat 0, with the seat
    whose window it was and the step's events."""
    rules = get_rules(key)
    rng = Random(seed)
    now = NOW
    state = rules.new_game(seats, {}, rng, now)
    found = []
    for _ in range(300):
        if rules.outcome(state) is not None:
            break
        acting = rules.acting_seats(state)
        if 0 in acting and rng.random() < 0.5:
            deadline = rules.next_deadline(state)
            assert deadline is not None
            now = max(now, deadline)
            step = rules.on_deadline(state, rng, now)
            if any(e.code.endswith(".timeout") and e.seat == 0 for e in step.events):
                found.append((step.state, 0, step.events))
        else:
            seat = rng.choice(acting) if acting else None
            if seat is None:
                deadline = rules.next_deadline(state)
                assert deadline is not None
                now = max(now, deadline)
                step = rules.on_deadline(state, rng, now)
            else:
                step = rules.apply(state, seat, rules.choose(state, seat, rng), rng, now)
        state = step.state
    return found


@pytest.mark.parametrize(
    ("key", "seats"), [("advantage", 2), ("progression", 3), ("rank", 3), ("trumps", 2)]
)
def test_a_panel_says_the_time_ran_out_until_the_players_next_decision(
    key: str, seats: int
) -> None:
    """The table's log says "⏰ Boris ran out of time"; his panel says it too — from the step
    that timed out, through the others' moves, until he presses again."""
    names = ("Anna", "Boris", "Carla")[:seats]
    timed_out = [s for s in _playout(key, seats, 5) if get_rules(key).outcome(s[0]) is None]
    assert timed_out, "the playout meets a time-out"
    state, _seat, events = timed_out[0]
    missed = (1, *([0] * (seats - 1)))
    game = snapshot(key, state, names=names, timeouts=missed, events=events, recent=events)
    note = "⏰ Your time ran out, so the computer moved for you."
    assert note in panel_content(T, game, 0, NOW).text
    assert note not in panel_content(T, game, 1, NOW).text
    assert note not in table_content(T, game, NOW).text
    # The others' moves leave it there, and leave his waiting panel alone.
    rules, later = get_rules(key), state
    rng = Random(1)
    before = panel_content(T, game, 0, NOW)
    for _ in range(3):
        acting = [s for s in rules.acting_seats(later) if s != 0]
        if not acting or rules.outcome(later) is not None:
            break
        step = rules.apply(later, acting[0], rules.choose(later, acting[0], rng), rng, NOW)
        later = step.state
        shown = panel_content(
            T, snapshot(key, later, names=names, timeouts=missed, events=step.events), 0, NOW
        )
        assert note in shown.text
        # Rank's waiting panel shows the top card and the others' cards (issue #35).
        waiting = 0 not in rules.acting_seats(later) and not rules.legal_actions(later, 0)
        if waiting and key != "rank":
            assert shown == before, "a waiting panel does not move with the others' moves"
    # He presses again: his run of missed windows is over, and so is the note.
    pressed = snapshot(key, state, names=names, timeouts=(0,) * seats)
    assert note not in panel_content(T, pressed, 0, NOW).text


def test_in_a_private_game_the_time_out_is_said_under_the_table() -> None:
    timed_out = [s for s in _playout("trumps", 2, 3) if get_rules("trumps").outcome(s[0]) is None]
    state, _seat, events = timed_out[0]
    game = snapshot(
        "trumps", state, names=("Anna", None), timeouts=(1, 0), kind="private", events=events
    )
    assert "⏰ Your time ran out, so the computer moved for you." in (
        solo_content(T, game, 0, NOW).text
    )


# -- names that would turn the text around ---------------------------------------------------

#: U+202E (right-to-left override) in a name: everything after it would read backwards.
OVERRIDE = "Eve\u202e tsol uoy"
#: A right-to-left name: it keeps its own direction, isolated from the line's.
HEBREW = "דנה"


def _bidi_free(text: str) -> bool:
    """No override or embedding in the text, and every isolate closed."""
    if any(char in text for char in "\u202a\u202b\u202c\u202d\u202e\u200e\u200f\u061c"):
        return False
    depth = 0
    for char in text:
        if char in "\u2066\u2067\u2068":
            depth += 1
        elif char == "\u2069":
            depth -= 1
            if depth < 0:
                return False
    return depth == 0


def test_names_cannot_turn_a_table_around() -> None:
    state = RANK.new_game(3, {}, Random(2), NOW)
    game = snapshot("rank", state, names=(OVERRIDE, HEBREW, "Carla\u2069\u202e"))
    table = table_content(T, game, NOW).text
    panel = panel_content(T, game, 2, NOW).text
    for text in (table, panel):
        assert _bidi_free(text), ascii(text)
    assert "Eve tsol uoy" in table and f"{FSI}{HEBREW}{PDI}" in table and "Carla" in table
    finished = snapshot(
        "rank", finished_rank((1, 2, 3)), names=(OVERRIDE, HEBREW, "Carla"), status="finished"
    )
    for text in (table_content(T, finished, NOW).text, result_content(T, finished).text):
        assert _bidi_free(text) and f"🥈 {FSI}{HEBREW}{PDI}" in text


def test_names_cannot_turn_a_lobby_around() -> None:
    lobby = snapshot(
        "rank",
        None,
        names=(OVERRIDE, HEBREW),
        status="lobby",
        options={INVITED: [[103, "Mal\u202eory"], [104, HEBREW]], REMATCH_OF: 1},
    )
    text = table_content(T, lobby, NOW).text
    assert _bidi_free(text), ascii(text)
    assert "Malory" in text and f"{FSI}{HEBREW}{PDI}" in text


def test_names_cannot_turn_boards_stats_or_history_around() -> None:
    lines = (
        BoardLine(1, 5, OVERRIDE, 1010, 4, 2, 1, 1),
        BoardLine(2, 6, HEBREW, 990, 4, 1, 1, 2),
    )
    board = render_board(T, Board("rank", -100, False, 0, 1, lines)).text
    stats = render_stats(T, OVERRIDE, PlayerStats(5, ()))
    played = PlayedGame(
        7,
        "rank",
        datetime(2026, 1, 2, 3, 4, tzinfo=UTC),
        (PlayedSeat(0, 5, OVERRIDE, 1, 12), PlayedSeat(1, 6, HEBREW, 2, -12)),
    )
    history = render_history(T, [played]).text
    for text in (board, stats, history):
        assert _bidi_free(text), ascii(text)
        assert "Eve tsol uoy" in text
    assert f"{FSI}{HEBREW}{PDI}" in board and f"{FSI}{HEBREW}{PDI}" in history
