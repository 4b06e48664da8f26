"""Playing: one press is one transaction; stale and foreign presses change nothing."""

from __future__ import annotations

import asyncio

import pytest

from bot.services.types import ChatRef, GameSnapshot, ServiceError
from bot.storage.database import Database
from tests.services.helpers import GROUP, Services, at_table, make_services, on_panel, person

ANNA, BORIS, CLARA = person(1, "Anna"), person(2, "Boris"), person(3, "Clara")


async def started_game(services: Services, computers: int = 0) -> GameSnapshot:
    for actor in (ANNA, BORIS):
        await services.lobby.record(actor, started=True)
    lobby = await services.lobby.open(GROUP, ANNA, "rank")
    await services.lobby.join(lobby.game_id, BORIS, at_table(lobby))
    for _ in range(computers):
        await services.lobby.add_computer(lobby.game_id, ANNA, at_table(lobby))
    return await services.lobby.start(lobby.game_id, ANNA, at_table(lobby))


def mover(snapshot: GameSnapshot) -> tuple[int, int, str]:
    """(user id, seat, first legal action code) of the seat to move."""
    seat = next(iter(snapshot.legal))
    user_id = snapshot.seats[seat].user_id
    assert user_id is not None
    return user_id, seat, snapshot.legal[seat][0][0]


async def test_a_legal_press_moves_the_game_on(db: Database) -> None:
    services = make_services(db)
    game = await started_game(services)
    user_id, _, code = mover(game)
    after = await services.play.act(
        game.game_id, user_id, game.version, code, on_panel(user_id, game)
    )
    assert after.version == game.version + 1
    assert after.recent, "the table's log shows what happened"


async def test_twenty_concurrent_presses_apply_exactly_once(db: Database) -> None:
    services = make_services(db)
    game = await started_game(services)
    user_id, _, code = mover(game)
    results = await asyncio.gather(
        *(
            services.play.act(game.game_id, user_id, game.version, code, on_panel(user_id, game))
            for _ in range(20)
        ),
        return_exceptions=True,
    )
    applied = [r for r in results if isinstance(r, GameSnapshot)]
    refused = [r for r in results if isinstance(r, ServiceError)]
    assert len(applied) == 1
    assert len(refused) == 19
    assert all(r.code == "play.stale" for r in refused)
    assert (await services.play.snapshot(game.game_id)).version == game.version + 1


async def test_concurrent_presses_from_two_processes_apply_once(db: Database) -> None:
    """Two service stacks (as two bot processes) share only the database."""
    first = make_services(db)
    second = make_services(db)
    game = await started_game(first)
    user_id, _, code = mover(game)
    results = await asyncio.gather(
        *(
            s.play.act(game.game_id, user_id, game.version, code, on_panel(user_id, game))
            for s in [first, second] * 10
        ),
        return_exceptions=True,
    )
    assert sum(isinstance(r, GameSnapshot) for r in results) == 1
    assert all(isinstance(r, (GameSnapshot, ServiceError)) for r in results)


async def test_stale_foreign_and_garbage_presses_change_nothing(db: Database) -> None:
    services = make_services(db)
    game = await started_game(services)
    user_id, seat, code = mover(game)
    other = game.seats[1 - seat].user_id
    assert other is not None
    cases = [
        (user_id, game.version - 1, code, "play.stale"),
        (99, game.version, code, "play.not_a_player"),
        (user_id, game.version, "zz-garbage", "bad_action"),
        (other, game.version, "d", "rank.not_your_turn"),
    ]
    for who, version, action, expected in cases:
        with pytest.raises(ServiceError) as refused:
            await services.play.act(game.game_id, who, version, action, on_panel(who, game))
        assert refused.value.code == expected
    assert (await services.play.snapshot(game.game_id)).version == game.version


async def test_timeout_applies_the_default_action_through_the_poller(db: Database) -> None:
    services = make_services(db, turn_seconds=30)
    game = await started_game(services)
    assert await services.play.run_due() == []
    services.clock.advance(31)
    moved = await services.play.run_due()
    assert [s.game_id for s in moved] == [game.game_id]
    assert moved[0].version == game.version + 1
    assert any(e.code == "rank.timeout" for e in moved[0].recent)
    assert await services.play.run_due() == [], "a claimed deadline is not applied twice"


