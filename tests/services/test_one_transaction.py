"""The use cases that change several things for one update do it in one transaction — and
what they return is what that transaction wrote. (A kill between two writes of each is tried
through the bot itself in ``tests/e2e/test_one_transaction.py``.)"""

from __future__ import annotations

from typing import Any

import pytest

from bot.services.people import PeopleService
from bot.services.types import ChatRef, ServiceError
from bot.storage.database import Database
from bot.storage.models import UserRow
from bot.storage.repositories import ChatMoves
from tests.services.helpers import make_services, person
from tests.services.test_boards import start_game

ANNA, BORIS, CLARA = person(31, "Anna"), person(32, "Boris"), person(33, "Clara")
GROUP = ChatRef(-4100, "group", "Card club")
SUPERGROUP = ChatRef(-1004100, "supergroup", "Card club")


async def test_a_moved_group_closes_the_clashing_lobby_only_with_the_move(
    db: Database, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The clashing lobby is closed and the game moved in one transaction — nothing of it if
    the move fails — which read the game before it moved it: the game comes back as moved,
    to be posted in the new chat."""
    services = make_services(db)
    game_id = await start_game(services, [ANNA, BORIS], chat=GROUP)
    await services.play.remember_table(game_id, 55)
    lobby = await services.lobby.open(SUPERGROUP, CLARA, "rank")

    async def fails(*_: Any) -> list[int]:
        raise RuntimeError("killed")

    with monkeypatch.context() as patch:
        patch.setattr(ChatMoves, "move", fails)
        with pytest.raises(RuntimeError):
            await services.lobby.chat_moved(GROUP.chat_id, SUPERGROUP.chat_id)
    assert (await services.play.snapshot(lobby.game_id)).status == "lobby"
    assert (await services.play.snapshot(game_id)).chat_id == GROUP.chat_id

    closed, moved = await services.lobby.chat_moved(GROUP.chat_id, SUPERGROUP.chat_id)

    assert (closed.game_id, closed.status) == (lobby.game_id, "cancelled")
    assert moved.game_id == game_id
    assert (moved.chat_id, moved.status, moved.number) == (SUPERGROUP.chat_id, "playing", 1)
    assert moved.table_message_id is None, "its table is posted anew there"
    assert await services.lobby.chat_moved(GROUP.chat_id, SUPERGROUP.chat_id) == []


async def test_a_deep_link_refused_still_records_that_he_opened_the_bots_chat(
    db: Database,
) -> None:
    """``/start <token>`` of a game dealt already: he is not seated, but he did open the
    private chat — the bot may write to him from now on."""
    services = make_services(db)
    game_id = await start_game(services, [ANNA, CLARA], chat=SUPERGROUP)
    token = (await services.play.snapshot(game_id)).join_token
    people = PeopleService(db)
    assert not await people.can_write(BORIS.user_id)

    with pytest.raises(ServiceError, match=r"lobby\.already_started"):
        await services.lobby.join_by_token(token, BORIS)
    assert await people.can_write(BORIS.user_id)


async def test_blocking_the_bot_is_recorded_with_no_game_to_hand_over(db: Database) -> None:
    services = make_services(db)
    await services.lobby.record(BORIS, started=True)
    assert await services.play.blocked(BORIS) == []
    async with db.transaction() as session:
        user = await session.get(UserRow, BORIS.user_id)
        assert user is not None and not user.started
