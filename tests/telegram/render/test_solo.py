"""A game against the computer in a private chat: one message, the table once and the hand once.

The table and the player's panel share that message (:func:`solo_content`): whatever the
table shows, the panel part must not show again — not the board, not the piles, not the
other player's cards.
"""

from __future__ import annotations

from collections.abc import Iterator
from random import Random
from types import SimpleNamespace
from typing import Any

import pytest

from bot.games.engine import Event
from bot.games.registry import get_rules
from bot.i18n import translator
from bot.services.snapshots import build_snapshot
from bot.services.types import GameSnapshot, SeatInfo
from bot.telegram.render import solo_content, table_content

NOW = 1_800_000_000.0
OWNER = 100
#: Seats per game: the player and the computers (Progression is for three).
SEATS = {"advantage": 2, "davayka": 2, "progression": 3, "rank": 2, "trumps": 2}


def private_snapshot(
    key: str,
    state: Any,
    *,
    events: tuple[Event, ...] = (),
    recent: tuple[Event, ...] = (),
    status: str = "playing",
    language: str = "en",
) -> GameSnapshot:
    """The snapshot of a game in its player's private chat: he in seat 0, computers after."""
    computers = (SeatInfo(s, None, "", language, None, 0) for s in range(1, SEATS[key]))
    seats = (SeatInfo(0, OWNER, "Anna", language, None, 0), *computers)
    game = SimpleNamespace(
        id=5,
        chat_id=OWNER,
        number=5,
        topic_id=0,
        game_key=key,
        status=status,
        version=9,
        seed=1,
        options={},
        state=None,
        recent=[e.dump() for e in recent],
        creator_id=OWNER,
        join_token="tok",
        table_message_id=None,
        deadline_at=NOW + 60,
    )
    chat = SimpleNamespace(kind="private", language=language)
    if get_rules(key).outcome(state) is not None:
        game.status = "finished"
    return build_snapshot(game, seats, chat, state=state, events=events)


def playout(key: str, seed: int, steps: int = 160) -> Iterator[GameSnapshot]:
    """A seeded game of computer-chosen moves (and now and then a timeout), as its player
    sees it in his private chat after each step."""
    rules = get_rules(key)
    rng = Random(seed)
    now = NOW
    state = rules.new_game(SEATS[key], {}, rng, now)
    recent: list[Event] = []
    events: tuple[Event, ...] = ()
    for _ in range(steps):
        yield private_snapshot(key, state, events=events, recent=tuple(recent[-5:]))
        if rules.outcome(state) is not None:
            return
        movers = [s for s in rules.acting_seats(state) if rules.legal_actions(state, s)]
        if not movers or rng.random() < 0.05:
            deadline = rules.next_deadline(state)
            assert deadline is not None
            now = max(now + 1, deadline)
            step = rules.on_deadline(state, rng, now)
        else:
            seat = rng.choice(movers)
            now += rng.uniform(0, 2)
            step = rules.apply(state, seat, rules.choose(state, seat, rng), rng, now)
        state, events = step.state, step.events
        recent += [e for e in events if e.only_seat is None]


def panel_part(snapshot: GameSnapshot) -> tuple[list[str], list[str]]:
    """The table's lines, and the lines the one message adds below them (hand, prompt)."""
    t = translator("en")
    table = table_content(t, snapshot, NOW).text.splitlines()
    solo = solo_content(t, snapshot, 0, NOW).text.splitlines()
    assert solo[: len(table)] == table, "the message opens with the table"
    return table, solo[len(table) :]


@pytest.mark.parametrize("key", sorted(SEATS))
@pytest.mark.parametrize("seed", range(6))
def test_the_panel_part_repeats_nothing_the_table_shows(key: str, seed: int) -> None:
    shown = 0
    for snapshot in playout(key, seed):
        if snapshot.status != "playing":
            continue
        table, panel = panel_part(snapshot)
        repeated = {line for line in panel if line.strip()} & set(table)
        assert not repeated, (key, repeated, "\n".join([*table, "-----", *panel]))
        assert "\n\n\n" not in solo_content(translator("en"), snapshot, 0, NOW).text
        shown += 1
    assert shown > 5


def first(key: str, seed: int, want: Any) -> GameSnapshot:
    return next(s for s in playout(key, seed) if want(s))


def test_davay_ka_shows_its_board_once_the_players_row_at_the_bottom() -> None:
    game = first("davayka", 1, lambda s: s.public.phase == "play" and 0 in s.legal)
    text = solo_content(translator("en"), game, 0, NOW).text
    lines = text.splitlines()
    assert sum("Centre:" in line for line in lines) == 1
    assert sum("— play!" in line for line in lines) == 1
    mine = next(i for i, line in enumerate(lines) if line.startswith("<b>You</b>"))
    computer = next(i for i, line in enumerate(lines) if "<b>🤖 Computer 1</b>" in line)
    centre = next(i for i, line in enumerate(lines) if "Centre:" in line)
    assert computer < centre < mine, "sitting across the table: the other's row on top"
    assert "Tap a card" in text or "fits now" in text


def test_rank_names_the_top_card_once_and_still_prompts() -> None:
    game = first("rank", 2, lambda s: 0 in s.legal)
    text = solo_content(translator("en"), game, 0, NOW).text
    assert text.count("On top:") == 1 and "Others:" not in text
    assert "Your hand:" in text and "Your move" in text and game.legal[0]


def test_advantage_shows_the_piles_whole_once_and_the_hand_once() -> None:
    game = first("advantage", 3, lambda s: 0 in s.legal and s.public.phase == "drop")
    text = solo_content(translator("en"), game, 0, NOW).text
    assert text.count("①") == 1, "the piles once (whole: an exchange takes a whole pile)"
    assert "Cycle" in text and text.count("Cycle") == 1
    assert "Stock" in text and text.count("Stock") == 1
    assert text.count("Your hand") == 1 and "Pairs: you" not in text


def test_progression_shows_the_stacks_once_and_between_deals_only_the_button() -> None:
    playing = first("progression", 4, lambda s: 0 in s.legal and s.public.phase == "play")
    text = solo_content(translator("en"), playing, 0, NOW).text
    assert text.count("Deal 1") == 1 and "Middle tops" not in text and "<b>You</b>" not in text
    assert "Your hand:" in text
    pause = first("progression", 4, lambda s: s.public.phase == "between_deals")
    solo = solo_content(translator("en"), pause, 0, NOW)
    assert solo.text.count("starts by itself") == 1 and solo.text.count("You scored") == 0
    assert [b.text for row in solo.keyboard for b in row] == ["⏭ Deal 2 now"]
