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
    true,
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
#: A game in one of these is over: played to its end, or called off.
OVER_STATUSES = (FINISHED, CANCELLED)


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
    # Whether his panel is sent anew (which notifies) when his move has waited for him.
    pings: Mapped[bool] = mapped_column(Boolean, default=True, server_default=true())
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
    # The game's number within its chat (1, 2, 3…), as its table and panels say it; the id
    # stays the bot's own (callback data, deep links). Set when the game is opened.
    number: Mapped[int] = mapped_column(Integer, server_default="0")
    topic_id: Mapped[int] = mapped_column(BigInteger, default=0)
    game_key: Mapped[str] = mapped_column(String(32))
    status: Mapped[str] = mapped_column(String(16), index=True)
    options: Mapped[dict[str, Any]] = mapped_column(default=dict)
    state: Mapped[dict[str, Any] | None] = mapped_column(JSON)
    # Public events of the latest actions, newest last, for the table's short log.
    recent: Mapped[list[Any]] = mapped_column(default=list)
    seed: Mapped[int] = mapped_column(BigInteger)
    version: Mapped[int] = mapped_column(Integer, default=0)
    # The newest version whose table and panels were all delivered: a start-up redraws only
    # the open games where this is behind ``version`` (the process stopped mid-delivery).
    shown_version: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    deadline_at: Mapped[float | None] = mapped_column(Float, index=True)
    table_message_id: Mapped[int | None] = mapped_column(BigInteger)
    # Who opened the lobby; empty when an anonymous admin did (the chat's admins host it).
    creator_id: Mapped[int | None] = mapped_column(ForeignKey("users.id"))
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