async def test_computer_seat_moves_after_its_pause(db: Database) -> None:
    services = make_services(db, computer_delay=1.0)
    game = await started_game(services, computers=1)
    # Play until it is the computer's turn, pressing the first legal button for the humans.
    for _ in range(10):
        computer_turn = any(game.seats[s].is_computer for s in game.legal)
        if computer_turn:
            break
        user_id, _, code = mover(game)
        game = await services.play.act(
            game.game_id, user_id, game.version, code, on_panel(user_id, game)
        )
    assert any(game.seats[s].is_computer for s in game.legal)
    assert await services.play.run_due() == []
    services.clock.advance(1.1)
    moved = await services.play.run_due()
    assert len(moved) == 1 and moved[0].version == game.version + 1


async def test_another_process_sees_the_game_it_did_not_move(db: Database) -> None:
    here, there = make_services(db), make_services(db)
    game = await started_game(here)
    assert await there.play.newer_snapshot(game.game_id, game.version) is None
    user_id, _, code = mover(game)
    moved = await here.play.act(game.game_id, user_id, game.version, code, on_panel(user_id, game))
    newer = await there.play.newer_snapshot(game.game_id, game.version)
    assert newer is not None and newer.version == moved.version
    assert newer.recent == moved.recent
    assert await there.play.newer_snapshot(game.game_id, moved.version) is None
    assert await there.play.newer_snapshot(10_000, 0) is None


async def test_shown_versions_are_recorded_and_never_move_back(db: Database) -> None:
    services = make_services(db)
    game = await started_game(services)
    assert game.game_id in await services.play.unshown_ids()
    await services.play.mark_shown({game.game_id: game.version})
    assert game.game_id not in await services.play.unshown_ids()
    await services.play.mark_shown({game.game_id: game.version - 1})  # a late, older report
    assert game.game_id not in await services.play.unshown_ids()
    user_id, _, code = mover(game)
    await services.play.act(game.game_id, user_id, game.version, code, on_panel(user_id, game))
    assert game.game_id in await services.play.unshown_ids(), "a new version is not shown yet"


async def test_open_games_come_with_whether_they_are_behind_those_first(db: Database) -> None:
    services = make_services(db)
    game = await started_game(services)
    topic = ChatRef(GROUP.chat_id, GROUP.kind, GROUP.title, topic_id=5)
    lobby = await services.lobby.open(topic, BORIS, "rank")
    await services.play.mark_shown({game.game_id: game.version, lobby.game_id: lobby.version})
    assert await services.play.open_ids() == [(game.game_id, False), (lobby.game_id, False)]
    await services.lobby.add_computer(lobby.game_id, BORIS, at_table(lobby))
    assert await services.play.open_ids() == [(lobby.game_id, True), (game.game_id, False)]
    cancelled = await services.lobby.cancel(lobby.game_id, BORIS, at_table(lobby))
    # Cancelled, its end not shown yet: the next leader shows it (its table loses its buttons).
    assert await services.play.open_ids() == [(lobby.game_id, True), (game.game_id, False)]
    await services.play.mark_shown({lobby.game_id: cancelled.version})
    assert await services.play.open_ids() == [(game.game_id, False)], "over and shown: gone"


async def test_a_window_is_extended_for_a_late_panel_only_at_its_version(db: Database) -> None:
    services = make_services(db)
    game = await started_game(services)
    assert game.deadline_at is not None
    await services.play.extend_window(game.game_id, game.version, 4.0)
    extended = await services.play.snapshot(game.game_id)
    assert extended.deadline_at == pytest.approx(game.deadline_at + 4.0)
    assert extended.version == game.version, "nothing in the game changed"
    # The poller leaves it alone until the extended deadline.
    services.clock.advance(game.deadline_at - services.clock.now + 1)
    assert await services.play.run_due() == []
    services.clock.advance(4)
    assert [s.game_id for s in await services.play.run_due()] == [game.game_id]
    # A late panel of a version the game has moved past extends nothing.
    moved = await services.play.snapshot(game.game_id)
    await services.play.extend_window(game.game_id, game.version, 10.0)
    assert (await services.play.snapshot(game.game_id)).deadline_at == moved.deadline_at
