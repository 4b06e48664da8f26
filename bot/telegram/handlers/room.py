"""The Cardroom: the services and the sender the handlers use, and what the handlers share —
who is asking, in which chat, in whose words, and how a reply is handed to the sender."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Literal, TypeVar

from telegram import Chat, Message, Update, User
from telegram.ext import ContextTypes

from bot.games.registry import GAMES
from bot.i18n import Translator, pick_language, translator
from bot.services.languages import LanguageService
from bot.services.lobby import LobbyService
from bot.services.people import PeopleService
from bot.services.play import PlayService
from bot.services.stats import StatsService
from bot.services.types import Actor, ChatRef, ServiceError
from bot.services.waitlist import WaitlistService
from bot.telegram.charts import ChartPool
from bot.telegram.handlers.tables import TablePosts
from bot.telegram.intake import PressThrottle
from bot.telegram.miniapp.server import MiniApp
from bot.telegram.poller import DeadlinePoller
from bot.telegram.render import has_renderer
from bot.telegram.render.common import group_title
from bot.telegram.render.content import Keyboard
from bot.telegram.rights import TelegramRights
from bot.telegram.sender.budget import Priority
from bot.telegram.sender.live import Publisher
from bot.telegram.sender.menus import Menus
from bot.telegram.sender.notes import Note, Notes, message_call
from bot.telegram.sender.outbox import Outbox, letter_of
from bot.telegram.sender.replies import ReplyGate, Verdict

logger = logging.getLogger(__name__)

T = TypeVar("T")

GAME_KEYS = ("advantage", "davayka", "progression", "rank", "trumps")
#: The deep link payload that opens a game's rules in the private chat: ``rules-<game>``.
RULES_LINK = "rules-"

#: A reply's words in a reader's language (``lambda t: t("help.group")``): the group gets
#: them in its language, and its asker's private chat — if the answer must go there — in his.
Render = Callable[[Translator], str]


def _openings() -> ReplyGate:
    """Lobbies a person may open or cancel in a chat in a minute, and a group in all."""
    return ReplyGate(per_user=4, per_chat=8, per_private=10)


@dataclass(slots=True)
class Cardroom:
    """The services the handlers use, and the sender's parts, kept in
    ``application.bot_data``."""

    lobby: LobbyService
    play: PlayService
    stats: StatsService
    #: The live messages: tables and panels.
    publisher: Publisher
    #: Every other message: replies, board pages, results, greetings, tidy calls.
    notes: Notes
    menus: Menus
    languages: LanguageService
    people: PeopleService
    poller: DeadlinePoller
    rights: TelegramRights
    #: Who waits to be told of the next game in a chat (``/nextgame``).
    waitlist: WaitlistService
    #: What the bot decided to say, written with the decision and delivered from there.
    outbox: Outbox
    throttle: PressThrottle = field(default_factory=PressThrottle)
    replies: ReplyGate = field(default_factory=ReplyGate)
    openings: ReplyGate = field(default_factory=_openings)
    charts: ChartPool = field(default_factory=ChartPool)
    #: Told when a table message is posted (:meth:`remember_table`), for those waiting for one.
    tables: TablePosts = field(default_factory=TablePosts)
    #: The redraw after a start (``bot.app.catch_up``), while it runs.
    catching_up: asyncio.Task[None] | None = None
    #: Davay-ka!'s Mini App, where it is served (``WEBAPP_URL``).
    miniapp: MiniApp | None = None

    async def remember_table(self, game_id: int, message_id: int | None) -> None:
        """Record a game's table message (the publisher's call), and tell whoever waits
        for it."""
        await self.play.remember_table(game_id, message_id)
        if message_id is not None:
            self.tables.posted(game_id, message_id)

    async def move_chat(self, old_id: int, new_id: int) -> None:
        """A group became a supergroup: move its games and post their tables there (one
        transaction: :meth:`LobbyService.chat_moved`)."""
        self.publisher.chat_moved(old_id, new_id)
        for snapshot in await self.lobby.chat_moved(old_id, new_id):
            self.publisher.publish(snapshot)
        logger.info("Chat %s moved to %s", old_id, new_id)

    async def seat_unreachable(self, game_id: int, seat: int) -> None:
        """A player blocked the bot: a computer plays his seat until he takes it back."""
        snapshot = await self.play.unreachable(game_id, seat)
        if snapshot is not None:
            self.publisher.publish(snapshot)

    async def blocked(self, actor: Actor) -> None:
        """A person blocked the bot: he is known not to be reachable, and the computer takes
        his seats at once — one transaction, the update's whole effect."""
        for snapshot in await self.play.blocked(actor):
            self.publisher.publish(snapshot)

    async def reachable_again(self, user_id: int, *, unblocked: bool = False) -> None:
        """A person can be messaged again: each game he sits in gets a fresh panel where the
        computer plays for him ("Take my seat back") — and, after he ``unblocked`` the bot,
        everywhere; after a mere ``/start``, only where his panel is buried (at most once a
        minute a game)."""
        for snapshot in await self.play.games_of(user_id):
            seat = snapshot.seat_of(user_id)
            if seat is None:
                continue
            if unblocked:
                self.publisher.renew_panel(snapshot, seat.seat)
            else:
                self.publisher.recall_panel(snapshot, seat.seat)

    async def member_left(self, chat_id: int, user_id: int) -> None:
        """A person left a group: out of its lobbies; the computer takes his seats (one
        transaction: :meth:`LobbyService.member_left`)."""
        self.rights.forget(chat_id, user_id)
        for snapshot in await self.lobby.member_left(chat_id, user_id):
            self.publisher.publish(snapshot)
        logger.info("User %s left chat %s", user_id, chat_id)


