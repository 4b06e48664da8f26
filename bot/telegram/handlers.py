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
    MaybeInaccessibleMessage,
    Message,
    ReplyParameters,
    Update,
    User,
)
from telegram.constants import ChatMemberStatus, ChatType, ParseMode
from telegram.error import BadRequest, Forbidden, NetworkError, TelegramError
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
from bot.services.authority import Origin, is_person
from bot.services.languages import LanguageService
from bot.services.lobby import LobbyService
from bot.services.people import PeopleService
from bot.services.play import PlayService
from bot.services.stats import StatsService
from bot.services.types import Actor, ChatRef, ServiceError, StorageRefused
from bot.telegram import boards, callbacks
from bot.telegram.delivery import Publisher
from bot.telegram.poller import DeadlinePoller
from bot.telegram.render import has_renderer, press_answer, press_refusal
from bot.telegram.render.common import esc, game_name, option_label
from bot.telegram.replies import ReplyGate, Verdict, send_reply
from bot.telegram.rights import TelegramRights
from bot.telegram.throttle import PressThrottle

logger = logging.getLogger(__name__)

GAME_KEYS = ("advantage", "davayka", "progression", "rank", "trumps")
#: The deep link payload that opens a game's rules in the private chat: ``rules-<game>``.
RULES_LINK = "rules-"


@dataclass(slots=True)
class Cardroom:
    """The services the handlers use, kept in ``application.bot_data``."""

    lobby: LobbyService
    play: PlayService
    stats: StatsService
    publisher: Publisher
    languages: LanguageService
    people: PeopleService
    poller: DeadlinePoller
    rights: TelegramRights
    throttle: PressThrottle = field(default_factory=PressThrottle)
    replies: ReplyGate = field(default_factory=ReplyGate)
    redraws: boards.Redraws = field(default_factory=boards.Redraws)
    charts: boards.ChartPool = field(default_factory=boards.ChartPool)
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

    async def blocked(self, user_id: int) -> None:
        """A person blocked the bot: the computer takes his seats at once."""
        for snapshot in await self.play.games_of(user_id):
            seat = snapshot.seat_of(user_id)
            if seat is not None and not seat.autopilot:
                await self.seat_unreachable(snapshot.game_id, seat.seat)

    async def reachable_again(self, user_id: int) -> None:
        """A person can be messaged again (he unblocked the bot, or wrote to it): each game
        he sits in gets a fresh panel — with "Take my seat back" where the computer plays."""
        for snapshot in await self.play.games_of(user_id):
            seat = snapshot.seat_of(user_id)
            if seat is not None:
                self.publisher.renew_panel(snapshot, seat.seat)

    async def member_left(self, chat_id: int, user_id: int) -> None:
        """A person left a group: out of its lobbies; the computer takes his seats."""
        self.rights.forget(chat_id, user_id)
        for snapshot in await self.lobby.member_left(chat_id, user_id):
            self.publisher.publish(snapshot)
        for snapshot in await self.play.member_left(chat_id, user_id):
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


def refusal_text(t: Translator, error: ServiceError) -> str:
    key = f"error.{error.code}"
    if not t.has(key):
        logger.warning("No message for refusal %s", error.code)
        key = "error.generic"
    return t(key, **error.args_)


