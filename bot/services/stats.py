"""Read-only use cases over finished games: boards, a player's record, a chat's history.

Ratings are written by :func:`bot.services.ratings.record_game` when a game finishes; this
module only reads them. A player is on a board from his first rated game there, so that a
board fills as soon as people play; below :data:`~bot.services.ratings.MIN_GAMES` games his
line is :attr:`~BoardLine.provisional` (the rating has not settled yet) but ranked by its
rating like any other. The computer is left off unless asked for. ``/stats`` shows the global
board's numbers, ``/history`` the chat's games (in a private chat: its person's, wherever
played).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime

from sqlalchemy.ext.asyncio import AsyncSession

from bot.services.games import GameStore
from bot.services.ratings import MIN_GAMES, Skill, Z, displayed, shown_board
from bot.services.types import GameSnapshot, ServiceError
from bot.storage.database import Database
from bot.storage.models import (
    COMPUTER_PLAYER,
    FINISHED,
    GLOBAL_BOARD,
    GameRow,
    RatingChangeRow,
)
from bot.storage.repositories import (
    Actions,
    FinishedGames,
    Games,
    RatingChanges,
    Ratings,
    Standing,
)

#: Games on a board that put a player on it: the first one does.
LISTED_GAMES = 1
#: Lines per page of a rating board.
PAGE_SIZE = 10
#: Finished games ``/history`` lists.
HISTORY_SIZE = 10
#: Action-log sources that are moves (not the deal, a re-armed timer or a cancellation).
MOVE_SOURCES = frozenset({"press", "computer", "timeout"})


@dataclass(frozen=True, slots=True)
class BoardLine:
    """One line of a rating board. ``name`` is the first name; ``None`` for the computer."""

    position: int
    player_id: int
    name: str | None
    rating: int
    games: int
    wins: int
    draws: int
    losses: int

    @property
    def is_computer(self) -> bool:
        return self.player_id == COMPUTER_PLAYER

    @property
    def win_rate(self) -> float:
        return self.wins / self.games if self.games else 0.0

    @property
    def provisional(self) -> bool:
        """Too few games for the rating to say much yet: shown, ranked, and marked."""
        return self.games < MIN_GAMES


@dataclass(frozen=True, slots=True)
class Board:
    """One page of one game's board: a chat's (``chat_id``) or the global one (``None``)."""

    game_key: str
    chat_id: int | None
    computers: bool
    page: int
    pages: int
    lines: tuple[BoardLine, ...]


@dataclass(frozen=True, slots=True)
class Leaders:
    """The best player of each game on a board (``None`` where nobody is listed)."""

    chat_id: int | None
    best: dict[str, BoardLine | None]


@dataclass(frozen=True, slots=True)
class GameStats:
    """A player's record in one game on the global board."""

    game_key: str
    rating: int
    #: How much the latest game moved the rating (``None`` before any game).
    change: int | None
    games: int
    wins: int
    draws: int
    losses: int
    best_streak: int
    #: The rating before the first game, then after each game, oldest first.
    history: tuple[int, ...]

    @property
    def provisional(self) -> bool:
        """Too few games for the rating to say much yet: marked as the boards mark it."""
        return self.games < MIN_GAMES


@dataclass(frozen=True, slots=True)
class PlayerStats:
    user_id: int
    games: tuple[GameStats, ...]

    @property
    def rated_games(self) -> int:
        return sum(len(g.history) - 1 for g in self.games)


@dataclass(frozen=True, slots=True)
class PlayedSeat:
    """One seat of a finished game: who, which place and how his chat rating moved."""

    seat: int
    user_id: int | None
    name: str
    place: int
    change: int | None

    @property
    def is_computer(self) -> bool:
        return self.user_id is None


@dataclass(frozen=True, slots=True)
class PlayedGame:
    game_id: int
    game_key: str
    finished_at: datetime
    #: Best place first.
    seats: tuple[PlayedSeat, ...]


@dataclass(frozen=True, slots=True)
class GameSummary:
    """A finished game as its action log tells it, with its final table."""

    game: PlayedGame
    snapshot: GameSnapshot
    #: From the deal to the last move, in seconds.
    duration: float
    moves: int
    timeouts: int
    #: Moves per seat (a player's presses and a computer's moves; timeouts not counted).
    moves_by_seat: dict[int, int]


