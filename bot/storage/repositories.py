"""Repositories: the queries the services need, over one session. They never commit."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from sqlalchemy import (
    Integer,
    Table,
    and_,
    bindparam,
    delete,
    func,
    insert,
    literal_column,
    or_,
    select,
    update,
)
from sqlalchemy.dialects.postgresql import insert as postgresql_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm import aliased
from sqlalchemy.orm.attributes import set_committed_value

from bot.storage.models import (
    COMPUTER_PLAYER,
    FINISHED,
    OPEN_STATUSES,
    PLAYING,
    ActionRow,
    ChatRow,
    GameRow,
    RatingChangeRow,
    RatingRow,
    ResultRow,
    SeatRow,
    UserRow,
    WaitlistRow,
    utcnow,
)

# -- statements of the hot path, built once (building one costs more than running it) ------
# The plain-SQL press path (bot.storage.lean) runs these very statements, compiled for
# SQLite: a change to one of them, or to the schema, changes both paths.

_GAMES: Table = GameRow.__table__  # type: ignore[assignment]
_SEATS: Table = SeatRow.__table__  # type: ignore[assignment]
_ACTIONS: Table = ActionRow.__table__  # type: ignore[assignment]

#: A game joined with its chat, its seats (in order) and their users: ``game_id``.
GAME_WITH_PLAYERS = (
    select(GameRow, ChatRow, SeatRow, UserRow)
    .outerjoin(ChatRow, ChatRow.id == GameRow.chat_id)
    .outerjoin(SeatRow, SeatRow.game_id == GameRow.id)
    .outerjoin(UserRow, UserRow.id == SeatRow.user_id)
    .where(GameRow.id == bindparam("game_id"))
    .order_by(SeatRow.seat)
)
_WITH_PLAYERS_LOCKED = GAME_WITH_PLAYERS.with_for_update(of=GameRow)

#: One step in the action log: its columns by name.
APPEND_ACTION = insert(_ACTIONS).values(
    {name: bindparam(name) for name in ("game_id", "version", "seat", "source", "action", "at")}
)

#: A seat's missed turns: ``timeouts`` of seat ``number`` of game ``game``. (Not ``game_id``
#: and ``seat``: an UPDATE keeps its columns' names for the values it sets.)
SET_TIMEOUTS = (
    update(_SEATS)
    .where(_SEATS.c.game_id == bindparam("game"), _SEATS.c.seat == bindparam("number"))
    .values(timeouts=bindparam("timeouts"))
)

_MARK_SHOWN = (
    update(_GAMES)
    .where(_GAMES.c.id == bindparam("game_id"), _GAMES.c.shown_version < bindparam("shown"))
    .values(shown_version=bindparam("shown"))
)


# Written into the SQL, not sent as a parameter with every press.
_ONE = literal_column("1", Integer)


@lru_cache(maxsize=16)
def save_statement(columns: tuple[str, ...]) -> Any:
    """``UPDATE games SET <columns>, version = version + 1 WHERE id = :game_id AND version =
    :expected`` — one statement per set of columns (a handful exist)."""
    return (
        update(_GAMES)
        .where(_GAMES.c.id == bindparam("game_id"), _GAMES.c.version == bindparam("expected"))
        .values(version=_GAMES.c.version + _ONE, **{name: bindparam(name) for name in columns})
    )


def _dialect_insert(session: AsyncSession) -> Any:
    """The INSERT of the session's backend, which knows ``ON CONFLICT``."""
    dialect = session.bind.dialect.name if session.bind else "sqlite"
    return postgresql_insert if dialect == "postgresql" else sqlite_insert


@lru_cache(maxsize=4)
def _user_upsert(insert: Any, *, language_code: bool) -> Any:
    """``INSERT INTO users … ON CONFLICT (id) DO UPDATE … RETURNING`` for one backend's
    ``insert``; with ``language_code``, a conflict also takes the new language code."""
    columns = ("id", "first_name", "username", "language_code", "started")
    statement = insert(UserRow).values({name: bindparam(name) for name in columns})
    fresh = statement.excluded
    refreshed = {
        "first_name": fresh.first_name,
        "username": fresh.username,
        "started": or_(UserRow.started, fresh.started),
    }
    if language_code:
        refreshed["language_code"] = fresh.language_code
    return statement.on_conflict_do_update(index_elements=[UserRow.id], set_=refreshed).returning(
        UserRow
    )


