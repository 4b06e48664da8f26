"""Davay-ka!'s table and panel: a real-time game, so both are a picture of the whole table.

Everything in this game is public except the order of face-down cards, so the group table and
each panel show the same layout: both rows of four piles (the face-up top card, then one ▪ per
face-down card below it), the centre piles, stocks and rounds won. The panel puts the other
player's row on top and the reader's own row at the bottom, as if sitting across a table.

Buttons are exactly the legal actions: Ready, «Давай-ка!», or one button per fitting (row pile,
centre pile) pair, labelled with the card and the centre card it goes onto ("7♥ → 8♣"); a card
that fits both centre piles gets two buttons, one in each centre pile's keyboard row, so every
move is one press. No sub-screens: in this game a second press would always be too late.

A press is judged on arrival, not against the version its panel showed (the rules are
``realtime``), so the buttons carry no version: a panel is edited when what its player sees
changes — the centre, the rows, his own Ready or «Давай-ка!» — not when the other player
presses Ready or «Давай-ка!», which the group table shows.
"""

from __future__ import annotations

import math
from collections.abc import Collection, Sequence
from typing import Any

from bot.games.davayka import CentreView, DavaykaView, Flip, Move, Ready, RowPileView, SeatView
from bot.games.davayka.rules import STALL_SECONDS
from bot.i18n import Translator
from bot.services.types import GameSnapshot
from bot.telegram.callbacks import ActPress
from bot.telegram.render.common import card_label, seat_name
from bot.telegram.render.content import Button, Keyboard

#: One mark per face-down card under a row pile's top card.
HIDDEN_MARK = "▪"
#: Between the four row piles (wide enough to tell them apart on a phone).
PILE_GAP = "   "
#: At most this many move buttons side by side (longer labels get cut on a phone).
BUTTONS_PER_ROW = 3
#: Warn that a player is about to lose for pressing nothing when this close to it.
FORFEIT_WARNING_SECONDS = 30.0
#: The version in this game's buttons: any, since presses are judged on arrival.
ANY_VERSION = 0


def _seconds(deadline: float | None, now: float) -> int:
    return 0 if deadline is None else max(0, math.ceil(deadline - now))


def _pile(t: Translator, pile: RowPileView) -> str:
    if pile.top is None:
        return "—"
    return card_label(t, pile.top) + HIDDEN_MARK * pile.hidden


def _row(t: Translator, seat: SeatView) -> str:
    return "    " + PILE_GAP.join(_pile(t, pile) for pile in seat.piles)


def _seat_line(t: Translator, name: str, seat: SeatView, phase: str, marked: bool) -> str:
    mark = " ✅" if marked and seat.pressed and phase in ("ready", "stall") else ""
    return t("davayka.seat", name=name + mark, stock=seat.stock, won=seat.rounds_won)


def _centre_line(t: Translator, centres: Sequence[CentreView]) -> str:
    tops = [f"<b>{card_label(t, c.top)}</b>" if c.top else "—" for c in centres]
    if len(centres) == 2:
        return t(
            "davayka.centre_two",
            left=tops[0],
            right=tops[1],
            left_size=centres[0].size,
            right_size=centres[1].size,
        )
    if len(centres) == 1:
        return t.plural("davayka.centre_one", centres[0].size, top=tops[0])
    return t("davayka.centre_empty")


def _phase_line(t: Translator, view: DavaykaView) -> str:
    return t(f"davayka.phase_{view.phase}", round=view.round)


def _end_line(t: Translator, snapshot: GameSnapshot, view: DavaykaView) -> str:
    reason = view.end_reason or "cards"
    if view.winner is None:
        # Nobody gets rid of every card at once: a draw is by rounds or by forfeit.
        key = "davayka.drawn_forfeit" if reason == "forfeit" else "davayka.drawn_rounds"
        return t(key, rounds=view.round)
    return t(
        f"davayka.won_{reason}",
        player=seat_name(t, snapshot, view.winner),
        other=seat_name(t, snapshot, 1 - view.winner),
        rounds=view.round,
    )


def _table_picture(
    t: Translator,
    view: DavaykaView,
    names: Sequence[str],
    order: Sequence[int],
    marked: Collection[int] = (0, 1),
) -> list[str]:
    """Two seats' rows with the centre between them, ``order[0]`` on top; the seats in
    ``marked`` show whether they have pressed Ready or «Давай-ка!»."""
    top, bottom = order
    lines = [_seat_line(t, names[top], view.seats[top], view.phase, top in marked)]
    lines.append(_row(t, view.seats[top]))
    lines.append(_centre_line(t, view.centres))
    lines.append(_seat_line(t, names[bottom], view.seats[bottom], view.phase, bottom in marked))
    lines.append(_row(t, view.seats[bottom]))
    return lines


def _cards_left(t: Translator, snapshot: GameSnapshot, view: DavaykaView) -> list[str]:
    return [
        t.plural(
            "davayka.cards_left",
            view.seats[s].cards,
            name=seat_name(t, snapshot, s),
            won=view.seats[s].rounds_won,
        )
        for s in (0, 1)
    ]


