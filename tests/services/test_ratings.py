"""Ratings after finished games agree with OpenSkill's own numbers, on both boards."""

from __future__ import annotations

import asyncio

import pytest
from openskill.models import PlackettLuce
from sqlalchemy import select

from bot.services.ratings import (
    BASE,
    NEWCOMER,
    SeatResult,
    Skill,
    displayed,
    rate,
    rate_players,
    seat_results,
)
from bot.services.types import ServiceError
from bot.storage.database import Database
from bot.storage.models import COMPUTER_PLAYER, GLOBAL_BOARD, RatingChangeRow, RatingRow
from tests.services.helpers import GROUP, at_table, make_services, on_panel, person
from tests.services.test_boards import (
    OTHER_GROUP,
    finish_game,
    play_game,
    rank_places_state,
    start_game,
)

OPENSKILL = PlackettLuce()
PEOPLE = [person(10 + i, name) for i, name in enumerate("ABCDEFGHIJ")]


def library(priors: list[tuple[float, float]], ranks: list[int]) -> list[tuple[float, float]]:
    """What OpenSkill itself says, called directly."""
    teams = [[OPENSKILL.rating(mu=mu, sigma=sigma)] for mu, sigma in priors]
    rated = OPENSKILL.rate(teams, ranks=ranks)
    return [(team[0].mu, team[0].sigma) for team in rated]


async def stored(db: Database, chat_id: int) -> dict[int, RatingRow]:
    async with db.transaction() as session:
        rows = await session.scalars(select(RatingRow).where(RatingRow.chat_id == chat_id))
        return {row.player_id: row for row in rows}


def skills(rows: dict[int, RatingRow], ids: list[int]) -> list[tuple[float, float]]:
    return [(rows[i].mu, rows[i].sigma) for i in ids]


def approx(pairs: list[tuple[float, float]]) -> object:
    return [pytest.approx(pair, rel=1e-12) for pair in pairs]


NEW = (OPENSKILL.mu, OPENSKILL.sigma)


def test_a_newcomer_shows_1000_and_the_scale_is_the_conservative_estimate() -> None:
    assert (NEWCOMER.mu, NEWCOMER.sigma) == (25.0, 25.0 / 3)
    assert NEWCOMER.display == BASE == 1000
    assert displayed(30.0, 5.0) == round(40 * (30.0 - 15.0) + 1000) == 1600
    assert displayed(20.0, 8.0) == 840, "below the newcomer while unsure"


def test_results_draws_and_shared_first_places() -> None:
    win, draw, loss = SeatResult.WIN, SeatResult.DRAW, SeatResult.LOSS
    assert seat_results([1, 2]) == [win, loss]
    assert seat_results([1, 1]) == [draw, draw]
    assert seat_results([2, 2, 2]) == [draw, draw, draw]
    assert seat_results([1, 1, 3]) == [win, win, loss]


def test_rate_refuses_a_game_of_one() -> None:
    with pytest.raises(ValueError):
        rate([NEWCOMER], [1])


async def test_two_players_on_both_boards(db: Database) -> None:
    services = make_services(db)
    anna, boris = PEOPLE[0], PEOPLE[1]
    await play_game(services, [anna, boris], [2, 1])
    expected = library([NEW, NEW], [2, 1])
    ids = [anna.user_id, boris.user_id]
    for board in (GROUP.chat_id, GLOBAL_BOARD):
        assert skills(await stored(db, board), ids) == approx(expected)
    # A second game starts from the stored ratings.
    await play_game(services, [anna, boris], [1, 2])
    again = library(expected, [1, 2])
    assert skills(await stored(db, GROUP.chat_id), ids) == approx(again)


async def test_three_players_across_two_chats(db: Database) -> None:
    services = make_services(db)
    a, b, c = PEOPLE[:3]
    await play_game(services, [a, b, c], [1, 2, 3])
    await play_game(services, [c, a, b], [1, 3, 2], chat=OTHER_GROUP)
    first = library([NEW, NEW, NEW], [1, 2, 3])
    # The other chat's board starts afresh; the global one goes on from the first game.
    assert skills(await stored(db, GROUP.chat_id), [a.user_id, b.user_id, c.user_id]) == approx(
        first
    )
    order = [c.user_id, a.user_id, b.user_id]
    assert skills(await stored(db, OTHER_GROUP.chat_id), order) == approx(
        library([NEW, NEW, NEW], [1, 3, 2])
    )
    priors = [first[2], first[0], first[1]]
    assert skills(await stored(db, GLOBAL_BOARD), order) == approx(library(priors, [1, 3, 2]))


async def test_ten_players(db: Database) -> None:
    services = make_services(db)
    places = [4, 1, 7, 2, 10, 3, 9, 5, 8, 6]
    await play_game(services, PEOPLE, places)
    rows = await stored(db, GLOBAL_BOARD)
    assert skills(rows, [p.user_id for p in PEOPLE]) == approx(library([NEW] * 10, places))
    assert rows[PEOPLE[1].user_id].wins == 1
    assert sum(row.losses for row in rows.values()) == 9


