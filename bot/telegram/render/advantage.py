"""Advantage's table and panel.

The group table shows what everybody may see: the phase and what the player to move does,
the stock, the three centre piles (top card and size), each hand's face-up cards with the
count of its hidden ones, and the pairs laid aside. The panel adds the player's own hidden
cards (marked 🔒), the piles whole (an exchange takes a whole pile) and the legal moves; a
waiting player's panel keeps to his own hand and pairs, which the other's moves leave alone.
In a private chat (a game against the computer) the table and the panel are one message: the
table shows the piles whole and leaves its player's hand to the panel, and the panel keeps to
his hand, his own draws and what to do.

Moves cost one press when they are few: one button per (card, pile), a row per card,
labelled "7♥ → ② K♠" (drop) or "7♥ ⇄ ② K♠" (exchange). When they are many, each card gets
one button: a card that fits a single pile still acts at once, a card that fits several
opens a screen with its piles (``d.<card>`` or ``x.<card>``), so no move takes more than two.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final

from bot.games.advantage import AdvantageView, Draw, Drop, Exchange, Keep, Pass, PileView
from bot.games.advantage.view import SeatView
from bot.games.cards import Card
from bot.i18n import Translator
from bot.services.types import GameSnapshot
from bot.telegram.callbacks import ActPress, ScreenPress
from bot.telegram.render.common import (
    card_label,
    cards_label,
    event_line,
    owner_seat,
    private_game,
    rank_label,
    seat_name,
)
from bot.telegram.render.content import Button, Keyboard, rows

#: How piles are named to people: pile 0 is "①".
PILE_MARKS: Final = ("①", "②", "③")
#: Up to this many card moves (on at most ``DIRECT_CARDS`` cards) get a button each.
DIRECT_MOVES: Final = 14
DIRECT_CARDS: Final = 6
#: Event lines shown in the panel (the last of the latest change).
PANEL_EVENTS: Final = 6

CardMove = Drop | Exchange


def _pile_mark(pile: int) -> str:
    return PILE_MARKS[pile]


def _phase_name(t: Translator, view: AdvantageView) -> str:
    if view.phase.startswith("exchange"):
        return t("advantage.phase_exchange")
    return t("advantage.phase_drop")


def _cycle_line(t: Translator, view: AdvantageView) -> str:
    return t("advantage.cycle", cycle=view.cycle, phase=_phase_name(t, view))


def _stock_line(t: Translator, view: AdvantageView) -> str:
    if view.stock:
        return t.plural("advantage.stock", view.stock)
    if view.last_cycle is not None:
        return t("advantage.stock_empty_last", k=view.last_cycle, of=view.last_cycles)
    return t("advantage.stock_empty_soon", of=view.last_cycles)


def _pairs(t: Translator, seat: SeatView) -> str:
    text = t.plural("advantage.pairs", seat.pair_count)
    if seat.pairs:
        ranks = sorted(a.rank for a, _ in seat.pairs)
        text += ": " + " ".join(rank_label(t, r) for r in ranks)
    return text


def _own_pairs(t: Translator, seat: SeatView) -> str:
    """ "2 — 7 K": how many pairs and their ranks, for the line that names them as pairs."""
    ranks = " ".join(rank_label(t, r) for r in sorted(a.rank for a, _ in seat.pairs))
    return f"{seat.pair_count} — {ranks}" if ranks else str(seat.pair_count)


def _public_hand(t: Translator, seat: SeatView) -> str:
    """A hand as the other player sees it: face-up cards and how many are hidden."""
    if not seat.hand_size:
        return t("advantage.no_cards")
    if not seat.private_count:
        return cards_label(t, seat.public)
    hidden = t.plural("advantage.hidden", seat.private_count)
    if not seat.public:
        return hidden
    return f"{cards_label(t, seat.public)} + {hidden}"


def _end_lines(t: Translator, snapshot: GameSnapshot, view: AdvantageView) -> list[str]:
    lines = [t(f"advantage.end_{view.end_reason or 'quiet'}", of=view.last_cycles)]
    a, b = (s.pair_count for s in view.seats)
    if view.winner is None:
        lines.append(t.plural("advantage.result_draw", a))
    else:
        lines.append(
            t.plural(
                "advantage.result_win",
                max(a, b),
                player=seat_name(t, snapshot, view.winner),
                other=min(a, b),
            )
        )
    return lines


class AdvantageRenderer:
    def table(self, t: Translator, snapshot: GameSnapshot, now: float) -> list[str]:
        view: AdvantageView = snapshot.public
        lines: list[str] = []
        if view.finished:
            # Who won is the table's last event line, and the places follow.
            lines.append(_end_lines(t, snapshot, view)[0])
        else:
            lines += [
                _cycle_line(t, view),
                # What someone is doing now: only while the game is played.
                *([self._doing(t, snapshot, view)] if snapshot.status == "playing" else []),
                _stock_line(t, view),
                "",
                *self._pile_lines(t, snapshot, view),
            ]
        lines.append("")
        # In a private chat its player's hand is right below, in the same message.
        owner = owner_seat(snapshot) if not view.finished else None
        for seat in view.seats:
            marker = "👉 " if seat.seat == view.to_move else ""
            name = seat_name(t, snapshot, seat.seat)
            lines.append(f"{marker}<b>{name}</b> · {_pairs(t, seat)}")
            if seat.seat != owner:
                lines.append(f"    ✋ {_public_hand(t, seat)}")
        return lines

    def _pile_lines(self, t: Translator, snapshot: GameSnapshot, view: AdvantageView) -> list[str]:
        """The centre piles: in a group each top card and size; in a private chat, where the
        table is also the panel's, whole as the panel shows them (an exchange takes a pile)."""
        if private_game(snapshot):
            return [self._pile_line(t, i, pile) for i, pile in enumerate(view.piles)]
        return [
            t.plural("advantage.pile", pile.size, mark=_pile_mark(i), top=card_label(t, pile.top))
            for i, pile in enumerate(view.piles)
        ]

    @staticmethod
    def _doing(t: Translator, snapshot: GameSnapshot, view: AdvantageView) -> str:
        """What the player to move is doing now, in words."""
        player = seat_name(t, snapshot, view.to_move) if view.to_move is not None else "—"
        return t(f"advantage.doing_{view.phase}", player=player)

    def panel(
        self, t: Translator, snapshot: GameSnapshot, seat: int, screen: str | None
    ) -> tuple[list[str], Keyboard]:
        view: AdvantageView = snapshot.views[seat]
        me = view.seats[seat]
        other = view.seats[1 - seat]
        other_name = seat_name(t, snapshot, other.seat)
        legal = snapshot.legal.get(seat, ())
        # A waiting player sees his own cards and pairs, which the other's moves leave alone.
        table = view.finished or bool(legal)
        # In a private chat the table right above, in the same message, shows the cycle, the
        # piles and both sides: the panel keeps to his hand and what to do.
        beside_table = private_game(snapshot) and not view.finished
        lines: list[str] = []
        if view.finished:
            lines += [*_end_lines(t, snapshot, view), ""]
        elif legal and not beside_table:
            lines += [_cycle_line(t, view)]
            lines += [self._pile_line(t, i, pile) for i, pile in enumerate(view.piles)]
            lines.append(_stock_line(t, view))
        if table and not beside_table:
            lines.append(t("advantage.other_hand", player=other_name, hand=_public_hand(t, other)))
            lines.append(
                t(
                    "advantage.pair_counts",
                    mine=me.pair_count,
                    player=other_name,
                    other=other.pair_count,
                )
            )
        elif not beside_table:
            lines.append(t("advantage.your_pairs", pairs=_own_pairs(t, me)))
        if lines:
            lines.append("")
        hand = cards_label(t, me.public) if me.public else t("advantage.no_cards")
        if me.private and not me.public:
            hand = t("advantage.only_hidden")
        lines.append(t("advantage.your_hand", cards=hand))
        if me.private:
            lines.append(t("advantage.your_hidden", cards=cards_label(t, me.private)))
        news = self._news(t, snapshot, seat) if table else []
        if news:
            lines += ["", *news]
        if not legal:
            return lines, ()
        return self._decision(t, snapshot, view, legal, screen, lines)

    def waits(self, snapshot: GameSnapshot, seat: int) -> bool:
        return True

    @staticmethod
    def _pile_line(t: Translator, index: int, pile: PileView) -> str:
        top = f"{_pile_mark(index)} <b>{card_label(t, pile.top)}</b>"
        if pile.size == 1:
            return top
        under = cards_label(t, reversed(pile.cards[:-1]))
        return t("advantage.pile_whole", pile=top, under=under)

    @staticmethod
    def _news(t: Translator, snapshot: GameSnapshot, seat: int) -> list[str]:
        """The latest change as this player may see it (his own draws by card); in a private
        chat only what the table's log right above does not show (his own draws)."""
        lines = []
        private = private_game(snapshot)
        for event in snapshot.events:
            if not event.visible_to(seat) or (private and event.only_seat is None):
                continue
            if event.code == "advantage.drew" and event.seat == seat:
                continue  # the private copy names the cards
            if event.code in ("advantage.won", "advantage.tied"):
                continue  # the panel's first lines say it
            lines.append("· " + event_line(t, snapshot, event))
        return lines[-PANEL_EVENTS:]

    def _decision(
        self,
        t: Translator,
        snapshot: GameSnapshot,
        view: AdvantageView,
        legal: Sequence[tuple[str, Any]],
        screen: str | None,
        lines: list[str],
    ) -> tuple[list[str], Keyboard]:
        def press(code: str) -> str:
            return ActPress(snapshot.game_id, snapshot.version, code).encode()

        def open_screen(name: str) -> str:
            return ScreenPress(snapshot.game_id, snapshot.version, name).encode()

        moves: list[tuple[str, CardMove]] = [
            (code, a) for code, a in legal if isinstance(a, (Drop, Exchange))
        ]
        by_card: dict[Card, list[tuple[str, CardMove]]] = {}
        for code, move in moves:
            by_card.setdefault(move.card, []).append((code, move))

        def label(move: CardMove) -> str:
            key = "advantage.button_drop" if isinstance(move, Drop) else "advantage.button_swap"
            top = card_label(t, view.piles[move.pile].top)
            return t(key, card=card_label(t, move.card), pile=_pile_mark(move.pile), top=top)

        chosen = self._screen_card(screen, by_card)
        if chosen is not None:
            verb = "drop" if isinstance(by_card[chosen][0][1], Drop) else "swap"
            lines += ["", t(f"advantage.pick_pile_{verb}", card=card_label(t, chosen))]
            piles = tuple(Button(label(m), press(code)) for code, m in by_card[chosen])
            back = (Button(t("button.back"), open_screen("main")),)
            return lines, (piles, back)

        lines += ["", self.prompt(t, view, legal)]
        keyboard: list[tuple[Button, ...]] = []
        if len(moves) <= DIRECT_MOVES and len(by_card) <= DIRECT_CARDS:
            for card_moves in by_card.values():
                keyboard.append(tuple(Button(label(m), press(code)) for code, m in card_moves))
        else:
            buttons = []
            for c, card_moves in by_card.items():
                if len(card_moves) == 1:
                    code, move = card_moves[0]
                    buttons.append(Button(label(move), press(code)))
                else:
                    drop = isinstance(card_moves[0][1], Drop)
                    key = "advantage.button_card_drop" if drop else "advantage.button_card_swap"
                    screen_name = f"{'d' if drop else 'x'}.{c.code}"
                    buttons.append(Button(t(key, card=card_label(t, c)), open_screen(screen_name)))
            keyboard += rows(buttons, 3)
        extra = [
            Button(self._simple_label(t, view, a), press(code))
            for code, a in legal
            if not isinstance(a, (Drop, Exchange))
        ]
        if extra:
            keyboard.append(tuple(extra))
        return lines, tuple(keyboard)

    @staticmethod
    def _screen_card(
        screen: str | None, by_card: dict[Card, list[tuple[str, CardMove]]]
    ) -> Card | None:
        """The card a pile-picking screen is about, if that screen is still meaningful."""
        if not screen or len(screen) != 4 or screen[1] != ".":
            return None
        kind = Drop if screen[0] == "d" else Exchange if screen[0] == "x" else None
        for c, card_moves in by_card.items():
            if c.code == screen[2:] and kind is not None and isinstance(card_moves[0][1], kind):
                return c
        return None

    @staticmethod
    def prompt(t: Translator, view: AdvantageView, legal: Sequence[tuple[str, Any]]) -> str:
        """What the player must do now, in words."""
        actions = [a for _, a in legal]
        has_moves = any(isinstance(a, (Drop, Exchange)) for a in actions)
        drawn = card_label(t, view.drawn) if view.drawn is not None else ""
        if (
            actions == [Pass()]
            and view.viewer is not None
            and not view.seats[view.viewer].hand_size
        ):
            return t("advantage.prompt_no_cards")
        if view.phase == "drop_drawn":
            return t("advantage.prompt_drop_drawn", card=drawn)
        if view.phase == "exchange_drawn":
            return t("advantage.prompt_swap_drawn", card=drawn)
        if view.phase == "drop":
            if has_moves:
                return t("advantage.prompt_drop" if view.stock else "advantage.prompt_drop_last")
            if any(isinstance(a, Draw) for a in actions):
                return t("advantage.prompt_drop_draw")
            return t("advantage.prompt_drop_pass")
        if has_moves:
            return t("advantage.prompt_swap")
        if any(isinstance(a, Draw) for a in actions):
            return t("advantage.prompt_swap_draw")
        return t("advantage.prompt_swap_pass")

    @staticmethod
    def _simple_label(t: Translator, view: AdvantageView, action: Any) -> str:
        if isinstance(action, Draw):
            return t("advantage.button_draw")
        if isinstance(action, Keep) and view.drawn is not None:
            return t("advantage.button_keep", card=card_label(t, view.drawn))
        if isinstance(action, Pass):
            return t("advantage.button_pass")
        return t("advantage.button_keep_it")


RENDERER = AdvantageRenderer()
