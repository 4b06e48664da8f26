"""One update, one transaction: an update whose handling changes several things writes them
all in the transaction that marks it handled — so a process killed half-way leaves nothing of
it applied, and the next leader, handed the same update, applies it whole.

Each test takes the update the emulator would send, stores it in the inbox and hands it to the
bot's own handler as the leader does (under :func:`~bot.services.inbox.handling`), with a
"kill" injected between two of its writes: the handling dies with :class:`Killed`. Then the
same update is handled again, as after a failover, and the whole of its effect must be there —
once.
"""

from __future__ import annotations

import itertools
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import pytest
from sqlalchemy import func, select
from telegram import Update
from telegram.ext import CallbackContext

from bot.services.inbox import InboxService, handling
from bot.services.types import ChatRef, GameSnapshot
from bot.storage.models import ActionRow, UserRow
from bot.storage.repositories import ChatMoves, Games
from tests.e2e.harness import Harness
from tests.e2e.test_rank_game import press
from tests.fakes import FakeBotApi, FakeChat, FakeTopic, FakeUser

#: Inbox ids for the updates handled here (the emulator's own go by polling, not the inbox).
_update_ids = itertools.count(900_000_000)


class Killed(Exception):
    """The process died here."""


@pytest.fixture
async def bot(database_url: str) -> AsyncIterator[Harness]:
    """The bot on the test database (PostgreSQL when ``TEST_DATABASE_URL`` says so), its inbox
    read by nobody: the tests hand its updates over themselves, as the leader would."""
    harness = Harness(FakeBotApi(flood_limits=False), database_url)
    app = await harness.start()
    await app.bot_data["inbox"].stop()
    yield harness
    await harness.stop()


def room(h: Harness) -> Any:
    assert h.app is not None
    return h.app.bot_data["cardroom"]


async def sent(h: Harness, action: Callable[[], Awaitable[object]]) -> dict[str, Any]:
    """The update ``action`` makes the emulator send, taken instead of being sent (the bot
    does not hear of it by polling), with an inbox id of its own."""
    api = h.api
    taken: list[dict[str, Any]] = []

    async def take(kind: str, body: dict[str, Any]) -> None:
        taken.append(body)

    enqueue = api._enqueue
    api._enqueue = take  # type: ignore[method-assign]
    try:
        await action()
    finally:
        api._enqueue = enqueue  # type: ignore[method-assign]
    (body,) = taken
    return {"update_id": next(_update_ids), **body}


async def handle(h: Harness, payload: dict[str, Any]) -> None:
    """Handle a stored update as the leader does: under ``handling`` its first write marks it
    handled, and its handlers run as the application runs them — with nothing in between to
    catch what they raise."""
    app = h.app
    assert app is not None
    update = Update.de_json(payload, app.bot)
    with handling(payload["update_id"]):
        for group in sorted(app.handlers):
            for handler in app.handlers[group]:
                check = handler.check_update(update)
                if check is not None and check is not False:
                    context = CallbackContext.from_update(update, app)
                    await handler.handle_update(update, app, check, context)
                    break


async def store(h: Harness, payload: dict[str, Any]) -> InboxService:
    inbox = InboxService(room(h).lobby.db)
    await inbox.take([payload])
    return inbox


def kill_at(monkeypatch: pytest.MonkeyPatch, owner: Any, name: str, call: int) -> None:
    """The ``call``-th call of ``owner.name`` dies (the process is killed there)."""
    original = getattr(owner, name)
    calls = [0]

    async def dying(*args: Any, **kwargs: Any) -> Any:
        calls[0] += 1
        if calls[0] == call:
            raise Killed(name)
        return await original(*args, **kwargs)

    monkeypatch.setattr(owner, name, dying)


async def redelivered(
    h: Harness, monkeypatch: pytest.MonkeyPatch, payload: dict[str, Any], inbox: InboxService
) -> None:
    """The handling died; the update is still the next leader's to handle — and it is."""
    assert [u.update_id for u in await inbox.pending(10)] == [payload["update_id"]], (
        "an update half applied was marked handled: its redelivery would be refused"
    )
    monkeypatch.undo()
    await handle(h, payload)
    assert await inbox.pending(10) == []
    await h.settle()


def tables(h: Harness, group: FakeChat, topic: FakeTopic | None = None) -> list[Any]:
    return [m for m in h.api.bot_messages(group, topic) if (m.text or "").startswith("🎴")]


