"""Views to messages: the group table, each player's DM panel and the lobby.

Each game has a renderer (``bot/telegram/render/<game>.py``) that draws the game-specific
part; this module frames it — title, short log, whose move and time left, results, rematch.
"""

from __future__ import annotations

import importlib
from functools import cache
from typing import Protocol

from bot.games.registry import get_rules
from bot.i18n import Translator
from bot.services.types import GameSnapshot
from bot.telegram.render.common import (
    esc,
    game_name,
    lobby_option_keys,
    recent_lines,
    rematch_keyboard,
    render_lobby,
    render_results,
    seat_name,
    series_line,
    take_back_keyboard,
    time_left,
)
from bot.telegram.render.content import Button, Content, Keyboard, rows


class GameRenderer(Protocol):
    def table(self, t: Translator, snapshot: GameSnapshot, now: float) -> list[str]:
        """The game-specific lines of the group table (public view only)."""
        ...

    def panel(
        self, t: Translator, snapshot: GameSnapshot, seat: int, screen: str | None
    ) -> tuple[list[str], Keyboard]:
        """The lines and buttons of a player's DM panel (his own view)."""
        ...


__all__ = [
    "Button",
    "Content",
    "Keyboard",
    "has_renderer",
    "panel_content",
    "rows",
    "table_content",
]


@cache
def _renderer(game_key: str) -> GameRenderer:
    """The renderer of a game: ``RENDERER`` in ``bot/telegram/render/<game_key>.py``."""
    module = importlib.import_module(f"{__name__}.{game_key}")
    renderer: GameRenderer = module.RENDERER
    return renderer


def has_renderer(game_key: str) -> bool:
    """Whether the game can be shown (and so offered by ``/new``)."""
    try:
        _renderer(game_key)
    except ModuleNotFoundError:
        return False
    return True


def table_content(t: Translator, snapshot: GameSnapshot, now: float) -> Content:
    """The group message of a lobby or a game, in its current state."""
    if snapshot.is_lobby:
        rules = get_rules(snapshot.game_key)
        options = [spec.key for spec in rules.options]
        realtime = bool(getattr(rules, "realtime", False))
        return render_lobby(t, snapshot, lobby_option_keys(snapshot, options, realtime=realtime))
    title = esc(game_name(t, snapshot.game_key))
    if snapshot.status == "cancelled":
        return Content("\n".join([t("table.cancelled", game=title), *recent_lines(t, snapshot)]))
    lines = [t("table.title", game=title, number=snapshot.game_id), *series_line(t, snapshot), ""]
    lines += _renderer(snapshot.game_key).table(t, snapshot, now)
    keyboard: Keyboard = ()
    recent = recent_lines(t, snapshot)
    if recent:
        lines += ["", *recent]
    if snapshot.status == "finished":
        lines += ["", t("table.over"), *render_results(t, snapshot)]
        keyboard = rematch_keyboard(t, snapshot)
    elif snapshot.chat_kind != "private":
        # In a private game the panel just below says whose move it is.
        lines += ["", _turn_line(t, snapshot, now)]
    return Content("\n".join(lines), keyboard)


def _turn_line(t: Translator, snapshot: GameSnapshot, now: float) -> str:
    left = time_left(t, _window(snapshot), now)
    if not snapshot.acting:
        # A pause nobody is to act in (e.g. Progression between deals).
        return t("table.pause", left=left).strip()
    names = ", ".join(seat_name(t, snapshot, seat) for seat in snapshot.acting)
    return t("table.to_move", players=names, left=left).strip()


def _window(snapshot: GameSnapshot) -> float | None:
    deadline = getattr(snapshot.public, "deadline", None)
    return deadline if isinstance(deadline, (int, float)) else snapshot.deadline_at


def panel_content(
    t: Translator, snapshot: GameSnapshot, seat: int, now: float, screen: str | None = None
) -> Content:
    """A player's private panel: his hand, the state of play and his buttons."""
    title = esc(game_name(t, snapshot.game_key))
    if snapshot.status == "cancelled":
        return Content(t("panel.cancelled", game=title))
    header = t("panel.title", game=title, number=snapshot.game_id)
    lines, keyboard = _renderer(snapshot.game_key).panel(t, snapshot, seat, screen)
    footer: list[str] = []
    if snapshot.status == "finished" and snapshot.outcome is not None:
        place = snapshot.outcome.places[seat]
        footer = [t("panel.over", place=place, players=len(snapshot.seats))]
        keyboard = ()
    elif snapshot.seats[seat].autopilot and snapshot.status == "playing":
        footer = [t("panel.autopilot")]
        keyboard = take_back_keyboard(t, snapshot)
    elif seat in snapshot.acting:
        footer = [t("panel.your_move", left=time_left(t, _window(snapshot), now)).strip()]
    elif snapshot.acting:
        names = ", ".join(seat_name(t, snapshot, s) for s in snapshot.acting)
        footer = [t("panel.waiting", players=names)]
    return Content("\n".join([header, "", *lines, "", *footer]).strip(), keyboard)
