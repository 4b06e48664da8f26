"""Lobby use cases: opening, joining, options, starting, cancelling, rematch."""

from __future__ import annotations

import asyncio

import pytest

from bot.services.types import ChatRef, ServiceError
from bot.storage.database import Database
from tests.services.helpers import GROUP, at_table, make_services, person

ANNA, BORIS, CLARA = person(1, "Anna"), person(2, "Boris"), person(3, "Clara")
OTHER_GROUP = ChatRef(-100456, "supergroup", "Another club")


async def started(services, *people) -> None:  # type: ignore[no-untyped-def]
    for actor in people:
        await services.lobby.record(actor, started=True)


async def test_creator_who_started_the_bot_is_seated_at_once(db: Database) -> None:
    services = make_services(db)
    await started(services, ANNA)
    snapshot = await services.lobby.open(GROUP, ANNA, "rank")
    assert snapshot.is_lobby
    assert [s.user_id for s in snapshot.seats] == [ANNA.user_id]


async def test_creator_who_never_started_the_bot_is_not_seated(db: Database) -> None:
    services = make_services(db)
    snapshot = await services.lobby.open(GROUP, ANNA, "rank")
    assert snapshot.seats == ()


async def test_one_open_lobby_per_topic(db: Database) -> None:
    services = make_services(db)
    await services.lobby.open(GROUP, ANNA, "rank")
    with pytest.raises(ServiceError) as refused:
        await services.lobby.open(GROUP, BORIS, "rank")
    assert refused.value.code == "lobby.exists"
    other_topic = ChatRef(GROUP.chat_id, GROUP.kind, GROUP.title, topic_id=77)
    assert (await services.lobby.open(other_topic, BORIS, "rank")).topic_id == 77


async def test_join_needs_a_started_private_chat_then_the_deep_link_completes_it(
    db: Database,
) -> None:
    services = make_services(db)
    lobby = await services.lobby.open(GROUP, ANNA, "rank")
    with pytest.raises(ServiceError) as refused:
        await services.lobby.join(lobby.game_id, BORIS, at_table(lobby))
    assert refused.value.code == "lobby.need_start"
    assert refused.value.args_["token"] == lobby.join_token
    result = await services.lobby.join_by_token(lobby.join_token, BORIS)
    assert result.joined
    assert [s.user_id for s in result.snapshot.seats] == [BORIS.user_id]


async def test_unknown_deep_link_is_refused(db: Database) -> None:
    services = make_services(db)
    with pytest.raises(ServiceError) as refused:
        await services.lobby.join_by_token("nope", BORIS)
    assert refused.value.code == "lobby.link_unknown"


async def test_leaving_renumbers_the_seats(db: Database) -> None:
    services = make_services(db)
    await started(services, ANNA, BORIS, CLARA)
    lobby = await services.lobby.open(GROUP, ANNA, "rank")
    await services.lobby.join(lobby.game_id, BORIS, at_table(lobby))
    await services.lobby.join(lobby.game_id, CLARA, at_table(lobby))
    snapshot = await services.lobby.leave(lobby.game_id, BORIS, at_table(lobby))
    assert [(s.seat, s.user_id) for s in snapshot.seats] == [(0, 1), (1, 3)]


async def test_start_is_refused_below_the_minimum_and_for_strangers(db: Database) -> None:
    services = make_services(db)
    await started(services, ANNA, BORIS)
    lobby = await services.lobby.open(GROUP, ANNA, "rank")
    with pytest.raises(ServiceError) as too_few:
        await services.lobby.start(lobby.game_id, ANNA, at_table(lobby))
    assert too_few.value.code == "lobby.too_few"
    await services.lobby.join(lobby.game_id, BORIS, at_table(lobby))
    with pytest.raises(ServiceError) as host_only:
        await services.lobby.start(lobby.game_id, BORIS, at_table(lobby))
    assert host_only.value.code == "lobby.host_only"
    services.rights.admins.add((GROUP.chat_id, BORIS.user_id))
    snapshot = await services.lobby.start(lobby.game_id, BORIS, at_table(lobby))
    assert snapshot.status == "playing"
    assert snapshot.public is not None and set(snapshot.views) == {0, 1}