@lru_cache(maxsize=2)
def _chat_upsert(insert: Any) -> Any:
    """``INSERT INTO chats … ON CONFLICT (id) DO UPDATE SET kind, title … RETURNING``."""
    statement = insert(ChatRow).values(
        {name: bindparam(name) for name in ("id", "kind", "title", "settings")}
    )
    fresh = statement.excluded
    return statement.on_conflict_do_update(
        index_elements=[ChatRow.id], set_={"kind": fresh.kind, "title": fresh.title}
    ).returning(ChatRow)


#: What an upsert returns is the session's own row, as the statement left it.
_CURRENT = {"populate_existing": True}


class Users:
    def __init__(self, session: AsyncSession) -> None:
        self.session = session

    async def get(self, user_id: int) -> UserRow | None:
        return await self.session.get(UserRow, user_id)

    async def upsert(
        self,
        user_id: int,
        first_name: str,
        username: str | None,
        language_code: str | None,
        *,
        started: bool = False,
    ) -> UserRow:
        """Create or refresh a user from what Telegram just told us about him.

        One statement (insert, or update on conflict): two transactions meeting the same new
        user at once both succeed (on PostgreSQL the second waits for the first). The
        ``language_code`` stays when Telegram sent none; ``started`` only ever becomes true
        here. The row returned is this session's own, as the statement left it: the caller
        may change it, and another transaction may have changed it since the session read
        it.
        """
        statement = _user_upsert(_dialect_insert(self.session), language_code=bool(language_code))
        rows = await self.session.scalars(
            statement,
            {
                "id": user_id,
                "first_name": first_name,
                "username": username,
                "language_code": language_code,
                "started": started,
            },
            execution_options=_CURRENT,
        )
        row: UserRow = rows.one()
        return row


class Chats:
    def __init__(self, session: AsyncSession) -> None:
        self.session = session

    async def get(self, chat_id: int) -> ChatRow | None:
        return await self.session.get(ChatRow, chat_id)

    async def upsert(self, chat_id: int, kind: str, title: str | None) -> ChatRow:
        """Create a chat, or refresh its kind and title (its language and settings stay), in
        one statement, as :meth:`Users.upsert` does."""
        rows = await self.session.scalars(
            _chat_upsert(_dialect_insert(self.session)),
            {"id": chat_id, "kind": kind, "title": title, "settings": {}},
            execution_options=_CURRENT,
        )
        row: ChatRow = rows.one()
        return row


class ChatMoves:
    """Moving everything of a chat to its new id (a group upgraded to a supergroup)."""

    def __init__(self, session: AsyncSession) -> None:
        self.session = session

    async def move(self, old_id: int, new_id: int) -> list[int]:
        """Re-point games and results; returns the open games, whose messages must be re-sent."""
        old = await self.session.get(ChatRow, old_id)
        if old is None:
            return []
        new = await self.session.get(ChatRow, new_id)
        if new is None:
            new = ChatRow(
                id=new_id,
                kind="supergroup",
                title=old.title,
                language=old.language,
                settings=dict(old.settings or {}),
            )
            self.session.add(new)
            await self.session.flush()
        # The supergroup goes on counting the group's games: any opened there before the
        # move was heard of come after them.
        counted = await Games(self.session).last_number(old_id)
        if counted:
            await self.session.execute(
                update(GameRow)
                .where(GameRow.chat_id == new_id)
                .values(number=GameRow.number + counted)
                .execution_options(synchronize_session=False)
            )
        await self.session.execute(
            update(GameRow)
            .where(GameRow.chat_id == old_id)
            .values(chat_id=new_id)
            .execution_options(synchronize_session=False)
        )
        await Waitlist(self.session).move_chat(old_id, new_id)
        await self.session.execute(
            update(ResultRow).where(ResultRow.chat_id == old_id).values(chat_id=new_id)
        )
        open_ids = list(
            await self.session.scalars(
                select(GameRow.id).where(
                    GameRow.chat_id == new_id, GameRow.status.in_(OPEN_STATUSES)
                )
            )
        )
        await self.session.execute(
            update(GameRow).where(GameRow.id.in_(open_ids)).values(table_message_id=None)
        )
        await Ratings(self.session).move_chat(old_id, new_id)
        await self.session.delete(old)
        return open_ids


