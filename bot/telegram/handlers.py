"""Command and button handlers: translate updates into service calls and answers.

Every callback query is answered exactly once, whatever happens; refused requests get a
short answer and change nothing.
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass, field
from typing import Any

from telegram import (
    CallbackQuery,
    Chat,
    InlineKeyboardButton,
    InlineKeyboardMarkup,
    Message,
    ReplyParameters,
    Update,
    User,
)
from telegram.constants import ChatMemberStatus, ChatType, ParseMode
from telegram.error import Forbidden, TelegramError
from telegram.ext import (
    Application,
    CallbackQueryHandler,
    ChatMemberHandler,
    CommandHandler,
    ContextTypes,
    MessageHandler,
    filters,
)

from bot.games.registry import GAMES
from bot.i18n import SUPPORTED_LANGUAGES, Translator, pick_language, translator
from bot.services.languages import LanguageService
from bot.services.lobby import LobbyService
from bot.services.play import PlayService
from bot.services.stats import StatsService
from bot.services.types import Actor, AdminCheck, ChatRef, GameSnapshot, ServiceError
from bot.telegram import boards, callbacks
from bot.telegram.delivery import Publisher
from bot.telegram.poller import DeadlinePoller
from bot.telegram.render import has_renderer
from bot.telegram.render.common import esc, game_name
from bot.telegram.throttle import PressThrottle

logger = logging.getLogger(__name__)

GAME_KEYS = ("advantage", "davayka", "progression", "rank", "trumps")


@dataclass(slots=True)
class Cardroom:
    """The services the handlers use, kept in ``application.bot_data``."""

    lobby: LobbyService
    play: PlayService
    stats: StatsService
    publisher: Publisher
    languages: LanguageService
    poller: DeadlinePoller
    throttle: PressThrottle = field(default_factory=PressThrottle)
    #: The redraw after a start (``bot.app.catch_up``), while it runs.
    catching_up: asyncio.Task[None] | None = None

    async def move_chat(self, old_id: int, new_id: int) -> None:
        """A group became a supergroup: move its games and post their tables there."""
        self.publisher.chat_moved(old_id, new_id)
        for snapshot in await self.lobby.chat_moved(old_id, new_id):
            self.publisher.publish(snapshot)
        logger.info("Chat %s moved to %s", old_id, new_id)

    async def seat_unreachable(self, game_id: int, seat: int) -> None:
        """A player blocked the bot: a computer plays his seat until he takes it back."""
        snapshot = await self.play.unreachable(game_id, seat)
        if snapshot is not None:
            self.publisher.publish(snapshot)


def cardroom(context: ContextTypes.DEFAULT_TYPE) -> Cardroom:
    room: Cardroom = context.bot_data["cardroom"]
    return room


def actor_of(user: User) -> Actor:
    return Actor(user.id, user.first_name, user.username, user.language_code)


def chat_of(chat: Chat, message: Message | None) -> ChatRef:
    topic = 0
    if message is not None and message.is_topic_message and message.message_thread_id:
        topic = message.message_thread_id
    return ChatRef(chat.id, chat.type, chat.title or chat.full_name, topic)


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


def admin_check(context: ContextTypes.DEFAULT_TYPE, chat_id: int, user_id: int) -> AdminCheck:
    """Asks Telegram whether the user administers the chat — only when it matters."""

    async def check() -> bool:
        if chat_id > 0:
            return False
        try:
            member = await context.bot.get_chat_member(chat_id, user_id)
        except TelegramError as error:
            logger.warning("Could not check the admins of chat %s: %s", chat_id, error)
            return False
        return member.status in (ChatMemberStatus.ADMINISTRATOR, ChatMemberStatus.OWNER)

    return check


def refusal_text(t: Translator, error: ServiceError) -> str:
    key = f"error.{error.code}"
    if not t.has(key):
        logger.warning("No message for refusal %s", error.code)
        key = "error.generic"
    return t(key, **error.args_)


async def reply(message: Message, text: str, **kwargs: Any) -> None:
    await message.reply_text(text, parse_mode=ParseMode.HTML, do_quote=False, **kwargs)


# -- commands ---------------------------------------------------------------------------


async def handle_start(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """``/start [token]`` in a private chat: greet, or finish joining through a deep link."""
    message, user = update.effective_message, update.effective_user
    if message is None or user is None or update.effective_chat is None:
        return
    room = cardroom(context)
    t = await personal(context, user)
    actor = actor_of(user)
    chat = chat_of(update.effective_chat, message)
    if context.args:
        try:
            result = await room.lobby.join_by_token(context.args[0][:64], actor)
        except ServiceError as error:
            await reply(message, refusal_text(t, error))
            return
        room.publisher.publish(result.snapshot)
        name = esc(game_name(t, result.snapshot.game_key))
        key = "start.joined" if result.joined else "start.already_joined"
        await reply(message, t(key, game=name))
        return
    await room.lobby.record(actor, chat, started=True)
    await reply(message, t("start.welcome", name=esc(user.first_name)) + "\n\n" + t("help.text"))


async def handle_help(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """``/help``: what the bot does and its commands."""
    if update.effective_message is None:
        return
    t = await speaker(context, update)
    await reply(update.effective_message, t("help.text"))


async def handle_rules(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """``/rules <game>``: a readable summary of a game's rules."""
    message = update.effective_message
    if message is None:
        return
    t = await speaker(context, update)
    key = context.args[0].lower() if context.args else ""
    if key in available_games():
        await reply(message, t(f"rules.{key}"))
        return
    await reply(message, t("rules.pick"), reply_markup=_game_buttons(t, callbacks.RulesPress))


