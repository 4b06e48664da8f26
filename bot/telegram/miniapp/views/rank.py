"""Rank's table on a Mini App page: the pile, the stock, the race, as plain JSON (see
:mod:`..views`).

Only what the reader may see: a seat's view (:meth:`RankRules.view`) holds his own hand and
the card he just drew, and of the others only how many cards they hold; an onlooker's, the
public one, no card but the pile's top. The stock is a count, never its cards nor their order.
Words that carry a number (``5 cards`` in Russian has three forms) or a name are written here,
in the reader's language, so that the page only sets them as text.
"""

from __future__ import annotations

from typing import Any

from bot.games.cards import RANK_CODES, Card
from bot.games.rank import PlayJoker, RankView
from bot.i18n import Translator
from bot.services.types import GameSnapshot
from bot.telegram.miniapp.views import names, plain
from bot.telegram.render.rank import RankRenderer, seat_status

#: The words of Rank's page, by key (``ui.say(key)``).
WORDS = {
    "top": "app.rank.top",
    "named": "app.rank.named",
    "stock": "app.rank.stock",
    "discard": "app.rank.discard",
    "joker": "rank.button_joker",
    "pick": "rank.pick_rank",
    "back": "button.back",
}


def table(
    snapshot: GameSnapshot, seat: int | None, view: Any, t: Translator, now: float
) -> dict[str, Any]:
    """Seat ``seat``'s view of a Rank game (``None``: an onlooker's, the public one).

    ``named`` is the rank a joker on top stands for, as a card code's rank letter (``"Q"``),
    which the page writes in the reader's language; ``standing`` says per seat what the chat's
    table says (cards held, out and in which place, a last card pending); ``places`` is the
    race: each seat's place if the game stopped now, as the round limit would end it.
    """
    if not isinstance(view, RankView):
        return {}  # not dealt yet, or called off
    mine = seat is not None and view.seat == seat
    legal = [a for _, a in snapshot.legal.get(seat, ())] if seat is not None and mine else []
    shown = names(t, snapshot)
    return {
        "top": _code(view.top),
        "named": None if view.named_rank is None else RANK_CODES[view.named_rank],
        "stock": view.stock_size,
        "discard": view.discard_size,
        "sizes": list(view.hand_sizes),
        "standing": [seat_status(t, view, other) for other in range(view.players)],
        "places": list(view.race()),
        "out": list(view.out),
        "pending": view.pending,
        "turn": view.turn,
        "phase": view.phase,
        "round": plain(t("rank.round", round=view.round, limit=view.round_limit)),
        "hand": [c.code for c in view.hand] if mine else [],
        "drawn": _code(view.drawn) if mine else None,
        "prompt": plain(RankRenderer.prompt(t, view, legal)) if legal else None,
        "warning": (
            plain(t("rank.pending_other", player=shown[view.pending]))
            if legal and view.pending is not None and view.pending != seat
            else None
        ),
        "me": _me(t, view, seat) if mine else None,
        "jokers": any(isinstance(action, PlayJoker) for action in legal),
    }


def _code(card: Card | None) -> str | None:
    return None if card is None else card.code


def _me(t: Translator, view: RankView, seat: int | None) -> str | None:
    """The reader's own standing, when it is more than his hand shows."""
    if seat is None:
        return None
    if seat in view.out:
        return plain(t("rank.you_are_out", place=view.out.index(seat) + 1))
    if view.pending == seat:
        return plain(t("rank.you_are_pending"))
    return None
