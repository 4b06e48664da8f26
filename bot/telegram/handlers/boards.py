"""The boards' handlers: ``/top``, ``/stats`` and ``/history``, and their buttons.

``/top [game] [global] [bots]`` shows a game's rating board (this chat's, or everyone's with
``global``; the computer only with ``bots``); a bare ``/top`` the best player of each game.
``/stats`` shows your ratings and record per game — or, sent as a reply, the replied-to
person's — with a chart once there are :data:`CHART_MIN_GAMES` rated games (drawn in a worker
process: :mod:`bot.telegram.charts`). ``/history`` lists this chat's last finished games — in a
private chat, the person's own, wherever he played them.
What they show is drawn by :mod:`bot.telegram.render.boards`; everything goes to the chat
through the sender, as information: it may wait, go to the asker's private chat, or be dropped.

A board's button redraws its message — coalesced (pressed ten times, redrawn once, to the page
pressed last) and never when it would show what it shows. A board replaced by a newer one, or
older than ten minutes, has aged: a press on it is answered with a toast and costs nothing
(:mod:`bot.telegram.sender.menus`). The chat a board belongs to is always the chat of the
pressed message, never something the data says.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Coroutine, Sequence
from dataclasses import replace
from typing import Any, Final

from telegram import CallbackQuery, Chat, InputFile, Message, Update, User
from telegram.constants import ChatType, MessageLimit
from telegram.ext import (
    Application,
    ApplicationHandlerStop,
    CallbackQueryHandler,
    CommandHandler,
    ContextTypes,
)

from bot.i18n import Translator
from bot.services.stats import StatsService
from bot.services.types import ServiceError
from bot.telegram.callbacks import BadCallback
from bot.telegram.handlers.buttons import answer_query
from bot.telegram.handlers.room import (
    cardroom,
    menu_aged,
    private_copy,
    say,
    speaker,
    topic_of,
)
from bot.telegram.render.boards import (
    BoardPress,
    HistoryPress,
    Press,
    chart_request,
    parse,
    rated_games,
    render_board,
    render_history,
    render_leaders,
    render_stats,
    render_summary,
    short_name,
)
from bot.telegram.render.content import Content
from bot.telegram.sender.budget import Priority
from bot.telegram.sender.notes import Note, message_call
from bot.telegram.sender.replies import Verdict

logger = logging.getLogger(__name__)

#: Handlers run in this group, ahead of the generic ones, and stop the update there.
GROUP: Final = -1
#: Rated games (over all games) before ``/stats`` draws a chart.
CHART_MIN_GAMES: Final = 3
#: ``/top`` arguments besides a game key.
GLOBAL_WORDS: Final = frozenset({"global", "everyone"})
COMPUTER_WORDS: Final = frozenset({"bots", "bot", "computer", "computers"})


# -- /top arguments -------------------------------------------------------------------------


class BadArguments(ValueError):
    """``/top`` arguments that are neither a game, ``global`` nor ``bots``."""


def parse_top(args: Sequence[str]) -> BoardPress:
    """``/top [game] [global] [bots]``, in any order, any case."""
    key: str | None = None
    everyone = computers = False
    for word in (arg.lower() for arg in args):
        if word in GLOBAL_WORDS:
            everyone = True
        elif word in COMPUTER_WORDS:
            computers = True
        elif word in rated_games() and key is None:
            key = word
        else:
            raise BadArguments(word)
    return BoardPress(key, everyone, computers)


# -- handlers -------------------------------------------------------------------------------


def _stats(context: ContextTypes.DEFAULT_TYPE) -> StatsService:
    return cardroom(context).stats


def is_private(chat: Chat) -> bool:
    return chat.type == ChatType.PRIVATE


async def handle_top(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """``/top [game] [global] [bots]``: a game's board, or the best player of each game."""
    message, chat = update.effective_message, update.effective_chat
    if message is None or chat is None:
        return
    t = await speaker(context, update)
    try:
        press = parse_top(context.args or ())
    except BadArguments:
        key = "board.usage_private" if is_private(chat) else "board.usage"
        await say(context, message, t, "top:usage", t(key, games=", ".join(rated_games())))
        return
    if is_private(chat):
        # Here "this chat" holds the player alone (and the computer): everyone's board says
        # who is best; the chat's own is a button away.
        press = replace(press, everyone=True)
    board = await _board_content(t, _stats(context), press, chat)
    key = f"top:{press.encode()}"
    await say(context, message, t, key, board.text, keyboard=board.keyboard, menu="top")


async def _board_content(
    t: Translator, stats: StatsService, press: BoardPress, chat: Chat
) -> Content:
    scope = None if press.everyone else chat.id
    private = is_private(chat)
    if press.game_key is None:
        leaders = await stats.leaders(scope, computers=press.computers)
        return render_leaders(t, leaders, press.computers, private=private)
    board = await stats.rating_board(
        press.game_key, scope, computers=press.computers, page=press.page
    )
    return render_board(t, board, private=private)


def stats_subject(message: Message, user: User) -> User:
    """Whose ``/stats``: the replied-to person's, else the sender's own.

    In a forum topic every message "replies" to the topic's first message; that is no reply.
    """
    replied = message.reply_to_message
    if replied is None or replied.forum_topic_created is not None:
        return user
    author = replied.from_user
    return author if author is not None and not author.is_bot else user


