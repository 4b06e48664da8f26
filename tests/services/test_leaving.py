"""Leaving never pays: a player who leaves a game he leads is placed below those who stayed.

A seat is abandoned when its player blocks the bot (``PlayService.unreachable``), leaves the
group (``PlayService.member_left``) or misses his turns until the computer takes it, and does
not take it back before the end. Games are played
through the services; where a test needs the computer to have won a seat's game for it, the
game ends through ``GameStore.commit_step`` with a final Rank state built for those places —
the path every finished game takes.
"""

from __future__ import annotations

from sqlalchemy import select

from bot.games.engine import AUTOPILOT_AFTER
from bot.services.ratings import SeatResult, Skill, rate_players, seat_results
from bot.services.stats import GameStats
from bot.services.types import Actor, GameSnapshot
from bot.storage.database import Database
from bot.storage.models import COMPUTER_PLAYER, GLOBAL_BOARD, RatingChangeRow
from tests.services.helpers import GROUP, Services, at_table, make_services, on_panel, person
from tests.services.test_boards import finish_game, play_game, start_game
from tests.services.test_ratings import stored

ANNA, BORIS = person(21, "Anna"), person(22, "Boris")


async def play_on(services: Services, game_id: int, moves: int) -> GameSnapshot:
    """``moves`` moves of the game as it goes, 2 s apart: a person who is there presses his
    first legal button; a seat the computer holds moves once its pause has passed."""
    snapshot = await services.play.snapshot(game_id)
    for _ in range(moves):
        assert snapshot.status == "playing", "too short a game for this test"
        services.clock.advance(2)
        present = [s for s in snapshot.legal if not snapshot.seats[s].played_by_computer]
        if not present:
            (snapshot,) = await services.play.run_due()
            continue
        seat = present[0]
        user_id = snapshot.seats[seat].user_id
        assert user_id is not None
        code = snapshot.legal[seat][0][0]
        origin = on_panel(user_id, snapshot)
        snapshot = await services.play.act(game_id, user_id, snapshot.version, code, origin)
    return snapshot


async def leader(services: Services, game_id: int) -> int:
    """Play on until the standings have a sole leader; his seat."""
    for _ in range(6):
        async with services.lobby.db.transaction() as session:
            game = await services.lobby.store.load(session, game_id)
            standings = game.rules.standings(game.rules.load(game.row.state or {}))
        if standings is not None and standings.places.count(1) == 1:
            return standings.places.index(1)
        await play_on(services, game_id, 1)
    raise AssertionError("nobody took the lead")


async def record(services: Services, actor: Actor) -> GameStats:
    """The player's Rank record on the global board."""
    (stats,) = (await services.stats.player(actor.user_id)).games
    return stats


async def places(services: Services) -> list[tuple[str, int]]:
    """The chat's last finished game as ``/history`` lists it: names and places, best first."""
    last = (await services.stats.history(GROUP.chat_id))[0]
    return [("computer" if s.is_computer else s.name, s.place) for s in last.seats]


def test_a_seat_that_left_is_a_loss_even_in_a_draw() -> None:
    win, draw, loss = SeatResult.WIN, SeatResult.DRAW, SeatResult.LOSS
    assert seat_results([1, 1], {0, 1}) == [loss, loss]
    assert seat_results([1, 1, 1], {1}) == [draw, loss, draw]
    assert seat_results([2, 1], {0}) == [loss, win]
    assert seat_results([1, 1], ()) == [draw, draw], "nobody left: a draw as before"


async def test_the_leader_who_blocks_the_bot_is_placed_last_and_loses(db: Database) -> None:
    services = make_services(db)
    game_id = await start_game(services, [ANNA, BORIS], moves=2)
    away = await services.play.unreachable(game_id, 0)
    assert away is not None and away.seats[0].autopilot
    await play_on(services, game_id, 4)  # Boris plays on against the computer in Anna's seat
    # The computer takes Anna's seat out first: by the cards, she won.
    await finish_game(services, game_id, [1, 2])

    final = await services.play.snapshot(game_id)
    assert final.status == "finished"
    assert final.outcome is not None and final.outcome.places == (2, 1)
    assert await places(services) == [("Boris", 1), ("Anna", 2)]
    anna, boris = await record(services, ANNA), await record(services, BORIS)
    assert (anna.wins, anna.losses) == (0, 1)
    assert (boris.wins, boris.losses) == (1, 0)
    assert anna.rating < 1000 < boris.rating


async def test_the_leader_who_leaves_the_group_is_placed_last(db: Database) -> None:
    services = make_services(db)
    game_id = await start_game(services, [ANNA, BORIS], moves=2)
    services.rights.gone.add((GROUP.chat_id, ANNA.user_id))
    (away,) = await services.play.member_left(GROUP.chat_id, ANNA.user_id)
    assert away.seats[0].autopilot
    await play_on(services, game_id, 2)
    await finish_game(services, game_id, [1, 2])

    assert await places(services) == [("Boris", 1), ("Anna", 2)]
    assert (await record(services, ANNA)).rating < 1000


