"""The commands: ``/start``, ``/help``, ``/rules``, ``/new``, ``/cancel``, ``/pings`` and
``/language`` — and plain text in a private chat, pointed to ``/help``. Each decides, records,
hands its reply to the sender and returns."""

from __future__ import annotations

import asyncio
import logging
import secrets
import time
from collections.abc import Mapping
from typing import Any

from telegram import Chat, Message, Update, User
from telegram.constants import ChatType
from telegram.ext import ContextTypes

from bot.i18n import SUPPORTED_LANGUAGES, Translator, translator
from bot.services.authority import is_person
from bot.services.recent import Recent
from bot.services.types import Actor, ServiceError
from bot.telegram import callbacks
from bot.telegram.handlers.room import (
    RULES_LINK,
    Cardroom,
    actor_of,
    available_games,
    cardroom,
    chat_of,
    personal,
    refusal,
    refusal_text,
    say,
    speaker,
    words,
)
from bot.telegram.render.common import esc, game_name, person_name
from bot.telegram.render.content import Button, Keyboard, rows
from bot.telegram.sender.budget import Priority
from bot.telegram.sender.notes import Note, Outcome, message_call
from bot.telegram.sender.outbox import FollowUp, letter_of

logger = logging.getLogger(__name__)


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
                await say(context, message, t, f"rules:{game}", t(f"rules.{game}"))
            return
        try:
            result = await room.lobby.join_by_token(payload, actor)
        except ServiceError as error:
            await say(context, message, t, f"refused:{error.code}", refusal_text(t, error))
            return
        room.publisher.publish(result.snapshot)
        name = esc(game_name(t, result.snapshot.game_key))
        key = "start.joined" if result.joined else "start.already_joined"
        await say(context, message, t, key, t(key, game=name))
        return
    await room.lobby.record(actor, chat, started=True)
    welcome = t("start.welcome", name=person_name(user.first_name)) + "\n\n" + t("help.text")
    await say(context, message, t, "welcome", welcome)
    # Perhaps he had blocked the bot, or lost his panel: it comes back where he needs it.
    await room.reachable_again(user.id)


#: A person who writes plain text in his private chat is pointed to /help at most once in
#: this many seconds: the first "hello" is answered, a chat of his own is not talked over.
POINTER_SECONDS = 3600.0
#: Whom the pointer went to, and when (``bot_data``): bounded, as every memory by person.
POINTED = "private_pointed"