async def handle_stats(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """``/stats``: your ratings and record per game — or, as a reply, someone else's."""
    message, user = update.effective_message, update.effective_user
    if message is None or user is None:
        return
    room = cardroom(context)
    t = await speaker(context, update)
    subject = stats_subject(message, user)
    stats = await _stats(context).player(subject.id)
    reply = f"stats:{subject.id}"
    if not stats.games:
        key = "mystats.none_self" if subject.id == user.id else "mystats.none_other"
        await say(context, message, t, reply, t(key, name=short_name(subject.first_name)))
        return
    text = render_stats(t, subject.first_name, stats)
    if stats.rated_games < CHART_MIN_GAMES:
        await say(context, message, t, reply, text)
        return
    fits = len(text) <= MessageLimit.CAPTION_LENGTH
    if room.replies.admit(message.chat_id, user.id, reply) is not Verdict.SEND:
        return
    # Without a chart (its worker failed: logged) the numbers still go out, as text.
    chart = await room.charts.chart(subject.id, t.language, chart_request(t, stats))
    topic = topic_of(message)
    notes = []
    if chart is None or not fits:
        notes.append(message_call(message.chat_id, text, topic=topic))
    if chart is not None:
        photo: dict[str, Any] = {"chat_id": message.chat_id, "parse_mode": "HTML"}
        if topic:
            photo["message_thread_id"] = topic
        photo["photo"] = InputFile(chart, filename="rating.png")
        if fits:
            photo["caption"] = text
        notes.append(("sendPhoto", photo))
    for call in notes:
        room.notes.post(Note(message.chat_id, call, Priority.REPLY, share=("topic", topic)))


async def handle_history(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """``/history``: this chat's last finished games (in a private chat: the asker's own,
    wherever played), a button on each for its summary."""
    message, chat = update.effective_message, update.effective_chat
    if message is None or chat is None:
        return
    t = await speaker(context, update)
    history = await _history(t, _stats(context), chat)
    await say(
        context, message, t, "history", history.text, keyboard=history.keyboard, menu="history"
    )


async def handle_button(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """A board or history button: answer at once, and hand the redraw to the sender."""
    query = update.callback_query
    if query is None:
        return
    room = cardroom(context)
    t = await speaker(context, update)
    if not room.throttle.allow(query.from_user.id):
        await answer_query(query, {"text": t("error.too_fast")})
        return
    try:
        press = parse(query.data)
        message = query.message if isinstance(query.message, Message) else None
        if message is None:
            raise BadCallback("the message is gone")
        if not _is_board(message):
            # Forged data on a table or a panel: it is never redrawn as a board.
            raise BadCallback("not a board")
        if menu_aged(context, message, "top" if isinstance(press, BoardPress) else "history"):
            await answer_query(query, {"text": t("menu.expired_board")})
            return
        content = await _pressed(t, _stats(context), press, message.chat)
    except BadCallback:
        logger.info("Unusable board callback data from user %s", query.from_user.id)
        await answer_query(query, {"text": t("error.bad_button")})
        return
    except ServiceError as error:
        await answer_query(query, {"text": t(f"error.{error.code}")})
        return
    await answer_query(query, {})
    _redraw(context, message, query, content, t)


def _redraw(
    context: ContextTypes.DEFAULT_TYPE,
    message: Message,
    query: CallbackQuery,
    content: Content,
    t: Translator,
) -> None:
    """Hand the redraw of a board to the sender: coalesced with any still waiting for the
    same message, and not at all if the message shows it already (or will)."""
    room = cardroom(context)
    chat_id, message_id = message.chat.id, message.message_id
    if not room.menus.showing(chat_id, message_id, hash((content.text, content.keyboard))):
        return
    group = chat_id < 0
    note = Note(
        chat_id,
        message_call(chat_id, content.text, content.keyboard, edit=message_id),
        Priority.REPLY,
        share=("topic", topic_of(message)),
        key=("redraw", chat_id, message_id),
        what=f"redraw of board {message_id}",
        asker=query.from_user.id if group else None,
        private_text=private_copy(t, message.chat, content.text) if group else None,
    )
    room.notes.post(note)
    room.menus.watch(chat_id, message_id, note)


def _is_board(message: Message) -> bool:
    """Whether Telegram says the message carries board or history buttons (the message in
    a callback is Telegram's record, not the client's word)."""
    markup = message.reply_markup
    if markup is None:
        return False
    return any(
        isinstance(button.callback_data, str) and button.callback_data.startswith(("B:", "Y:"))
        for row in markup.inline_keyboard
        for button in row
    )


async def _pressed(t: Translator, stats: StatsService, press: Press, chat: Chat) -> Content:
    match press:
        case BoardPress():
            return await _board_content(t, stats, press, chat)
        case HistoryPress(None):
            return await _history(t, stats, chat)
        case HistoryPress(game_id) if game_id is not None:
            summary = await stats.summary(chat.id, game_id)
            return render_summary(t, summary, time.time(), private=is_private(chat))
    raise BadCallback("unhandled")


async def _history(t: Translator, stats: StatsService, chat: Chat) -> Content:
    """The list ``/history`` shows in ``chat``: a private chat's id is its person's, and
    his history there is his own games, wherever he played them."""
    return render_history(t, await stats.history(chat.id), private=is_private(chat))


Handler = Callable[[Update, ContextTypes.DEFAULT_TYPE], Coroutine[Any, Any, None]]


def _final(handler: Handler) -> Handler:
    """Run ``handler``, then stop: no later handler group sees the update."""

    async def run(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        await handler(update, context)
        raise ApplicationHandlerStop

    run.__doc__ = handler.__doc__
    return run


def register(application: Application[Any, Any, Any, Any, Any, Any]) -> None:
    """Attach the board commands and buttons, in group :data:`GROUP` ahead of the rest."""
    application.add_handler(CommandHandler("top", _final(handle_top)), GROUP)
    application.add_handler(CommandHandler("stats", _final(handle_stats)), GROUP)
    application.add_handler(CommandHandler("history", _final(handle_history)), GROUP)
    application.add_handler(CallbackQueryHandler(_final(handle_button), pattern=r"^[BY]:"), GROUP)
