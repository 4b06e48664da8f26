"""What the services take and give back: plain data, no Telegram and no database types."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from bot.games.engine import Event, Outcome

# The database refused to write (a full disk, a read-only file): nothing was saved. Callers
# of the services answer it in words; it is the storage's, passed on as it is.
from bot.storage.models import OVER_STATUSES
from bot.storage.outage import StorageRefused as StorageRefused

#: Lobby option kept across rematches: wins per seat in the series so far.
SERIES = "series"
#: Lobby options of a rematch: the people invited who have not confirmed yet (``[user id,
#: name]`` each), the previous game's seats in order (user ids, ``None`` for a computer) and
#: its id; and, on the finished game, the id of the lobby its Rematch button opened.
INVITED = "invited"
PREVIOUS = "previous_seats"
REMATCH_OF = "rematch_of"
REMATCHED = "rematched_by"


class ServiceError(Exception):
    """A refused request. ``code`` is the i18n key of the short answer the user gets."""

    def __init__(self, code: str, **args: Any) -> None:
        super().__init__(code)
        self.code = code
        self.args_ = args


@dataclass(frozen=True, slots=True)
class Actor:
    """The person behind an update."""

    user_id: int
    first_name: str
    username: str | None = None
    language_code: str | None = None
    #: The chat a message was sent on behalf of: an anonymous admin writes as the group
    #: itself, and Telegram names a shared account as the sender (see
    #: :mod:`bot.services.authority`).
    as_chat: int | None = None


@dataclass(frozen=True, slots=True)
class ChatRef:
    """Where a request came from: a chat and, in forum supergroups, a topic (0: none)."""

    chat_id: int
    kind: str
    title: str | None = None
    topic_id: int = 0

    @property
    def is_private(self) -> bool:
        return self.kind == "private"


@dataclass(frozen=True, slots=True)
class SeatInfo:
    seat: int
    user_id: int | None
    name: str
    language: str
    dm_message_id: int | None
    timeouts: int
    #: A person's seat that a computer plays for now (he timed out or cannot be messaged).
    autopilot: bool = False
    #: Why, when it is so: he left the game — left its group or blocked the bot — rather
    #: than missed his turns (was away, and the computer took his seat over).
    left: bool = False
    #: Whether his panel is sent anew (it notifies) when his move has waited for him.
    pings: bool = True

    @property
    def is_computer(self) -> bool:
        return self.user_id is None

    @property
    def played_by_computer(self) -> bool:
        return self.user_id is None or self.autopilot


@dataclass(frozen=True, slots=True)
class GameSnapshot:
    """Everything needed to draw a lobby or a game after a committed change."""

    game_id: int
    chat_id: int
    #: The game's number within its chat (1, 2, 3…): what its messages call it.
    number: int
    topic_id: int
    chat_kind: str
    chat_language: str
    game_key: str
    status: str
    version: int
    options: Mapping[str, Any]
    #: ``None``: a lobby opened by an anonymous admin, hosted by the chat's admins.
    creator_id: int | None
    join_token: str
    seats: tuple[SeatInfo, ...]
    table_message_id: int | None
    deadline_at: float | None
    min_players: int
    max_players: int
    public: Any = None
    views: Mapping[int, Any] = field(default_factory=dict)
    #: Legal actions per seat, as (code, action): only seats that may act now appear.
    legal: Mapping[int, tuple[tuple[str, Any], ...]] = field(default_factory=dict)
    #: The seats whose move it is (the table's "to move"); empty between deals and at the end.
    acting: tuple[int, ...] = ()
    recent: tuple[Event, ...] = ()
    outcome: Outcome | None = None
    #: Events of the change that produced this snapshot (private ones included).
    events: tuple[Event, ...] = ()
    #: The step that finished the game: each person's seat's displayed rating before and
    #: after it (the chat's board in a group, the global one in a private chat).
    ratings: Mapping[int, tuple[int, int]] = field(default_factory=dict)
    #: Of those seats, the ones whose rating is still provisional after the game (fewer than
    #: :data:`~bot.services.ratings.MIN_GAMES` games on that board): marked as the boards mark it.
    provisional: frozenset[int] = frozenset()

    @property
    def is_lobby(self) -> bool:
        return self.status == "lobby"

    @property
    def is_over(self) -> bool:
        return self.status in OVER_STATUSES

    def seat_of(self, user_id: int) -> SeatInfo | None:
        return next((s for s in self.seats if s.user_id == user_id), None)


@dataclass(frozen=True, slots=True)
class LobbyCreated:
    snapshot: GameSnapshot


@dataclass(frozen=True, slots=True)
class JoinResult:
    snapshot: GameSnapshot
    joined: bool