async def test_computer_seats_and_options(db: Database) -> None:
    services = make_services(db)
    await started(services, ANNA)
    lobby = await services.lobby.open(GROUP, ANNA, "rank")
    snapshot = await services.lobby.add_computer(lobby.game_id, ANNA, at_table(lobby))
    assert [s.is_computer for s in snapshot.seats] == [False, True]
    snapshot = await services.lobby.cycle_option(
        lobby.game_id, ANNA, "round_limit", at_table(lobby)
    )
    assert snapshot.options["round_limit"] == 25  # after 0, about ten minutes
    snapshot = await services.lobby.cycle_option(
        lobby.game_id, ANNA, "turn_seconds", at_table(lobby)
    )
    assert snapshot.options["turn_seconds"] == 90
    with pytest.raises(ServiceError):
        await services.lobby.cycle_option(lobby.game_id, ANNA, "nonsense", at_table(lobby))
    snapshot = await services.lobby.start(lobby.game_id, ANNA, at_table(lobby))
    assert snapshot.public.round_limit == 25


async def test_cancel_frees_the_topic(db: Database) -> None:
    services = make_services(db)
    await started(services, ANNA)
    lobby = await services.lobby.open(GROUP, ANNA, "rank")
    with pytest.raises(ServiceError):
        await services.lobby.cancel_in_topic(GROUP, BORIS)
    cancelled = await services.lobby.cancel_in_topic(GROUP, ANNA)
    assert cancelled.status == "cancelled"
    assert (await services.lobby.open(GROUP, ANNA, "rank")).game_id != lobby.game_id


def test_series_counts_sole_winners_and_not_draws() -> None:
    from bot.games.engine import Outcome
    from bot.services.lobby import series_after

    first = series_after({}, Outcome((2, 1, 3)), 3)
    assert first == [0, 1, 0]
    second = series_after({"series": first}, Outcome((1, 2, 3)), 3)
    assert second == [1, 1, 0]
    assert series_after({"series": second}, Outcome((1, 1, 3)), 3) == [1, 1, 0]
    assert series_after({"series": [5]}, Outcome((1, 2)), 2) == [1, 0], "stale series resets"


async def test_asking_telegram_about_an_admin_holds_no_database_up(db: Database) -> None:
    """A non-host's lobby press asks Telegram whether he is an admin: a network round trip
    (seconds, in a busy group). Meanwhile every other chat goes on."""
    services = make_services(db)
    for actor in (ANNA, BORIS):
        await services.lobby.record(actor, started=True)
    here = await services.lobby.open(GROUP, ANNA, "rank")
    elsewhere = await services.lobby.open(OTHER_GROUP, ANNA, "rank")
    services.rights.admins.add((GROUP.chat_id, BORIS.user_id))
    answer = services.rights.gate = asyncio.Event()

    press = asyncio.create_task(services.lobby.add_computer(here.game_id, BORIS, at_table(here)))
    await asyncio.wait_for(services.rights.asked.wait(), 5)
    # Telegram has not answered yet; another group's lobby is served meanwhile.
    leaving = services.lobby.leave(elsewhere.game_id, ANNA, at_table(elsewhere))
    left = await asyncio.wait_for(leaving, 5)
    assert left.seats == ()
    answer.set()
    snapshot = await press
    assert len(snapshot.seats) == 2, "the admin's press went through once he was known"


async def test_a_deep_link_join_is_one_write_so_a_crash_before_it_leaves_it_to_redo(
    db: Database,
) -> None:
    """Through the inbox, an update is marked handled by its first write: the deep link's
    "he started the bot" and his seat are that one write, so a process that dies before it
    leaves the update to the next leader, whole."""
    from bot.services.inbox import InboxService, handling

    services = make_services(db)
    lobby = await services.lobby.open(GROUP, ANNA, "rank")
    inbox = InboxService(db)
    await inbox.take([{"update_id": 5, "message": {"chat": {"id": BORIS.user_id}}}])
    join = services.lobby._join

    async def dies(*_: object, **__: object) -> None:
        raise RuntimeError("killed")

    services.lobby._join = dies  # type: ignore[method-assign]
    with handling(5), pytest.raises(RuntimeError):
        await services.lobby.join_by_token(lobby.join_token, BORIS)
    assert [u.update_id for u in await inbox.pending(5)] == [5], "nothing of it applied"
    services.lobby._join = join  # type: ignore[method-assign]
    with handling(5):
        result = await services.lobby.join_by_token(lobby.join_token, BORIS)
    assert [s.user_id for s in result.snapshot.seats] == [BORIS.user_id]
    assert await inbox.pending(5) == []