class WaitlistRow(Base):
    """A person who asked (``/nextgame``) to be told in his private chat when the next game
    opens in a chat's topic (topic 0 = the chat itself); the next lobby there uses it up."""

    __tablename__ = "waitlist"
    __table_args__ = (
        UniqueConstraint("chat_id", "topic_id", "user_id", name="uq_waitlist_chat_topic_user"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    chat_id: Mapped[int] = mapped_column(BigInteger)
    topic_id: Mapped[int] = mapped_column(BigInteger, default=0)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"))
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


#: ``chat_id`` of the global board in ``ratings`` and ``rating_changes`` (no chat has id 0).
GLOBAL_BOARD = 0
#: ``player_id`` of the computer: every computer seat of a game shares this one rating.
COMPUTER_PLAYER = 0


class RatingRow(Base):
    """One player's rating in one game on one board: a chat's, or the global one (chat 0).

    ``player_id`` is a Telegram user id, or 0 for the computer. ``mu`` and ``sigma`` are the
    rating model's; the tallies are kept along so that a board is one indexed read.
    """

    __tablename__ = "ratings"
    __table_args__ = (
        UniqueConstraint("chat_id", "game_key", "player_id", name="uq_ratings_board_player"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    chat_id: Mapped[int] = mapped_column(BigInteger)
    game_key: Mapped[str] = mapped_column(String(32))
    player_id: Mapped[int] = mapped_column(BigInteger, index=True)
    mu: Mapped[float] = mapped_column(Float)
    sigma: Mapped[float] = mapped_column(Float)
    games: Mapped[int] = mapped_column(Integer, default=0)
    wins: Mapped[int] = mapped_column(Integer, default=0)
    draws: Mapped[int] = mapped_column(Integer, default=0)
    losses: Mapped[int] = mapped_column(Integer, default=0)
    # Consecutive wins up to the latest game, and the longest such run.
    streak: Mapped[int] = mapped_column(Integer, default=0)
    best_streak: Mapped[int] = mapped_column(Integer, default=0)
    updated_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class RatingChangeRow(Base):
    """How one seat's rating moved with one finished game, on one board (chat 0: global)."""

    __tablename__ = "rating_changes"
    __table_args__ = (
        UniqueConstraint("game_id", "seat", "chat_id", name="uq_rating_changes_game_seat_chat"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    game_id: Mapped[int] = mapped_column(ForeignKey("games.id", ondelete="CASCADE"))
    seat: Mapped[int] = mapped_column(Integer)
    chat_id: Mapped[int] = mapped_column(BigInteger)
    game_key: Mapped[str] = mapped_column(String(32))
    player_id: Mapped[int] = mapped_column(BigInteger, index=True)
    mu_before: Mapped[float] = mapped_column(Float)
    sigma_before: Mapped[float] = mapped_column(Float)
    mu: Mapped[float] = mapped_column(Float)
    sigma: Mapped[float] = mapped_column(Float)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


__all__ = [
    "CANCELLED",
    "COMPUTER_PLAYER",
    "FINISHED",
    "GLOBAL_BOARD",
    "LOBBY",
    "OPEN_STATUSES",
    "PLAYING",
    "ActionRow",
    "Base",
    "ChatRow",
    "GameRow",
    "RatingChangeRow",
    "RatingRow",
    "ResultRow",
    "SeatRow",
    "UserRow",
    "WaitlistRow",
]


class InboxRow(Base):
    """An update taken from Telegram (a webhook post, a long poll), stored before Telegram
    hears it arrived: the leader handles it from here, once (``handled_at`` is set in the
    transaction that applies it). ``update_id`` is Telegram's: a redelivery stores nothing."""

    __tablename__ = "inbox"
    __table_args__ = (
        Index(
            "ix_inbox_unhandled",
            "update_id",
            sqlite_where=text("handled_at IS NULL"),
            postgresql_where=text("handled_at IS NULL"),
        ),
    )

    update_id: Mapped[int] = mapped_column(BigInteger, primary_key=True, autoincrement=False)
    # The chat it comes from (its updates are handled in order); empty for one from none.
    chat_id: Mapped[int | None] = mapped_column(BigInteger)
    payload: Mapped[dict[str, Any]] = mapped_column()
    # Seconds since the epoch, as the process that took it saw them.
    taken_at: Mapped[float] = mapped_column(Float)
    handled_at: Mapped[float | None] = mapped_column(Float, index=True)


class CallRow(Base):
    """A call the bot made into a chat (seconds since the epoch): the leader's flood budget,
    written behind its calls, so that the next leader knows the last minute's windows."""

    __tablename__ = "telegram_calls"

    id: Mapped[int] = mapped_column(BigInteger().with_variant(Integer, "sqlite"), primary_key=True)
    chat_id: Mapped[int] = mapped_column(BigInteger)
    at: Mapped[float] = mapped_column(Float, index=True)


class LetterRow(Base):
    """Something the bot decided to say (the outbox): written in the transaction that decides
    it, delivered by the leader's sender and marked delivered — a reply, a game's result, a
    notice, a greeting, a tidy call. A stop, kill or failover loses none: the next leader
    delivers what is not marked. Storage keeps it opaque: ``kind`` and ``body`` are the
    sender's."""

    __tablename__ = "outbox"
    __table_args__ = (
        Index(
            "ix_outbox_undelivered",
            "id",
            sqlite_where=text("delivered_at IS NULL"),
            postgresql_where=text("delivered_at IS NULL"),
        ),
    )

    id: Mapped[int] = mapped_column(BigInteger().with_variant(Integer, "sqlite"), primary_key=True)
    chat_id: Mapped[int] = mapped_column(BigInteger)
    # "call": a Bot API call as it goes; "result": a finished game's result, drawn as it goes.
    kind: Mapped[str] = mapped_column(String(16))
    game_id: Mapped[int | None] = mapped_column(Integer)
    body: Mapped[dict[str, Any]] = mapped_column()
    # Seconds since the epoch when it was decided (its time to live counts from here).
    created_at: Mapped[float] = mapped_column(Float)
    delivered_at: Mapped[float | None] = mapped_column(Float, index=True)
    # What became of it ("sent", "dropped", "forbidden"…), and the message it made.
    outcome: Mapped[str | None] = mapped_column(String(16))
    message_id: Mapped[int | None] = mapped_column(BigInteger)
