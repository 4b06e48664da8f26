"""A finished game, read back at any time, shows what it did to the ratings (issue #35, item
9): a Rematch republishes its table and panels, ``/history`` summarises it — each from a
snapshot loaded afresh, which must carry the rating lines its end showed."""

from __future__ import annotations

from collections.abc import Sequence

from bot.services.types import Actor, ChatRef, GameSnapshot
from bot.storage.database import Database
from tests.services.helpers import GROUP, Services, make_services, person
from tests.services.test_boards import rank_places_state, start_game

ANNA, BORIS = person(31, "Anna"), person(32, "Boris")
PRIVATE = ChatRef(ANNA.user_id, "private", None)


async def finish(services: Services, game_id: int, places: Sequence[int]) -> GameSnapshot:
    """End a started game with ``places``; the snapshot its finishing step returned."""
    store = services.lobby.store
    services.clock.advance(5)
    async with services.lobby.db.transaction() as session:
        game = await store.load(session, game_id, lock=True)
        final = rank_places_state(game.rules.load(game.row.state or {}), places)
        return await store.commit_step(
            game, final, (), seat=None, source="timeout", action=None, now=store.clock()
        )


async def play(
    services: Services, players: Sequence[Actor | None], places: Sequence[int], chat: ChatRef
) -> tuple[GameSnapshot, GameSnapshot]:
    """A game played to ``places``: its end as told then, and as read back afterwards."""
    game_id = await start_game(services, players, chat=chat)
    ended = await finish(services, game_id, places)
    return ended, await services.play.snapshot(game_id)


async def test_a_finished_game_read_back_keeps_its_ratings_and_their_marks(db: Database) -> None:
    services = make_services(db)
    seen = []
    for _ in range(4):
        ended, again = await play(services, [ANNA, BORIS], [1, 2], GROUP)
        assert ended.ratings and set(ended.ratings) == {0, 1}
        assert (again.ratings, again.provisional) == (ended.ratings, ended.provisional)
        seen.append(again.provisional)
    # Provisional after one and two games, settled from the third on — as it was then.
    assert seen == [frozenset({0, 1})] * 2 + [frozenset()] * 2
    # An older game still says what it did then, not what the ratings are now.
    first = await services.play.snapshot(1)
    assert first.ratings[0][0] == 1000 and first.provisional == frozenset({0, 1})


async def test_a_private_game_reads_back_its_global_rating_for_the_person_only(
    db: Database,
) -> None:
    services = make_services(db)
    ended, again = await play(services, [ANNA, None], [1, 2], PRIVATE)
    assert set(ended.ratings) == {0}, "the computer's rating is no line of its own"
    assert (again.ratings, again.provisional) == (ended.ratings, ended.provisional)


async def test_an_unfinished_game_has_no_ratings(db: Database) -> None:
    services = make_services(db)
    game_id = await start_game(services, [ANNA, BORIS])
    shown = await services.play.snapshot(game_id)
    assert shown.status == "playing" and shown.ratings == {}