async def game_in(
    h: Harness, group: FakeChat, topic: FakeTopic | None, host: FakeUser, guest: FakeUser
) -> int:
    """A game of Rank between ``host`` and ``guest``, dealt in ``topic``: its id."""
    await lobby_in(h, group, topic, host, guest)
    await press(h, host, tables(h, group, topic)[-1], "▶️ Start")
    return await game_id(h, group, topic)


async def lobby_in(
    h: Harness, group: FakeChat, topic: FakeTopic | None, host: FakeUser, guest: FakeUser
) -> int:
    """A lobby ``host`` opened in ``topic`` and ``guest`` joined: its id."""
    await h.api.send_text(host, group, "/new rank", thread_id=topic)
    await h.api.wait_until(lambda: bool(tables(h, group, topic)))
    await h.settle()
    await press(h, guest, tables(h, group, topic)[-1], "✋ Join")
    return await game_id(h, group, topic)


async def game_id(h: Harness, group: FakeChat, topic: FakeTopic | None) -> int:
    shown = await room(h).play.snapshot_in_topic(group.id, topic.thread_id if topic else 0)
    assert shown is not None
    return int(shown.game_id)


async def snapshot(h: Harness, game: int) -> GameSnapshot:
    shown: GameSnapshot = await room(h).play.snapshot(game)
    return shown


async def away_steps(h: Harness, game: int) -> int:
    """How many times a seat of the game was handed to the computer."""
    async with room(h).play.db.transaction() as session:
        count = await session.scalar(
            select(func.count())
            .select_from(ActionRow)
            .where(ActionRow.game_id == game, ActionRow.source == "away")
        )
    return int(count or 0)


