"""The waiting list (``/nextgame``): asked for in a group's topic, used up by its next lobby."""

from __future__ import annotations

import pytest

from bot.services.types import Actor, ChatRef, ServiceError
from bot.services.waitlist import Waiter, Waiting, WaitlistService
from bot.storage.database import Database
from tests.services.helpers import GROUP, at_table, make_services, person

ANNA, BORIS, CLARA = person(1, "Anna"), person(2, "Boris"), person(3, "Clara")
TOPIC = ChatRef(GROUP.chat_id, GROUP.kind, GROUP.title, topic_id=77)


async def test_the_next_lobby_uses_the_requests_up_and_tells_all_but_its_opener(
    db: Database,
) -> None:
    services, waitlist = make_services(db), WaitlistService(db)
    for actor in (ANNA, BORIS):
        await services.lobby.record(actor, started=True)
    boris_ru = Actor(BORIS.user_id, "Boris", None, "ru-RU")
    assert await waitlist.ask(boris_ru, GROUP) == Waiting(new=True, reachable=True)
    assert await waitlist.ask(boris_ru, GROUP) == Waiting(new=False, reachable=True)
    assert await waitlist.ask(ANNA, GROUP) == Waiting(new=True, reachable=True)
    # Clara never started the bot: she is on the list, but nothing could reach her.
    assert await waitlist.ask(CLARA, GROUP) == Waiting(new=True, reachable=False)

    assert await waitlist.claim(GROUP.chat_id, 0, opener=ANNA.user_id) == [
        Waiter(BORIS.user_id, "ru")
    ]
    assert await waitlist.claim(GROUP.chat_id, 0, opener=None) == [], "used up"


async def test_each_topic_has_its_own_list(db: Database) -> None:
    services, waitlist = make_services(db), WaitlistService(db)
    await services.lobby.record(BORIS, started=True)
    await waitlist.ask(BORIS, TOPIC)
    assert await waitlist.claim(GROUP.chat_id, 0, opener=ANNA.user_id) == []
    assert await waitlist.claim(GROUP.chat_id, 77, opener=ANNA.user_id) == [
        Waiter(BORIS.user_id, "en")
    ]


async def test_refused_in_private_on_behalf_of_a_chat_and_while_a_lobby_is_open(
    db: Database,
) -> None:
    services, waitlist = make_services(db), WaitlistService(db)
    refusals = []
    anonymous = Actor(1087968824, "Group", as_chat=GROUP.chat_id)
    for actor, chat in ((BORIS, ChatRef(BORIS.user_id, "private")), (anonymous, GROUP)):
        with pytest.raises(ServiceError) as refused:
            await waitlist.ask(actor, chat)
        refusals.append(refused.value.code)
    assert refusals == ["waitlist.group_only", "waitlist.not_a_person"]

    await services.lobby.record(ANNA, started=True)
    lobby = await services.lobby.open(GROUP, ANNA, "rank")
    with pytest.raises(ServiceError) as refused:
        await waitlist.ask(BORIS, GROUP)
    assert refused.value.code == "waitlist.lobby_open"
    # A game being played is not one to join: the next one is what he waits for.
    await services.lobby.add_computer(lobby.game_id, ANNA, at_table(lobby))
    await services.lobby.start(lobby.game_id, ANNA, at_table(lobby))
    assert (await waitlist.ask(BORIS, GROUP)).new


async def test_a_group_that_became_a_supergroup_keeps_its_list(db: Database) -> None:
    services, waitlist = make_services(db), WaitlistService(db)
    group = ChatRef(-4001, "group", "Card club")
    supergroup = ChatRef(-1004001, "supergroup", "Card club")
    for actor in (ANNA, BORIS):
        await services.lobby.record(actor, started=True)
        await waitlist.ask(actor, group)
    await waitlist.ask(BORIS, supergroup)  # asked there too, before the move was heard of
    await services.lobby.chat_moved(group.chat_id, supergroup.chat_id)
    assert await waitlist.claim(group.chat_id, 0, opener=None) == []
    waiting = await waitlist.claim(supergroup.chat_id, 0, opener=None)
    assert sorted(w.user_id for w in waiting) == [ANNA.user_id, BORIS.user_id]