async def test_a_draw_is_a_tie(db: Database) -> None:
    services = make_services(db)
    anna, boris, clara = PEOPLE[:3]
    await play_game(services, [anna, boris], [1, 2])
    await play_game(services, [anna, boris], [1, 1])
    rows = await stored(db, GROUP.chat_id)
    won = library([NEW, NEW], [1, 2])
    assert skills(rows, [anna.user_id, boris.user_id]) == approx(library(won, [1, 1]))
    assert (rows[anna.user_id].draws, rows[anna.user_id].streak) == (1, 0)
    assert rows[anna.user_id].best_streak == 1
    # Three-way ties of a bigger game too.
    await play_game(services, [anna, boris, clara], [1, 1, 1])
    after = await stored(db, GROUP.chat_id)
    priors = [*skills(rows, [anna.user_id, boris.user_id]), NEW]
    ids = [anna.user_id, boris.user_id, clara.user_id]
    assert skills(after, ids) == approx(library(priors, [1, 1, 1]))
    assert [after[i].draws for i in ids] == [2, 2, 1]


async def test_computer_seats_share_one_rating(db: Database) -> None:
    services = make_services(db)
    anna = PEOPLE[0]
    await play_game(services, [anna, None, None], [2, 1, 3])
    rows = await stored(db, GROUP.chat_id)
    assert set(rows) == {anna.user_id, COMPUTER_PLAYER}
    seats = library([NEW, NEW, NEW], [2, 1, 3])
    assert skills(rows, [anna.user_id]) == approx([seats[0]])
    computer = rows[COMPUTER_PLAYER]
    mean = ((seats[1][0] + seats[2][0]) / 2, (seats[1][1] + seats[2][1]) / 2)
    assert (computer.mu, computer.sigma) == pytest.approx(mean, rel=1e-12)
    # Each computer seat played a game: one won, one lost.
    assert (computer.games, computer.wins, computer.losses) == (2, 1, 1)
    players = rate_players([7, COMPUTER_PLAYER, COMPUTER_PLAYER], [2, 1, 3], {})
    assert players[COMPUTER_PLAYER] == Skill(*mean)


async def test_each_seat_gets_its_change_on_each_board(db: Database) -> None:
    services = make_services(db)
    anna, boris = PEOPLE[:2]
    game_id = await play_game(services, [anna, boris], [1, 2])
    async with db.transaction() as session:
        changes = list(
            await session.scalars(
                select(RatingChangeRow).order_by(RatingChangeRow.chat_id, RatingChangeRow.seat)
            )
        )
    expected = library([NEW, NEW], [1, 2])
    assert [(c.game_id, c.chat_id, c.seat, c.player_id) for c in changes] == [
        (game_id, GROUP.chat_id, 0, anna.user_id),
        (game_id, GROUP.chat_id, 1, boris.user_id),
        (game_id, GLOBAL_BOARD, 0, anna.user_id),
        (game_id, GLOBAL_BOARD, 1, boris.user_id),
    ]
    assert all((c.mu_before, c.sigma_before) == NEW for c in changes)
    assert [(c.mu, c.sigma) for c in changes[:2]] == approx(expected)


async def test_a_refused_finish_rates_nobody(db: Database) -> None:
    """The rating update lives in the finishing transaction: a stale finish leaves none."""
    services = make_services(db)
    anna, boris = PEOPLE[:2]
    await services.lobby.record(anna, GROUP, started=True)
    await services.lobby.record(boris, GROUP, started=True)
    lobby = await services.lobby.open(GROUP, anna, "rank")
    await services.lobby.join(lobby.game_id, boris, at_table(lobby))
    started = await services.lobby.start(lobby.game_id, anna, at_table(lobby))
    store = services.lobby.store
    async with db.transaction() as session:
        game = await store.load(session, started.game_id)
    seat, options = next(iter(started.legal.items()))
    user_id = started.seats[seat].user_id
    assert user_id is not None
    await services.play.act(
        started.game_id, user_id, started.version, options[0][0], on_panel(user_id, started)
    )

    async with db.transaction() as session:
        game.session = session
        final = rank_places_state(game.rules.load(game.row.state or {}), [1, 2])
        with pytest.raises(ServiceError) as refused:
            await store.commit_step(
                game, final, (), seat=None, source="timeout", action=None, now=store.clock()
            )
    assert refused.value.code == "play.stale"
    assert await stored(db, GLOBAL_BOARD) == {}


async def test_two_games_finishing_at_once_both_count(db: Database) -> None:
    """Two chats finish games between the same players at the same moment (two processes)."""
    first, second = make_services(db), make_services(db)
    anna, boris = PEOPLE[:2]
    here = await start_game(first, [anna, boris])
    there = await start_game(second, [boris, anna], chat=OTHER_GROUP)
    await asyncio.gather(finish_game(first, here, [1, 2]), finish_game(second, there, [1, 2]))
    rows = await stored(db, GLOBAL_BOARD)
    assert [rows[p.user_id].games for p in (anna, boris)] == [2, 2]
    # One game was rated after the other, from its result: either order, never a mix.
    here_first = library(library([NEW, NEW], [1, 2]), [2, 1])
    there_first = library(library([NEW, NEW], [2, 1]), [1, 2])
    now = skills(rows, [anna.user_id, boris.user_id])
    assert now in (approx(here_first), approx(there_first))