async def reply(
    context: ContextTypes.DEFAULT_TYPE, message: Message, key: str, text: str, **kwargs: Any
) -> None:
    """An informational reply: ``key`` says what it is (the same reply is not sent twice in a
    row into a group, and each person and group get a few a minute: :class:`ReplyGate`)."""
    await send_reply(cardroom(context).replies, message, key, text, **kwargs)


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
        payload = context.args[0][:64]
        if payload.startswith(RULES_LINK):
            await room.lobby.record(actor, chat, started=True)
            game = payload.removeprefix(RULES_LINK)
            if game in available_games():
                await reply(context, message, f"rules:{game}", t(f"rules.{game}"))
            return
        try:
            result = await room.lobby.join_by_token(payload, actor)
        except ServiceError as error:
            await reply(context, message, f"refused:{error.code}", refusal_text(t, error))
            return
        room.publisher.publish(result.snapshot)
        name = esc(game_name(t, result.snapshot.game_key))
        key = "start.joined" if result.joined else "start.already_joined"
        await reply(context, message, key, t(key, game=name))
        return
    await room.lobby.record(actor, chat, started=True)
    welcome = t("start.welcome", name=esc(user.first_name)) + "\n\n" + t("help.text")
    await reply(context, message, "welcome", welcome)
    # Perhaps he had blocked the bot: his games' panels come back.
    await room.reachable_again(user.id)