class Games:
    def __init__(self, session: AsyncSession) -> None:
        self.session = session

    async def get(self, game_id: int, *, lock: bool = False) -> GameRow | None:
        """The game row; with ``lock``, locked for this transaction where the backend can."""
        statement = select(GameRow).where(GameRow.id == game_id)
        if lock:
            statement = statement.with_for_update()
        return (await self.session.scalars(statement)).one_or_none()

    async def with_players(
        self, game_id: int, *, lock: bool = False
    ) -> tuple[GameRow, ChatRow | None, list[tuple[SeatRow, UserRow | None]]] | None:
        """The game, its chat and its seats with their users, in one round trip.

        This is the hot path of every press and timeout: one SELECT of the game joined with
        its chat, seats and users instead of one query for each. ``lock`` locks the game row
        (only that row: the outer-joined ones cannot be locked on PostgreSQL).
        """
        statement = _WITH_PLAYERS_LOCKED if lock else GAME_WITH_PLAYERS
        rows = (await self.session.execute(statement, {"game_id": game_id})).all()
        if not rows:
            return None
        game: GameRow = rows[0][0]
        chat: ChatRow | None = rows[0][1]
        seats: list[tuple[SeatRow, UserRow | None]] = [
            (seat, user) for _g, _c, seat, user in rows if seat is not None
        ]
        return game, chat, seats

    async def refresh(self, row: GameRow) -> None:
        await self.session.refresh(row)

    async def open_in_topic(self, chat_id: int, topic_id: int) -> GameRow | None:
        statement = select(GameRow).where(
            GameRow.chat_id == chat_id,
            GameRow.topic_id == topic_id,
            GameRow.status.in_(OPEN_STATUSES),
        )
        return (await self.session.scalars(statement)).first()

    async def last_number(self, chat_id: int) -> int:
        """The number of the chat's latest game (0: none yet)."""
        last = await self.session.scalar(
            select(func.max(GameRow.number)).where(GameRow.chat_id == chat_id)
        )
        return int(last or 0)

    async def next_number(self, chat_id: int) -> int:
        """The number the chat's next game gets: one more than its latest. The chat's row is
        locked for it first, so that two games opened at once in one chat (in two forum
        topics) are numbered one after the other (PostgreSQL; SQLite has one writer)."""
        await self.session.execute(
            select(ChatRow.id).where(ChatRow.id == chat_id).with_for_update()
        )
        return await self.last_number(chat_id) + 1

    async def by_token(self, token: str) -> GameRow | None:
        return (
            await self.session.scalars(select(GameRow).where(GameRow.join_token == token))
        ).one_or_none()

    def add(self, row: GameRow) -> None:
        self.session.add(row)

    async def flush(self) -> None:
        await self.session.flush()

    async def save_if_version(self, game_id: int, expected_version: int, **values: Any) -> bool:
        """Write ``values`` and bump the version only if nobody else did since we read it.

        This is the optimistic-concurrency check: of two writers that read the same version,
        exactly one succeeds.
        """
        connection = await self.session.connection()
        result = await connection.execute(
            save_statement(tuple(sorted(values))),
            {**values, "game_id": game_id, "expected": expected_version},
        )
        return bool(result.rowcount)

    @staticmethod
    def mirror(row: GameRow, **values: Any) -> None:
        """Show on a loaded row what an UPDATE statement wrote, without writing it again."""
        for name, value in values.items():
            set_committed_value(row, name, value)

    async def set_table_message(self, game_id: int, message_id: int | None) -> None:
        await self.session.execute(
            update(GameRow).where(GameRow.id == game_id).values(table_message_id=message_id)
        )

    async def extend_deadline(
        self, game_id: int, version: int, seconds: float, *, except_keys: Sequence[str] = ()
    ) -> bool:
        """Move a playing game's deadline ``seconds`` later if it is still at ``version``
        (its version does not change: nothing in the game did)."""
        result = await self.session.execute(
            update(GameRow)
            .where(
                GameRow.id == game_id,
                GameRow.version == version,
                GameRow.status == PLAYING,
                GameRow.deadline_at.is_not(None),
                GameRow.game_key.not_in(except_keys),
            )
            .values(deadline_at=GameRow.deadline_at + seconds)
            .execution_options(synchronize_session=False)
        )
        return bool(getattr(result, "rowcount", 0))

    async def due(
        self, now: float, limit: int, *, skip_locked: bool, status: str = PLAYING
    ) -> list[int]:
        """Ids of games in ``status`` (playing games, or lobbies) whose deadline has passed,
        earliest first."""
        statement = (
            select(GameRow.id)
            .where(GameRow.status == status, GameRow.deadline_at <= now)
            .order_by(GameRow.deadline_at)
            .limit(limit)
        )
        if skip_locked:
            statement = statement.with_for_update(skip_locked=True)
        return list(await self.session.scalars(statement))

    async def next_deadline(self) -> float | None:
        return await self.session.scalar(
            select(func.min(GameRow.deadline_at)).where(GameRow.status == PLAYING)
        )

    async def open_in_chat(self, chat_id: int, *, status: str | None = None) -> list[int]:
        """Open lobbies and games of a chat, in every topic (only those in ``status``)."""
        statuses = OPEN_STATUSES if status is None else (status,)
        return list(
            await self.session.scalars(
                select(GameRow.id).where(GameRow.chat_id == chat_id, GameRow.status.in_(statuses))
            )
        )

    async def playing_with(self, user_id: int, chat_id: int | None = None) -> list[int]:
        """Games being played with ``user_id`` seated (only in ``chat_id``, if given)."""
        statement = (
            select(GameRow.id)
            .join(SeatRow, SeatRow.game_id == GameRow.id)
            .where(SeatRow.user_id == user_id, GameRow.status == PLAYING)
            .order_by(GameRow.id)
        )
        if chat_id is not None:
            statement = statement.where(GameRow.chat_id == chat_id)
        return list(await self.session.scalars(statement))

    async def version_of(self, game_id: int) -> int | None:
        version: int | None = await self.session.scalar(
            select(GameRow.version).where(GameRow.id == game_id)
        )
        return version

    async def unshown_ids(self) -> list[int]:
        """Open lobbies and games whose newest version may not have reached the chats."""
        return list(
            await self.session.scalars(
                select(GameRow.id)
                .where(GameRow.status.in_(OPEN_STATUSES), GameRow.shown_version < GameRow.version)
                .order_by(GameRow.id)
            )
        )

    async def count_open(self) -> int:
        """Lobbies open and games being played."""
        return int(
            await self.session.scalar(
                select(func.count()).select_from(GameRow).where(GameRow.status.in_(OPEN_STATUSES))
            )
            or 0
        )

    async def open_ids(self) -> list[tuple[int, bool]]:
        """Open lobbies and games, each with whether its newest version may not have reached
        the chats (``shown_version`` behind ``version``) — those first — and the games that
        ended without their end shown (always behind)."""
        behind = GameRow.shown_version < GameRow.version
        rows = await self.session.execute(
            select(GameRow.id, behind)
            .where(or_(GameRow.status.in_(OPEN_STATUSES), behind))
            .order_by(behind.desc(), GameRow.id)
        )
        return [(game_id, bool(late)) for game_id, late in rows]

    async def mark_shown(self, versions: dict[int, int]) -> None:
        """Everything of these versions (game id → version) was delivered; a game's
        ``shown_version`` never moves back."""
        if not versions:
            return
        connection = await self.session.connection()
        await connection.execute(
            _MARK_SHOWN,
            [{"game_id": game_id, "shown": version} for game_id, version in versions.items()],
        )


