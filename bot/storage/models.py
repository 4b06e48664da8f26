"""SQLAlchemy models: the only description of the schema (Alembic migrations follow it).

Storage knows nothing of games or Telegram: a game's state is an opaque JSON document, and
Telegram ids are plain integers.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any, ClassVar

from sqlalchemy import (
    JSON,
    BigInteger,
    Boolean,
    DateTime,
    Float,
    ForeignKey,
    Index,
    Integer,
    MetaData,
    String,
    UniqueConstraint,
    false,
    text,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

NAMING_CONVENTION = {
    "ix": "ix_%(column_0_label)s",
    "uq": "uq_%(table_name)s_%(column_0_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}

#: Game statuses. ``lobby`` and ``playing`` are "open": one open game per chat topic.
LOBBY, PLAYING, FINISHED, CANCELLED = "lobby", "playing", "finished", "cancelled"
OPEN_STATUSES = (LOBBY, PLAYING)


def utcnow() -> datetime:
    return datetime.now(UTC)


class Base(DeclarativeBase):
    metadata = MetaData(naming_convention=NAMING_CONVENTION)
    type_annotation_map: ClassVar[dict[Any, Any]] = {dict[str, Any]: JSON, list[Any]: JSON}


class UserRow(Base):
    """A Telegram user who has talked to the bot or pressed one of its buttons."""

    __tablename__ = "users"

    id: Mapped[int] = mapped_column(BigInteger, primary_key=True, autoincrement=False)
    first_name: Mapped[str] = mapped_column(String(256))
    username: Mapped[str | None] = mapped_column(String(64))
    language_code: Mapped[str | None] = mapped_column(String(16))
    language: Mapped[str | None] = mapped_column(String(8))
    # True once the user has opened a private chat with the bot: only then can it DM him.
    started: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class ChatRow(Base):
    """A chat the bot is in: a group, a supergroup or a private chat."""

    __tablename__ = "chats"

    id: Mapped[int] = mapped_column(BigInteger, primary_key=True, autoincrement=False)
    kind: Mapped[str] = mapped_column(String(16))
    title: Mapped[str | None] = mapped_column(String(256))
    language: Mapped[str | None] = mapped_column(String(8))
    settings: Mapped[dict[str, Any]] = mapped_column(default=dict)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class GameRow(Base):
    """One lobby and the game played from it, from opening to its end."""

    __tablename__ = "games"
    __table_args__ = (
        # One open lobby or game per chat topic (topic 0 = the chat itself).
        Index(
            "uq_games_open_per_topic",
            "chat_id",
            "topic_id",
            unique=True,
            sqlite_where=text("status IN ('lobby', 'playing')"),
            postgresql_where=text("status IN ('lobby', 'playing')"),
        ),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    chat_id: Mapped[int] = mapped_column(ForeignKey("chats.id", ondelete="CASCADE"), index=True)
    topic_id: Mapped[int] = mapped_column(BigInteger, default=0)
    game_key: Mapped[str] = mapped_column(String(32))
    status: Mapped[str] = mapped_column(String(16), index=True)
    options: Mapped[dict[str, Any]] = mapped_column(default=dict)
    state: Mapped[dict[str, Any] | None] = mapped_column(JSON)
    # Public events of the latest actions, newest last, for the table's short log.
    recent: Mapped[list[Any]] = mapped_column(default=list)
    seed: Mapped[int] = mapped_column(BigInteger)
    version: Mapped[int] = mapped_column(Integer, default=0)
    deadline_at: Mapped[float | None] = mapped_column(Float, index=True)
    table_message_id: Mapped[int | None] = mapped_column(BigInteger)
    creator_id: Mapped[int] = mapped_column(ForeignKey("users.id"))
    join_token: Mapped[str] = mapped_column(String(32), unique=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    started_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    finished_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))


class SeatRow(Base):
    """A place at a game: a user, or a computer player when ``user_id`` is empty."""

    __tablename__ = "seats"
    __table_args__ = (UniqueConstraint("game_id", "seat", name="uq_seats_game_seat"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    game_id: Mapped[int] = mapped_column(ForeignKey("games.id", ondelete="CASCADE"), index=True)
    seat: Mapped[int] = mapped_column(Integer)
    user_id: Mapped[int | None] = mapped_column(ForeignKey("users.id"), index=True)
    name: Mapped[str] = mapped_column(String(256))
    dm_message_id: Mapped[int | None] = mapped_column(BigInteger)
    timeouts: Mapped[int] = mapped_column(Integer, default=0)

    @property
    def is_computer(self) -> bool:
        return self.user_id is None


class ActionRow(Base):
    """The append-only log: every applied action, in order (``version`` after applying it)."""

    __tablename__ = "actions"
    __table_args__ = (UniqueConstraint("game_id", "version", name="uq_actions_game_version"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    game_id: Mapped[int] = mapped_column(ForeignKey("games.id", ondelete="CASCADE"))
    version: Mapped[int] = mapped_column(Integer)
    seat: Mapped[int | None] = mapped_column(Integer)
    # "press" (a player), "computer" (a computer seat) or "timeout" (the deadline poller).
    source: Mapped[str] = mapped_column(String(16))
    action: Mapped[str | None] = mapped_column(String(64))
    at: Mapped[float] = mapped_column(Float)


class ResultRow(Base):
    """One seat's result in a finished game."""

    __tablename__ = "results"
    __table_args__ = (UniqueConstraint("game_id", "seat", name="uq_results_game_seat"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    game_id: Mapped[int] = mapped_column(ForeignKey("games.id", ondelete="CASCADE"))
    seat: Mapped[int] = mapped_column(Integer)
    user_id: Mapped[int | None] = mapped_column(ForeignKey("users.id"), index=True)
    place: Mapped[int] = mapped_column(Integer)
    score: Mapped[float | None] = mapped_column(Float)
    players: Mapped[int] = mapped_column(Integer)
    game_key: Mapped[str] = mapped_column(String(32), index=True)
    chat_id: Mapped[int] = mapped_column(BigInteger, index=True)
    finished_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


__all__ = [
    "CANCELLED",
    "FINISHED",
    "LOBBY",
    "OPEN_STATUSES",
    "PLAYING",
    "ActionRow",
    "Base",
    "ChatRow",
    "GameRow",
    "ResultRow",
    "SeatRow",
    "UserRow",
]