async def handle_help(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """``/help``: what the bot does and its commands — in a private chat, how to bring it
    into a group; in a group, where it already is, how to open a game right there."""
    message = update.effective_message
    if message is None:
        return
    t = await speaker(context, update)
    private = message.chat.type == ChatType.PRIVATE
    await reply(context, message, "help", t("help.text" if private else "help.group"))


async def handle_rules(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """``/rules <game>``: a readable summary of a game's rules."""
    message = update.effective_message
    if message is None:
        return
    t = await speaker(context, update)
    key = context.args[0].lower() if context.args else ""
    if key in available_games():
        await reply(context, message, f"rules:{key}", t(f"rules.{key}"))
        return
    buttons = _game_buttons(t, callbacks.RulesPress)
    await reply(context, message, "rules:pick", t("rules.pick"), reply_markup=buttons)


async def handle_new(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """``/new <game>`` opens a lobby; bare ``/new`` offers a button per game."""
    message, user = update.effective_message, update.effective_user
    if message is None or user is None or update.effective_chat is None:
        return
    t = await speaker(context, update)
    key = context.args[0].lower() if context.args else ""
    if not key:
        buttons = _game_buttons(t, callbacks.NewGame)
        await reply(context, message, "new:pick", t("new.pick"), reply_markup=buttons)
        return
    if key not in available_games():
        games = ", ".join(available_games())
        await reply(context, message, "new:unknown", t("new.unknown", games=games))
        return
    await _open_lobby(context, message, user, update.effective_chat, key)


async def _open_lobby(
    context: ContextTypes.DEFAULT_TYPE, message: Message, user: User, chat: Chat, key: str
) -> None:
    """Open a lobby in a group; in a private chat, deal a game against the computer."""
    room = cardroom(context)
    where, actor = chat_of(chat, message), actor_of(user, message)
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
        text = refusal_text(t, error)
        await reply(context, message, f"refused:{error.code}", text, reply_parameters=parameters)
        return
    if (
        is_person(actor)
        and not snapshot.seats
        and await _reachable(context, user, await personal(context, user))
    ):
        await room.lobby.mark_started(actor)
        try:
            snapshot = await room.lobby.seat_creator(snapshot.game_id, actor)
        except ServiceError as error:
            # Closed while he was greeted (a /cancel got in first): the lobby as it is now.
            logger.info("Creator of game %s not seated: %s", snapshot.game_id, error.code)
            snapshot = await room.play.snapshot(snapshot.game_id)
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
            chat_of(chat, message), actor_of(user, message)
        )
    except ServiceError as error:
        await reply(context, message, f"refused:{error.code}", refusal_text(t, error))
        return
    room.publisher.publish(snapshot)
    done = t("cancel.done", game=esc(game_name(t, snapshot.game_key)))
    await reply(context, message, f"cancelled:{snapshot.game_id}", done)


async def handle_pings(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """``/pings``: turn the pings of one's turns off, or on again."""
    message, user = update.effective_message, update.effective_user
    if message is None or user is None:
        return
    t = await personal(context, user)
    try:
        on = await cardroom(context).people.toggle_pings(actor_of(user, message))
    except ServiceError as error:
        await reply(context, message, f"refused:{error.code}", refusal_text(t, error))
        return
    key = "pings.on" if on else "pings.off"
    await reply(context, message, key, t(key))


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
    markup = InlineKeyboardMarkup(buttons)
    await reply(context, message, "language:pick", t("language.pick"), reply_markup=markup)


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
    cardroom(context).publisher.pressed(query.from_user.id)
    throttle = cardroom(context).throttle
    if not throttle.allow(query.from_user.id):
        await _answer(query, {"text": t("error.too_fast")})
        return
    shown = query.message
    if throttle.repeated(
        query.from_user.id,
        shown.chat.id if shown is not None else 0,
        shown.message_id if shown is not None else 0,
        str(query.data),
    ):
        await _answer(query, {})  # the same tap twice: the first one's answer says it all
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
        elif error.code in ("press.outdated", "play.game_over"):
            _retire_if_stray(context, query, press, over=error.code == "play.game_over")
    except StorageRefused:
        # The outage is logged once, where it is noticed; the person hears it in words.
        move = isinstance(press, callbacks.ActPress)
        answer = {"text": t("error.storage.move" if move else "error.storage.refused")}
    finally:
        await _answer(query, answer)


def _retire_if_stray(
    context: ContextTypes.DEFAULT_TYPE,
    query: CallbackQuery,
    press: callbacks.Press,
    *,
    over: bool = False,
) -> None:
    """A press refused as outdated, on a message whose own buttons (as Telegram reports the
    message, not as the data says) are that very game's: a copy that is not the live one —
    a send whose answer was lost, an old panel. It goes, so that nobody presses it again;
    if its game is over (``over``), only its buttons go — the message stays as history."""
    game_id = getattr(press, "game_id", None)
    message = query.message if isinstance(query.message, Message) else None
    if not isinstance(game_id, int) or message is None or message.reply_markup is None:
        return
    for row in message.reply_markup.inline_keyboard:
        for button in row:
            try:
                shown = callbacks.parse(button.callback_data)
            except callbacks.BadCallback:
                continue
            if getattr(shown, "game_id", None) != game_id:
                continue
            publisher = cardroom(context).publisher
            if over:
                publisher.disarm(message.chat.id, message.message_id)
            else:
                publisher.retire_stray(game_id, message.chat.id, message.message_id)
            return


async def _reachable(context: ContextTypes.DEFAULT_TYPE, user: User, t: Translator) -> bool:
    """Whether the bot can message ``user`` — found out by greeting him in his DM. Telegram
    says no with 403 (or "chat not found"); a greeting lost on the network may well have
    reached him, so it counts as a yes (his hand's delivery finds out for sure)."""
    try:
        await context.bot.send_message(user.id, t("lobby.dm_hello"), parse_mode=ParseMode.HTML)
    except Forbidden:
        return False
    except BadRequest as error:
        logger.info("Could not greet user %s: %s", user.id, error)
        return False
    except TelegramError as error:
        logger.warning(
            "Greeting user %s got no answer (%s); taking it as delivered", user.id, error
        )
    return True


async def _answer(query: CallbackQuery, answer: dict[str, Any]) -> None:
    try:
        await query.answer(**answer)
    except TelegramError as error:
        logger.warning("Could not answer a button press: %s", error)


def _deep_link(context: ContextTypes.DEFAULT_TYPE, token: str) -> str:
    return f"https://t.me/{context.bot.username}?start={token}"


def origin_of(query: CallbackQuery) -> Origin:
    """The message a button was pressed on, as Telegram reports it (not as the data says)."""
    message: MaybeInaccessibleMessage | None = query.message
    if message is None:  # a button under an inline-mode message: none of ours
        raise ServiceError("press.foreign")
    return Origin(message.chat.id, message.message_id)


async def _dispatch(
    press: callbacks.Press, query: CallbackQuery, context: ContextTypes.DEFAULT_TYPE, t: Translator
) -> dict[str, Any]:
    """Act on a press. Whatever game its data names, the services judge it against that
    game's own chat and messages (``origin``): data is the client's word, the origin
    Telegram's."""
    room = cardroom(context)
    user = query.from_user
    actor = actor_of(user)
    message = query.message if isinstance(query.message, Message) else None
    match press:
        case callbacks.ActPress(game_id, version, code):
            try:
                snapshot = await room.play.act(game_id, user.id, version, code, origin_of(query))
            except ServiceError as error:
                if error.code.split(".", 1)[0] not in GAME_KEYS:
                    raise  # not the game's rules (authority, a stale panel…): nothing to add
                # The rules refused it: the game may say more (what the table shows now).
                said = press_refusal(t, await room.play.snapshot(game_id), user.id, error.code)
                if said is None:
                    raise
                return {"text": said}
            room.publisher.publish(snapshot)
            said = press_answer(t, snapshot, user.id)
            return {} if said is None else {"text": said}
        case callbacks.IdlePress():
            return {}
        case callbacks.ScreenPress(game_id, version, screen):
            current, seat = await room.play.open_screen(
                game_id, user.id, version, origin_of(query)
            )
            if not room.publisher.show_screen(game_id, seat, screen):
                room.publisher.publish(current)
                room.publisher.show_screen(game_id, seat, screen)
            return {}
        case callbacks.LobbyPress(game_id, "join"):
            return await _join(context, game_id, user, origin_of(query), t)
        case callbacks.LobbyPress(game_id, "leave"):
            room.publisher.publish(await room.lobby.leave(game_id, actor, origin_of(query)))
            return {"text": t("lobby.you_left")}
        case callbacks.LobbyPress(game_id, "bot"):
            snapshot = await room.lobby.add_computer(game_id, actor, origin_of(query))
            room.publisher.publish(snapshot)
            return {}
        case callbacks.LobbyPress(game_id, "unbot"):
            snapshot = await room.lobby.remove_computer(game_id, actor, origin_of(query))
            room.publisher.publish(snapshot)
            return {}
        case callbacks.LobbyPress(game_id, "start"):
            room.publisher.publish(await room.lobby.start(game_id, actor, origin_of(query)))
            return {"text": t("lobby.started")}
        case callbacks.LobbyPress(game_id, "back"):
            snapshot = await room.play.take_back(game_id, user.id, origin_of(query))
            room.publisher.publish(snapshot)
            return {"text": t("lobby.welcome_back")}
        case callbacks.LobbyPress(game_id, "cancel"):
            room.publisher.publish(await room.lobby.cancel(game_id, actor, origin_of(query)))
            return {"text": t("lobby.cancelled")}
        case callbacks.LobbyPress(game_id, op):
            option = op[2:]
            snapshot = await room.lobby.cycle_option(game_id, actor, option, origin_of(query))
            room.publisher.publish(snapshot)
            # The lobby's label follows within a few seconds (the group's pace): the toast
            # says the new value at once, so nobody presses again thinking it did not take.
            return {"text": option_label(t, option, snapshot.options.get(option))}
        case callbacks.RematchPress(game_id):
            snapshot = await room.lobby.rematch(game_id, actor, origin_of(query))
            room.publisher.publish(snapshot)
            # The old table's Rematch button has done its work: it goes.
            room.publisher.publish(await room.play.snapshot(game_id))
            return {"text": t("lobby.rematch_opened" if snapshot.is_lobby else "lobby.started")}
        case callbacks.NewGame(key):
            if key not in available_games() or message is None:
                raise callbacks.BadCallback(key)
            if _expired(room, message):
                return {"text": t("menu.expired")}
            await _open_lobby(context, message, user, message.chat, key)
            return {}
        case callbacks.RulesPress(key):
            if key not in available_games():
                raise callbacks.BadCallback(key)
            return await _rules_in_private(context, user, key, t)
        case callbacks.LanguagePress(code):
            if message is not None and _expired(room, message):
                return {"text": t("menu.expired")}
            where = (
                chat_of(message.chat, message)
                if message is not None
                else ChatRef(user.id, "private")
            )
            chosen = await room.languages.choose(where, actor, code)
            if not where.is_private:
                shown = await room.play.snapshot_in_topic(where.chat_id, where.topic_id)
                if shown is not None:
                    room.publisher.publish(shown)
            return {"text": translator(chosen)("language.set")}
    raise callbacks.BadCallback("unhandled")


#: A menu (the game picker of a bare /new, the /language picker) answers only this long:
#: an old one pressed days later would act on a chat that has moved on.
MENU_SECONDS = 600


def _expired(room: Cardroom, message: Message) -> bool:
    return room.play.store.clock() - message.date.timestamp() > MENU_SECONDS


async def _rules_in_private(
    context: ContextTypes.DEFAULT_TYPE, user: User, key: str, t: Translator
) -> dict[str, Any]:
    """The Rules button: the rules go to the presser's private chat — never into a group,
    whose budget its games need — or, if the bot cannot write to him yet, a link opens that
    chat with them."""
    verdict = cardroom(context).replies.admit(user.id, user.id, f"rules:{key}")
    if verdict is not Verdict.SEND:
        return {"text": t("rules.sent_private")}
    try:
        await context.bot.send_message(user.id, t(f"rules.{key}"), parse_mode=ParseMode.HTML)
    except Forbidden:
        return {"url": _deep_link(context, RULES_LINK + key)}
    except TelegramError as error:
        logger.warning("Could not send the rules to user %s: %s", user.id, error)
        return {"text": t("error.generic")}
    return {"text": t("rules.sent_private")}


async def _join(
    context: ContextTypes.DEFAULT_TYPE, game_id: int, user: User, origin: Origin, t: Translator
) -> dict[str, Any]:
    """Join (or, invited to a rematch, confirm) from the lobby's Join button."""
    room = cardroom(context)
    actor = actor_of(user)
    try:
        result = await room.lobby.join(game_id, actor, origin)
    except ServiceError as error:
        # Perhaps he opened our DM before we kept records: a greeting tells.
        if error.code != "lobby.need_start" or not await _reachable(context, user, t):
            raise
        await room.lobby.mark_started(actor)
        result = await room.lobby.join(game_id, actor, origin)
    room.publisher.publish(result.snapshot)
    if not result.joined:
        return {"text": t("lobby.already_in")}
    return {"text": t("lobby.started" if not result.snapshot.is_lobby else "lobby.you_joined")}


# -- the chat itself --------------------------------------------------------------------


async def handle_migration(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """A group became a supergroup: move its games along and post their tables there."""
    message = update.effective_message
    if message is None or message.migrate_to_chat_id is None:
        return
    await cardroom(context).move_chat(message.chat.id, message.migrate_to_chat_id)


async def handle_my_membership(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """The bot's own membership changed.

    In a group: added — speak its adder's language; removed — its games are cancelled.
    In a private chat: the person blocked the bot — the computer takes his seats at once; he
    unblocked it — his panels come back, with "Take my seat back".
    """
    change = update.my_chat_member
    if change is None:
        return
    room = cardroom(context)
    status = change.new_chat_member.status
    if change.chat.type == ChatType.PRIVATE:
        actor = actor_of(change.from_user)
        if status in (ChatMemberStatus.BANNED, ChatMemberStatus.LEFT):
            await room.lobby.record(actor, started=False)
            await room.blocked(actor.user_id)
        elif status == ChatMemberStatus.MEMBER:
            await room.lobby.record(actor, started=True)
            await room.reachable_again(actor.user_id)
        return
    if status in (ChatMemberStatus.MEMBER, ChatMemberStatus.ADMINISTRATOR):
        where = ChatRef(change.chat.id, change.chat.type, change.chat.title)
        await room.languages.adopt(where, actor_of(change.from_user))
    elif status in (ChatMemberStatus.LEFT, ChatMemberStatus.BANNED):
        for snapshot in await room.lobby.bot_removed(change.chat.id):
            room.publisher.publish(snapshot)
        logger.info("Removed from chat %s; its games are cancelled", change.chat.id)


async def handle_member_left(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """Someone left a group (or was removed): his lobby seats go, the computer plays his
    game seats — and leaving never pays (see the services' outcome of an abandoned seat)."""
    message = update.effective_message
    if message is not None and message.left_chat_member is not None:
        gone = message.left_chat_member
        if not gone.is_bot:
            await cardroom(context).member_left(message.chat.id, gone.id)
        return
    change = update.chat_member
    if change is None or change.new_chat_member.user.is_bot:
        return
    if change.new_chat_member.status in (ChatMemberStatus.LEFT, ChatMemberStatus.BANNED):
        await cardroom(context).member_left(change.chat.id, change.new_chat_member.user.id)


# -- errors -----------------------------------------------------------------------------


async def handle_error(update: object, context: ContextTypes.DEFAULT_TYPE) -> None:
    """Log an unexpected error with its traceback: any of these is a bug. A write the
    database refused is no bug: the person who asked hears it in words (the outage itself is
    logged once, where it was noticed). Nor is Telegram out of reach: polling is retried by
    PTB, and a reply lost on the way is the network's (a bad request stays a bug)."""
    error = context.error
    if isinstance(error, NetworkError) and not isinstance(error, BadRequest):
        if update is None:
            logger.warning("Polling Telegram failed (%s); trying again", error)
        else:
            logger.warning("Telegram could not be reached while handling an update: %s", error)
        return
    if isinstance(error, StorageRefused) and isinstance(update, Update):
        message = update.effective_message
        if message is not None and update.callback_query is None:
            t = await speaker(context, update)
            await reply(context, message, "storage", t("error.storage.refused"))
        return
    logger.error("Unhandled error while processing an update", exc_info=error)


async def handle_any_group_message(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """Any message in a group the bot hears of: how far its tables have scrolled up."""
    message = update.effective_message
    if message is not None and message.chat.type != ChatType.PRIVATE:
        thread = message.message_thread_id if message.is_topic_message else None
        cardroom(context).publisher.seen(message.chat.id, thread, message.message_id)


#: Handlers in this group see every update first, and let it go on to the others.
OBSERVERS = -2


def register(application: Application[Any, Any, Any, Any, Any, Any]) -> None:
    """Attach every handler to the application."""
    application.add_handler(
        MessageHandler(filters.ChatType.GROUPS, handle_any_group_message), OBSERVERS
    )
    boards.register(application)
    private = filters.ChatType.PRIVATE
    application.add_handler(CommandHandler("start", handle_start, filters=private))
    application.add_handler(CommandHandler("help", handle_help))
    application.add_handler(CommandHandler("rules", handle_rules))
    application.add_handler(CommandHandler("new", handle_new))
    application.add_handler(CommandHandler("cancel", handle_cancel))
    application.add_handler(CommandHandler("language", handle_language))
    application.add_handler(CommandHandler("pings", handle_pings))
    application.add_handler(CallbackQueryHandler(handle_button))
    application.add_handler(MessageHandler(filters.StatusUpdate.MIGRATE, handle_migration))
    application.add_handler(
        MessageHandler(filters.StatusUpdate.LEFT_CHAT_MEMBER, handle_member_left)
    )
    application.add_handler(
        ChatMemberHandler(handle_my_membership, ChatMemberHandler.MY_CHAT_MEMBER)
    )
    application.add_handler(ChatMemberHandler(handle_member_left, ChatMemberHandler.CHAT_MEMBER))
    application.add_error_handler(handle_error)