class Waitlist:
    """Who waits to be told of the next game in a chat topic (``/nextgame``)."""

    def __init__(self, session: AsyncSession) -> None:
        self.session = session

    async def add(self, chat_id: int, topic_id: int, user_id: int) -> bool:
        """Put a person on a topic's list; whether he was not on it yet."""
        statement = (
            _dialect_insert(self.session)(WaitlistRow)
            .values(chat_id=chat_id, topic_id=topic_id, user_id=user_id, created_at=utcnow())
            .on_conflict_do_nothing(index_elements=["chat_id", "topic_id", "user_id"])
        )
        result = await self.session.execute(statement)
        return bool(getattr(result, "rowcount", 0))

    async def take(self, chat_id: int, topic_id: int) -> list[UserRow]:
        """Empty a topic's list: the people who were on it, in the order they asked."""
        taken = await self.session.execute(
            delete(WaitlistRow)
            .where(WaitlistRow.chat_id == chat_id, WaitlistRow.topic_id == topic_id)
            .returning(WaitlistRow.id, WaitlistRow.user_id)
        )
        order = {user_id: row_id for row_id, user_id in taken}
        if not order:
            return []
        users = await self.session.scalars(select(UserRow).where(UserRow.id.in_(order)))
        return sorted(users, key=lambda user: order[user.id])

    async def move_chat(self, old_id: int, new_id: int) -> None:
        """A group became a supergroup: its list moves along (a person waiting in both stays
        on once)."""
        there = select(WaitlistRow.user_id).where(WaitlistRow.chat_id == new_id)
        await self.session.execute(
            delete(WaitlistRow).where(
                WaitlistRow.chat_id == old_id, WaitlistRow.user_id.in_(there)
            )
        )
        await self.session.execute(
            update(WaitlistRow).where(WaitlistRow.chat_id == old_id).values(chat_id=new_id)
        )