async def test_a_player_who_takes_his_seat_back_is_ranked_as_he_played(db: Database) -> None:
    services = make_services(db)
    game_id = await start_game(services, [ANNA, BORIS], moves=2)
    away = await services.play.unreachable(game_id, 0)
    assert away is not None
    await play_on(services, game_id, 2)
    back = await services.play.take_back(game_id, ANNA.user_id, on_panel(ANNA.user_id, away))
    assert not back.seats[0].autopilot
    await finish_game(services, game_id, [1, 2])

    final = await services.play.snapshot(game_id)
    assert final.outcome is not None and final.outcome.places == (1, 2)
    assert await places(services) == [("Anna", 1), ("Boris", 2)]
    anna = await record(services, ANNA)
    assert (anna.wins, anna.losses) == (1, 0)
    assert anna.rating > 1000


async def test_missed_turns_that_hand_the_seat_over_lose_the_game(db: Database) -> None:
    """With "computer after 1 missed", one timeout is enough to leave."""
    services = make_services(db)
    for actor in (ANNA, BORIS):
        await services.lobby.record(actor, GROUP, started=True)
    lobby = await services.lobby.open(GROUP, ANNA, "rank")
    await services.lobby.join(lobby.game_id, BORIS, at_table(lobby))
    while lobby.options.get(AUTOPILOT_AFTER) != 1:
        lobby = await services.lobby.cycle_option(
            lobby.game_id, ANNA, AUTOPILOT_AFTER, at_table(lobby)
        )
    started = await services.lobby.start(lobby.game_id, ANNA, at_table(lobby))
    sleeper = started.acting[0]
    services.clock.advance(61)
    (timed_out,) = await services.play.run_due()
    assert timed_out.seats[sleeper].autopilot
    won = [2, 2]
    won[sleeper] = 1
    await finish_game(services, started.game_id, won)

    final = await services.play.snapshot(started.game_id)
    assert final.outcome is not None
    assert final.outcome.places[sleeper] == 2 and final.outcome.places[1 - sleeper] == 1


async def test_when_everyone_leaves_nobody_gains(db: Database) -> None:
    """Both leave: the game ends with the standings, but as a loss for each — both share
    the last place, nobody won — and neither rating rises, not even the weaker player's,
    whom a draw would lift."""
    services = make_services(db)
    await play_game(services, [ANNA, BORIS], [1, 2])  # Anna is the stronger now
    before = {p.user_id: await record(services, p) for p in (ANNA, BORIS)}
    game_id = await start_game(services, [ANNA, BORIS], moves=2)
    ahead = await leader(services, game_id)
    # The one ahead blocks the bot, then the other: by the standings, the first one won.
    await services.play.unreachable(game_id, ahead)
    ended = await services.play.unreachable(game_id, 1 - ahead)

    assert ended is not None and ended.status == "finished"
    assert any(e.code == "seat.all_away_ended" for e in ended.events)
    assert ended.outcome is not None and ended.outcome.places == (2, 2)
    assert sorted(place for _name, place in await places(services)) == [2, 2]
    for player in (ANNA, BORIS):
        now, then = await record(services, player), before[player.user_id]
        assert (now.losses, now.draws, now.wins) == (then.losses + 1, then.draws, then.wins)
        assert now.rating <= then.rating, player.name
    # The model alone would have lifted the weaker one: he keeps his skill as it was.
    async with db.transaction() as session:
        changes = list(
            await session.scalars(
                select(RatingChangeRow).where(
                    RatingChangeRow.game_id == game_id, RatingChangeRow.chat_id == GLOBAL_BOARD
                )
            )
        )
    priors = {c.player_id: Skill(c.mu_before, c.sigma_before) for c in changes}
    unchecked = rate_players([ANNA.user_id, BORIS.user_id], [2, 2], priors)
    lifted = [p for p, skill in unchecked.items() if skill.estimate > priors[p].estimate]
    assert BORIS.user_id in lifted
    for change in changes:
        if change.player_id in lifted:
            assert (change.mu, change.sigma) == (change.mu_before, change.sigma_before)


async def test_when_everyone_leaves_the_computer_that_stayed_wins(db: Database) -> None:
    services = make_services(db)
    game_id = await start_game(services, [ANNA, BORIS, None], moves=3)
    ahead = await leader(services, game_id)
    first, second = (ahead, 1 - ahead) if ahead < 2 else (0, 1)
    await services.play.unreachable(game_id, first)
    await play_on(services, game_id, 2)  # the other plays on a little, then leaves too
    ended = await services.play.unreachable(game_id, second)

    assert ended is not None and ended.status == "finished"
    assert ended.outcome is not None and ended.outcome.places == (2, 2, 1)
    assert await places(services) == [("computer", 1), ("Anna", 2), ("Boris", 2)]
    for player in (ANNA, BORIS):
        stats = await record(services, player)
        assert (stats.wins, stats.losses) == (0, 1)
        assert stats.rating < 1000
    computer = (await stored(db, GLOBAL_BOARD))[COMPUTER_PLAYER]
    assert (computer.wins, computer.losses) == (1, 0)
