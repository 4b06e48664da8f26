"""Boards, a player's record and a chat's history, read back after real finished games.

Games are played through the lobby and finished through ``GameStore.commit_step`` — the path
every finished game takes — with a final Rank state built to give the places a test wants.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

import pytest
from sqlalchemy import update

from bot.games.rank.model import OVER
from bot.services.stats import PAGE_SIZE
from bot.services.types import Actor, ChatRef, ServiceError
from bot.storage.database import Database
from bot.storage.models import LetterRow
from bot.storage.repositories import Ratings
from tests.services.helpers import GROUP, Services, at_table, make_services, on_panel, person

OTHER_GROUP = ChatRef(-100456, "supergroup", "Second club")
ANNA, BORIS, CLARA, DENIS = (
    person(1, "Anna"),
    person(2, "Boris"),
    person(3, "Clara"),
    person(4, "Denis"),
)


def rank_places_state(state: object, places: Sequence[int]) -> object:
    """A finished Rank state whose outcome is ``places`` (a competition ranking).

    Distinct places: the seats went out in that order and the last one lost. With ties, no
    one went out and fewer cards in hand is better, so equal places hold equal hands.
    """
    hands = state.hands  # type: ignore[attr-defined]
    if len(set(places)) == len(places):
        order = sorted(range(len(places)), key=lambda seat: places[seat])
        return replace(  # type: ignore[type-var]
            state, phase=OVER, turn=None, out=tuple(order[:-1]), loser=order[-1], pending=None
        )
    cards = [card for hand in hands for card in hand]
    dense = {place: i + 1 for i, place in enumerate(sorted(set(places)))}
    new_hands, taken = [], 0
    for place in places:
        new_hands.append(tuple(cards[taken : taken + dense[place]]))
        taken += dense[place]
    return replace(  # type: ignore[type-var]
        state, phase=OVER, turn=None, out=(), loser=None, pending=None, hands=tuple(new_hands)
    )


async def play_game(
    services: Services,
    players: Sequence[Actor | None],
    places: Sequence[int],
    *,
    chat: ChatRef = GROUP,
    moves: int = 0,
) -> int:
    """Seat ``players`` (``None``: a computer) at a Rank game in ``chat``, let ``moves``
    moves happen (2 s apart), then end it with ``places`` 5 s later. Returns the game id."""
    game_id = await start_game(services, players, chat=chat, moves=moves)
    await finish_game(services, game_id, places)
    return game_id


async def start_game(
    services: Services, players: Sequence[Actor | None], *, chat: ChatRef = GROUP, moves: int = 0
) -> int:
    creator = players[0]
    assert creator is not None, "a person opens the game"
    for actor in players:
        if actor is not None:
            await services.lobby.record(actor, chat, started=True)
    lobby = await services.lobby.open(chat, creator, "rank")
    for actor in players[1:]:
        if actor is None:
            await services.lobby.add_computer(lobby.game_id, creator, at_table(lobby))
        else:
            await services.lobby.join(lobby.game_id, actor, at_table(lobby))
    snapshot = await services.lobby.start(lobby.game_id, creator, at_table(lobby))
    for _ in range(moves):
        services.clock.advance(2)
        human = next(
            (seat for seat in snapshot.legal if snapshot.seats[seat].user_id is not None), None
        )
        if human is None:  # a computer's move: its pause has passed
            (snapshot,) = await services.play.run_due()
            continue
        user_id = snapshot.seats[human].user_id
        assert user_id is not None
        code = snapshot.legal[human][0][0]
        snapshot = await services.play.act(
            lobby.game_id, user_id, snapshot.version, code, on_panel(user_id, lobby)
        )
    return lobby.game_id


async def finish_game(services: Services, game_id: int, places: Sequence[int]) -> None:
    """End a started game with ``places`` through ``GameStore.commit_step``, 5 s later."""
    store = services.lobby.store
    services.clock.advance(5)
    async with services.lobby.db.transaction() as session:
        game = await store.load(session, game_id, lock=True)
        state = game.rules.load(game.row.state or {})
        final = rank_places_state(state, places)
        outcome = game.rules.outcome(final)
        assert outcome is not None and outcome.places == tuple(places)
        await store.commit_step(
            game, final, (), seat=None, source="timeout", action=None, now=store.clock()
        )
    # A game long past: its result was told then (a bot under test tells only its own).
    async with services.lobby.db.transaction() as session:
        await session.execute(
            update(LetterRow)
            .where(LetterRow.game_id == game_id)
            .values(delivered_at=0.0, outcome="sent")
        )


async def test_a_chat_board_counts_only_its_games_and_the_global_one_counts_all(
    db: Database,
) -> None:
    services = make_services(db)
    for _ in range(3):
        await play_game(services, [ANNA, BORIS], [1, 2])
    for _ in range(3):
        await play_game(services, [CLARA, BORIS], [1, 2], chat=OTHER_GROUP)

    here = await services.stats.rating_board("rank", GROUP.chat_id)
    there = await services.stats.rating_board("rank", OTHER_GROUP.chat_id)
    everyone = await services.stats.rating_board("rank", None)
    assert [(line.name, line.games, line.wins) for line in here.lines] == [
        ("Anna", 3, 3),
        ("Boris", 3, 0),
    ]
    assert [line.name for line in there.lines] == ["Clara", "Boris"]
    assert [(line.name, line.games) for line in everyone.lines] == [
        ("Anna", 3),
        ("Clara", 3),
        ("Boris", 6),
    ]
    # Boris lost six games globally but three in each chat: his global rating is lower.
    boris_here = next(line for line in here.lines if line.name == "Boris")
    boris_global = next(line for line in everyone.lines if line.name == "Boris")
    assert boris_global.rating < boris_here.rating
    assert [line.position for line in everyone.lines] == [1, 2, 3]
    assert here.lines[0].win_rate == 1.0


async def test_a_first_game_puts_both_players_on_the_boards_as_provisional(db: Database) -> None:
    services = make_services(db)
    await play_game(services, [ANNA, BORIS], [1, 2])
    for chat_id in (GROUP.chat_id, None):
        board = await services.stats.rating_board("rank", chat_id)
        assert [(line.name, line.games, line.provisional) for line in board.lines] == [
            ("Anna", 1, True),
            ("Boris", 1, True),
        ]
        leaders = await services.stats.leaders(chat_id)
        best = leaders.best["rank"]
        assert best is not None and best.name == "Anna" and best.provisional


async def test_provisional_players_are_ranked_by_their_rating_like_everyone(db: Database) -> None:
    services = make_services(db)
    await play_game(services, [BORIS, CLARA], [1, 2])
    await play_game(services, [BORIS, CLARA], [1, 2])
    await play_game(services, [BORIS, CLARA], [2, 1])
    await play_game(services, [ANNA, BORIS], [1, 2])
    board = await services.stats.rating_board("rank", GROUP.chat_id)
    assert [(line.name, line.games, line.provisional) for line in board.lines] == [
        ("Anna", 1, True),
        ("Boris", 4, False),
        ("Clara", 3, False),
    ], "one win over Boris puts Anna, new, above him"
    ratings = [line.rating for line in board.lines]
    assert ratings == sorted(ratings, reverse=True)
    assert [line.position for line in board.lines] == [1, 2, 3]


async def test_the_computer_is_rated_but_off_the_board_unless_asked(db: Database) -> None:
    services = make_services(db)
    for place in (1, 2, 1):
        await play_game(services, [ANNA, None], [place, 3 - place])
    plain = await services.stats.rating_board("rank", GROUP.chat_id)
    with_bots = await services.stats.rating_board("rank", GROUP.chat_id, computers=True)
    assert [line.name for line in plain.lines] == ["Anna"]
    assert {line.name for line in with_bots.lines} == {"Anna", None}
    computer = next(line for line in with_bots.lines if line.is_computer)
    assert (computer.games, computer.wins, computer.losses) == (3, 1, 2)


async def test_boards_are_paginated(db: Database) -> None:
    services = make_services(db)
    people = [person(100 + i, f"P{i:02d}") for i in range(12)]
    # Four 9-seat games, each window shifted by three: everyone plays exactly three.
    for k in range(4):
        seated = [people[(3 * k + j) % 12] for j in range(9)]
        await play_game(services, seated, list(range(1, 10)))
    first = await services.stats.rating_board("rank", GROUP.chat_id)
    second = await services.stats.rating_board("rank", GROUP.chat_id, page=1)
    beyond = await services.stats.rating_board("rank", GROUP.chat_id, page=7)
    assert (first.page, first.pages, len(first.lines)) == (0, 2, PAGE_SIZE)
    assert (second.page, len(second.lines)) == (1, 12 - PAGE_SIZE)
    assert [line.position for line in second.lines] == [11, 12]
    assert beyond.page == 1, "a page past the end shows the last one"
    ratings = [line.rating for line in (*first.lines, *second.lines)]
    assert ratings == sorted(ratings, reverse=True)
    names = {line.name for line in (*first.lines, *second.lines)}
    assert len(names) == 12


async def test_a_players_record_per_game(db: Database) -> None:
    services = make_services(db)
    assert (await services.stats.player(ANNA.user_id)).games == ()
    await play_game(services, [ANNA, BORIS], [1, 2])
    await play_game(services, [ANNA, BORIS], [1, 2], chat=OTHER_GROUP)
    await play_game(services, [ANNA, BORIS], [1, 1])
    await play_game(services, [ANNA, BORIS, CLARA], [1, 2, 3])
    await play_game(services, [ANNA, BORIS], [2, 1])

    stats = await services.stats.player(ANNA.user_id)
    (rank,) = stats.games
    assert (rank.games, rank.wins, rank.draws, rank.losses) == (5, 3, 1, 1)
    assert rank.best_streak == 2, "two wins, then a draw ends the run"
    assert len(rank.history) == 6 and rank.history[0] == 1000
    assert rank.rating == rank.history[-1]
    assert rank.change == rank.history[-1] - rank.history[-2]
    assert rank.change is not None and rank.change < 0, "she lost the last game"
    assert stats.rated_games == 5


async def test_history_lists_the_chats_last_games_with_changes(db: Database) -> None:
    services = make_services(db)
    first = await play_game(services, [ANNA, BORIS], [2, 1])
    second = await play_game(services, [ANNA, BORIS, None], [1, 3, 2])
    await play_game(services, [CLARA, DENIS], [1, 2], chat=OTHER_GROUP)

    games = await services.stats.history(GROUP.chat_id)
    assert [g.game_id for g in games] == [second, first]
    latest = games[0]
    assert [(s.name, s.place) for s in latest.seats] == [("Anna", 1), ("", 2), ("Boris", 3)]
    assert latest.seats[1].is_computer
    anna, computer, boris = latest.seats
    assert anna.change is not None and anna.change > 0
    assert boris.change is not None and boris.change < 0
    assert computer.change is not None


async def test_a_summary_is_rebuilt_from_the_action_log(db: Database) -> None:
    services = make_services(db)
    game_id = await play_game(services, [ANNA, BORIS], [1, 2], moves=3)
    summary = await services.stats.summary(GROUP.chat_id, game_id)
    # Three presses and the final step (a timeout); the deal is not a move.
    assert (summary.moves, summary.timeouts) == (4, 1)
    assert sum(summary.moves_by_seat.values()) == 3
    # The clock moved 2 s per press and 5 s to the end.
    assert summary.duration == pytest.approx(3 * 2 + 5)
    assert summary.snapshot.outcome is not None
    assert summary.snapshot.outcome.places == (1, 2)
    assert summary.snapshot.status == "finished"
    assert [s.name for s in summary.game.seats] == ["Anna", "Boris"]

    with pytest.raises(ServiceError) as refused:
        await services.stats.summary(OTHER_GROUP.chat_id, game_id)
    assert refused.value.code == "history.not_found"
    with pytest.raises(ServiceError):
        await services.stats.summary(GROUP.chat_id, game_id + 100)


async def test_a_chat_that_moves_takes_its_board_along(db: Database) -> None:
    """A group upgraded to a supergroup: ``Ratings.move_chat`` re-points its board."""
    services = make_services(db)
    for _ in range(3):
        await play_game(services, [ANNA, BORIS], [1, 2])
    before = await services.stats.rating_board("rank", GROUP.chat_id)
    async with db.transaction() as session:
        await Ratings(session).move_chat(GROUP.chat_id, OTHER_GROUP.chat_id)
    moved = await services.stats.rating_board("rank", OTHER_GROUP.chat_id)
    assert moved.lines == before.lines
    assert (await services.stats.rating_board("rank", GROUP.chat_id)).lines == ()
    assert (await services.stats.rating_board("rank", None)).lines == before.lines
