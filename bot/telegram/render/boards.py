"""The boards drawn: rating boards, leaders, a player's record, the history of a chat's games,
and their buttons' callback data.

A player is on a board from his first rated game, his rating marked provisional until
:data:`~bot.services.ratings.MIN_GAMES` games. In a private chat "this chat" is only the player
and the computer, so boards there speak of "your games". The handlers are in
:mod:`bot.telegram.handlers.boards`.

Buttons carry their own compact callback data, parsed as defensively as
:mod:`bot.telegram.callbacks` does:

- ``B:<key>:<scope><computer>:<page>``  a board page; ``<key>`` is a game key or ``-`` for
                                         the best of each game; ``<scope>`` ``c`` (this chat)
                                         or ``g`` (global); ``<computer>`` ``b`` (shown) or
                                         ``h`` (hidden)
- ``Y:<game>``                          the summary of a finished game of this chat
- ``Y:-``                               back to the list of last games
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any, Final

from babel.dates import format_datetime

from bot.games.registry import GAMES
from bot.i18n import Translator
from bot.services.ratings import MIN_GAMES
from bot.services.stats import (
    Board,
    BoardLine,
    GameStats,
    GameSummary,
    Leaders,
    PlayedGame,
    PlayedSeat,
    PlayerStats,
)
from bot.telegram.callbacks import MAX_BYTES, NUMBER, BadCallback, parse_number
from bot.telegram.charts import ChartLine, ChartRequest, draw_rating_chart
from bot.telegram.render import has_renderer, table_content
from bot.telegram.render.common import PLACE_MEDALS, esc, game_name, person_name, signed
from bot.telegram.render.content import Button, Content, rows

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


# -- rendering ------------------------------------------------------------------------------


def player_name(t: Translator, line: BoardLine) -> str:
    if line.is_computer or line.name is None:
        return t("board.computer")
    return short_name(line.name)


def short_name(name: str) -> str:
    """A first name, HTML-escaped, shortened to fit a board line and isolated from the line's
    direction (:func:`~bot.telegram.render.common.person_name`)."""
    return person_name(name)


def wording(everyone: bool, private: bool) -> str:
    """Which words a board takes: everyone's, a group's, or a private chat's ("your games")."""
    if everyone:
        return "global"
    return "private" if private else "chat"


def rating_text(t: Translator, line: BoardLine | GameStats) -> str:
    """The rating, marked while it is provisional (on a board and in ``/stats`` alike)."""
    if line.provisional:
        return t("board.provisional_rating", rating=line.rating)
    return str(line.rating)


def provisional_note(t: Translator, lines: Sequence[BoardLine | GameStats]) -> list[str]:
    """The line that explains the mark, under a board (or a record) that shows it."""
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
        rating = rating_text(t, game)
        if game.change is None:
            lines.append(t("mystats.game", game=title, rating=rating))
        else:
            lines.append(
                t("mystats.game_changed", game=title, rating=rating, change=signed(game.change))
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
    return "\n".join([*lines, *provisional_note(t, stats.games)])


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


def render_history(
    t: Translator, games: Sequence[PlayedGame], *, private: bool = False
) -> Content:
    """The chat's last games: places and rating changes, a button per game; ``private``: in
    a private chat, where they are the reader's own games, wherever he played them."""
    if not games:
        return Content(t("history.empty_private" if private else "history.empty"))
    lines = [t("history.title_private" if private else "history.title")]
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


def render_summary(
    t: Translator, summary: GameSummary, now: float, *, private: bool = False
) -> Content:
    """A finished game: its final table again, then what the action log says; ``private``:
    in a private chat's history, whose games were played elsewhere too."""
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
        key = "history.changes_private" if private else "history.changes"
        lines.append(t(key, changes=" · ".join(changes)))
    back = Button(t("button.history_back"), HistoryPress().encode())
    return Content("\n".join(lines), ((back,),))
