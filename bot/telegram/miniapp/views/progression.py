"""Progression's table on a Mini App page: the deal, the stacks and the score sheet, as JSON.

Only what the reader may see: Progression's view (:meth:`ProgressionRules.view`) holds every
stack (all of them are public), the draw pile's size (never its cards), every hand's size, and
the reader's own hand only (none for an onlooker). Numbers are sent as numbers; the lines that
need several of them (the deal and its target, where a card was played) are written here, in
the reader's language, as the chat writes them. Cards are Cardroom's two-letter codes.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from bot.games.cards import SUITS, Card
from bot.games.progression import PlayCard, ProgressionView, stack_score
from bot.games.progression.state import PHASE_PLAY, PHASE_TAKE
from bot.i18n import Translator
from bot.services.types import GameSnapshot
from bot.telegram.render.common import card_label
from bot.telegram.render.progression import points, signed

#: The words of Progression's page, by key (see :data:`..views.WORDS`).
WORDS = {
    "p_draw": "app.progression.draw",
    "p_middle": "app.progression.middle",
    "p_deal_col": "app.progression.deal_col",
    "p_total_col": "app.progression.total_col",
    "p_before_col": "app.progression.before_col",
    "p_play": "app.progression.play",
    "p_where": "app.progression.where",
    "p_take": "app.progression.take",
    "p_must_draw": "app.progression.must_draw",
    "p_ready": "app.progression.ready",
    "p_not_ready": "app.progression.not_ready",
    "p_to_middle": "app.progression.to_middle",
    "p_to_mine": "app.progression.to_mine",
    "p_pts": "app.progression.pts",
}


def table(
    snapshot: GameSnapshot, seat: int | None, view: Any, t: Translator, now: float
) -> dict[str, Any]:
    """Seat ``seat``'s view of a Progression match (``None``: an onlooker's, the public one).

    ``stacks[s][i]`` is seat ``s``'s private stack of suit ``i`` (♠ ♥ ♦ ♣) and
    ``scores[s][i]`` its score were the deal to end now; ``middle[i]`` the public stacks;
    ``plays`` maps each card of the reader's hand that may be played now to its two places
    (``own`` and ``middle``: the move codes, ``gain``: what the own stack would score more),
    so the page can say what a place is worth; ``sheet`` is the finished deal's score sheet.
    """
    if not isinstance(view, ProgressionView):
        return {}
    mine = seat if view.seat is not None else None
    return {
        "phase": view.phase,
        "deal": view.deal,
        "target": view.target,
        "dealer": view.dealer,
        "to_move": view.to_move,
        "heading": t("app.progression.heading", deal=view.deal, target=view.target),
        "hand": None if view.hand is None else _codes(view.hand),
        "hand_sizes": list(view.hand_sizes),
        "draw": view.draw_size,
        "middle": [_codes(stack) for stack in view.public_stacks],
        "stacks": [[_codes(stack) for stack in stacks] for stacks in view.private_stacks],
        "scores": [list(scores) for scores in view.stack_scores],
        "deal_scores": list(view.deal_scores),
        "totals": list(view.totals),
        "shown_totals": [points(total) for total in view.totals],
        "just_played": None if view.just_played is None else view.just_played.code,
        "played_public": view.played_public,
        "played_line": _played_line(t, view),
        "must_draw": view.must_draw,
        "plays": _plays(snapshot, mine, view),
        "ready": list(view.ready),
        # A computer, or the computer playing for someone away, presses Next by itself.
        "by_computer": [info.played_by_computer for info in snapshot.seats],
        # The sheet of the deal just finished, while it is shown: during the next deal its
        # cards are back in the hands and the pile (the totals carry its sum).
        "sheet": None if view.phase in (PHASE_PLAY, PHASE_TAKE) else _sheet(t, view),
        "finished": view.finished,
        "places": None if view.places is None else list(view.places),
    }


def _codes(cards: Sequence[Card]) -> list[str]:
    return [c.code for c in cards]


def _played_line(t: Translator, view: ProgressionView) -> str | None:
    """In the take phase: where the card of this turn went (the chat's words, as text)."""
    if view.just_played is None:
        return None
    where = "public" if view.played_public else "own"
    return t(f"app.progression.played_{where}", card=card_label(t, view.just_played))


def _plays(
    snapshot: GameSnapshot, seat: int | None, view: ProgressionView
) -> dict[str, dict[str, Any]]:
    if seat is None:
        return {}
    plays: dict[str, dict[str, Any]] = {}
    for code, action in snapshot.legal.get(seat, ()):
        if not isinstance(action, PlayCard):
            continue
        place = plays.setdefault(action.card.code, {"own": None, "middle": None, "gain": None})
        if action.public:
            place["middle"] = code
        else:
            suit = action.card.suit
            assert suit is not None  # Progression has no jokers
            stack = view.private_stacks[seat][suit.order]
            place["own"] = code
            place["gain"] = signed(stack_score((*stack, action.card)) - stack_score(stack))
    return plays


def _sheet(t: Translator, view: ProgressionView) -> dict[str, Any] | None:
    """The finished deal's score sheet: for each seat its stacks and their scores, the deal's
    score, the total before the deal and after it (all of it public)."""
    sheet = view.sheet
    if sheet is None:
        return None
    return {
        "deal": sheet.deal,
        "title": t("app.progression.sheet_title", deal=sheet.deal),
        "suits": [suit.symbol for suit in SUITS],
        "rows": [
            {
                "stacks": [_codes(stack) for stack in row.stacks],
                "scores": [signed(score) for score in row.stack_scores],
                "deal": signed(row.deal_score),
                "before": points(row.total - row.deal_score),
                "total": points(row.total),
            }
            for row in sheet.rows
        ],
    }
