"""Views to messages: the group table, each player's DM panel and the lobby.

Each game has a renderer (``bot/telegram/render/<game>.py``) that draws the game-specific
part; this module frames it — title, short log, whose move and time left, results, rematch.

A panel is edited only when what it shows changes, so it shows what changes for its player
alone: a waiting player sees his own cards and status and a line saying that his move will
come here — nothing that moves with the others' moves (but in Rank, where up to ten players
wait through several moves and plan their next turn meanwhile: its waiting panel also shows
the table's top card and the others' counts, :mod:`bot.telegram.render.rank`); the acting
player sees everything he needs to decide (what he must beat or follow, the prompt, his time
and his buttons), which costs nothing extra, since his panel changes anyway when his turn
comes.
"""

from __future__ import annotations

import importlib
from functools import cache
from typing import Protocol

from bot.games.engine import AUTOPILOT_AFTER
from bot.games.registry import get_rules
from bot.i18n import Translator
from bot.services.snapshots import abandoned_seats
from bot.services.types import GameSnapshot
from bot.telegram.render.common import (
    esc,
    game_name,
    lobby_option_keys,
    recent_lines,
    rematch_keyboard,
    render_lobby,
    render_results,
    seat_names,
    series_line,
    shown_rating,
    signed,
    take_back_keyboard,
    time_left,
)
from bot.telegram.render.content import Button, Content, Keyboard, rows
from bot.telegram.render.solo import render_solo_lobby

#: The moment to render "as of" for comparing contents: every "time left" then reads as its
#: deadline, so two renderings are equal exactly when they differ by the passing of time alone.
TIMELESS = 0.0


class GameRenderer(Protocol):
    def table(self, t: Translator, snapshot: GameSnapshot, now: float) -> list[str]:
        """The game-specific lines of the group table (public view only)."""
        ...

    def panel(
        self, t: Translator, snapshot: GameSnapshot, seat: int, screen: str | None
    ) -> tuple[list[str], Keyboard]:
        """The lines and buttons of a player's DM panel (his own view).

        A seat that may not act now gets lines that depend on its own view only.
        """
        ...

    def waits(self, snapshot: GameSnapshot, seat: int) -> bool:
        """Whether a seat that may not act now still has a turn to wait for."""
        ...


