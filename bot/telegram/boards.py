"""The boards: ``/top``, ``/stats`` and ``/history``, and their buttons.

``/top [game] [global] [bots]`` shows a game's rating board (this chat's, or everyone's with
``global``; the computer only with ``bots``), paginated; a bare ``/top`` shows the best player
of each game, with a button per game. A player is on a board from his first rated game, his
rating marked provisional until :data:`~bot.services.ratings.MIN_GAMES` games. In a private
chat "this chat" is only the player and the computer, so ``/top`` there starts on everyone's
board and words the chat's own as "your games". ``/stats`` shows your ratings and record per
game — or, sent as a reply, the replied-to person's — with a chart of the rating once there
are :data:`CHART_MIN_GAMES` rated games (drawn in a worker process: :mod:`bot.telegram.charts`).
``/history`` lists this chat's last finished games; a button on each opens its summary (final
table, duration, moves).

Buttons carry their own compact callback data, parsed as defensively as
:mod:`bot.telegram.callbacks` does:

- ``B:<key>:<scope><computer>:<page>``  a board page; ``<key>`` is a game key or ``-`` for
                                         the best of each game; ``<scope>`` ``c`` (this chat)
                                         or ``g`` (global); ``<computer>`` ``b`` (shown) or
                                         ``h`` (hidden)
- ``Y:<game>``                          the summary of a finished game of this chat
- ``Y:-``                               back to the list of last games

The chat a board or history belongs to is always the chat of the pressed message, never
something the data says.
"""

from __future__ import annotations

import logging
import re
import time
from collections.abc import Callable, Coroutine, Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any, Final

from babel.dates import format_datetime
from telegram import (
    CallbackQuery,
    Chat,
    InlineKeyboardButton,
    InlineKeyboardMarkup,
    Message,
    Update,
    User,
)
from telegram.constants import ChatType, MessageLimit, ParseMode
from telegram.error import BadRequest, TelegramError
from telegram.ext import (
    Application,
    ApplicationHandlerStop,
    CallbackQueryHandler,
    CommandHandler,
    ContextTypes,
)

from bot.games.registry import GAMES
from bot.i18n import Translator, pick_language, translator
from bot.services.languages import LanguageService
from bot.services.ratings import MIN_GAMES
from bot.services.stats import (
    Board,
    BoardLine,
    GameSummary,
    Leaders,
    PlayedGame,
    PlayedSeat,
    PlayerStats,
    StatsService,
)
from bot.services.types import Actor, ChatRef, ServiceError
from bot.telegram.callbacks import MAX_BYTES, NUMBER, BadCallback, parse_number
from bot.telegram.charts import ChartLine, ChartRequest, draw_rating_chart

# Re-exported: the handlers' Cardroom holds the one pool ``/stats`` draws with.
from bot.telegram.charts import ChartPool as ChartPool
from bot.telegram.render import has_renderer, table_content
from bot.telegram.render.common import NAME_LIMIT, PLACE_MEDALS, esc, game_name, signed
from bot.telegram.render.content import Button, Content, Keyboard, rows
from bot.telegram.replies import ReplyGate, Verdict, send_reply

logger = logging.getLogger(__name__)

#: Handlers run in this group, ahead of the generic ones, and stop the update there.
GROUP: Final = -1
#: Rated games (over all games) before ``/stats`` draws a chart.
CHART_MIN_GAMES: Final = 3
#: ``/top`` arguments besides a game key.
GLOBAL_WORDS: Final = frozenset({"global", "everyone"})
COMPUTER_WORDS: Final = frozenset({"bots", "bot", "computer", "computers"})
#: History buttons per row.
HISTORY_ROW: Final = 5

_BOARD = re.compile(r"B:(-|[a-z]{1,16}):([cg])([bh]):(0|[1-9][0-9]{0,3})")
_HISTORY = re.compile(rf"Y:(-|{NUMBER})")


# -- callback data --------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class BoardPress:
    """A board page: ``game_key`` None is the best of each game."""

    game_key: str | None
    everyone: bool = False
    computers: bool = False
    page: int = 0

    def encode(self) -> str:
        scope = "g" if self.everyone else "c"
        shown = "b" if self.computers else "h"
        return f"B:{self.game_key or '-'}:{scope}{shown}:{self.page}"