async def handle_new(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """``/new <game>`` opens a lobby; bare ``/new`` offers a button per game."""
    message, user = update.effective_message, update.effective_user
    if message is None or user is None or update.effective_chat is None:
        return
    t = await speaker(context, update)
    key = context.args[0].lower() if context.args else ""
    if not key:
        await reply(message, t("new.pick"), reply_markup=_game_buttons(t, callbacks.NewGame))
        return
    if key not in available_games():
        await reply(message, t("new.unknown", games=", ".join(available_games())))
        return
    await _open_lobby(context, message, user, update.effective_chat, key)


async def _open_lobby(
    context: ContextTypes.DEFAULT_TYPE, message: Message, user: User, chat: Chat, key: str
) -> None:
    """Open a lobby in a group; in a private chat, deal a game against the computer."""
    room = cardroom(context)
    where, actor = chat_of(chat, message), actor_of(user)
    await room.languages.adopt(where, actor)
    t = translator(await room.languages.for_chat(where, actor))
    try:
        if where.is_private:
            snapshot = await room.lobby.quick_start(where, actor, key)
        else:
            snapshot = await room.lobby.open(where, actor, key)
    except ServiceError as error:
        existing = error.args_.get("message_id")
        parameters = (
            ReplyParameters(existing, allow_sending_without_reply=True) if existing else None
        )
        await message.reply_text(
            refusal_text(t, error),
            parse_mode=ParseMode.HTML,
            reply_parameters=parameters,
            do_quote=False,
        )
        return
    if not snapshot.seats and await _reachable(context, user, await personal(context, user)):
        await room.lobby.mark_started(actor)
        snapshot = (await room.lobby.join(snapshot.game_id, actor)).snapshot
    room.publisher.publish(snapshot)


async def handle_cancel(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """``/cancel``: the creator or an admin ends this topic's lobby or game."""
    message, user, chat = update.effective_message, update.effective_user, update.effective_chat
    if message is None or user is None or chat is None:
        return
    room = cardroom(context)
    t = await speaker(context, update)
    try:
        snapshot = await room.lobby.cancel_in_topic(
            chat_of(chat, message), actor_of(user), admin_check(context, chat.id, user.id)
        )
    except ServiceError as error:
        await reply(message, refusal_text(t, error))
        return
    room.publisher.publish(snapshot)
    await reply(message, t("cancel.done", game=esc(game_name(t, snapshot.game_key))))


async def handle_language(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """``/language``: the languages the bot speaks."""
    message = update.effective_message
    if message is None:
        return
    t = await speaker(context, update)
    buttons = [
        [
            InlineKeyboardButton(
                translator(code)("language.name"),
                callback_data=callbacks.LanguagePress(code).encode(),
            )
        ]
        for code in SUPPORTED_LANGUAGES
    ]
    await reply(message, t("language.pick"), reply_markup=InlineKeyboardMarkup(buttons))


def _game_buttons(
    t: Translator, press: type[callbacks.NewGame] | type[callbacks.RulesPress]
) -> InlineKeyboardMarkup:
    buttons = [
        InlineKeyboardButton(game_name(t, key), callback_data=press(key).encode())
        for key in available_games()
    ]
    return InlineKeyboardMarkup([buttons[i : i + 2] for i in range(0, len(buttons), 2)])


# -- buttons ----------------------------------------------------------------------------


async def handle_button(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """Every inline button: decode, act, answer once."""
    query = update.callback_query
    if query is None:
        return
    t = await personal(context, query.from_user)
    answer: dict[str, Any] = {}
    if not cardroom(context).throttle.allow(query.from_user.id):
        await _answer(query, {"text": t("error.too_fast")})
        return
    try:
        press = callbacks.parse(query.data)
        answer = await _dispatch(press, query, context, t)
    except callbacks.BadCallback:
        logger.info("Unusable callback data from user %s", query.from_user.id)
        answer = {"text": t("error.bad_button")}
    except ServiceError as error:
        answer = {"text": refusal_text(t, error)}
        if error.code == "lobby.need_start":
            answer = {"url": _deep_link(context, error.args_["token"])}
    finally:
        await _answer(query, answer)


async def _reachable(context: ContextTypes.DEFAULT_TYPE, user: User, t: Translator) -> bool:
    """Whether the bot can message ``user`` — found out by greeting him in his DM."""
    try:
        await context.bot.send_message(user.id, t("lobby.dm_hello"), parse_mode=ParseMode.HTML)
    except Forbidden:
        return False
    except TelegramError as error:
        logger.warning("Could not greet user %s: %s", user.id, error)
        return False
    return True


async def _answer(query: CallbackQuery, answer: dict[str, Any]) -> None:
    try:
        await query.answer(**answer)
    except TelegramError as error:
        logger.warning("Could not answer a button press: %s", error)


def _deep_link(context: ContextTypes.DEFAULT_TYPE, token: str) -> str:
    return f"https://t.me/{context.bot.username}?start={token}"


async def _dispatch(
    press: callbacks.Press, query: CallbackQuery, context: ContextTypes.DEFAULT_TYPE, t: Translator
) -> dict[str, Any]:
    room = cardroom(context)
    user = query.from_user
    actor = actor_of(user)
    message = query.message if isinstance(query.message, Message) else None
    chat_id = message.chat.id if message is not None else user.id
    admin = admin_check(context, chat_id, user.id)
    snapshot: GameSnapshot
    match press:
        case callbacks.ActPress(game_id, version, code):
            snapshot = await room.play.act(game_id, user.id, version, code)
            room.publisher.publish(snapshot)
            return {}
        case callbacks.ScreenPress(game_id, version, screen):
            current = await room.play.snapshot(game_id)
            seat = current.seat_of(user.id)
            if seat is None:
                raise ServiceError("play.not_a_player")
            if current.version != version:
                raise ServiceError("play.stale")
            if not room.publisher.show_screen(game_id, seat.seat, screen):
                room.publisher.publish(current)
                room.publisher.show_screen(game_id, seat.seat, screen)
            return {}
        case callbacks.LobbyPress(game_id, "join"):
            try:
                result = await room.lobby.join(game_id, actor)
            except ServiceError as error:
                # Perhaps he opened our DM before we kept records: a greeting tells.
                if error.code != "lobby.need_start" or not await _reachable(context, user, t):
                    raise
                await room.lobby.mark_started(actor)
                result = await room.lobby.join(game_id, actor)
            room.publisher.publish(result.snapshot)
            return {"text": t("lobby.you_joined" if result.joined else "lobby.already_in")}
        case callbacks.LobbyPress(game_id, "leave"):
            room.publisher.publish(await room.lobby.leave(game_id, actor))
            return {"text": t("lobby.you_left")}
        case callbacks.LobbyPress(game_id, "bot"):
            room.publisher.publish(await room.lobby.add_computer(game_id, actor, admin))
            return {}
        case callbacks.LobbyPress(game_id, "unbot"):
            room.publisher.publish(await room.lobby.remove_computer(game_id, actor, admin))
            return {}
        case callbacks.LobbyPress(game_id, "start"):
            room.publisher.publish(await room.lobby.start(game_id, actor, admin))
            return {"text": t("lobby.started")}
        case callbacks.LobbyPress(game_id, "back"):
            room.publisher.publish(await room.play.take_back(game_id, user.id))
            return {"text": t("lobby.welcome_back")}
        case callbacks.LobbyPress(game_id, "cancel"):
            room.publisher.publish(await room.lobby.cancel(game_id, actor, admin))
            return {"text": t("lobby.cancelled")}
        case callbacks.LobbyPress(game_id, op):
            option = op[2:]
            room.publisher.publish(await room.lobby.cycle_option(game_id, actor, option, admin))
            return {}
        case callbacks.RematchPress(game_id):
            room.publisher.publish(await room.lobby.rematch(game_id, actor))
            return {"text": t("lobby.rematch_started")}
        case callbacks.NewGame(key):
            if key not in available_games() or message is None:
                raise callbacks.BadCallback(key)
            await _open_lobby(context, message, user, message.chat, key)
            return {}
        case callbacks.RulesPress(key):
            if key not in available_games():
                raise callbacks.BadCallback(key)
            if message is not None:
                await context.bot.send_message(
                    message.chat.id,
                    t(f"rules.{key}"),
                    parse_mode=ParseMode.HTML,
                    message_thread_id=message.message_thread_id
                    if message.is_topic_message
                    else None,
                )
            return {}
        case callbacks.LanguagePress(code):
            where = (
                chat_of(message.chat, message)
                if message is not None
                else ChatRef(user.id, "private")
            )
            chosen = await room.languages.choose(where, actor, code, admin)
            if not where.is_private:
                shown = await room.play.snapshot_in_topic(where.chat_id, where.topic_id)
                if shown is not None:
                    room.publisher.publish(shown)
            return {"text": translator(chosen)("language.set")}
    raise callbacks.BadCallback("unhandled")


# -- the chat itself --------------------------------------------------------------------


async def handle_migration(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """A group became a supergroup: move its games along and post their tables there."""
    message = update.effective_message
    if message is None or message.migrate_to_chat_id is None:
        return
    await cardroom(context).move_chat(message.chat.id, message.migrate_to_chat_id)


async def handle_my_membership(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """Added to a group: speak its adder's language. Removed: its games are cancelled."""
    change = update.my_chat_member
    if change is None or change.chat.type == ChatType.PRIVATE:
        return
    if change.new_chat_member.status in (ChatMemberStatus.MEMBER, ChatMemberStatus.ADMINISTRATOR):
        where = ChatRef(change.chat.id, change.chat.type, change.chat.title)
        await cardroom(context).languages.adopt(where, actor_of(change.from_user))
    elif change.new_chat_member.status in (ChatMemberStatus.LEFT, ChatMemberStatus.BANNED):
        room = cardroom(context)
        for snapshot in await room.lobby.bot_removed(change.chat.id):
            room.publisher.publish(snapshot)
        logger.info("Removed from chat %s; its games are cancelled", change.chat.id)


# -- errors -----------------------------------------------------------------------------


async def handle_error(update: object, context: ContextTypes.DEFAULT_TYPE) -> None:
    """Log an unexpected error with its traceback: any of these is a bug."""
    logger.error("Unhandled error while processing an update", exc_info=context.error)


def register(application: Application[Any, Any, Any, Any, Any, Any]) -> None:
    """Attach every handler to the application."""
    boards.register(application)
    private = filters.ChatType.PRIVATE
    application.add_handler(CommandHandler("start", handle_start, filters=private))
    application.add_handler(CommandHandler("help", handle_help))
    application.add_handler(CommandHandler("rules", handle_rules))
    application.add_handler(CommandHandler("new", handle_new))
    application.add_handler(CommandHandler("cancel", handle_cancel))
    application.add_handler(CommandHandler("language", handle_language))
    application.add_handler(CallbackQueryHandler(handle_button))
    application.add_handler(MessageHandler(filters.StatusUpdate.MIGRATE, handle_migration))
    application.add_handler(
        ChatMemberHandler(handle_my_membership, ChatMemberHandler.MY_CHAT_MEMBER)
    )
    application.add_error_handler(handle_error)
