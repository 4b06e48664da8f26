"""Davay-ka!'s table and panel: a real-time game, so both are a picture of the whole table.

Everything in this game is public except the order of face-down cards, so the group table and
each panel show the same layout: both rows of four piles (the face-up top card, then one ▪ per
face-down card below it), the centre piles, stocks and rounds won. The panel puts the other
player's row on top and the reader's own row at the bottom, as if sitting across a table. In a
private chat (a game against the computer) the table and the panel are one message: the table
draws the picture that way round, once, and the panel adds only what it says to its player.

The keyboard keeps its shape, so that a quick tap lands where the player aimed (issue #19):
two rows of four places, one column per row pile. The first row is the piles' top cards (✓:
fits now; "·": an empty pile), each pressing "the top card of my pile N", judged when it
arrives — it goes wherever it fits then. The second row is the choice of centre pile where the
rules ask for one, under its pile: a card that fits both reads "7♥ ⬅" above and "7♥ ➡" below;
other places are "·", with nothing to press. Before a round and during a stall the second row
is one button, Ready or «Давай-ка!» (or whom the player waits for). The answer to a move says
what happened — the card, where it went, and what his pile shows now — before the edit comes.

A press is judged on arrival, not against the version its panel showed (the rules are
``realtime``), so the buttons carry no version: a panel is edited when what its player sees
changes — the centre, the rows, his own Ready or «Давай-ка!» — not when the other player
presses Ready or «Давай-ка!», which the group table shows.
"""

from __future__ import annotations

import math
from collections.abc import Collection, Sequence
from typing import Any

from bot.games.cards import Card
from bot.games.davayka import (
    DAVAYKA,
    CentreView,
    DavaykaView,
    Flip,
    Play,
    Ready,
    RowPileView,
    SeatView,
    fits,
)
from bot.games.davayka.rules import (
    EV_FLIP_PRESSED,
    EV_FLIPPED,
    EV_OUT,
    EV_PLAYED,
    EV_READY,
    EV_TURNED_UP,
    STALL_SECONDS,
)
from bot.i18n import Translator
from bot.services.types import GameSnapshot
from bot.telegram.callbacks import ANY_VERSION, ActPress, IdlePress
from bot.telegram.render.common import card_label, owner_seat, seat_name
from bot.telegram.render.content import Button, Keyboard

