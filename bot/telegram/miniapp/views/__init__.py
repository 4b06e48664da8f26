"""What a Mini App page is sent: one reader's view of any game of Cardroom, as plain JSON.

The reader is a seated player (``seat``: his own view, his legal moves) or an onlooker
(``seat`` ``None``: the public table, as the group's message shows it, and no moves). The
frame is built from the game's snapshot by :func:`page_view`: the parts every game has
(names, whose move and until when, the log, the result and the series) here, the table as
each game has it by the game's own module, ``views/<game>.py`` (its ``table`` function);
a game without one sends its engine's view as it is (:func:`dump`).

Only what the reader may see: an engine's view for a seat holds that seat's hidden cards
and no one else's, and the public view none; the snapshot's other views are never read. The
moves are the reader's legal actions with the codes the panel's buttons carry, so a tap on
the page goes through the same ``act`` as a button. Cards are Cardroom's two-letter codes
(``"Ts"``: the ten of spades; ``"XJ"``: a joker); ranks are written in the reader's
language by the page from ``faces``, as the chat panels write them. Times are seconds since
the epoch, with the server's own ``now`` beside them, so that a page whose clock is off still
counts down right.
"""

from __future__ import annotations

import dataclasses
import html
import importlib
import re
from collections.abc import Callable, Mapping
from enum import Enum
from functools import cache
from typing import Any

from bot.games.cards import ACE, JACK, JOKER_CODE, KING, QUEEN, Card
from bot.i18n import Translator
from bot.services.types import REMATCHED, SERIES, GameSnapshot
from bot.telegram.callbacks import ActPress, BadCallback, parse
from bot.telegram.render import is_pause, panel_content, turn_window
from bot.telegram.render.common import (
    esc,
    game_name,
    recent_lines,
    render_results,
    seat_name,
    short,
)

#: The words every page shows, by key: sent with every view, in the reader's language.
WORDS = {
    "stock": "app.stock",
    "you": "app.you",
    "won": "app.won",
    "lost": "app.lost",
    "draw": "app.drawn",
    "connecting": "app.connecting",
    "offline": "app.offline",
    "your_move": "app.your_move",
    "their_move": "app.their_move",
    "pause": "app.pause",
    "watching": "app.watching",
    "lobby": "app.lobby",
    "cancelled": "app.cancelled",
    "over": "app.over",
    "autopilot": "app.autopilot",
    "next_game": "app.next_game",
    "log": "app.log",
    "result": "app.result",
    "seconds": "app.seconds",
}

#: A game's own part of the view: ``table(snapshot, seat, view, t, now)`` in its module, given
#: the reader's view (his seat's, or the public one for an onlooker); its ``WORDS`` are merged
#: over the shell's.
TableBuilder = Callable[[GameSnapshot, "int | None", Any, Translator, float], dict[str, Any]]

#: The shell's fields a game's table may give its own value: the window its clock shows
#: (Davay-ka!'s phases have theirs).
OWN_KEYS = frozenset({"deadline"})

_TAGS = re.compile(r"<[^>]+>")


def plain(text: str) -> str:
    """A line of the chat's HTML as the page shows it: as text (the page never parses
    HTML it is sent; names are set as text)."""
    return html.unescape(_TAGS.sub("", text))


def dump(value: Any) -> Any:
    """An engine's view as JSON: dataclasses as objects, cards as codes, suits as letters,
    tuples as lists. A view holds only what its reader may see, so all of it may go."""
    if isinstance(value, Card):
        return value.code
    if isinstance(value, Enum):
        return value.value
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: dump(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, (tuple, list, frozenset, set)):
        items = [dump(item) for item in value]
        return sorted(items, key=repr) if isinstance(value, (set, frozenset)) else items
    if isinstance(value, Mapping):
        return {str(key): dump(item) for key, item in value.items()}
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    raise TypeError(f"a view holds a {type(value).__name__}, which no page can read")


def faces(t: Translator) -> dict[str, str]:
    """Each rank letter of the card codes as the reader's chat writes it (``"T"`` → ``"10"``,
    ``"K"`` → ``"К"`` in Russian), and the joker's word under ``"X"``."""
    codes = {**{str(rank): rank for rank in range(2, 10)}, "T": 10, "J": JACK, "Q": QUEEN}
    codes |= {"K": KING, "A": ACE}
    said = {code: t(f"card.rank.{rank}") for code, rank in codes.items()}
    said[JOKER_CODE[0]] = t("card.joker")
    return said


def words(t: Translator, game_key: str) -> dict[str, str]:
    """The words a page of this game shows, in the reader's language."""
    merged = {**WORDS, **getattr(_module(game_key), "WORDS", {})}
    return {key: t(msgid) for key, msgid in merged.items()}


def names(t: Translator, snapshot: GameSnapshot) -> list[str]:
    """Each seat's name, as the chat shows it but as text: no bidi control, cut to length (the
    page isolates each); a computer numbered as the table numbers it."""
    return [
        plain(seat_name(t, snapshot, info.seat, marker=False))
        if info.is_computer
        else short(info.name)
        for info in snapshot.seats
    ]