@dataclass(frozen=True, slots=True)
class HistoryPress:
    """A finished game's summary; ``game_id`` None is the list of last games."""

    game_id: int | None = None

    def encode(self) -> str:
        return f"Y:{'-' if self.game_id is None else self.game_id}"


Press = BoardPress | HistoryPress


def parse(data: object) -> Press:
    """The press encoded in ``data``; :class:`BadCallback` for anything else."""
    if not isinstance(data, str) or not data or len(data.encode()) > MAX_BYTES:
        raise BadCallback("unusable callback data")
    board = _BOARD.fullmatch(data)
    if board is not None:
        key, scope, shown, page = board.groups()
        if key != "-" and key not in rated_games():
            raise BadCallback("unknown game")
        return BoardPress(None if key == "-" else key, scope == "g", shown == "b", int(page))
    history = _HISTORY.fullmatch(data)
    if history is not None:
        game = history.group(1)
        return HistoryPress(None if game == "-" else parse_number(game))
    raise BadCallback("unknown callback data")


def rated_games() -> list[str]:
    """The game keys that have boards: known to the registry and drawable."""
    return sorted(key for key in GAMES if has_renderer(key))


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


# -- rendering ------------------------------------------------------------------------------


def player_name(t: Translator, line: BoardLine) -> str:
    if line.is_computer or line.name is None:
        return t("board.computer")
    return short_name(line.name)


def short_name(name: str) -> str:
    """A first name, HTML-escaped and shortened to fit a board line."""
    name = name.strip() or "?"
    if len(name) > NAME_LIMIT:
        name = name[: NAME_LIMIT - 1] + "…"
    return esc(name)


def wording(everyone: bool, private: bool) -> str:
    """Which words a board takes: everyone's, a group's, or a private chat's ("your games")."""
    if everyone:
        return "global"
    return "private" if private else "chat"


def rating_text(t: Translator, line: BoardLine) -> str:
    """The rating, marked while it is provisional."""
    if line.provisional:
        return t("board.provisional_rating", rating=line.rating)
    return str(line.rating)


def provisional_note(t: Translator, lines: Sequence[BoardLine]) -> list[str]:
    """The line that explains the mark, under a board that shows it."""
    if not any(line.provisional for line in lines):
        return []
    return [t.plural("board.provisional", MIN_GAMES)]


def render_board(t: Translator, board: Board, *, private: bool = False) -> Content:
    """One page of a game's board, with paging, scope and computer buttons; ``private``: it
    is shown in a private chat."""
    game = esc(game_name(t, board.game_key))
    everyone = board.chat_id is None
    words = wording(everyone, private)
    lines = [t(f"board.title_{words}", game=game), ""]
    if not board.lines:
        lines.append(t(f"board.nobody_{words}", game=game))
    for line in board.lines:
        lines.append(
            t(
                "board.line",
                position=line.position,
                name=player_name(t, line),
                rating=rating_text(t, line),
                games=t.plural("board.games", line.games),
                wins=t.plural("board.wins", line.wins),
                percent=round(100 * line.win_rate),
            )
        )
    lines.append("")
    if board.pages > 1:
        lines.append(t("board.page", page=board.page + 1, pages=board.pages))
    lines += provisional_note(t, board.lines)
    if lines[-1] == "":
        lines.pop()
    here = BoardPress(board.game_key, everyone, board.computers, board.page)
    keyboard: list[tuple[Button, ...]] = []
    paging = []
    if board.page > 0:
        paging.append(_board_button(t("button.board_previous"), here, page=board.page - 1))
    if board.page < board.pages - 1:
        paging.append(_board_button(t("button.board_next"), here, page=board.page + 1))
    if paging:
        keyboard.append(tuple(paging))
    keyboard.append(_scope_buttons(t, here, private))
    keyboard.append((_board_button(t("button.board_all_games"), here, game_key=None, page=0),))
    return Content("\n".join(lines), tuple(keyboard))


#: What a bare ``/top`` says when no game is rated on the board yet.
EMPTY: Final = {
    "global": "board.empty_global",
    "chat": "board.empty",
    "private": "board.empty_private",
}


