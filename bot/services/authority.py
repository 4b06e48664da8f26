"""Who may do what to a game: every press is judged against the game it names.

Callback data is written by the client: a modified client can send any data for any message
it can see, and game ids are sequential. So the game id in a press is only a claim. What
Telegram itself reports — who pressed, in which chat, on which message — is checked against
the game's own rows:

- a lobby or table button (join, leave, computers, options, start, cancel, rematch) must be
  pressed on the game's table message, in the game's chat;
- a panel button (a move, a panel screen, "take my seat back") must be pressed on that
  player's own panel, in his private chat.

This binds every message to its game server-side: the message ids are the ones the bot
recorded when it sent the messages (``games.table_message_id``, ``seats.dm_message_id``).
Until a message's id is recorded (the moment between its send and the record), the chat alone
is checked. Rights are asked of Telegram about the game's chat, never about the chat the button
happened to be pressed in: membership to join, admin (or creator) to run a lobby.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from bot.services.snapshots import GameColumns, SeatColumns
from bot.services.types import Actor, ServiceError
from bot.storage.models import OVER_STATUSES

#: Telegram's shared identities: a message "from" one of these was not sent by a person one
#: can tell apart — an anonymous admin (GroupAnonymousBot), a channel (Channel_Bot), or
#: Telegram's service account. Such an identity never owns a lobby or takes a seat.
SHARED_IDENTITIES = frozenset({1087968824, 136817688, 777000})


@dataclass(frozen=True, slots=True)
class Origin:
    """The message a button was pressed on, as Telegram reported it — or the player's Mini
    App (:meth:`mini_app`)."""

    chat_id: int
    message_id: int

    @classmethod
    def mini_app(cls, user_id: int) -> Origin:
        """A press on the Mini App of the player Telegram signed as ``user_id``: it stands
        for his panel (no message of Telegram's has id 0)."""
        return cls(user_id, MINI_APP)


#: The "message" of a press made in the Mini App.
MINI_APP = 0


class ChatRights(Protocol):
    """What Telegram says of a person in a chat (the Telegram layer implements it).

    Both raise :class:`ServiceError` ``rights.unknown`` when Telegram cannot be asked: a
    person must hear "try again", never "you are not an admin", when the answer is unknown.
    """

    async def is_admin(self, chat_id: int, user_id: int) -> bool:
        """Whether the user administers the group (never, in a private chat)."""
        ...

    async def is_member(self, chat_id: int, user_id: int) -> bool:
        """Whether the user is in the group now (a private chat: whether it is his)."""
        ...


def is_person(actor: Actor) -> bool:
    """Whether the update comes from a person the bot can tell apart from others."""
    return actor.as_chat is None and actor.user_id not in SHARED_IDENTITIES


def require_table(game: GameColumns, origin: Origin) -> None:
    """A press on a lobby or table button: it must be the game's own table message."""
    if origin.chat_id != game.chat_id:
        raise ServiceError("press.foreign")
    shown = game.table_message_id
    if shown is not None and origin.message_id != shown:
        raise _outdated(game.status)


def require_panel(seat: SeatColumns, origin: Origin, status: str) -> None:
    """A press on a panel button: it must be the seat's own panel, in its player's chat
    (``status``: its game's)."""
    if seat.user_id is None or origin.chat_id != seat.user_id:
        raise ServiceError("press.foreign")
    shown = seat.dm_message_id
    if shown is not None and origin.message_id not in (shown, MINI_APP):
        raise _outdated(status)


def _outdated(status: str) -> ServiceError:
    """A press on a message its game has since replaced: if the game is over — an old
    keyboard outlives its game in the chat's history — that is what the presser is told."""
    return ServiceError("play.game_over" if status in OVER_STATUSES else "press.outdated")