async def test_a_member_who_leaves_is_out_of_every_lobby_and_game_of_the_group(
    bot: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Reproduced in issue 34: his seat was handed to the computer in one game, never in the
    second, and he stayed seated in the lobby."""
    h, api = bot, bot.api
    anna, boris = api.add_user("Anna"), api.add_user("Boris")
    group = api.add_group("Card club", forum=True, admins=[anna], members=[boris])
    topics = [api.add_topic(group, name) for name in ("One", "Two", "Three")]
    first = await game_in(h, group, topics[0], anna, boris)
    second = await game_in(h, group, topics[1], anna, boris)
    lobby = await lobby_in(h, group, topics[2], anna, boris)
    leaving = await sent(h, lambda: api.leave_group(boris, group))
    inbox = await store(h, leaving)

    kill_at(monkeypatch, room(h).lobby.store, "commit_step", 2)  # after the first game
    with pytest.raises(Killed):
        await handle(h, leaving)
    await redelivered(h, monkeypatch, leaving, inbox)

    for game in (first, second):
        seat = (await snapshot(h, game)).seat_of(boris.id)
        assert seat is not None and seat.autopilot and seat.left, game
        assert await away_steps(h, game) == 1, "handed over once"
    assert (await snapshot(h, lobby)).seat_of(boris.id) is None


async def test_a_person_who_blocks_the_bot_is_played_for_in_all_his_games(
    bot: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    h, api = bot, bot.api
    anna, boris = api.add_user("Anna"), api.add_user("Boris")
    club = api.add_group("Card club", admins=[anna], members=[boris])
    pub = api.add_group("Pub", admins=[anna], members=[boris])
    games = [await game_in(h, club, None, anna, boris), await game_in(h, pub, None, anna, boris)]
    blocking = await sent(h, lambda: api.block_bot(boris))
    inbox = await store(h, blocking)

    kill_at(monkeypatch, room(h).lobby.store, "commit_step", 2)
    with pytest.raises(Killed):
        await handle(h, blocking)
    await redelivered(h, monkeypatch, blocking, inbox)

    for game in games:
        seat = (await snapshot(h, game)).seat_of(boris.id)
        assert seat is not None and seat.autopilot and seat.left, game
        assert await away_steps(h, game) == 1
    async with room(h).play.db.transaction() as session:
        user = await session.get(UserRow, boris.id)
        assert user is not None and not user.started, "he is known not to be reachable"


async def test_removing_the_bot_cancels_every_game_of_the_group(
    bot: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    h, api = bot, bot.api
    anna, boris = api.add_user("Anna"), api.add_user("Boris")
    group = api.add_group("Card club", forum=True, admins=[anna], members=[boris])
    topics = [api.add_topic(group, name) for name in ("One", "Two")]
    games = [await game_in(h, group, topic, anna, boris) for topic in topics]
    removal = await sent(h, lambda: api.kick_bot(group))
    inbox = await store(h, removal)

    kill_at(monkeypatch, room(h).lobby.store, "commit_step", 2)
    with pytest.raises(Killed):
        await handle(h, removal)
    await redelivered(h, monkeypatch, removal, inbox)

    assert [(await snapshot(h, game)).status for game in games] == ["cancelled", "cancelled"]


async def test_a_group_upgraded_moves_all_its_games_or_none(
    bot: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A lobby opened in the new supergroup before the bot heard of the move gives way to the
    game being played; a kill after it was closed left the game behind in the dead group."""
    h, api = bot, bot.api
    anna, boris, clara = api.add_user("Anna"), api.add_user("Boris"), api.add_user("Clara")
    group = api.add_group("Card club", supergroup=False, admins=[anna], members=[boris, clara])
    game = await game_in(h, group, None, anna, boris)
    supergroup = api.migrate_group(group)
    await api.send_text(clara, supergroup, "/new rank")
    await api.wait_until(lambda: bool(tables(h, supergroup)))
    await h.settle()
    newcomer = await game_id(h, supergroup, None)
    moved = {
        "update_id": next(_update_ids),
        "message": {
            "message_id": 10_000,
            "date": 0,
            "chat": {"id": group.id, "type": "group", "title": group.title},
            "from": anna.to_dict(),
            "migrate_to_chat_id": supergroup.id,
        },
    }
    inbox = await store(h, moved)

    kill_at(monkeypatch, ChatMoves, "move", 1)  # after the newcomer was closed
    with pytest.raises(Killed):
        await handle(h, moved)
    await redelivered(h, monkeypatch, moved, inbox)

    assert (await snapshot(h, newcomer)).status == "cancelled"
    playing = await snapshot(h, game)
    assert (playing.chat_id, playing.status) == (supergroup.id, "playing")
    async with room(h).play.db.transaction() as session:
        assert await Games(session).open_in_chat(group.id) == [], "nothing left behind"


async def test_the_first_lobby_of_a_group_gives_it_its_openers_language(
    bot: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``/new`` wrote the group's language before the lobby: a kill between the two left a
    group that speaks Russian and has no lobby, and ``/new`` refused for good."""
    h, api = bot, bot.api
    anna = api.add_user("Anna", language_code="ru")
    group = api.add_group("Card club", admins=[anna])
    opening = await sent(h, lambda: api.send_text(anna, group, "/new rank"))
    inbox = await store(h, opening)

    kill_at(monkeypatch, Games, "next_number", 1)  # in the lobby's own transaction
    with pytest.raises(Killed):
        await handle(h, opening)
    await redelivered(h, monkeypatch, opening, inbox)

    lobby = await room(h).play.snapshot_in_topic(group.id, 0)
    assert lobby is not None and lobby.is_lobby
    where = ChatRef(group.id, "supergroup", group.title)
    assert await room(h).languages.for_chat(where, None) == "ru"
    await api.wait_until(lambda: bool(tables(h, group)))


async def test_a_game_against_the_computer_is_opened_whole_and_dealt_by_one_press(
    bot: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``/new`` in a private chat opens its lobby with the computers seated, in one
    transaction: a kill in it leaves nothing half open, and the redelivery opens it whole.
    Its Deal is an update of its own: a kill in the deal leaves the lobby, and the press
    redelivered deals it."""
    h, api = bot, bot.api
    anna = api.add_user("Anna")
    opening = await sent(h, lambda: api.send_text(anna, None, "/new rank"))
    inbox = await store(h, opening)
    kill_at(monkeypatch, room(h).lobby.store, "load", 1)  # the lobby written, not committed
    with pytest.raises(Killed):
        await handle(h, opening)
    await redelivered(h, monkeypatch, opening, inbox)
    lobby = await room(h).play.snapshot_in_topic(anna.id, 0)
    assert lobby is not None and lobby.is_lobby
    assert [s.user_id for s in lobby.seats] == [anna.id, None]
    await api.wait_until(lambda: any(m.text.startswith("🎴") for m in api.bot_messages(anna)))
    message = next(m for m in api.bot_messages(anna) if m.text.startswith("🎴"))

    pressing = await sent(h, lambda: api.press(anna, message, "🃏 Deal"))
    inbox = await store(h, pressing)
    kill_at(monkeypatch, room(h).lobby.store, "commit_step", 1)  # the deal
    with pytest.raises(Killed):
        await handle(h, pressing)
    await redelivered(h, monkeypatch, pressing, inbox)

    dealt = await room(h).play.snapshot_in_topic(anna.id, 0)
    assert dealt is not None and dealt.status == "playing"
    assert dealt.seats[0].user_id == anna.id