#: Ready's code in callback data.
READY_CODE = DAVAYKA.encode_action(Ready())
#: One mark per face-down card under a row pile's top card.
HIDDEN_MARK = "▪"
#: Between the four row piles (wide enough to tell them apart on a phone).
PILE_GAP = "   "
#: A place on the keyboard with nothing to press (an empty pile, no choice to make).
NOTHING = "·"
#: After a card that fits a centre pile now; before/after the choice of the left/right pile.
FITS, LEFT, RIGHT = "✓", "⬅", "➡"
#: Warn that a player is about to lose for pressing nothing when this close to it.
FORFEIT_WARNING_SECONDS = 30.0


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
        # In a private chat the table is also its player's panel: his row at the bottom, as
        # "You" — as the panel draws it in a group.
        owner = owner_seat(snapshot)
        order, seen = (0, 1), list(names)
        if owner is not None:
            order, seen[owner] = (1 - owner, owner), t("davayka.you")
        lines = [_phase_line(t, view), *_table_picture(t, view, seen, order)]
        clocks = self._clock_lines(t, snapshot, view, names, now)
        if clocks and snapshot.status == "playing":  # stopped (cancelled, all away): no clocks
            lines += ["", *clocks]
        return lines

    @staticmethod
    def _clock_lines(
        t: Translator, snapshot: GameSnapshot, view: DavaykaView, names: Sequence[str], now: float
    ) -> list[str]:
        """What happens next and when, in words. The idle and forfeit clocks are people's:
        a seat the computer plays is never idle, and never forfeits."""
        lines: list[str] = []
        people = [s for s, info in enumerate(snapshot.seats) if not info.played_by_computer]
        left = _seconds(view.phase_deadline, now)
        if view.phase == "ready":
            lines.append(t("davayka.table_ready", seconds=left))
        elif view.phase == "stall":
            lines.append(t("davayka.table_stall", seconds=left))
        elif view.phase == "play":
            idle = [
                t("davayka.autopilot_at", name=names[s], seconds=_seconds(seat.idle_at, now))
                for s, seat in enumerate(view.seats)
                if seat.idle_at is not None and s in people
            ]
            if idle:
                lines.append(t("davayka.table_autopilot", seats=" · ".join(idle)))
        for s, seat in enumerate(view.seats):
            if s not in people:
                continue
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
        lines: list[str] = []
        if owner_seat(snapshot) is None:
            # In a private chat the table right above, in the same message, is the picture.
            picture = _table_picture(t, view, names, (other, seat), marked=(seat,))
            lines += [_phase_line(t, view), *picture, ""]
        last = self._last_move_line(t, snapshot, view, seat)
        if view.phase == "ready":
            last = self._last_round_line(t, snapshot, seat)
        if last:
            lines.append(last)
        legal = snapshot.legal.get(seat, ())
        lines.append(self._prompt(t, snapshot, view, seat, bool(legal)))
        return lines, self._keyboard(t, snapshot, view, seat, legal)

    def answer(self, t: Translator, snapshot: GameSnapshot, seat: int) -> str | None:
        """The answer to a move of this seat: the card, where it went, and what the pile
        shows now — the player can go on before his panel is redrawn."""
        played = next(
            (
                e
                for e in snapshot.events
                if e.code == EV_PLAYED and e.seat == seat and not e.args.get("auto")
            ),
            None,
        )
        if played is None:
            # Ready or «Давай-ка!» that turned new cards up: what they are, before the edit;
            # the first of the two: whom it waits for now.
            if any(e.code == EV_FLIPPED for e in snapshot.events):
                return _centre_now(t, snapshot.public)
            if any(e.code in (EV_READY, EV_FLIP_PRESSED) for e in snapshot.events):
                other = seat_name(t, snapshot, 1 - seat)
                return t("davayka.answer_waiting", player=other)
            return None
        card, pile, centre = played.args["card"], played.args["pile"], played.args["centre"]
        assert isinstance(card, Card) and isinstance(pile, int)
        # One centre pile: "the centre". Two — or none left, the move having ended the round:
        # left or right, as the piles stood.
        where = t("davayka.where_centre")
        if len(snapshot.public.centres) != 1:
            where = t("davayka.where_left" if centre == 0 else "davayka.where_right")
        args = {"card": card_label(t, card), "where": where, "pile": pile + 1}
        if any(e.code == EV_OUT and e.seat == seat for e in snapshot.events):
            return t("davayka.answer_out", **args)
        uncovered = next(
            (e for e in snapshot.events if e.code == EV_TURNED_UP and e.seat == seat), None
        )
        if uncovered is None:
            said = t("davayka.answer_played_empty", **args)
        else:
            top = uncovered.args["card"]
            assert isinstance(top, Card)
            said = t("davayka.answer_played", top=card_label(t, top), **args)
        return " ".join(filter(None, (said, _centre_now(t, snapshot.public))))

    def refusal(
        self, t: Translator, snapshot: GameSnapshot, seat: int, code: str, action: str
    ) -> str | None:
        """A move that came too late says what the centre shows now: the player can aim
        again before his panel is redrawn. A card no panel offered is answered the same way
        — a different answer would tell him about cards he cannot see. Ready pressed as the
        countdown ended is simply done: the round is on."""
        if code not in ("davayka.too_late", "davayka.illegal"):
            return None
        if action == READY_CODE and snapshot.public.phase == "play":
            return t("davayka.answer_round_on")
        return " ".join(
            filter(None, (t("error.davayka.too_late"), _centre_now(t, snapshot.public)))
        )

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
        seat: int,
        legal: Sequence[tuple[str, Any]],
    ) -> Keyboard:
        """Two rows of four places, whatever the phase (see the module's docstring)."""

        def press(pile: int, centre: int | None) -> str:
            code = DAVAYKA.encode_action(Play(pile, centre, view.round))
            return ActPress(snapshot.game_id, ANY_VERSION, code).encode()

        nothing = Button(NOTHING, IdlePress().encode())
        tops = [centre.top for centre in view.centres] if view.phase == "play" else []
        cards: list[Button] = []
        choices: list[Button] = []
        for index, pile in enumerate(view.seats[seat].piles):
            if pile.top is None:
                cards.append(nothing)
                choices.append(nothing)
                continue
            label = card_label(t, pile.top)
            where = [j for j, top in enumerate(tops) if top is not None and fits(pile.top, top)]
            if len(where) == 2:
                cards.append(Button(f"{label} {LEFT}", press(index, 0)))
                choices.append(Button(f"{label} {RIGHT}", press(index, 1)))
                continue
            shown = f"{label} {FITS}" if where else label
            cards.append(Button(shown, press(index, where[0] if where else None)))
            choices.append(nothing)
        second: tuple[Button, ...] = tuple(choices)
        if view.phase in ("ready", "stall"):
            other = seat_name(t, snapshot, 1 - seat)
            second = (Button(t("davayka.button_waiting", other=other), IdlePress().encode()),)
            for code, action in legal:
                if isinstance(action, Ready):
                    second = (Button(t("davayka.button_ready"), _act(snapshot, code)),)
                elif isinstance(action, Flip):
                    second = (Button(t("davayka.button_flip"), _act(snapshot, code)),)
        return (tuple(cards), second)


def _centre_now(t: Translator, view: DavaykaView) -> str | None:
    """ "Centre: 9♣ · 4♦." — the centre's tops as they are now (plain text, for an answer)."""
    tops = [card_label(t, c.top) for c in view.centres if c.top is not None]
    if view.phase not in ("play", "stall") or not tops:
        return None
    return t("davayka.answer_centre", tops=" · ".join(tops))


def _act(snapshot: GameSnapshot, code: str) -> str:
    return ActPress(snapshot.game_id, ANY_VERSION, code).encode()


RENDERER = DavaykaRenderer()