class Seats:
    def __init__(self, session: AsyncSession) -> None:
        self.session = session

    def add(self, row: SeatRow) -> None:
        self.session.add(row)

    async def delete(self, row: SeatRow) -> None:
        await self.session.delete(row)

    async def flush(self) -> None:
        await self.session.flush()

    async def set_dm_message(self, game_id: int, seat: int, message_id: int | None) -> None:
        await self.session.execute(
            update(SeatRow)
            .where(SeatRow.game_id == game_id, SeatRow.seat == seat)
            .values(dm_message_id=message_id)
        )

    async def set_timeouts(self, game_id: int, seat: int, timeouts: int) -> None:
        """Write a seat's missed turns (a plain UPDATE: seats this session holds keep the
        value they were read with)."""
        connection = await self.session.connection()
        await connection.execute(
            SET_TIMEOUTS, {"game": game_id, "number": seat, "timeouts": timeouts}
        )


class Actions:
    def __init__(self, session: AsyncSession) -> None:
        self.session = session

    async def append(
        self,
        game_id: int,
        version: int,
        seat: int | None,
        source: str,
        action: str | None,
        at: float,
    ) -> None:
        """Log one step (a plain INSERT: the hot path needs no unit of work for it)."""
        connection = await self.session.connection()
        await connection.execute(
            APPEND_ACTION,
            {
                "game_id": game_id,
                "version": version,
                "seat": seat,
                "source": source,
                "action": action,
                "at": at,
            },
        )

    async def of_game(self, game_id: int) -> list[ActionRow]:
        rows = await self.session.scalars(
            select(ActionRow).where(ActionRow.game_id == game_id).order_by(ActionRow.version)
        )
        return list(rows)


class Results:
    def __init__(self, session: AsyncSession) -> None:
        self.session = session

    def add(self, row: ResultRow) -> None:
        self.session.add(row)

    async def of_game(self, game_id: int) -> list[ResultRow]:
        rows = await self.session.scalars(
            select(ResultRow).where(ResultRow.game_id == game_id).order_by(ResultRow.seat)
        )
        return list(rows)


@dataclass(frozen=True, slots=True)
class Standing:
    """A rating row and the player's first name (``None`` for the computer)."""

    rating: RatingRow
    name: str | None