class DavaykaRenderer:
    def waits(self, snapshot: GameSnapshot, seat: int) -> bool:
        return False  # no turns: the panel's prompt says what to do

    def table(self, t: Translator, snapshot: GameSnapshot, now: float) -> list[str]:
        view: DavaykaView = snapshot.public
        names = [seat_name(t, snapshot, s) for s in (0, 1)]
        if view.finished:
            return [_end_line(t, snapshot, view), *_cards_left(t, snapshot, view)]
        lines = [_phase_line(t, view), *_table_picture(t, view, names, (0, 1)), ""]
        lines += self._clock_lines(t, view, names, now)
        return lines

    @staticmethod
    def _clock_lines(
        t: Translator, view: DavaykaView, names: Sequence[str], now: float
    ) -> list[str]:
        """What happens next and when, in words."""
        lines: list[str] = []
        left = _seconds(view.phase_deadline, now)
        if view.phase == "ready":
            lines.append(t("davayka.table_ready", seconds=left))
        elif view.phase == "stall":
            lines.append(t("davayka.table_stall", seconds=left))
        elif view.phase == "play":
            idle = [
                t("davayka.autopilot_at", name=names[s], seconds=_seconds(seat.idle_at, now))
                for s, seat in enumerate(view.seats)
                if seat.idle_at is not None
            ]
            if idle:
                lines.append(t("davayka.table_autopilot", seats=" · ".join(idle)))
        for s, seat in enumerate(view.seats):
            if seat.forfeit_at is not None and seat.forfeit_at - now <= FORFEIT_WARNING_SECONDS:
                lines.append(
                    t(
                        "davayka.forfeit_warning",
                        name=names[s],
                        seconds=_seconds(seat.forfeit_at, now),
                    )
                )
        return lines

    def panel(
        self, t: Translator, snapshot: GameSnapshot, seat: int, screen: str | None
    ) -> tuple[list[str], Keyboard]:
        view: DavaykaView = snapshot.views[seat]
        other = 1 - seat
        names = [seat_name(t, snapshot, s) for s in (0, 1)]
        names[seat] = t("davayka.you")
        if view.finished:
            return [_end_line(t, snapshot, view), *_cards_left(t, snapshot, view)], ()
        picture = _table_picture(t, view, names, (other, seat), marked=(seat,))
        lines = [_phase_line(t, view), *picture, ""]
        last = self._last_move_line(t, snapshot, view, seat)
        if view.phase == "ready":
            last = self._last_round_line(t, snapshot, seat)
        if last:
            lines.append(last)
        legal = snapshot.legal.get(seat, ())
        lines.append(self._prompt(t, snapshot, view, seat, bool(legal)))
        return lines, self._keyboard(t, snapshot, view, legal)

    @staticmethod
    def _last_move_line(
        t: Translator, snapshot: GameSnapshot, view: DavaykaView, seat: int
    ) -> str | None:
        move = view.last_move
        if move is None:
            return None
        card = card_label(t, move.card)
        if move.seat != seat:
            return t(
                "davayka.last_move_other", player=seat_name(t, snapshot, move.seat), card=card
            )
        if move.auto:
            return t("davayka.last_move_auto", card=card)
        return t("davayka.last_move_you", card=card)

    @staticmethod
    def _last_round_line(t: Translator, snapshot: GameSnapshot, seat: int) -> str | None:
        """How the round just played ended (the panel has no log of its own)."""
        for event in reversed(snapshot.recent):
            if event.code == "davayka.round_drawn":
                return t("davayka.last_round_drawn", round=event.args.get("round", ""))
            if event.code == "davayka.round_won" and event.seat is not None:
                args = {"round": event.args.get("round", ""), "taken": event.args.get("taken", 0)}
                if event.seat == seat:
                    other = seat_name(t, snapshot, 1 - seat)
                    return t("davayka.last_round_you", other=other, **args)
                winner = seat_name(t, snapshot, event.seat)
                return t("davayka.last_round_other", player=winner, **args)
        return None

    @staticmethod
    def _prompt(
        t: Translator, snapshot: GameSnapshot, view: DavaykaView, seat: int, can_act: bool
    ) -> str:
        other = seat_name(t, snapshot, 1 - seat)
        if view.phase == "ready":
            return t(
                "davayka.prompt_ready" if can_act else "davayka.prompt_ready_done", other=other
            )
        if view.phase == "stall":
            if can_act:
                return t("davayka.prompt_stall", seconds=round(STALL_SECONDS))
            return t("davayka.prompt_stall_done", other=other)
        if can_act:
            return t("davayka.prompt_play")
        return t("davayka.prompt_no_move")

    @staticmethod
    def _keyboard(
        t: Translator,
        snapshot: GameSnapshot,
        view: DavaykaView,
        legal: Sequence[tuple[str, Any]],
    ) -> Keyboard:
        def press(code: str) -> str:
            return ActPress(snapshot.game_id, ANY_VERSION, code).encode()

        # One keyboard row per centre pile: the left pile's moves on top, the right's below.
        by_centre: list[list[Button]] = [[] for _ in view.centres]
        single: list[Button] = []
        for code, action in legal:
            if isinstance(action, Move) and action.centre < len(by_centre):
                onto = view.centres[action.centre].top
                label = t(
                    "davayka.button_move",
                    card=card_label(t, action.card),
                    onto=card_label(t, onto) if onto is not None else "?",
                )
                by_centre[action.centre].append(Button(label, press(code)))
            elif isinstance(action, Ready):
                single.append(Button(t("davayka.button_ready"), press(code)))
            elif isinstance(action, Flip):
                single.append(Button(t("davayka.button_flip"), press(code)))
        keyboard: list[tuple[Button, ...]] = []
        for buttons in by_centre:
            for i in range(0, len(buttons), BUTTONS_PER_ROW):
                keyboard.append(tuple(buttons[i : i + BUTTONS_PER_ROW]))
        if single:
            keyboard.append(tuple(single))
        return tuple(keyboard)


RENDERER = DavaykaRenderer()