def render_leaders(
    t: Translator, leaders: Leaders, computers: bool = False, *, private: bool = False
) -> Content:
    """The best player of each game, and a button per game for its whole board; ``private``:
    it is shown in a private chat."""
    everyone = leaders.chat_id is None
    words = wording(everyone, private)
    if not leaders.best:
        return Content(t(EMPTY[words]))
    lines = [t(f"board.leaders_{words}"), ""]
    for key, best in leaders.best.items():
        game = esc(game_name(t, key))
        if best is None:
            lines.append(t("board.no_leader", game=game))
            continue
        lines.append(
            t(
                "board.leader",
                game=game,
                name=player_name(t, best),
                rating=rating_text(t, best),
                games=t.plural("board.games", best.games),
            )
        )
    shown = [best for best in leaders.best.values() if best is not None]
    lines += ["", *provisional_note(t, shown), t("board.pick")]
    here = BoardPress(None, everyone, computers)
    games = [_board_button(game_name(t, key), here, game_key=key, page=0) for key in leaders.best]
    return Content("\n".join(lines), (*rows(games, 2), _scope_buttons(t, here, private)))


def _board_button(text: str, press: BoardPress, **changes: Any) -> Button:
    """A button to ``press`` with ``changes`` (field names of :class:`BoardPress`)."""
    return Button(text, replace(press, **changes).encode())


def _scope_buttons(t: Translator, press: BoardPress, private: bool) -> tuple[Button, ...]:
    own = "button.board_private" if private else "button.board_chat"
    scope = t(own if press.everyone else "button.board_global")
    shown = t("button.board_hide_computer" if press.computers else "button.board_show_computer")
    return (
        _board_button(scope, press, everyone=not press.everyone, page=0),
        _board_button(shown, press, computers=not press.computers, page=0),
    )


def render_stats(t: Translator, name: str, stats: PlayerStats) -> str:
    """A player's rating and record per game."""
    lines = [t("mystats.title", name=short_name(name))]
    for game in stats.games:
        title = esc(game_name(t, game.game_key))
        if game.change is None:
            lines.append(t("mystats.game", game=title, rating=game.rating))
        else:
            lines.append(
                t(
                    "mystats.game_changed",
                    game=title,
                    rating=game.rating,
                    change=signed(game.change),
                )
            )
        lines.append(
            t(
                "mystats.record",
                games=t.plural("board.games", game.games),
                wins=t.plural("board.wins", game.wins),
                draws=t.plural("mystats.draws", game.draws),
                losses=t.plural("mystats.losses", game.losses),
                streak=game.best_streak,
            )
        )
    return "\n".join(lines)


def chart_request(t: Translator, stats: PlayerStats) -> ChartRequest:
    """What the chart of ``stats`` shows, in ``t``'s words: plain data for the chart worker."""
    lines = tuple(
        ChartLine(game_name(t, game.game_key), game.history)
        for game in stats.games
        if len(game.history) > 1
    )
    return ChartRequest(lines, t("mystats.chart_games"), t("mystats.chart_rating"))


def rating_chart(t: Translator, stats: PlayerStats) -> bytes:
    """A PNG of each game's rating after every game, drawn right here (``/stats`` has it
    drawn in the chart worker: :class:`~bot.telegram.charts.ChartPool`)."""
    return draw_rating_chart(chart_request(t, stats))


def seat_label(t: Translator, game: PlayedGame, seat: PlayedSeat) -> str:
    """A seat's name as the game's table showed it: computers numbered by seat."""
    if seat.is_computer:
        ordered = sorted(s.seat for s in game.seats if s.is_computer)
        return "🤖 " + esc(t("seat.computer", n=1 + ordered.index(seat.seat)))
    return short_name(seat.name)


def _seat_result(t: Translator, game: PlayedGame, seat: PlayedSeat) -> str:
    medal = PLACE_MEDALS.get(seat.place, f"{seat.place}.")
    change = "" if seat.change is None else " " + signed(seat.change)
    return f"{medal} {seat_label(t, game, seat)}{change}"


def when(t: Translator, moment: datetime) -> str:
    return format_datetime(moment, t("history.date_format"), locale=t.language)


def render_history(t: Translator, games: Sequence[PlayedGame]) -> Content:
    """The chat's last games: places and rating changes, a button per game."""
    if not games:
        return Content(t("history.empty"))
    lines = [t("history.title")]
    buttons = []
    for number, game in enumerate(games, start=1):
        lines += [
            "",
            t(
                "history.game",
                number=number,
                game=esc(game_name(t, game.game_key)),
                date=when(t, game.finished_at),
            ),
            " · ".join(_seat_result(t, game, seat) for seat in game.seats),
        ]
        buttons.append(Button(str(number), HistoryPress(game.game_id).encode()))
    lines += ["", t("history.pick")]
    return Content("\n".join(lines), rows(buttons, HISTORY_ROW))


