"""What a Mini App page is sent: a Davay-ka! player's view of the game, as plain JSON.

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
from bot.telegram.render.common import short

#: The words a page shows, by key: sent with every view, in the player's language.
LABELS = {
    "ready": "app.ready",
    "flip": "app.flip",
    "waiting": "app.waiting",
    "round": "app.round",
    "stock": "app.stock",
    "cards": "app.cards",
    "you": "app.you",
    "countdown": "app.countdown",
    "stall": "app.stall",
    "no_move": "app.no_move",
    "won": "app.won",
    "lost": "app.lost",
    "drawn": "app.drawn",
    "connecting": "app.connecting",
    "offline": "app.offline",
}


def labels(t: Translator) -> dict[str, str]:
    return {key: t(msgid) for key, msgid in LABELS.items()}


def view_json(snapshot: GameSnapshot, seat: int, now: float) -> dict[str, Any]:
    """Seat ``seat``'s view of a Davay-ka! game (``now``: the server's clock, epoch seconds).

    ``rows[s]`` are seat ``s``'s four row piles (``{"top": code | null, "down": n}``), his own
    at ``seat``; ``plays`` maps each of his row piles that has a legal move now to the centre
    piles its card fits (the page aims with it; the bot judges the press on arrival anyway).
    """
    view = snapshot.views.get(seat) if snapshot.views else None
    if not isinstance(view, DavaykaView):
        view = snapshot.public
    plays: dict[str, list[int]] = {}
    ready = flip = False
    for _, action in snapshot.legal.get(seat, ()):
        if isinstance(action, Play):
            plays.setdefault(str(action.row_pile), [])
        elif isinstance(action, Ready):
            ready = True
        elif isinstance(action, Flip):
            flip = True
    base: dict[str, Any] = {
        "game": snapshot.game_id,
        "number": snapshot.number,
        "version": snapshot.version,
        "status": snapshot.status,
        "seat": seat,
        # As the chat shows them: no bidi control, cut to length (the page isolates each).
        "names": [short(info.name) for info in snapshot.seats],
        "now": now,
    }
    if not isinstance(view, DavaykaView):
        return base  # not dealt yet, or cancelled
    for pile in plays:
        card = view.seats[seat].piles[int(pile)].top
        plays[pile] = [
            index
            for index, centre in enumerate(view.centres)
            if card is not None and centre.top is not None and fits(card, centre.top)
        ]
    return {
        **base,
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