class Ratings:
    """Ratings per board (a chat, or ``GLOBAL_BOARD``), game and player."""

    def __init__(self, session: AsyncSession) -> None:
        self.session = session

    async def lock(
        self, board: int, game_key: str, player_ids: Sequence[int], *, mu: float, sigma: float
    ) -> dict[int, RatingRow]:
        """The rows of these players, created when missing, locked for this transaction.

        Creation tolerates a race (insert … on conflict do nothing); rows are then locked in
        player order, so two games finishing at once cannot deadlock on PostgreSQL.
        """
        wanted = sorted(set(player_ids))
        values = [
            {
                "chat_id": board,
                "game_key": game_key,
                "player_id": player,
                "mu": mu,
                "sigma": sigma,
                "games": 0,
                "wins": 0,
                "draws": 0,
                "losses": 0,
                "streak": 0,
                "best_streak": 0,
                "updated_at": utcnow(),
            }
            for player in wanted
        ]
        await self.session.execute(
            _dialect_insert(self.session)(RatingRow)
            .values(values)
            .on_conflict_do_nothing(index_elements=["chat_id", "game_key", "player_id"])
        )
        rows = await self.session.scalars(
            select(RatingRow)
            .where(
                RatingRow.chat_id == board,
                RatingRow.game_key == game_key,
                RatingRow.player_id.in_(wanted),
            )
            .order_by(RatingRow.player_id)
            .with_for_update()
            .execution_options(populate_existing=True)
        )
        return {row.player_id: row for row in rows}

    def _listed(self, board: int, game_key: str, min_games: int, hidden_player: int | None) -> Any:
        conditions = [
            RatingRow.chat_id == board,
            RatingRow.game_key == game_key,
            RatingRow.games >= min_games,
        ]
        if hidden_player is not None:
            conditions.append(RatingRow.player_id != hidden_player)
        return and_(*conditions)

    async def board_size(
        self, board: int, game_key: str, *, min_games: int, hidden_player: int | None
    ) -> int:
        count = await self.session.scalar(
            select(func.count())
            .select_from(RatingRow)
            .where(self._listed(board, game_key, min_games, hidden_player))
        )
        return int(count or 0)

    async def board(
        self,
        board: int,
        game_key: str,
        *,
        z: float,
        min_games: int,
        hidden_player: int | None,
        offset: int,
        limit: int,
    ) -> list[Standing]:
        """Players by conservative rating (mu − z·sigma), best first."""
        statement = (
            select(RatingRow, UserRow.first_name)
            .outerjoin(UserRow, UserRow.id == RatingRow.player_id)
            .where(self._listed(board, game_key, min_games, hidden_player))
            .order_by(
                (RatingRow.mu - z * RatingRow.sigma).desc(),
                RatingRow.games.desc(),
                RatingRow.player_id,
            )
            .offset(offset)
            .limit(limit)
        )
        rows = await self.session.execute(statement)
        return [
            Standing(rating, None if rating.player_id == COMPUTER_PLAYER else name)
            for rating, name in rows
        ]

    async def games_on_board(self, board: int) -> list[str]:
        rows = await self.session.scalars(
            select(RatingRow.game_key)
            .where(RatingRow.chat_id == board)
            .distinct()
            .order_by(RatingRow.game_key)
        )
        return list(rows)

    async def leaders(
        self, board: int, *, z: float, min_games: int, hidden_player: int | None
    ) -> dict[str, Standing]:
        """The best listed player of each game on the board."""
        best: dict[str, Standing] = {}
        for game_key in await self.games_on_board(board):
            top = await self.board(
                board,
                game_key,
                z=z,
                min_games=min_games,
                hidden_player=hidden_player,
                offset=0,
                limit=1,
            )
            if top:
                best[game_key] = top[0]
        return best

    async def of_player(self, player_id: int, board: int) -> list[RatingRow]:
        rows = await self.session.scalars(
            select(RatingRow)
            .where(RatingRow.player_id == player_id, RatingRow.chat_id == board)
            .order_by(RatingRow.game_key)
        )
        return list(rows)

    async def move_chat(self, old_id: int, new_id: int) -> None:
        """A group became a supergroup: its board (and its games' changes) move along."""
        await self.session.execute(
            update(RatingRow)
            .where(RatingRow.chat_id == old_id)
            .values(chat_id=new_id)
            .execution_options(synchronize_session=False)
        )
        await self.session.execute(
            update(RatingChangeRow)
            .where(RatingChangeRow.chat_id == old_id)
            .values(chat_id=new_id)
            .execution_options(synchronize_session=False)
        )