def cardroom(context: ContextTypes.DEFAULT_TYPE) -> Cardroom:
    room: Cardroom = context.bot_data["cardroom"]
    return room


def actor_of(user: User, message: Message | None = None) -> Actor:
    """The person behind an update; a message sent on behalf of a chat (an anonymous admin
    writes as the group) says so."""
    sender = message.sender_chat if message is not None else None
    return Actor(
        user.id,
        user.first_name,
        user.username,
        user.language_code,
        as_chat=sender.id if sender is not None else None,
    )


def topic_of(message: Message | None) -> int:
    """The forum topic a message is in (0: none)."""
    if message is not None and message.is_topic_message and message.message_thread_id:
        return message.message_thread_id
    return 0


def chat_of(chat: Chat, message: Message | None) -> ChatRef:
    return ChatRef(chat.id, chat.type, chat.title or chat.full_name, topic_of(message))


async def personal(context: ContextTypes.DEFAULT_TYPE, user: User) -> Translator:
    """Words for one user: a callback answer, a DM."""
    return translator(await cardroom(context).languages.for_user(actor_of(user)))


async def speaker(context: ContextTypes.DEFAULT_TYPE, update: Update) -> Translator:
    """Words for a reply in the chat of the update: the group's language, or the user's."""
    chat, user = update.effective_chat, update.effective_user
    if chat is None:
        return translator(pick_language(user.language_code if user else None))
    where = chat_of(chat, update.effective_message)
    actor = actor_of(user) if user is not None else None
    return translator(await cardroom(context).languages.for_chat(where, actor))


def available_games() -> list[str]:
    """The games a lobby can be opened for: known to the registry and drawable."""
    return [key for key in GAME_KEYS if key in GAMES and has_renderer(key)]


def by_the_rules(error: ServiceError) -> bool:
    """Whether a press was refused by its game's rules (its code is the game's), where the
    game may say more than the refusal's own words (what the table shows now)."""
    return error.code.split(".", 1)[0] in GAME_KEYS


def refusal_text(t: Translator, error: ServiceError) -> str:
    key = f"error.{error.code}"
    if not t.has(key):
        logger.warning("No message for refusal %s", error.code)
        key = "error.generic"
    return t(key, **error.args_)


def refusal(error: ServiceError) -> Render:
    """A refusal's words, in whichever language they are read (:func:`say`)."""
    return lambda t: refusal_text(t, error)