async def handle_private_text(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """Plain text in a private chat ("hello bot"): a short pointer to /help, now and then."""
    message, user = update.effective_message, update.effective_user
    if message is None or user is None:
        return
    pointed: Recent[int, float] = context.bot_data.setdefault(POINTED, Recent())
    now = time.monotonic()
    last = pointed.get(user.id)
    if last is not None and now - last < POINTER_SECONDS:
        return
    pointed[user.id] = now
    t = await personal(context, user)
    await say(context, message, t, "private.pointer", t("private.pointer"))


async def handle_help(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """``/help``: what the bot does and its commands — in a private chat, how to bring it
    into a group; in a group, where it already is, how to open a game right there."""
    message = update.effective_message
    if message is None:
        return
    t = await speaker(context, update)
    private = message.chat.type == ChatType.PRIVATE
    await say(context, message, t, "help", words("help.text" if private else "help.group"))


async def handle_rules(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """``/rules <game>``: a readable summary of a game's rules."""
    message = update.effective_message
    if message is None:
        return
    t = await speaker(context, update)
    key = context.args[0].lower() if context.args else ""
    if key in available_games():
        await say(context, message, t, f"rules:{key}", words(f"rules.{key}"))
        return
    buttons = game_buttons(t, callbacks.RulesPress)
    pick = words("rules.pick")
    await say(context, message, t, "rules:pick", pick, keyboard=buttons, menu="rules")


async def handle_new(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """``/new <game>`` opens a lobby; bare ``/new`` offers a button per game."""
    message, user = update.effective_message, update.effective_user
    if message is None or user is None or update.effective_chat is None:
        return
    t = await speaker(context, update)
    key = context.args[0].lower() if context.args else ""
    if not key:
        buttons = game_buttons(t, callbacks.NewGame)
        await say(context, message, t, "new:pick", words("new.pick"), keyboard=buttons, menu="new")
        return
    if key not in available_games():
        games = ", ".join(available_games())
        await say(context, message, t, "new:unknown", words("new.unknown", games=games))
        return
    try:
        await open_lobby(context, message, user, update.effective_chat, key)
    except ServiceError as error:
        existing = error.args_.get("message_id")
        text = refusal(error)
        await say(context, message, t, f"refused:{error.code}", text, reply_to=existing)


async def open_lobby(
    context: ContextTypes.DEFAULT_TYPE, message: Message, user: User, chat: Chat, key: str
) -> None:
    """Open a lobby in a group; in a private chat, a game against the computer, its options
    offered before the deal (:meth:`~bot.services.lobby.LobbyService.quick_start`).

    A person may open (and cancel) only a few lobbies a minute in a chat, and a group gets a
    few in all: each is a message in the group. Refusals are raised (:class:`ServiceError`).
    """
    room = cardroom(context)
    where, actor = chat_of(chat, message), actor_of(user, message)
    if not room.openings.allow(chat.id, user.id):
        raise ServiceError("lobby.too_many")
    if where.is_private:
        snapshot = await room.lobby.quick_start(where, actor, key)
    else:
        # A group without a language takes its opener's, written with the lobby (one
        # update, one transaction); the languages' memory reads it again when next asked.
        language = await room.languages.for_user(actor)
        snapshot = await room.lobby.open(where, actor, key, language=language)
        room.languages.forget_chat(chat.id)
    if is_person(actor) and not snapshot.seats:
        # Not known to have started the bot: a greeting in his private chat finds out, and
        # seats him if it arrives — then the lobby is posted, once (the sender's work:
        # nobody waits for it here).
        t = await personal(context, user)
        await greet(context, user, t, {"do": SEAT_CREATOR, "game": snapshot.game_id})
        return
    room.publisher.publish(snapshot)


#: A greeting that arrived — or got no answer (lost on the network, it may well have reached
#: him: his hand's delivery finds out for sure) — says he can be written to.
REACHED = frozenset({Outcome.SENT, Outcome.LOST})


#: What a greeting does once it is settled (:attr:`Outbox.follow_ups`): seat the lobby's
#: creator (:func:`seat_when_greeted`), or join the person who pressed Join.
SEAT_CREATOR, JOIN = "seat_creator", "join"


def person_of(user: User) -> dict[str, Any]:
    """A person as a follow-up keeps him (JSON)."""
    return {
        "id": user.id,
        "first_name": user.first_name,
        "username": user.username,
        "language_code": user.language_code,
    }


def actor_from(person: Mapping[str, Any]) -> Actor:
    """:func:`person_of` read back."""
    return Actor(
        int(person["id"]),
        str(person["first_name"]),
        person.get("username"),
        person.get("language_code"),
    )


async def greet(
    context: ContextTypes.DEFAULT_TYPE, user: User, t: Translator, then: Mapping[str, Any]
) -> asyncio.Future[Any]:
    """Say hello in the user's private chat: whether it arrives tells whether the bot can
    write to him (Telegram says 403 to a person who never started it) — and what follows it
    (``then``: :data:`SEAT_CREATOR`, :data:`JOIN`) is done once it is settled. The greeting is
    written at once, with what follows it: a stop before it is settled leaves both to the
    next leader. Returns what the follow-up returns, if this process delivers it."""
    room = cardroom(context)
    token = secrets.token_hex(8)
    expected = room.outbox.expect(token)
    call = message_call(user.id, t("lobby.dm_hello"))
    hello = Note(user.id, call, Priority.PANEL, what=f"greeting before {then.get('do')}")
    follow = {**then, "user": person_of(user), "token": token}
    await room.outbox.write(letter_of(hello, then=follow))
    return expected


def seat_when_greeted(room: Cardroom) -> FollowUp:
    """Once a lobby creator's greeting is settled: seat him if it arrived, and post the
    lobby. (Done again, whole, if the process stops before the greeting is marked.)"""

    async def follow(then: Mapping[str, Any], said: Outcome) -> None:
        game_id = int(then["game"])
        try:
            if said in REACHED:
                actor = actor_from(then["user"])
                await room.lobby.mark_started(actor)
                try:
                    room.publisher.publish(await room.lobby.seat_creator(game_id, actor))
                    return
                except ServiceError as error:
                    # Closed while he was greeted (a /cancel got in first): the lobby as it is.
                    logger.info("Creator of game %s not seated: %s", game_id, error.code)
            room.publisher.publish(await room.play.snapshot(game_id))
        except Exception as error:  # the database is away: the next change posts the lobby
            logger.warning("Lobby %s not posted after its creator's greeting: %s", game_id, error)

    return follow


async def handle_cancel(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """``/cancel``: the creator or an admin ends this topic's lobby or game."""
    message, user, chat = update.effective_message, update.effective_user, update.effective_chat
    if message is None or user is None or chat is None:
        return
    room = cardroom(context)
    t = await speaker(context, update)
    try:
        if not room.openings.allow(chat.id, user.id):
            raise ServiceError("lobby.too_many")
        snapshot = await room.lobby.cancel_in_topic(
            chat_of(chat, message), actor_of(user, message)
        )
    except ServiceError as error:
        await say(context, message, t, f"refused:{error.code}", refusal(error))
        return
    room.publisher.publish(snapshot)
    game = snapshot.game_key

    def done(t: Translator) -> str:
        return t("cancel.done", game=esc(game_name(t, game)))

    await say(context, message, t, f"cancelled:{snapshot.game_id}", done)


async def handle_pings(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """``/pings``: turn the pings of one's turns off, or on again."""
    message, user = update.effective_message, update.effective_user
    if message is None or user is None:
        return
    t = await personal(context, user)
    try:
        on = await cardroom(context).people.toggle_pings(actor_of(user, message))
    except ServiceError as error:
        await say(context, message, t, f"refused:{error.code}", refusal_text(t, error))
        return
    key = "pings.on" if on else "pings.off"
    await say(context, message, t, key, t(key))


async def handle_language(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """``/language``: the languages the bot speaks."""
    message = update.effective_message
    if message is None:
        return
    t = await speaker(context, update)
    buttons = tuple(
        (Button(translator(code)("language.name"), callbacks.LanguagePress(code).encode()),)
        for code in SUPPORTED_LANGUAGES
    )
    pick = words("language.pick")
    await say(context, message, t, "language:pick", pick, keyboard=buttons, menu="language")


def game_buttons(
    t: Translator, press: type[callbacks.NewGame] | type[callbacks.RulesPress]
) -> Keyboard:
    buttons = [Button(game_name(t, key), press(key).encode()) for key in available_games()]
    return rows(buttons, 2)