class RatingChanges:
    """How each seat's rating moved with each finished game."""

    def __init__(self, session: AsyncSession) -> None:
        self.session = session

    def add(self, row: RatingChangeRow) -> None:
        self.session.add(row)

    async def of_player(self, player_id: int, board: int) -> list[RatingChangeRow]:
        """Oldest first."""
        rows = await self.session.scalars(
            select(RatingChangeRow)
            .where(RatingChangeRow.player_id == player_id, RatingChangeRow.chat_id == board)
            .order_by(RatingChangeRow.id)
        )
        return list(rows)

    async def of_games(self, game_ids: Sequence[int], board: int) -> list[RatingChangeRow]:
        if not game_ids:
            return []
        rows = await self.session.scalars(
            select(RatingChangeRow)
            .where(RatingChangeRow.game_id.in_(game_ids), RatingChangeRow.chat_id == board)
            .order_by(RatingChangeRow.game_id, RatingChangeRow.seat)
        )
        return list(rows)

    async def games_until(self, changes: Sequence[RatingChangeRow]) -> dict[int, int]:
        """For each of ``changes`` (by its id): how many games its player had on its board in
        its game once it was made — it included, later games not."""
        if not changes:
            return {}
        earlier = aliased(RatingChangeRow)
        rows = await self.session.execute(
            select(RatingChangeRow.id, func.count(earlier.id))
            .join(
                earlier,
                and_(
                    earlier.player_id == RatingChangeRow.player_id,
                    earlier.chat_id == RatingChangeRow.chat_id,
                    earlier.game_key == RatingChangeRow.game_key,
                    earlier.id <= RatingChangeRow.id,
                ),
            )
            .where(RatingChangeRow.id.in_([change.id for change in changes]))
            .group_by(RatingChangeRow.id)
        )
        return {change_id: int(count) for change_id, count in rows}


class FinishedGames:
    """Reading finished games back for /history."""

    def __init__(self, session: AsyncSession) -> None:
        self.session = session

    async def latest(self, chat_id: int, limit: int) -> list[GameRow]:
        """The chat's finished games, newest first."""
        rows = await self.session.scalars(
            select(GameRow)
            .where(GameRow.chat_id == chat_id, GameRow.status == FINISHED)
            .order_by(GameRow.finished_at.desc(), GameRow.id.desc())
            .limit(limit)
        )
        return list(rows)

    async def latest_of_player(self, user_id: int, limit: int) -> list[GameRow]:
        """The finished games a person sat in, wherever they were played, newest first."""
        played = select(SeatRow.game_id).where(SeatRow.user_id == user_id)
        rows = await self.session.scalars(
            select(GameRow)
            .where(GameRow.id.in_(played), GameRow.status == FINISHED)
            .order_by(GameRow.finished_at.desc(), GameRow.id.desc())
            .limit(limit)
        )
        return list(rows)

    async def seats(self, game_ids: Sequence[int]) -> list[SeatRow]:
        if not game_ids:
            return []
        rows = await self.session.scalars(
            select(SeatRow)
            .where(SeatRow.game_id.in_(game_ids))
            .order_by(SeatRow.game_id, SeatRow.seat)
        )
        return list(rows)

    async def results(self, game_ids: Sequence[int]) -> list[ResultRow]:
        if not game_ids:
            return []
        rows = await self.session.scalars(
            select(ResultRow)
            .where(ResultRow.game_id.in_(game_ids))
            .order_by(ResultRow.game_id, ResultRow.seat)
        )
        return list(rows)
