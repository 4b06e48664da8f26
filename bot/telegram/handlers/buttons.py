"""Every inline button but the boards': decode, judge, act, answer once.

Every callback query is answered exactly once, whatever happens, and at once: refused presses
get a short answer and change nothing; what a press changes for others is handed to the sender
(:mod:`bot.telegram.sender`), never awaited here.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Mapping
from typing import Any

from telegram import CallbackQuery, MaybeInaccessibleMessage, Message, Update, User
from telegram.error import TelegramError
from telegram.ext import ContextTypes

from bot.i18n import Translator, translator
from bot.services.authority import Origin
from bot.services.types import ChatRef, JoinResult, ServiceError, StorageRefused
from bot.telegram import callbacks
from bot.telegram.handlers.commands import JOIN, REACHED, actor_from, greet, open_lobby
from bot.telegram.handlers.room import (
    RULES_LINK,
    Cardroom,
    actor_of,
    available_games,
    by_the_rules,
    cardroom,
    chat_of,
    deep_link,
    menu_aged,
    personal,
    refusal_text,
)
from bot.telegram.render import press_answer, press_refusal
from bot.telegram.render.common import option_label
from bot.telegram.sender.budget import Priority
from bot.telegram.sender.notes import Note, Outcome, message_call
from bot.telegram.sender.outbox import FollowUp, letter_of
from bot.telegram.sender.replies import Verdict

logger = logging.getLogger(__name__)

#: How long a Join press waits, at most, to learn whether its presser can be written to (his
#: greeting, in his own private chat, is nearly always sent at once): past that he is
#: answered with the link that opens the bot's chat, and joined anyway if the greeting lands.
GREETING_WAIT = 0.8


async def handle_button(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """Every inline button: decode, act, answer once."""
    query = update.callback_query
    if query is None:
        return
    t = await personal(context, query.from_user)
    answer: dict[str, Any] = {}
    room = cardroom(context)
    room.publisher.pressed(query.from_user.id)
    throttle = room.throttle
    if not throttle.allow(query.from_user.id):
        await answer_query(query, {"text": t("error.too_fast")})
        return
    if throttle.repeated(query.from_user.id, _tapped(query)):
        # A double tap, or a second button before the first one's answer: it counts once.
        await answer_query(query, {"text": t("error.double_tap")})
        return
    press: callbacks.Press | None = None
    try:
        press = callbacks.parse(query.data)
        answer = await _dispatch(press, query, context, t)
    except callbacks.BadCallback:
        logger.info("Unusable callback data from user %s", query.from_user.id)
        answer = {"text": t("error.bad_button")}
    except ServiceError as error:
        answer = {"text": refusal_text(t, error)}
        if error.code == "lobby.need_start":
            answer = {"url": deep_link(context, error.args_["token"])}
        elif error.code in ("press.outdated", "play.game_over") and press is not None:
            _retire_if_stray(context, query, press, over=error.code == "play.game_over")
    except StorageRefused:
        # The outage is logged once, where it is noticed; the person hears it in words.
        move = isinstance(press, callbacks.ActPress)
        answer = {"text": t("error.storage.move" if move else "error.storage.refused")}
    finally:
        await answer_query(query, answer)


def _tapped(query: CallbackQuery) -> tuple[object, ...]:
    """What a press is a double tap of: a game's moves on one panel count as one thing (a
    second pile hit before the first one's answer is no decision); any other button is its
    own."""
    message = query.message
    where = (message.chat.id, message.message_id) if message is not None else (0, 0)
    data = str(query.data)
    return (*where, "A") if data.startswith("A:") else (*where, data)


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


async def answer_query(query: CallbackQuery, answer: dict[str, Any]) -> None:
    """Answer a press (a toast, or a link to open); costs no chat's budget."""
    try:
        await query.answer(**answer)
    except TelegramError as error:
        logger.warning("Could not answer a button press: %s", error)


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
                if not by_the_rules(error):
                    raise  # not the game's rules (authority, a stale panel…): nothing to add
                # The rules refused it: the game may say more (what the table shows now).
                now = await room.play.snapshot(game_id)
                said = press_refusal(t, now, user.id, error.code, code)
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
            return {"text": t("lobby.computer_added")}
        case callbacks.LobbyPress(game_id, "unbot"):
            snapshot = await room.lobby.remove_computer(game_id, actor, origin_of(query))
            room.publisher.publish(snapshot)
            return {"text": t("lobby.computer_removed")}
        case callbacks.LobbyPress(game_id, "start"):
            room.publisher.publish(await room.lobby.start(game_id, actor, origin_of(query)))
            return {"text": t("lobby.started")}
        case callbacks.LobbyPress(game_id, "back"):
            snapshot = await room.play.take_back(game_id, user.id, origin_of(query))
            room.publisher.publish(snapshot)
            return {"text": t("lobby.welcome_back")}
        case callbacks.LobbyPress(game_id, "cancel"):
            if message is not None and not room.openings.allow(message.chat.id, user.id):
                raise ServiceError("lobby.too_many")
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
            if message is not None and not room.openings.allow(message.chat.id, user.id):
                raise ServiceError("lobby.too_many")
            try:
                snapshot = await room.lobby.rematch(game_id, actor, origin_of(query))
            except ServiceError as error:
                if error.code not in ("lobby.exists", "lobby.rematch_used"):
                    raise
                # An old Rematch pressed after the rematch opened: he joins that lobby.
                try:
                    joined = await room.lobby.join_rematch(game_id, actor, origin_of(query))
                except ServiceError as other:
                    if other.code == "lobby.exists":  # no rematch lobby open: as refused
                        raise error from None
                    raise
                room.publisher.publish(joined.snapshot)
                return _joined(t, joined)
            room.publisher.publish(snapshot)
            # The old table's Rematch button has done its work: it goes.
            room.publisher.publish(await room.play.snapshot(game_id))
            return {"text": t("lobby.rematch_opened" if snapshot.is_lobby else "lobby.started")}
        case callbacks.NewGame(key):
            if key not in available_games() or message is None:
                raise callbacks.BadCallback(key)
            if menu_aged(context, message, "new"):
                return {"text": t("menu.expired")}
            await open_lobby(context, message, user, message.chat, key)
            return {}
        case callbacks.RulesPress(key):
            if key not in available_games():
                raise callbacks.BadCallback(key)
            return await _rules_in_private(context, user, key, t)
        case callbacks.LanguagePress(code):
            if message is not None and menu_aged(context, message, "language"):
                return {"text": t("menu.expired")}
            where = (
                chat_of(message.chat, message)
                if message is not None
                else ChatRef(user.id, "private")
            )
            chosen = await room.languages.choose(where, actor, code)
            if message is not None:
                # The choice is made: the picker has done its work, and its buttons go.
                room.menus.disarm(message.chat.id, message.message_id)
            if not where.is_private:
                shown = await room.play.snapshot_in_topic(where.chat_id, where.topic_id)
                if shown is not None:
                    room.publisher.publish(shown)
            return {"text": translator(chosen)("language.set")}
    raise callbacks.BadCallback("unhandled")


