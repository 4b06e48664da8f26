"""An attack run over all five games: a hostile person tries every press she can make up on
every message she can see, between the moves of a game she has no part in; then a player
walks away from it. No game may change that she has no right to change, and no rating may
move in favour of the player who left.

Mallory is the admin of her own group (the den), where she has a lobby of her own, and a plain
member of the club, where Anna and Boris play. Between their moves she sweeps every game id up
to the newest (ids are sequential) with every lobby and table button, and replays every button
she has seen on the players' panels (a modified client can send any data) — on her den's
table, on the club's table and in her private chat. After each sweep the club's game is as it
was: the same version, the same table, the same panels.
"""

from __future__ import annotations

from typing import Any

import pytest

from bot.services.types import GameSnapshot
from tests.e2e.harness import Harness
from tests.e2e.test_commands import say
from tests.e2e.test_rank_game import press
from tests.fakes import FakeCallback, FakeMessage, FakeUser

GAMES = ("advantage", "davayka", "progression", "rank", "trumps")
LOBBY_OPS = ("join", "leave", "bot", "unbot", "start", "cancel", "back", "o.turn_seconds")
#: Moves the club plays between two sweeps, and sweeps per game.
SWEEPS = 3


def room(h: Harness) -> Any:
    assert h.app is not None
    return h.app.bot_data["cardroom"]


async def open_game(h: Harness, chat: Any, creator: FakeUser) -> int:
    snapshot = await room(h).play.snapshot_in_topic(chat.id, 0)
    assert snapshot is not None, f"no game open in {chat}"
    return int(snapshot.game_id)


def panel(h: Harness, snapshot: GameSnapshot, user: FakeUser) -> FakeMessage | None:
    seat = snapshot.seat_of(user.id)
    if seat is None or seat.dm_message_id is None:
        return None
    return h.api.message(user, seat.dm_message_id)


def seen(h: Harness, message: FakeMessage | None) -> list[str]:
    if message is None:
        return []
    return [data for row in h.api.buttons(message) for _, data in row if data]


def picture(h: Harness, snapshot: GameSnapshot, players: list[FakeUser]) -> tuple[Any, ...]:
    """What the club's people see of their game: the table and each panel, with buttons."""
    table = h.api.message(snapshot.chat_id, snapshot.table_message_id or 0)
    panels = [panel(h, snapshot, user) for user in players]
    return (
        table.text,
        h.api.buttons(table),
        *((p.text, h.api.buttons(p)) if p is not None else None for p in panels),
    )


async def sweep(
    h: Harness, mallory: FakeUser, places: list[FakeMessage], datas: list[str]
) -> list[FakeCallback]:
    callbacks = [
        await h.api.press_data(mallory, message.chat, message.message_id, data)
        for message in places
        for data in datas
    ]
    await h.api.wait_until(lambda: all(c.answered for c in callbacks), timeout=30)
    await h.settle()
    return callbacks


async def move_once(h: Harness, snapshot: GameSnapshot, players: list[FakeUser]) -> None:
    """A legitimate move: the first player with a move presses his first one; else time
    passes (a computer's pause)."""
    for user in players:
        message = panel(h, snapshot, user)
        moves = [d for d in seen(h, message) if d.startswith("A:")]
        if message is not None and moves:
            label = next(
                text for row in h.api.buttons(message) for text, d in row if d == moves[0]
            )
            await press(h, user, message, label)
            return
    await h.tick(1.5)


@pytest.mark.parametrize("key", GAMES)
async def test_an_attacker_changes_no_game_and_a_leaver_banks_nothing(
    harness: Harness, key: str
) -> None:
    h, api = harness, harness.api
    anna, boris, mallory = api.add_user("Anna"), api.add_user("Boris"), api.add_user("Mallory")
    club = api.add_group("Card club", admins=[anna], members=[boris, mallory])
    den = api.add_group("Den", admins=[mallory])
    players = [anna, boris]
    await say(h, mallory, den, f"/new {key}")
    own = await open_game(h, den, mallory)
    await say(h, anna, club, f"/new {key}")
    await press(h, boris, h.table(club), "✋ Join")
    if key == "progression":
        await press(h, anna, h.table(club), "🤖 Add computer")
    await press(h, anna, h.table(club), "▶️ Start")
    target = await open_game(h, club, anna)
    await say(h, mallory, None, "/help")
    mallorys_chat = api.bot_messages(mallory)[-1]

    copied: set[str] = set()
    forged: list[FakeCallback] = []
    for _ in range(SWEEPS):
        snapshot = await room(h).play.snapshot(target)
        for user in players:
            copied.update(seen(h, panel(h, snapshot, user)))
        copied.update(seen(h, h.table(club)))
        ids = [i for i in range(1, max(target, own) + 2) if i != own]
        datas = sorted(
            {f"L:{i}:{op}" for i in ids for op in LOBBY_OPS}
            | {f"R:{i}" for i in ids}
            | {d for d in copied if not d.startswith("H:")}
        )
        before = picture(h, snapshot, players)
        places = [h.table(den), h.table(club), mallorys_chat]
        forged += await sweep(h, mallory, places, datas)
        after = await room(h).play.snapshot(target)
        assert after.version == snapshot.version, "a forged press changed the game"
        assert picture(h, after, players) == before
        if after.is_over:
            break
        await move_once(h, after, players)
    assert all(c.answered and c.text for c in forged), "every forged press gets a refusal"

    # Boris walks away (blocks the bot); Anna stops pressing too, later.
    await api.block_bot(boris)
    await h.settle()
    for _ in range(3):
        await move_once(h, await room(h).play.snapshot(target), [anna])
    for _ in range(60):
        final = await room(h).play.snapshot(target)
        if final.is_over:
            break
        await h.tick(61)
    assert final.is_over, "the game ended with everyone away"
    if final.status == "cancelled":
        return  # called off before it began to mean anything: nothing counted
    assert final.outcome is not None
    places = final.outcome.places
    anna_seat, boris_seat = final.seat_of(anna.id), final.seat_of(boris.id)
    assert anna_seat is not None and boris_seat is not None
    assert places[boris_seat.seat] >= places[anna_seat.seat], "the leaver ranks below"
    if not anna_seat.autopilot:
        assert places[boris_seat.seat] > places[anna_seat.seat], "the one who stayed is above"
    (record,) = (await room(h).stats.player(boris.id)).games
    assert (record.wins, record.draws, record.losses) == (0, 0, 1), "leaving is a loss"
    assert record.rating <= 1000, "no rating rises by leaving"