class StatsService:
    def __init__(self, db: Database) -> None:
        self.db = db
        # Only to read finished games back; it never saves a step.
        self._store = GameStore(computer_delay=0.0)

    # -- boards ---------------------------------------------------------------------------

    async def rating_board(
        self, game_key: str, chat_id: int | None, *, computers: bool = False, page: int = 0
    ) -> Board:
        """A page of a game's board: this chat's, or the global one when ``chat_id`` is None.

        A page past the end shows the last one.
        """
        board = GLOBAL_BOARD if chat_id is None else chat_id
        hidden = None if computers else COMPUTER_PLAYER
        async with self.db.transaction() as session:
            ratings = Ratings(session)
            total = await ratings.board_size(
                board, game_key, min_games=LISTED_GAMES, hidden_player=hidden
            )
            pages = max(1, -(-total // PAGE_SIZE))
            page = min(max(page, 0), pages - 1)
            standings = await ratings.board(
                board,
                game_key,
                z=Z,
                min_games=LISTED_GAMES,
                hidden_player=hidden,
                offset=page * PAGE_SIZE,
                limit=PAGE_SIZE,
            )
        lines = tuple(
            _line(page * PAGE_SIZE + i + 1, standing) for i, standing in enumerate(standings)
        )
        return Board(game_key, chat_id, computers, page, pages, lines)

    async def leaders(self, chat_id: int | None, *, computers: bool = False) -> Leaders:
        """The best player of every game rated on this chat's board (or the global one)."""
        board = GLOBAL_BOARD if chat_id is None else chat_id
        async with self.db.transaction() as session:
            ratings = Ratings(session)
            keys = await ratings.games_on_board(board)
            best = await ratings.leaders(
                board,
                z=Z,
                min_games=LISTED_GAMES,
                hidden_player=None if computers else COMPUTER_PLAYER,
            )
        return Leaders(
            chat_id,
            {key: _line(1, best[key]) if key in best else None for key in keys},
        )

    # -- a player -------------------------------------------------------------------------

    async def player(self, user_id: int) -> PlayerStats:
        """A player's ratings and records per game, on the global board."""
        async with self.db.transaction() as session:
            rows = await Ratings(session).of_player(user_id, GLOBAL_BOARD)
            changes = await RatingChanges(session).of_player(user_id, GLOBAL_BOARD)
        by_game: dict[str, list[RatingChangeRow]] = {}
        for change in changes:
            by_game.setdefault(change.game_key, []).append(change)
        games = []
        for row in rows:
            changed = by_game.get(row.game_key, [])
            history = [displayed(c.mu, c.sigma) for c in changed]
            if changed:
                history.insert(0, displayed(changed[0].mu_before, changed[0].sigma_before))
            rating = displayed(row.mu, row.sigma)
            games.append(
                GameStats(
                    game_key=row.game_key,
                    rating=rating,
                    change=_change(changed[-1]) if changed else None,
                    games=row.games,
                    wins=row.wins,
                    draws=row.draws,
                    losses=row.losses,
                    best_streak=row.best_streak,
                    history=tuple(history),
                )
            )
        return PlayerStats(user_id, tuple(games))

    # -- a chat's finished games ----------------------------------------------------------

    async def history(self, chat_id: int, limit: int = HISTORY_SIZE) -> list[PlayedGame]:
        """The chat's last finished games, newest first, with places and rating changes.

        A private chat's are its person's own games, wherever he played them (a group's, or
        against the computer in this chat): that is whose history a person asks for there.
        """
        async with self.db.transaction() as session:
            finished = FinishedGames(session)
            if chat_id > 0:
                rows = await finished.latest_of_player(chat_id, limit)
            else:
                rows = await finished.latest(chat_id, limit)
            return await _played_games(session, rows)

    async def summary(self, chat_id: int, game_id: int) -> GameSummary:
        """One finished game of this chat's history (:meth:`history`): its final table and
        what its action log says."""
        async with self.db.transaction() as session:
            row = await Games(session).get(game_id)
            if (
                row is None
                or row.status != FINISHED
                or not await _in_history(session, row, chat_id)
            ):
                raise ServiceError("history.not_found")
            snapshot = (await self._store.load_row(session, row)).snapshot()
            actions = await Actions(session).of_game(game_id)
            (played,) = await _played_games(session, [row])
        moves = [a for a in actions if a.source in MOVE_SOURCES]
        by_seat = Counter(a.seat for a in moves if a.seat is not None and a.source != "timeout")
        return GameSummary(
            game=played,
            snapshot=snapshot,
            duration=max(0.0, actions[-1].at - actions[0].at) if actions else 0.0,
            moves=len(moves),
            timeouts=sum(1 for a in moves if a.source == "timeout"),
            moves_by_seat=dict(by_seat),
        )


async def _in_history(session: AsyncSession, row: GameRow, chat_id: int) -> bool:
    """Whether a finished game is in this chat's history: a group's own games; in a private
    chat, the games its person sat in."""
    if row.chat_id == chat_id:
        return True
    if chat_id < 0:
        return False
    seats = await FinishedGames(session).seats([row.id])
    return any(seat.user_id == chat_id for seat in seats)


async def _played_games(session: AsyncSession, rows: Sequence[GameRow]) -> list[PlayedGame]:
    """Finished games with their seats' names, places and changes, each on the board its
    table showed them on."""
    finished = FinishedGames(session)
    ids = [row.id for row in rows]
    names = {(s.game_id, s.seat): s.name for s in await finished.seats(ids)}
    boards: dict[int, list[int]] = {}
    for row in rows:
        boards.setdefault(shown_board(row.chat_id), []).append(row.id)
    moved = {
        (c.game_id, c.seat): _change(c)
        for board, game_ids in boards.items()
        for c in await RatingChanges(session).of_games(game_ids, board)
    }
    seats_of: dict[int, list[PlayedSeat]] = {}
    for result in await finished.results(ids):
        key = (result.game_id, result.seat)
        seats_of.setdefault(result.game_id, []).append(
            PlayedSeat(
                result.seat, result.user_id, names.get(key, ""), result.place, moved.get(key)
            )
        )
    return [
        PlayedGame(
            game_id=row.id,
            game_key=row.game_key,
            finished_at=_aware(row.finished_at or row.created_at),
            seats=tuple(sorted(seats_of.get(row.id, []), key=lambda s: (s.place, s.seat))),
        )
        for row in rows
    ]


def _line(position: int, standing: Standing) -> BoardLine:
    row = standing.rating
    return BoardLine(
        position=position,
        player_id=row.player_id,
        name=standing.name,
        rating=Skill(row.mu, row.sigma).display,
        games=row.games,
        wins=row.wins,
        draws=row.draws,
        losses=row.losses,
    )


def _change(change: RatingChangeRow) -> int:
    return displayed(change.mu, change.sigma) - displayed(change.mu_before, change.sigma_before)


def _aware(moment: datetime) -> datetime:
    """SQLite hands back naive datetimes; everything stored is UTC."""
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)