async def _rules_in_private(
    context: ContextTypes.DEFAULT_TYPE, user: User, key: str, t: Translator
) -> dict[str, Any]:
    """The Rules button: the rules go to the presser's private chat — never into a group,
    whose budget its games need — or, if the bot cannot write to him yet, a link opens that
    chat with them."""
    room = cardroom(context)
    if not await room.people.can_write(user.id):
        return {"url": deep_link(context, RULES_LINK + key)}
    if room.replies.admit(user.id, user.id, f"rules:{key}") is Verdict.SEND:
        call = message_call(user.id, t(f"rules.{key}"))
        room.outbox.post(letter_of(Note(user.id, call, Priority.REPLY, key=("rules", key))))
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
        if error.code != "lobby.need_start":
            raise
        # Perhaps he opened our DM before we kept records: a greeting tells. The sender
        # sends it; the press waits a moment for it, then answers with the link — and he is
        # joined all the same if the greeting lands later.
        then = {"do": JOIN, "game": game_id, "origin": [origin.chat_id, origin.message_id]}
        joining = await greet(context, user, t, then)
        try:
            async with asyncio.timeout(GREETING_WAIT):
                joined = await asyncio.shield(joining)
        except TimeoutError:
            joined = None
        if joined is None:
            raise
        result = joined
    else:
        room.publisher.publish(result.snapshot)
    return _joined(t, result)


def _joined(t: Translator, result: JoinResult) -> dict[str, Any]:
    """The toast of a Join: in, already in, or dealt."""
    if not result.joined:
        return {"text": t("lobby.already_in")}
    return {"text": t("lobby.started" if not result.snapshot.is_lobby else "lobby.you_joined")}


def join_when_greeted(room: Cardroom) -> FollowUp:
    """Once the greeting of a person who pressed Join is settled: join him if it arrived
    (``None``: it did not, or he could not join after all)."""

    async def follow(then: Mapping[str, Any], said: Outcome) -> JoinResult | None:
        if said not in REACHED:
            return None
        actor = actor_from(then["user"])
        game_id = int(then["game"])
        try:
            await room.lobby.mark_started(actor)
            result = await room.lobby.join(game_id, actor, Origin(*then["origin"]))
        except ServiceError as error:
            logger.info(
                "User %s greeted, not joined to game %s: %s", actor.user_id, game_id, error.code
            )
            return None
        except Exception as error:  # the database is away: he presses Join again
            logger.warning(
                "User %s greeted, not joined to game %s: %s", actor.user_id, game_id, error
            )
            return None
        room.publisher.publish(result.snapshot)
        return result

    return follow
