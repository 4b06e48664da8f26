"""Presses and timers on SQLite (:mod:`bot.storage.lean`): plain statements, the ORM's results.

Every step of these games is checked against the ORM: the snapshot a press or a due timer
returns must be the one the ORM's path builds from the rows the step wrote.
"""

from __future__ import annotations

import dataclasses

import pytest

from bot.games.registry import get_rules
from bot.services.types import GameSnapshot
from bot.storage import lean
from bot.storage.database import Database
from bot.storage.repositories import Actions, Results, Seats
from tests.services.helpers import GROUP, Services, at_table, make_services, on_panel, person

PEOPLE = [person(1, "Anna"), person(2, "Boris"), person(3, "Clara")]


@pytest.fixture
def lean_saves(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Ids of the games each lean save wrote, in order."""
    saved: list[int] = []
    save = lean.save_if_version

    def counting(connection: object, game_id: int, *args: object, **kwargs: object) -> bool:
        saved.append(game_id)
        return save(connection, game_id, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(lean, "save_if_version", counting)
    return saved


async def started(services: Services, key: str, *, computers: int = 0) -> GameSnapshot:
    people = max(2, get_rules(key).min_players) - computers
    players = PEOPLE[:people]
    for actor in players:
        await services.lobby.record(actor, started=True)
    lobby = await services.lobby.open(GROUP, players[0], key)
    for actor in players[1:]:
        await services.lobby.join(lobby.game_id, actor, at_table(lobby))
    for _ in range(computers):
        await services.lobby.add_computer(lobby.game_id, players[0], at_table(lobby))
    return await services.lobby.start(lobby.game_id, players[0], at_table(lobby))


async def logged_sources(db: Database, game_id: int) -> list[str]:
    async with db.transaction() as session:
        return [a.source for a in await Actions(session).of_game(game_id)]


def a_press(snapshot: GameSnapshot) -> tuple[int, str]:
    """(user id, action code): the first legal action of the first seat that has one."""
    seat, actions = next(iter(snapshot.legal.items()))
    user_id = snapshot.seats[seat].user_id
    assert user_id is not None
    return user_id, actions[0][0]


@pytest.mark.parametrize("key", ["advantage", "davayka", "progression", "rank", "trumps"])
async def test_every_press_writes_what_the_orm_reads_back(
    sqlite_db: Database, lean_saves: list[int], key: str
) -> None:
    services = make_services(sqlite_db)
    snapshot = dealt = await started(services, key)
    for _ in range(40):
        user_id, code = a_press(snapshot)
        after = await services.play.act(
            snapshot.game_id, user_id, snapshot.version, code, on_panel(user_id, snapshot)
        )
        assert after.version == snapshot.version + 1
        # What the step did (its events) is the step's, not the game's: a snapshot read back
        # has none — but the ratings a finished game moved are the game's (issue #35).
        assert dataclasses.replace(after, events=()) == await services.play.snapshot(
            snapshot.game_id
        )
        snapshot = after
        if snapshot.status != "playing":
            break
    assert lean_saves, "the presses took the plain statements' path"
    async with sqlite_db.transaction() as session:
        logged = await Actions(session).of_game(snapshot.game_id)
    pressed = [a.version for a in logged if a.source == "press"]
    assert pressed == list(range(dealt.version + 1, snapshot.version + 1))


async def test_a_press_clears_the_players_missed_turns(
    sqlite_db: Database, lean_saves: list[int]
) -> None:
    services = make_services(sqlite_db)
    snapshot = await started(services, "rank")
    user_id, code = a_press(snapshot)
    seat = snapshot.seat_of(user_id)
    assert seat is not None
    async with sqlite_db.transaction() as session:
        await Seats(session).set_timeouts(snapshot.game_id, seat.seat, 1)
    after = await services.play.act(
        snapshot.game_id, user_id, snapshot.version, code, on_panel(user_id, snapshot)
    )
    assert lean_saves == [snapshot.game_id]
    assert after.seats[seat.seat].timeouts == 0
    assert (await services.play.snapshot(snapshot.game_id)).seats[seat.seat].timeouts == 0


async def test_the_last_press_records_the_results(
    sqlite_db: Database, lean_saves: list[int]
) -> None:
    """The step that ends a game takes the ORM's path: results and ratings are written."""
    services = make_services(sqlite_db)
    snapshot = dealt = await started(services, "trumps")
    while snapshot.status == "playing":
        user_id, code = a_press(snapshot)
        snapshot = await services.play.act(
            snapshot.game_id, user_id, snapshot.version, code, on_panel(user_id, snapshot)
        )
    assert snapshot.status == "finished" and snapshot.outcome is not None
    assert len(lean_saves) == snapshot.version - dealt.version - 1, "all but the last press"
    async with sqlite_db.transaction() as session:
        results = await Results(session).of_game(snapshot.game_id)
    assert sorted(r.place for r in results) == sorted(snapshot.outcome.places)


@pytest.mark.parametrize("key", ["advantage", "davayka", "progression", "rank", "trumps"])
async def test_every_computer_move_writes_what_the_orm_reads_back(
    sqlite_db: Database, lean_saves: list[int], key: str
) -> None:
    """One person against the computer: his presses and the poller's computer moves."""
    services = make_services(sqlite_db, computer_delay=1.0)
    snapshot = await started(services, key, computers=max(2, get_rules(key).min_players) - 1)
    for _ in range(60):
        if snapshot.status != "playing":
            break
        mine = snapshot.legal.get(0)
        if mine:
            after = await services.play.act(
                snapshot.game_id, 1, snapshot.version, mine[0][0], on_panel(1, snapshot)
            )
        else:
            services.clock.advance(1.5)
            moved = await services.play.run_due()
            if not moved:
                continue
            (after,) = moved
        assert after.version > snapshot.version
        assert dataclasses.replace(after, events=()) == await services.play.snapshot(
            snapshot.game_id
        )
        snapshot = after
    assert "computer" in await logged_sources(sqlite_db, snapshot.game_id)
    assert len(lean_saves) >= 10


async def test_missed_turns_are_counted_until_everyone_is_away(
    sqlite_db: Database, lean_saves: list[int]
) -> None:
    """Nobody presses: each missed turn is written, two hand a seat to the computer, and
    when both seats are the computer's the game ends (through the ORM's path)."""
    services = make_services(sqlite_db, turn_seconds=30)
    snapshot = await started(services, "rank")
    missed = {0: 0, 1: 0}
    for _ in range(20):
        if snapshot.status != "playing":
            break
        services.clock.advance(31)
        (snapshot,) = await services.play.run_due()
        for event in snapshot.events:
            if event.code.endswith(".timeout") and event.seat is not None:
                missed[event.seat] += 1
        fresh = await services.play.snapshot(snapshot.game_id)
        assert dataclasses.replace(snapshot, events=()) == fresh
        assert {s.seat: s.timeouts for s in fresh.seats} == missed
    assert missed == {0: 2, 1: 2}
    assert snapshot.status in ("finished", "cancelled")
    sources = await logged_sources(sqlite_db, snapshot.game_id)
    assert sources.count("timeout") == 4
    assert len(lean_saves) == len(sources) - 1 - 1, "all but the deal and the last step"
