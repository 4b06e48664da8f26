"""Your Trumps' table and panel.

The panel offers exactly the legal moves, one press each: a trump suit while trumps are
chosen; any card to lead or to lay as the second card after a beat; only the cards that beat
the top card, and Take (with how many cards it collects), when facing a card. The player to
move also sees the other's moves since his own, the pile and what to do; the waiting player
sees the trumps and his hand, which change only with his own moves.

In a private chat (a quick game against the computer) the table and the panel share one chat:
the table then keeps to who holds what and the log, and the panel alone shows the pile, the
hand and what to do.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import pairwise

from bot.games.cards import SUITS, Card, Suit
from bot.games.trumps import ChooseTrump, PlayCard, Take, TrumpsView
from bot.games.trumps.rules import EV_DRAWN, EV_WON
from bot.games.trumps.state import (
    BEAT_OR_TAKE,
    CHOOSE_TRUMP,
    END_BACKSTOP,
    END_DRAW_RULE,
    LEAD,
    SECOND,
)
from bot.i18n import Translator
from bot.services.types import GameSnapshot
from bot.telegram.callbacks import ActPress
from bot.telegram.render.common import (
    card_label,
    event_line,
    private_game,
    rank_label,
    seat_name,
    suit_label,
)
from bot.telegram.render.content import Button, Keyboard

#: After a card of the reader's own trump suit on his buttons.
TRUMP_MARK = "★"
#: Most card buttons in a row: a longer suit is split into even rows.
ROW_WIDTH = 7
#: The backstop is mentioned once this few moves are left.
BACKSTOP_WARNING = 50


def _suit(suit: Suit | None) -> str:
    return "?" if suit is None else suit_label(suit)


def _player_line(t: Translator, snapshot: GameSnapshot, view: TrumpsView, seat: int) -> str:
    marker = "👉 " if seat == view.to_move else "    "
    name = seat_name(t, snapshot, seat)
    trump = view.trumps[seat]
    if trump is None:
        status = t("trumps.no_trumps_yet")
    elif view.phase == CHOOSE_TRUMP:
        status = t("trumps.player_trumps", suit=suit_label(trump))
    else:
        status = t(
            "trumps.player_status",
            suit=suit_label(trump),
            cards=t.plural("trumps.cards", view.hand_sizes[seat]),
        )
    return f"{marker}{name} — {status}"


def _pile_lines(t: Translator, view: TrumpsView) -> list[str]:
    if view.pile_size == 0:
        return [t("trumps.pile_empty")]
    lines = [t.plural("trumps.pile", view.pile_size)]
    top_first = list(reversed(view.pile_top))
    top = card_label(t, top_first[0])
    if len(top_first) == 1:
        lines.append(t("trumps.on_top", card=top))
    else:
        under = " ".join(card_label(t, c) for c in top_first[1:])
        if view.pile_size > len(top_first):
            under += " …"
        lines.append(t("trumps.on_top_under", card=top, cards=under))
    return lines


def _situation(t: Translator, snapshot: GameSnapshot, view: TrumpsView) -> str:
    """What is going on, in words: whose decision it is and what it is."""
    seat = view.to_move
    assert seat is not None
    player = seat_name(t, snapshot, seat)
    if view.phase == CHOOSE_TRUMP:
        key = "trumps.phase_choose_first" if seat == view.dealer else "trumps.phase_choose_second"
        return t(key, player=player)
    if view.phase == BEAT_OR_TAKE and view.facing is not None:
        return t.plural(
            "trumps.phase_beat", view.take_count, player=player, card=card_label(t, view.facing)
        )
    if view.phase == SECOND:
        return t("trumps.phase_second", player=player)
    return t("trumps.phase_lead", player=player)


def why_it_ended(
    t: Translator, snapshot: GameSnapshot, view: TrumpsView, *, name_card: bool = True
) -> str | None:
    """Why a finished game ended, when "wins" or "a draw" needs a reason: the chat's log and
    the Mini App's result say it alike (``name_card=False``: the draw rule without the card
    that decided it, as the page, which shows the pile, says it)."""
    if view.end_reason == END_BACKSTOP:
        key = "trumps.end_backstop_draw" if view.drawn else "trumps.end_backstop"
        return t(key, moves=view.max_moves)
    if view.end_reason == END_DRAW_RULE:
        emptied = 0 if view.hand_sizes[0] == 0 else 1
        player = seat_name(t, snapshot, emptied)
        other = seat_name(t, snapshot, 1 - emptied)
        last = _draw_card(snapshot) if name_card else None
        if last is None:
            return t("trumps.end_draw_rule_plain", player=player, other=other)
        return t("trumps.end_draw_rule", player=player, other=other, card=card_label(t, last))
    return None  # a hand emptied: the table shows 0 cards and the log who won


def _result_for(t: Translator, snapshot: GameSnapshot, view: TrumpsView, seat: int) -> str:
    """How a finished game ended, told to one player."""
    backstop = view.end_reason == END_BACKSTOP
    if view.winner is None:
        return t("trumps.drawn_because", reason=why_it_ended(t, snapshot, view) or "")
    if view.winner == seat:
        if backstop:
            return t("trumps.you_won_backstop", moves=view.max_moves)
        return t("trumps.you_won")
    other = seat_name(t, snapshot, view.winner)
    if backstop:
        return t("trumps.other_won_backstop", moves=view.max_moves, other=other)
    return t("trumps.other_won", other=other)


def _draw_card(snapshot: GameSnapshot) -> Card | None:
    """The card that made the draw rule apply, from the log (it is in no hand any more)."""
    for event in (*snapshot.recent, *snapshot.events):
        card = event.args.get("card")
        if event.code == EV_DRAWN and isinstance(card, Card):
            return card
    return None


def _backstop_line(t: Translator, view: TrumpsView) -> list[str]:
    left = view.max_moves - view.moves
    if view.finished or view.phase == CHOOSE_TRUMP or left > BACKSTOP_WARNING:
        return []
    return [t("trumps.backstop_near", left=left, moves=view.max_moves)]


def _hand_lines(t: Translator, view: TrumpsView) -> list[str]:
    """The hand, one suit a line (the buttons show only what may be played, a few a row)."""
    if not view.hand:
        return []
    lines = [t.plural("trumps.your_hand", len(view.hand))]
    trump = view.trumps[view.seat] if view.seat is not None else None
    for suit in SUITS:
        ranks = " ".join(rank_label(t, c.rank) for c in view.hand if c.suit is suit) or "—"
        line = f"{suit_label(suit)} {ranks}"
        if suit is trump:
            line += " " + t("trumps.hand_trumps_mark")
        lines.append(line)
    return lines


def _their_moves(t: Translator, snapshot: GameSnapshot, seat: int) -> list[str]:
    """The other player's moves since this seat's own last move (the group log is elsewhere)."""
    moves = []
    for event in reversed(snapshot.recent):
        if event.seat == seat:
            break
        if event.seat is not None and event.code != EV_WON:
            moves.append("· " + event_line(t, snapshot, event))
    return list(reversed(moves))


def _card_rows(buttons: Sequence[tuple[Card, Button]]) -> list[tuple[Button, ...]]:
    """Card buttons one suit to a row (the hand's order); a long suit fills two even rows."""
    keyboard: list[tuple[Button, ...]] = []
    for suit in SUITS:
        suited = [b for c, b in buttons if c.suit is suit]
        if not suited:
            continue
        count = -(-len(suited) // ROW_WIDTH)
        # Row i starts at ceil(i * n / count): the upper rows take the odd card.
        cuts = [-(-i * len(suited) // count) for i in range(count + 1)]
        keyboard += [tuple(suited[a:b]) for a, b in pairwise(cuts)]
    return keyboard


class TrumpsRenderer:
    def table(self, t: Translator, snapshot: GameSnapshot, now: float) -> list[str]:
        view: TrumpsView = snapshot.public
        lines = [_player_line(t, snapshot, view, seat) for seat in (0, 1)]
        if private_game(snapshot) and not view.finished:
            # The panel right below shows the pile and what to do.
            return lines
        if view.phase != CHOOSE_TRUMP:
            lines += ["", *_pile_lines(t, view)]
        if not view.finished:
            if snapshot.status != "playing":
                return lines  # stopped, not played out: no "to move" any more
            return [*lines, _situation(t, snapshot, view), *_backstop_line(t, view)]
        why = why_it_ended(t, snapshot, view)
        return [*lines, why] if why else lines

    def panel(
        self, t: Translator, snapshot: GameSnapshot, seat: int, screen: str | None
    ) -> tuple[list[str], Keyboard]:
        view: TrumpsView = snapshot.views[seat]
        legal = snapshot.legal.get(seat, ())

        def press(code: str) -> str:
            return ActPress(snapshot.game_id, snapshot.version, code).encode()

        if view.phase == CHOOSE_TRUMP:
            suits = [
                Button(suit_label(a.suit), press(code))
                for code, a in legal
                if isinstance(a, ChooseTrump)
            ]
            return self._choosing(t, snapshot, view, seat), ((tuple(suits),) if suits else ())

        other = 1 - seat
        lines: list[str] = []
        if not private_game(snapshot):
            # In a private chat the table right above names the trumps and the last moves.
            trumps = t(
                "trumps.trumps_line",
                mine=_suit(view.trumps[seat]),
                other=seat_name(t, snapshot, other),
                theirs=_suit(view.trumps[other]),
            )
            lines.append(trumps)
            if view.to_move == seat or view.finished:
                lines += _their_moves(t, snapshot, seat)
            lines.append("")
        playable = sum(1 for _, a in legal if isinstance(a, PlayCard))
        all_buttons = bool(view.hand) and playable == len(view.hand)
        # The hand by suit stays in the text even when every card is a button: the buttons
        # are in rows of a few, the text shows the whole hand at a glance.
        hand = _hand_lines(t, view)
        if view.finished and private_game(snapshot):
            # The final table right above shows the pile and how the game ended.
            return hand, ()
        if not view.finished and view.to_move != seat:
            # Waiting: his trumps and hand, which the other's moves do not change.
            return lines + hand, ()
        prompt = self._prompt(t, snapshot, view, seat, legal)
        lines += [*_pile_lines(t, view), ""]
        if all_buttons:  # the hand is the keyboard: say so right under what to do
            lines += [prompt, *hand]
        else:
            lines += [*hand, "", prompt] if hand else [prompt]
        lines += _backstop_line(t, view)

        trump = view.trumps[seat]

        def card_button(card: Card) -> str:
            """The card, and a mark if it is his trump (the suit that beats any other)."""
            shown = card_label(t, card)
            return (
                f"{shown} {TRUMP_MARK}" if card.suit is not None and card.suit is trump else shown
            )

        cards = [
            (a.card, Button(card_button(a.card), press(code)))
            for code, a in legal
            if isinstance(a, PlayCard)
        ]
        keyboard = _card_rows(cards)
        for code, action in legal:
            if isinstance(action, Take):
                label = t.plural("trumps.button_take", view.take_count)
                keyboard.append((Button(label, press(code)),))
        return lines, tuple(keyboard)

    def waits(self, snapshot: GameSnapshot, seat: int) -> bool:
        return True

    @staticmethod
    def _choosing(t: Translator, snapshot: GameSnapshot, view: TrumpsView, seat: int) -> list[str]:
        other = seat_name(t, snapshot, 1 - seat)
        mine, theirs = view.trumps[seat], view.trumps[1 - seat]
        if view.to_move != seat:
            if mine is not None:
                return [t("trumps.chose_wait", suit=suit_label(mine), other=other)]
            return [t("trumps.dealer_chooses_wait", other=other)]
        if theirs is None:
            lines = [t("trumps.you_choose_first")]
        else:
            lines = [t("trumps.you_choose_second", other=other, suit=suit_label(theirs))]
        return [*lines, "", t("trumps.prompt_choose")]

    @staticmethod
    def _prompt(
        t: Translator,
        snapshot: GameSnapshot,
        view: TrumpsView,
        seat: int,
        legal: Sequence[tuple[str, object]],
    ) -> str:
        if view.finished:
            return _result_for(t, snapshot, view, seat)
        if view.to_move != seat:
            return _situation(t, snapshot, view)
        if view.phase == BEAT_OR_TAKE and view.facing is not None:
            facing = card_label(t, view.facing)
            can_beat = any(isinstance(a, PlayCard) for _, a in legal)
            key = "trumps.prompt_beat" if can_beat else "trumps.prompt_cannot_beat"
            return t.plural(key, view.take_count, card=facing)
        if view.phase == SECOND and len(view.pile_top) >= 2:
            return t(
                "trumps.prompt_second",
                beaten=card_label(t, view.pile_top[-2]),
                card=card_label(t, view.pile_top[-1]),
            )
        if view.phase == LEAD and view.moves > 0:
            return t("trumps.prompt_lead_again")
        return t("trumps.prompt_lead")


RENDERER = TrumpsRenderer()