def duration_text(t: Translator, seconds: float) -> str:
    whole = round(seconds)
    if whole < 60:
        return t("history.duration_seconds", seconds=whole)
    return t("history.duration_minutes", minutes=whole // 60, seconds=whole % 60)


def render_summary(t: Translator, summary: GameSummary, now: float) -> Content:
    """A finished game: its final table again, then what the action log says."""
    game = summary.game
    table = table_content(t, summary.snapshot, now)
    moves = t.plural("history.moves", summary.moves)
    if summary.timeouts:
        moves += " (" + t.plural("history.timeouts", summary.timeouts) + ")"
    lines = [
        table.text,
        "",
        t("history.finished", date=when(t, game.finished_at)),
        t("history.duration", duration=duration_text(t, summary.duration), moves=moves),
    ]
    by_seat = [
        t(
            "history.moves_by",
            name=seat_label(t, game, seat),
            moves=t.plural("history.moves", summary.moves_by_seat.get(seat.seat, 0)),
        )
        for seat in sorted(game.seats, key=lambda s: s.seat)
    ]
    lines.append(" · ".join(by_seat))
    changes = [_seat_result(t, game, seat) for seat in game.seats if seat.change is not None]
    if changes:
        lines.append(t("history.changes", changes=" · ".join(changes)))
    back = Button(t("button.history_back"), HistoryPress().encode())
    return Content("\n".join(lines), ((back,),))


# -- handlers -------------------------------------------------------------------------------


def _stats(context: ContextTypes.DEFAULT_TYPE) -> StatsService:
    stats: StatsService = context.bot_data["cardroom"].stats
    return stats


async def _speaker(update: Update, context: ContextTypes.DEFAULT_TYPE) -> Translator:
    """Words for the update's chat: the group's language, or the user's (as the handlers do)."""
    chat, user = update.effective_chat, update.effective_user
    if chat is None:
        return translator(pick_language(user.language_code if user else None))
    languages: LanguageService = context.bot_data["cardroom"].languages
    actor = None
    if user is not None:
        actor = Actor(user.id, user.first_name, user.username, user.language_code)
    where = ChatRef(chat.id, chat.type, chat.title or chat.full_name)
    return translator(await languages.for_chat(where, actor))


def _markup(keyboard: Keyboard) -> InlineKeyboardMarkup | None:
    if not keyboard:
        return None
    return InlineKeyboardMarkup(
        [
            [InlineKeyboardButton(b.text, callback_data=b.data, url=b.url) for b in row]
            for row in keyboard
        ]
    )


def _replies(context: ContextTypes.DEFAULT_TYPE) -> ReplyGate:
    gate: ReplyGate = context.bot_data["cardroom"].replies
    return gate


async def _send(
    context: ContextTypes.DEFAULT_TYPE, message: Message, key: str, content: Content
) -> None:
    """A board, a record or a history as an informational reply (``key``: which one)."""
    markup = _markup(content.keyboard)
    await send_reply(_replies(context), message, key, content.text, reply_markup=markup)


def is_private(chat: Chat) -> bool:
    return chat.type == ChatType.PRIVATE


async def handle_top(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """``/top [game] [global] [bots]``: a game's board, or the best player of each game."""
    message, chat = update.effective_message, update.effective_chat
    if message is None or chat is None:
        return
    t = await _speaker(update, context)
    try:
        press = parse_top(context.args or ())
    except BadArguments:
        key = "board.usage_private" if is_private(chat) else "board.usage"
        usage = Content(t(key, games=", ".join(rated_games())))
        await _send(context, message, "top:usage", usage)
        return
    if is_private(chat):
        # Here "this chat" holds the player alone (and the computer): everyone's board says
        # who is best; the chat's own is a button away.
        press = replace(press, everyone=True)
    board = await _board_content(t, _stats(context), press, chat)
    await _send(context, message, f"top:{press.encode()}", board)


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
    t = await _speaker(update, context)
    subject = stats_subject(message, user)
    stats = await _stats(context).player(subject.id)
    reply = f"stats:{subject.id}"
    if not stats.games:
        key = "mystats.none_self" if subject.id == user.id else "mystats.none_other"
        await _send(context, message, reply, Content(t(key, name=short_name(subject.first_name))))
        return
    text = render_stats(t, subject.first_name, stats)
    if stats.rated_games < CHART_MIN_GAMES:
        await _send(context, message, reply, Content(text))
        return
    if _replies(context).admit(message.chat_id, user.id, reply) is not Verdict.SEND:
        return
    charts: ChartPool = context.bot_data["cardroom"].charts
    # Without a chart (its worker failed: logged) the numbers still go out, as text.
    chart = await charts.chart(subject.id, t.language, chart_request(t, stats))
    fits = len(text) <= MessageLimit.CAPTION_LENGTH
    try:
        if chart is None or not fits:
            await message.reply_text(text, parse_mode=ParseMode.HTML, do_quote=False)
        if chart is not None:
            await context.bot.send_photo(
                message.chat_id,
                chart,
                caption=text if fits else None,
                parse_mode=ParseMode.HTML,
                message_thread_id=message.message_thread_id if message.is_topic_message else None,
            )
    except TelegramError as error:
        logger.warning("Reply in chat %s refused: %s", message.chat_id, error)


async def handle_history(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """``/history``: this chat's last finished games, a button on each for its summary."""
    message, chat = update.effective_message, update.effective_chat
    if message is None or chat is None:
        return
    t = await _speaker(update, context)
    history = render_history(t, await _stats(context).history(chat.id))
    await _send(context, message, "history", history)


async def handle_button(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """A board or history button: answer once, then redraw the pressed message.

    The answer comes first: the edit may wait for the group's flood budget (the tables of its
    games use it too), and the person's button should not spin meanwhile.
    """
    query = update.callback_query
    if query is None:
        return
    t = await _speaker(update, context)
    if not context.bot_data["cardroom"].throttle.allow(query.from_user.id):
        await _answer(query, t("error.too_fast"))
        return
    try:
        press = parse(query.data)
        message = query.message if isinstance(query.message, Message) else None
        if message is None:
            raise BadCallback("the message is gone")
        if not _is_board(message):
            # Forged data on a table or a panel: it is never redrawn as a board.
            raise BadCallback("not a board")
        content = await _pressed(t, _stats(context), press, message.chat)
    except BadCallback:
        logger.info("Unusable board callback data from user %s", query.from_user.id)
        await _answer(query, t("error.bad_button"))
        return
    except ServiceError as error:
        await _answer(query, t(f"error.{error.code}"))
        return
    await _answer(query, None)
    redraws: Redraws = context.bot_data["cardroom"].redraws
    await redraws.redraw(message, content)


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


class Redraws:
    """Board messages redrawn in place, one edit at a time each, always the latest page: a
    person paging fast costs an edit per free moment of the group's budget, not per press."""

    def __init__(self) -> None:
        self._latest: dict[tuple[int, int], Content] = {}
        self._busy: set[tuple[int, int]] = set()

    async def redraw(self, message: Message, content: Content) -> None:
        key = (message.chat_id, message.message_id)
        self._latest[key] = content
        if key in self._busy:
            return  # the edit under way draws this too, when it is done
        self._busy.add(key)
        try:
            while key in self._latest:
                try:
                    await _edit(message, self._latest.pop(key))
                except TelegramError as error:
                    logger.warning("Could not redraw a board: %s", error)
        finally:
            self._busy.discard(key)


async def _answer(query: CallbackQuery, text: str | None) -> None:
    try:
        await query.answer(text)
    except TelegramError as error:
        logger.warning("Could not answer a board button: %s", error)


async def _pressed(t: Translator, stats: StatsService, press: Press, chat: Chat) -> Content:
    match press:
        case BoardPress():
            return await _board_content(t, stats, press, chat)
        case HistoryPress(None):
            return render_history(t, await stats.history(chat.id))
        case HistoryPress(game_id) if game_id is not None:
            return render_summary(t, await stats.summary(chat.id, game_id), time.time())
    raise BadCallback("unhandled")


async def _edit(message: Message, content: Content) -> None:
    try:
        await message.edit_text(
            content.text, parse_mode=ParseMode.HTML, reply_markup=_markup(content.keyboard)
        )
    except BadRequest as error:
        if "not modified" not in error.message.lower():
            raise


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
