"""Your Trumps' table on a Mini App page: the trumps, the pile, the hand, as plain JSON.

Only what the reader may see: a seat's view (:meth:`TrumpsRules.view`) holds his own hand and
the other's count, the public view no hand at all; both hold the pile's top cards (it lies
face up) and never the undealt deck. The page draws the cards; the sentences that need a
plural or a name (whose cards, what to do now) are written here in the reader's language,
with the chat's own words, so that page and panel say the same.
"""

from __future__ import annotations

from typing import Any

from bot.games.cards import Suit
from bot.games.trumps import PlayCard, TrumpsView
from bot.games.trumps.state import (
    BEAT_OR_TAKE,
    CHOOSE_TRUMP,
    LEAD,
    SECOND,
)
from bot.i18n import Translator
from bot.services.types import GameSnapshot
from bot.telegram.miniapp.views import plain
from bot.telegram.render.common import card_label, seat_name
from bot.telegram.render.trumps import why_it_ended

#: The page's own words (the shell's are in ``views.WORDS``).
WORDS = {
    "facing": "app.trumps.facing",
    "your_trumps": "app.trumps.your_trumps",
    "choose": "trumps.prompt_choose",
}

#: The backstop is mentioned once this few moves are left (as the chat's table does).
BACKSTOP_WARNING = 50


def table(
    snapshot: GameSnapshot, seat: int | None, view: Any, t: Translator, now: float
) -> dict[str, Any]:
    """Seat ``seat``'s view of a game of Your Trumps (``None``: an onlooker's, the public one).

    ``pile_top`` runs bottom to top (the card faced is last); ``takes`` is how many of those
    a take would collect now (all of them, and those under, when ``take_count`` is more);
    ``texts`` holds the sentences: ``facts`` per seat, ``pile``, ``count``, ``deck``,
    ``hint`` (what to do or what the player to move does) and ``warning`` (the backstop).
    """
    if not isinstance(view, TrumpsView):
        return {}  # not dealt yet, or called off
    return {
        "phase": view.phase,
        "dealer": view.dealer,
        "to_move": view.to_move,
        "trumps": [_letter(suit) for suit in view.trumps],
        "hand": [c.code for c in view.hand],
        "hand_sizes": list(view.hand_sizes),
        "pile_size": view.pile_size,
        "pile_top": [c.code for c in view.pile_top],
        "facing": None if view.facing is None else view.facing.code,
        "take_count": view.take_count,
        "move_count": view.moves,
        "max_moves": view.max_moves,
        "deck_size": view.deck_size,
        "finished": view.finished,
        "winner": view.winner,
        "drawn": view.drawn,
        "end_reason": view.end_reason,
        "texts": _texts(snapshot, view, t),
    }


def _letter(suit: Suit | None) -> str | None:
    return None if suit is None else suit.value


def _texts(snapshot: GameSnapshot, view: TrumpsView, t: Translator) -> dict[str, Any]:
    pile = t.plural("trumps.pile", view.pile_size) if view.pile_size else t("trumps.pile_empty")
    left = view.max_moves - view.moves
    warning = None
    if not view.finished and view.phase != CHOOSE_TRUMP and left <= BACKSTOP_WARNING:
        warning = t("trumps.backstop_near", left=left, moves=view.max_moves)
    return {
        "facts": [_facts(view, seat, t) for seat in (0, 1)],
        "pile": plain(pile),
        "count": t("app.trumps.move_count", n=view.moves, max=view.max_moves),
        "deck": t("app.trumps.deck", n=view.deck_size),
        "hint": _hint(snapshot, view, t),
        "warning": None if warning is None else plain(warning),
    }


def _facts(view: TrumpsView, seat: int, t: Translator) -> str:
    """What the chat's table says beside a name: the trumps and, once dealt, the cards."""
    trump = view.trumps[seat]
    if trump is None:
        return t("trumps.no_trumps_yet")
    if view.phase == CHOOSE_TRUMP:
        return t("trumps.player_trumps", suit=trump.symbol)
    cards = t.plural("trumps.cards", view.hand_sizes[seat])
    return t("trumps.player_status", suit=trump.symbol, cards=cards)


def _hint(snapshot: GameSnapshot, view: TrumpsView, t: Translator) -> str | None:
    """What the reader is to do now, or what the player to move does, in the chat's words."""
    if view.finished:
        why = why_it_ended(t, snapshot, view, name_card=False)
        return None if why is None else plain(why)
    mover = view.to_move
    if mover is None or snapshot.status != "playing":
        return None
    reader = view.seat
    if view.phase == CHOOSE_TRUMP:
        return plain(_choosing(snapshot, view, t))
    if mover != reader:
        player = seat_name(t, snapshot, mover)
        if view.phase == BEAT_OR_TAKE and view.facing is not None:
            card = card_label(t, view.facing)
            said = t.plural("trumps.phase_beat", view.take_count, player=player, card=card)
        elif view.phase == SECOND:
            said = t("trumps.phase_second", player=player)
        else:
            said = t("trumps.phase_lead", player=player)
        return plain(said)
    if view.phase == BEAT_OR_TAKE and view.facing is not None:
        can_beat = any(isinstance(a, PlayCard) for _, a in snapshot.legal.get(mover, ()))
        key = "trumps.prompt_beat" if can_beat else "trumps.prompt_cannot_beat"
        return plain(t.plural(key, view.take_count, card=card_label(t, view.facing)))
    if view.phase == SECOND and len(view.pile_top) >= 2:
        beaten, beating = view.pile_top[-2], view.pile_top[-1]
        return plain(
            t("trumps.prompt_second", beaten=card_label(t, beaten), card=card_label(t, beating))
        )
    if view.phase == LEAD and view.moves > 0:
        return t("trumps.prompt_lead_again")
    return t("trumps.prompt_lead")


def _choosing(snapshot: GameSnapshot, view: TrumpsView, t: Translator) -> str:
    mover = view.to_move
    assert mover is not None
    reader = view.seat
    if reader is None:
        key = "trumps.phase_choose_first" if mover == view.dealer else "trumps.phase_choose_second"
        return t(key, player=seat_name(t, snapshot, mover))
    other = seat_name(t, snapshot, 1 - reader)
    mine, theirs = view.trumps[reader], view.trumps[1 - reader]
    if mover != reader:
        if mine is not None:
            return t("trumps.chose_wait", suit=mine.symbol, other=other)
        return t("trumps.dealer_chooses_wait", other=other)
    if theirs is None:
        return t("trumps.you_choose_first")
    return t("trumps.you_choose_second", other=other, suit=theirs.symbol)