def words(key: str, **args: object) -> Render:
    """The message ``key``, in whichever language it is read (:func:`say`)."""
    return lambda t: t(key, **args)


async def say(
    context: ContextTypes.DEFAULT_TYPE,
    message: Message,
    t: Translator,
    key: str,
    text: str | Render,
    *,
    keyboard: Keyboard = (),
    menu: str | None = None,
    reply_to: int | None = None,
) -> None:
    """Hand an informational reply to ``message`` to the sender, and return at once: it is
    written to the outbox with the update (:class:`~bot.telegram.sender.outbox.Outbox`), so
    that no stop loses it.

    ``key`` says what it is: the same reply is not sent twice in a row into a group, and each
    person gets a few a minute in a group (:class:`ReplyGate`). In a group, a reply held back —
    or one the group's window cannot take in time — goes to its asker's private chat instead
    (text only, under a line naming the group and saying why) if he has started the bot: in
    his own language when ``text`` is a :data:`Render` (a plain text is sent as it is, under a
    line in ``t``'s words). ``menu``: the reply is a board or a picker of this kind, which ages
    (:class:`~bot.telegram.sender.menus.Menus`).
    """
    room = cardroom(context)
    chat = message.chat
    user = message.from_user
    asker = user.id if user is not None else 0
    verdict = room.replies.admit(chat.id, asker, key)
    if verdict is Verdict.DUPLICATE:
        return
    group = chat.id < 0
    if verdict is not Verdict.SEND and not group:
        return
    topic = topic_of(message)
    shown = text if isinstance(text, str) else text(t)
    private_text = None
    if group and user is not None:
        # His own words, wherever the answer lands in his private chat.
        if isinstance(text, str):
            mine, body = t, text
        else:
            mine = translator(await room.languages.for_user(actor_of(user)))
            body = text(mine)
        asked_a_lot = verdict is Verdict.TOO_MANY
        private_text = private_copy(mine, chat, body, why="asked" if asked_a_lot else "busy")
    note = Note(
        chat.id,
        message_call(chat.id, shown, keyboard, topic=topic, reply_to=reply_to),
        Priority.REPLY,
        share=("topic", topic),
        key=("reply", topic, key),
        asker=asker if private_text is not None else None,
        private_text=private_text,
        what=f"reply to {command_of(message) or key}",
    )
    private_first = verdict is not Verdict.SEND
    room.outbox.post(
        letter_of(note, menu=None if menu is None else (topic, menu), private_first=private_first)
    )


def command_of(message: Message) -> str | None:
    """The command a message gives, with its first argument (``/rules rank``), for the log:
    ``None`` if it gives none."""
    parts = (message.text or "").split()[:2]
    if not parts or not parts[0].startswith("/"):
        return None
    parts[0] = parts[0].split("@", 1)[0]
    return " ".join(part[:32] for part in parts)


def private_copy(
    t: Translator, chat: Chat, text: str, *, why: Literal["busy", "asked"] = "busy"
) -> str:
    """What a person asked for in a group, as his private chat gets it when the group did not
    take it: a line naming the group and saying why — it was ``busy``, or he ``asked`` a lot
    there — then the text."""
    key = "reply.from_group_asked" if why == "asked" else "reply.from_group"
    return t(key, chat=group_title(chat.title or "")) + "\n\n" + text


def menu_aged(context: ContextTypes.DEFAULT_TYPE, message: Message, kind: str) -> bool:
    """Whether a board or picker pressed has aged (a newer one replaced it, or it is old):
    its buttons go, and the press does nothing."""
    menus = cardroom(context).menus
    chat_id, dated = message.chat.id, message.date.timestamp()
    if menus.aged(chat_id, topic_of(message), kind, message.message_id, dated):
        menus.disarm(chat_id, message.message_id)
        return True
    return False


def deep_link(context: ContextTypes.DEFAULT_TYPE, token: str) -> str:
    return f"https://t.me/{context.bot.username}?start={token}"