__all__ = [
    "TIMELESS",
    "Button",
    "Content",
    "Keyboard",
    "has_renderer",
    "is_pause",
    "panel_content",
    "press_answer",
    "press_refusal",
    "result_content",
    "rows",
    "solo_content",
    "table_content",
    "turn_window",
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


def is_pause(snapshot: GameSnapshot) -> bool:
    """Whether the game is in a pause in which nobody is to move, though its acting seats
    may say they are ready (the renderer's optional ``pausing``; e.g. Progression between
    deals): no "your move", no ping."""
    pausing = getattr(_renderer(snapshot.game_key), "pausing", None)
    return pausing is not None and bool(pausing(snapshot))


def press_answer(t: Translator, snapshot: GameSnapshot, user_id: int) -> str | None:
    """What the answer to a player's accepted press says, where his game has something to
    say at once (the renderer's optional ``answer``); ``None``: a silent answer."""
    answer = getattr(_renderer(snapshot.game_key), "answer", None)
    seat = snapshot.seat_of(user_id)
    if answer is None or seat is None:
        return None
    text: str | None = answer(t, snapshot, seat.seat)
    return text


def press_refusal(
    t: Translator, snapshot: GameSnapshot, user_id: int, code: str, action: str
) -> str | None:
    """What the answer to a player's refused press (of the ``action`` code) says, where his
    game says more than the refusal's own text (the renderer's optional ``refusal``);
    ``None``: the refusal's text."""
    refusal = getattr(_renderer(snapshot.game_key), "refusal", None)
    seat = snapshot.seat_of(user_id)
    if refusal is None or seat is None:
        return None
    text: str | None = refusal(t, snapshot, seat.seat, code, action)
    return text


def table_content(t: Translator, snapshot: GameSnapshot, now: float) -> Content:
    """The group message of a lobby or a game, in its current state."""
    if snapshot.is_lobby:
        options = [spec.key for spec in get_rules(snapshot.game_key).options]
        keys = lobby_option_keys(snapshot, options, realtime=_realtime(snapshot.game_key))
        if snapshot.chat_kind == "private":
            # Against the computer: nobody to hand a missed turn to but the computer itself.
            return render_solo_lobby(t, snapshot, [k for k in keys if k != AUTOPILOT_AFTER])
        return render_lobby(t, snapshot, keys)
    title = esc(game_name(t, snapshot.game_key))
    cancelled = t("table.cancelled", game=title)
    if snapshot.status == "cancelled" and snapshot.public is None:
        # A lobby called off: nothing was dealt.
        return Content("\n".join([cancelled, *recent_lines(t, snapshot)]))
    head = [t("table.title", game=title, number=snapshot.number), *series_line(t, snapshot), ""]
    renderer = _renderer(snapshot.game_key)
    body = renderer.table(t, snapshot, now)
    # Only a real-time game's own lines show clocks; every table's last line may.
    still_body = renderer.table(t, snapshot, TIMELESS) if _realtime(snapshot.game_key) else body
    keyboard: Keyboard = ()
    tail: list[str] = []
    # Events the game's own lines show otherwise (e.g. who is ready) stay out of the log.
    recent = recent_lines(t, snapshot, getattr(renderer, "quiet_events", frozenset()))
    if recent:
        tail += ["", *recent]
    turn: list[str] = []
    still_turn: list[str] = []
    if snapshot.status == "finished":
        tail += ["", t("table.over"), *render_results(t, snapshot), *_left_line(t, snapshot)]
        keyboard = rematch_keyboard(t, snapshot)
    elif snapshot.status == "cancelled":
        # The last state of the game stays in sight, above the line that ends it.
        tail += ["", cancelled]
    elif snapshot.chat_kind != "private" and not _realtime(snapshot.game_key):
        # In a private game the panel just below says whose move it is; a real-time game
        # has no turns (its own lines say what happens next, and when).
        turn = ["", _turn_line(t, snapshot, now)]
        still_turn = ["", _turn_line(t, snapshot, TIMELESS)]
    text = "\n".join([*head, *body, *tail, *turn])
    timeless = "\n".join([*head, *still_body, *tail, *still_turn])
    return Content(text, keyboard, timeless)


def result_content(t: Translator, snapshot: GameSnapshot) -> Content:
    """A finished game's result as a message of its own: places, scores and ratings."""
    title = esc(game_name(t, snapshot.game_key))
    lines = [t("result.title", game=title, number=snapshot.number), *render_results(t, snapshot)]
    return Content("\n".join([*lines, *_left_line(t, snapshot)]))


def _left_line(t: Translator, snapshot: GameSnapshot) -> list[str]:
    """Who did not play to the end — who left the game, and who was away while the computer
    played for him — and so ranks below those who stayed, whatever the cards said. With
    nobody staying they all share the last place, which the results say (a loss for each):
    then only what happened is said."""
    abandoned = abandoned_seats(snapshot.seats)
    below = "" if len(abandoned) == len(snapshot.seats) else "_below"
    lines = []
    for key, left in (("table.left", True), ("table.away", False)):
        seats = [s for s in sorted(abandoned) if snapshot.seats[s].left == left]
        if seats:
            names = seat_names(t, snapshot, seats, marker=False)
            lines.append(t(key + below, players=names))
    return lines


def _own_left_line(t: Translator, snapshot: GameSnapshot, seat: int) -> list[str]:
    """The same, told to the player himself in his panel."""
    abandoned = abandoned_seats(snapshot.seats)
    if seat not in abandoned:
        return []
    key = "panel.left" if snapshot.seats[seat].left else "panel.away"
    return [t(key + ("" if len(abandoned) == len(snapshot.seats) else "_below"))]


def _turn_line(t: Translator, snapshot: GameSnapshot, now: float) -> str:
    left = time_left(t, turn_window(snapshot), now)
    if not snapshot.acting or is_pause(snapshot):
        # A pause (e.g. Progression between deals): nobody is to move, though some may say
        # they are ready — the game's own lines say who.
        return t("table.pause", left=left).strip()
    names = seat_names(t, snapshot, snapshot.acting)
    return t("table.to_move", players=names, left=left).strip()


def turn_window(snapshot: GameSnapshot) -> float | None:
    """When the open window closes: the game's own deadline where its view has one (a phase
    of its own, as Davay-ka!'s), else the game's."""
    deadline = getattr(snapshot.public, "deadline", None)
    return deadline if isinstance(deadline, (int, float)) else snapshot.deadline_at


def panel_content(
    t: Translator, snapshot: GameSnapshot, seat: int, now: float, screen: str | None = None
) -> Content:
    """A player's private panel: his hand, what he needs to decide and his buttons."""
    title = esc(game_name(t, snapshot.game_key))
    if snapshot.status == "cancelled":
        return Content(t("panel.cancelled", game=title))
    header = t("panel.title", game=title, number=snapshot.number)
    lines, keyboard, footer, still_footer = _panel_parts(t, snapshot, seat, now, screen)

    def page(end: list[str]) -> str:
        return "\n".join([header, "", *lines, "", *end]).strip()

    return Content(page(footer), keyboard, None if still_footer is None else page(still_footer))


def solo_content(
    t: Translator, snapshot: GameSnapshot, seat: int, now: float, screen: str | None = None
) -> Content:
    """A game in its player's private chat (against the computer): the table and his hand in
    one message, in his language — one message to edit, and one to read. Each thing once:
    in a private chat a game's panel leaves out what its table shows
    (:func:`~bot.telegram.render.common.private_game`)."""
    table = table_content(t, snapshot, now)
    if snapshot.status != "playing":
        if snapshot.status == "finished" and snapshot.outcome is not None:
            place = snapshot.outcome.places[seat]
            over = t("panel.over", place=place, players=len(snapshot.seats))
            text = f"{table.text}\n\n{over}"
            return Content(text, table.keyboard, f"{table.still_text}\n\n{over}")
        return table
    lines, keyboard, footer, still_footer = _panel_parts(t, snapshot, seat, now, screen)

    def page(top: str, end: list[str]) -> str:
        return "\n".join([top, "", *lines, "", *end]).strip()

    still = page(table.still_text, footer if still_footer is None else still_footer)
    return Content(page(table.text, footer), keyboard, still)


def _panel_parts(
    t: Translator, snapshot: GameSnapshot, seat: int, now: float, screen: str | None
) -> tuple[list[str], Keyboard, list[str], list[str] | None]:
    """A panel's lines and buttons, and its footer (also as of no time, where it shows time)."""
    renderer = _renderer(snapshot.game_key)
    lines, keyboard = renderer.panel(t, snapshot, seat, screen)
    footer: list[str] = []
    still_footer: list[str] | None = None  # the footer as of no time, where it shows time
    if snapshot.status == "finished" and snapshot.outcome is not None:
        place = snapshot.outcome.places[seat]
        footer = [t("panel.over", place=place, players=len(snapshot.seats))]
        footer += [*_rating_line(t, snapshot, seat), *_own_left_line(t, snapshot, seat)]
        keyboard = ()
    elif snapshot.seats[seat].autopilot and snapshot.status == "playing":
        footer = [t("panel.autopilot_left" if snapshot.seats[seat].left else "panel.autopilot")]
        keyboard = take_back_keyboard(t, snapshot)
    elif _realtime(snapshot.game_key):
        pass  # no turns: the game's own prompt says what to do
    elif seat in snapshot.acting and not is_pause(snapshot):
        window = turn_window(snapshot)
        timed_out = _timed_out_line(t, snapshot, seat)
        footer = [*timed_out, t("panel.your_move", left=time_left(t, window, now)).strip()]
        still_footer = [
            *timed_out,
            t("panel.your_move", left=time_left(t, window, TIMELESS)).strip(),
        ]
    elif (
        snapshot.status == "playing"
        and not snapshot.legal.get(seat)
        and renderer.waits(snapshot, seat)
    ):
        # Not who is to move, which changes with every move: this panel is edited when his
        # own cards change or his turn comes, not on each move of the others.
        footer = [*_timed_out_line(t, snapshot, seat), t("panel.wait")]
    return lines, keyboard, footer, still_footer


def _timed_out_line(t: Translator, snapshot: GameSnapshot, seat: int) -> list[str]:
    """ "Your time ran out: the computer moved for you" — from the window that ran out until
    his next decision. His run of missed windows (the seat's ``timeouts``) is what says so:
    it ends with his next press, and the others' moves leave it alone, as they leave his
    waiting panel alone."""
    info = snapshot.seats[seat]
    if info.timeouts <= 0 or info.autopilot or snapshot.status != "playing":
        return []
    return [t("panel.timed_out")]


def _rating_line(t: Translator, snapshot: GameSnapshot, seat: int) -> list[str]:
    """What this game did to his rating — before and after, so that the line stays true
    when later games move the rating on."""
    moved = snapshot.ratings.get(seat)
    if moved is None:
        return []
    before, after = moved
    shown = shown_rating(t, snapshot, seat)
    return [t("panel.rating", before=before, after=shown, change=signed(after - before))]


@cache
def _realtime(game_key: str) -> bool:
    return bool(getattr(get_rules(game_key), "realtime", False))
