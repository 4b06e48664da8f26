"""Davay-ka!'s table on a Mini App page: its piles, as plain JSON (see :mod:`..views`).

Only what the player may see: Davay-ka!'s view (:meth:`DavaykaRules.view`) holds every face-up
card and the counts of the face-down ones, never their order. Cards are Cardroom's two-letter
codes (``"Ts"``: the ten of spades; ranks ``2``–``9``, ``T``, ``J``, ``Q``, ``K``, ``A``; suits
``s``, ``h``, ``d``, ``c``). Times are seconds since the epoch, with the server's own ``now``
beside them, so that a page whose clock is off still counts down right.
"""

from __future__ import annotations

from typing import Any

from bot.games.davayka.rules import fits
from bot.games.davayka.state import DavaykaView, Flip, LastMove, Play, Ready
from bot.i18n import Translator
from bot.services.types import GameSnapshot

#: The words of Davay-ka!'s page (games/davayka.js), by key: the call, its countdowns and the
#: counts under each name.
WORDS = {
    "ready": "app.ready",
    "flip": "app.flip",
    "waiting": "app.waiting",
    "round": "app.round",
    "stock": "app.stock",
    "cards": "app.cards",
    "countdown": "app.countdown",
    "stall": "app.stall",
    "no_move": "app.no_move",
}


def table(
    snapshot: GameSnapshot, seat: int | None, view: Any, t: Translator, now: float
) -> dict[str, Any]:
    """Seat ``seat``'s view of a Davay-ka! game (``None``: an onlooker's, the public one).

    ``rows[s]`` are seat ``s``'s four row piles (``{"top": code | null, "down": n}``);
    ``plays`` maps each of the reader's row piles that has a legal move now to the centre
    piles its card fits (the page aims with it; the bot judges the press on arrival anyway).
    """
    plays: dict[str, list[int]] = {}
    ready = flip = False
    for _, action in snapshot.legal.get(seat, ()) if seat is not None else ():
        if isinstance(action, Play):
            plays.setdefault(str(action.row_pile), [])
        elif isinstance(action, Ready):
            ready = True
        elif isinstance(action, Flip):
            flip = True
    if not isinstance(view, DavaykaView):
        return {}  # not dealt yet, or cancelled
    for pile in plays:
        assert seat is not None  # only a seat has plays
        card = view.seats[seat].piles[int(pile)].top
        plays[pile] = [
            index
            for index, centre in enumerate(view.centres)
            if card is not None and centre.top is not None and fits(card, centre.top)
        ]
    return {
        "phase": view.phase,
        "round": view.round,
        "rows": [[{"top": _code(p.top), "down": p.hidden} for p in s.piles] for s in view.seats],
        "stocks": [s.stock for s in view.seats],
        "cards": [s.cards for s in view.seats],
        "rounds_won": [s.rounds_won for s in view.seats],
        "pressed": [s.pressed for s in view.seats],
        "centres": [{"top": _code(c.top), "size": c.size, "owner": c.owner} for c in view.centres],
        "deadline": view.phase_deadline,
        "deadline_kind": view.deadline_kind,
        "last_move": _last_move(view.last_move),
        "plays": plays,
        "can_ready": ready,
        "can_flip": flip,
        "finished": view.finished,
        "winner": view.winner,
        "end_reason": view.end_reason,
    }


def _code(card: Any) -> str | None:
    return None if card is None else str(card.code)


def _last_move(move: LastMove | None) -> dict[str, Any] | None:
    if move is None:
        return None
    return {
        "seat": move.seat,
        "pile": move.row_pile,
        "card": move.card.code,
        "centre": move.centre,
        "auto": move.auto,
    }