def page_view(
    snapshot: GameSnapshot, seat: int | None, t: Translator, now: float
) -> dict[str, Any]:
    """The view of ``snapshot`` for ``seat`` (``None``: an onlooker), ``now`` by the server's
    clock (epoch seconds)."""
    base: dict[str, Any] = {
        "game": snapshot.game_id,
        "key": snapshot.game_key,
        "number": snapshot.number,
        "version": snapshot.version,
        "status": snapshot.status,
        "title": plain(
            t("table.title", game=esc(game_name(t, snapshot.game_key)), number=snapshot.number)
        ),
        "seat": seat,
        "names": names(t, snapshot),
        "computer": [info.played_by_computer for info in snapshot.seats],
        "now": now,
        "acting": list(snapshot.acting),
        "pause": snapshot.status == "playing" and is_pause(snapshot),
        "deadline": turn_window(snapshot) if snapshot.status == "playing" else None,
        "log": [plain(line).removeprefix("· ") for line in recent_lines(t, snapshot)],
        "moves": [] if seat is None else moves(snapshot, seat, t, now),
        "autopilot": seat is not None and snapshot.seats[seat].autopilot,
        "series": _series(snapshot),
        "result": _result(snapshot, t),
        "next": _next(snapshot),
    }
    view = snapshot.views.get(seat) if seat is not None and snapshot.views else None
    if view is None:
        view = snapshot.public
    if view is None:
        return base  # a lobby, or one called off before the deal
    table: TableBuilder | None = getattr(_module(snapshot.game_key), "table", None)
    if table is None:
        return {**base, "table": dump(view)}
    own = table(snapshot, seat, view, t, now)
    clash = (own.keys() & base.keys()) - OWN_KEYS
    if clash:
        # The shell reads these: a game that sent its own under the same name would break
        # every page of it (Rank's per-seat "status" once hid whether the game was over).
        raise ValueError(f"{snapshot.game_key}'s table names {sorted(clash)}, the shell's")
    return {**base, **own}


def moves(snapshot: GameSnapshot, seat: int, t: Translator, now: float) -> list[dict[str, Any]]:
    """The seat's legal moves: each its action's code (what a tap sends), its kind (the
    action's name: ``play``, ``draw``…) and fields, and the words of the panel's button that
    makes it, where the panel has one (the page's fallback button)."""
    legal = snapshot.legal.get(seat, ())
    if not legal:
        return []
    labels = _button_labels(snapshot, seat, t, now)
    out = []
    for code, action in legal:
        move: dict[str, Any] = {"code": code, "kind": _kind(action)}
        if dataclasses.is_dataclass(action) and not isinstance(action, type):
            for name, value in dump(action).items():
                move.setdefault(name, value)
        if code in labels:
            move["label"] = labels[code]
        out.append(move)
    return out


def _button_labels(snapshot: GameSnapshot, seat: int, t: Translator, now: float) -> dict[str, str]:
    """The panel's buttons' words by the action code they send."""
    labels: dict[str, str] = {}
    try:
        keyboard = panel_content(t, snapshot, seat, now).keyboard
    except (KeyError, ValueError, IndexError):
        return labels
    for row in keyboard:
        for button in row:
            try:
                press = parse(button.data) if button.data else None
            except BadCallback:
                continue
            if isinstance(press, ActPress):
                labels.setdefault(press.code, plain(button.text))
    return labels


def _kind(action: Any) -> str:
    """``PlayJoker`` → ``play_joker``."""
    return re.sub(r"(?<!^)(?=[A-Z])", "_", type(action).__name__).lower()


def _series(snapshot: GameSnapshot) -> list[int] | None:
    wins = snapshot.options.get(SERIES)
    if (
        isinstance(wins, list)
        and len(wins) == len(snapshot.seats)
        and all(isinstance(w, int) for w in wins)
    ):
        return list(wins)
    return None


def _result(snapshot: GameSnapshot, t: Translator) -> dict[str, Any] | None:
    outcome = snapshot.outcome
    if snapshot.status != "finished" or outcome is None:
        return None
    return {
        "places": list(outcome.places),
        "scores": None if outcome.scores is None else list(outcome.scores),
        "ratings": {str(seat): list(moved) for seat, moved in snapshot.ratings.items()},
        "lines": [plain(line) for line in render_results(t, snapshot)],
    }


def _next(snapshot: GameSnapshot) -> int | None:
    """The game its Rematch opened, once it has been: the page moves on to it."""
    following = snapshot.options.get(REMATCHED)
    return following if isinstance(following, int) and not isinstance(following, bool) else None


@cache
def _module(game_key: str) -> Any:
    """The game's own module of the page (``views/<game_key>.py``), or ``None``."""
    try:
        return importlib.import_module(f"{__name__}.{game_key}")
    except ModuleNotFoundError:
        return None
