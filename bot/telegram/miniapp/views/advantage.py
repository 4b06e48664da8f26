"""Advantage's table on a Mini App page: hands, pairs, the centre piles, as plain JSON.

Only what the reader may see: the engine's view for a seat (:meth:`AdvantageRules.view`)
holds that seat's private cards and the card he just drew, and of the other hand only its
public cards and how many private ones it holds; the public view (an onlooker's) holds no
private card at all. The centre piles go whole, as the panel shows them: every card on a pile
was face up when it got there, and an exchange takes the whole pile into the hand.

The lines that need a plural or the chat's own phrasing (the cycle, the stock, what the
player to move is doing, what the reader must do now, each seat's counts) are written here,
in the reader's language, with the chat's messages; the page sets them as text.
"""

from __future__ import annotations

from typing import Any

from bot.games.advantage import AdvantageView
from bot.games.advantage.view import SeatView
from bot.i18n import Translator
from bot.services.types import GameSnapshot
from bot.telegram.miniapp.views import plain
from bot.telegram.render.advantage import PILE_MARKS, RENDERER
from bot.telegram.render.common import seat_name

#: The page's own words for Advantage (``app_advantage.po``).
WORDS = {
    "drawn": "app.advantage.drawn",
    "only_you": "app.advantage.only_you",
    "tap_card": "app.advantage.tap_card",
    "pairs": "app.advantage.pairs",
}


def table(
    snapshot: GameSnapshot, seat: int | None, view: Any, t: Translator, now: float
) -> dict[str, Any]:
    """Seat ``seat``'s view of an Advantage game (``None``: an onlooker's, the public one).

    ``hands[s]``: seat ``s``'s ``public`` cards, its ``private`` ones (the reader's own only;
    else ``[]``) and ``hidden``, how many private cards it holds; ``pairs[s]``: the pairs laid
    aside. ``piles``: each centre pile's ``top``, ``size`` and ``cards`` bottom to top.
    """
    if not isinstance(view, AdvantageView):
        return {}  # not dealt yet, or called off
    legal = snapshot.legal.get(seat, ()) if seat is not None else ()
    return {
        "phase": view.phase,
        "cycle": view.cycle,
        "last_cycle": view.last_cycle,
        "last_cycles": view.last_cycles,
        "stock": view.stock,
        "dealer": view.dealer,
        "to_move": view.to_move,
        "drawn": None if view.drawn is None else view.drawn.code,
        "hands": [
            {
                "public": [c.code for c in s.public],
                "private": [c.code for c in s.private],
                "hidden": s.private_count,
            }
            for s in view.seats
        ],
        "pairs": [[[a.code, b.code] for a, b in s.pairs] for s in view.seats],
        "piles": [
            {"top": p.top.code, "size": p.size, "cards": [c.code for c in p.cards]}
            for p in view.piles
        ],
        "marks": list(PILE_MARKS),
        "finished": view.finished,
        "winner": view.winner,
        "lines": _lines(snapshot, view, t),
        "facts": [_facts(t, s) for s in view.seats],
        "prompt": plain(RENDERER.prompt(t, view, legal)) if legal else "",
        "pick": {
            # What the page asks once a card is chosen; the page puts the card in ``{card}``.
            "drop": plain(t("advantage.pick_pile_drop", card="{card}")),
            "exchange": plain(t("advantage.pick_pile_swap", card="{card}")),
        },
    }


def _lines(snapshot: GameSnapshot, view: AdvantageView, t: Translator) -> dict[str, str]:
    """The cycle and phase, the stock (or which of the last cycles this is), and what the
    player to move is doing: the group table's own lines."""
    exchange = view.phase.startswith("exchange")
    phase = t("advantage.phase_exchange" if exchange else "advantage.phase_drop")
    if view.stock:
        stock = t.plural("advantage.stock", view.stock)
    elif view.last_cycle is not None:
        stock = t("advantage.stock_empty_last", k=view.last_cycle, of=view.last_cycles)
    else:
        stock = t("advantage.stock_empty_soon", of=view.last_cycles)
    doing = ""
    if view.to_move is not None and snapshot.status == "playing":
        player = seat_name(t, snapshot, view.to_move)
        doing = t(f"advantage.doing_{view.phase}", player=player)
    return {
        "cycle": plain(t("advantage.cycle", cycle=view.cycle, phase=phase)),
        "stock": plain(stock),
        "doing": plain(doing),
    }


def _facts(t: Translator, seat: SeatView) -> str:
    """ "5 cards · 2 pairs": what sits under a player's name."""
    cards = t.plural("app.advantage.cards", seat.hand_size)
    return f"{cards} · {t.plural('advantage.pairs', seat.pair_count)}"
