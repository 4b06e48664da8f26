"""Nothing decided is lost: a bot stopped — or killed — while what it decided to say waits for
its chat leaves it to the next process, which says it. A game's end (its final table and its
result) and the replies asked for are written with the decision (the outbox), not held in
one process' memory."""

from __future__ import annotations

import asyncio
from typing import Any

from sqlalchemy import func, select

from bot.storage.database import Database
from bot.storage.models import LetterRow
from tests.e2e.harness import Harness
from tests.e2e.test_absent_players import play_a_little, two_player_game
from tests.fakes import FakeChat

#: A 429 that holds a group's every call for a minute: what the bot decided waits meanwhile.
PAUSE = {"error_code": 429, "description": "Too Many Requests: retry after 60", "retry_after": 60}


def hold_group(h: Harness, group: FakeChat, method: str) -> None:
    h.api.fail_next(method, PAUSE["error_code"], PAUSE["description"], 60, chat_id=group)


async def letters(h: Harness) -> list[tuple[str, Any, Any]]:
    """The outbox as the database holds it: (kind, outcome, chat) of each letter."""
    db = Database.from_url(h.database_url)
    try:
        async with db.transaction() as session:
            rows = await session.execute(
                select(LetterRow.kind, LetterRow.outcome, LetterRow.chat_id).order_by(LetterRow.id)
            )
            return [tuple(row) for row in rows]
    finally:
        await db.close()


async def undelivered(h: Harness) -> int:
    db = Database.from_url(h.database_url)
    try:
        async with db.transaction() as session:
            count = await session.scalar(
                select(func.count()).select_from(LetterRow).where(LetterRow.delivered_at.is_(None))
            )
            return int(count or 0)
    finally:
        await db.close()


async def test_a_game_that_ended_unshown_is_shown_by_the_next_process(harness: Harness) -> None:
    h = harness
    anna, boris, group = await two_player_game(h)
    await play_a_little(h, [anna, boris])
    await h.settle()
    results_before = [m for m in h.api.bot_messages(group) if "is over" in (m.text or "")]
    assert results_before == []
    # The group's window is closed for a minute (a 429): its table's next edit — the game's
    # last ones among them — and the result wait for it...
    hold_group(h, group, "editMessageText")
    assert h.app is not None
    room = h.app.bot_data["cardroom"]
    ended = False
    for _ in range(8):
        h.clock.advance(61)
        await room.poller.run_once()
        if await room.play.snapshot_in_topic(group.id, 0) is None:
            ended = True
            break
    assert ended, "everyone was away: the game ended"
    assert "Game over" not in h.table(group).text, "the end waits for the group's window"
    # ... when the process is killed.
    await h.stop()
    assert ("result", None, group.id) in await letters(h), "the result was written, not sent"

    await h.start()
    await h.settle()
    table = h.table(group)
    assert "Game over" in table.text, table.text
    labels = [text for row in h.api.buttons(table) for text, _ in row]
    assert labels == ["🔄 Rematch"], "the final table: no move left, a rematch offered"
    results = [m for m in h.api.bot_messages(group) if "is over" in (m.text or "")]
    assert len(results) == 1, "the result, once"
    # Everyone was away: nobody won, and the ratings the end moved are told with it.
    assert "🏳 Nobody won" in results[0].text and "rating 1000?" in results[0].text
    assert await undelivered(h) == 0


async def test_replies_waiting_for_a_group_are_sent_by_the_next_process(
    harness: Harness,
) -> None:
    h = harness
    anna = h.api.add_user("Anna")
    boris = h.api.add_user("Boris")
    group = h.api.add_group("Card club", admins=[anna], members=[boris])
    await h.settle()
    # Telegram answers slowly: the first reply is on its way, the others wait behind it...
    h.api.latency = 30.0
    for user, text in ((anna, "/help"), (boris, "/rules rank"), (anna, "/top")):
        await h.api.send_text(user, group, text)
    await h.api.wait_until(lambda: h.api.pending_updates == 0)
    for _ in range(500):
        if len(await letters(h)) == 3:
            break
        await asyncio.sleep(0.01)
    assert [kind for kind, _, _ in await letters(h)] == ["call"] * 3, "each reply was written"
    # ... when the process is killed.
    await h.stop()
    h.api.latency = 0.0
    assert h.api.bot_messages(group) == [], "nothing reached the group before the kill"

    await h.start()
    await h.settle()
    said = [m.text or "" for m in h.api.bot_messages(group)]
    assert len(said) == 3, said
    assert any("Rank" in text for text in said)
    assert await undelivered(h) == 0
    assert all(outcome == "sent" for _, outcome, _ in await letters(h))


async def test_a_lobby_whose_creator_was_being_greeted_is_opened_by_the_next_process(
    harness: Harness,
) -> None:
    h = harness
    anna = h.api.add_user("Anna")
    group = h.api.add_group("Card club", admins=[anna])
    await h.settle()
    # The creator is greeted in his private chat before he is seated and the lobby posted:
    # Telegram is slow to answer when the process is killed.
    h.api.latency = 30.0
    await h.api.send_text(anna, group, "/new rank")
    await h.api.wait_until(lambda: h.api.pending_updates == 0)
    for _ in range(500):
        if await letters(h):
            break
        await asyncio.sleep(0.01)
    await h.stop()
    h.api.latency = 0.0
    assert h.api.bot_messages(group) == []

    await h.start()
    await h.settle()
    table = h.table(group)
    assert "Anna" in table.text, "seated once greeted"
    assert [m.text for m in h.api.bot_messages(anna)][:1] != [], "greeted"
    assert await undelivered(h) == 0
