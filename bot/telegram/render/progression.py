"""Progression's table and panel.

The group table shows every player's private stacks (ranks after the suit symbol, each stack's
running score), the middle's public stacks (top card in bold), the draw pile and the match
totals; between deals and at the end it shows the finished deal's score sheet instead.

A waiting player's panel shows his own stacks and hand, which only his own turns change; the
player to move also sees the draw pile, the others' stacks and the middle. The panel plays a
turn in few presses: a card (which opens the ``card.<code>`` screen), then where it goes (only
the legal places) — or, for a card that fits none of his own stacks, one press that plays it to
the middle; in the take phase one press takes from the draw pile or from a public stack
(only the legal sources). In a private chat (a game against the computer) the table is right
above the panel, in the same message: the panel then keeps to the hand and what to do.

Between deals the next deal starts when the pause ends or when everyone has pressed Next. The
panel offers the Next button to a player who has not pressed it; once he has, it names the
people still awaited instead. The table says who is ready. Every line that mentions the button
quotes its label; computers (and people on autopilot) press by themselves and are never named
as awaited or ready.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from bot.games.cards import SUITS, Card, Suit, parse_card
from bot.games.progression import (
    BETWEEN_DEALS_SECONDS,
    NextDeal,
    PlayCard,
    ProgressionView,
    ScoreSheet,
    TakeCard,
    stack_score,
)
from bot.i18n import Translator
from bot.services.types import GameSnapshot
from bot.telegram.callbacks import ANY_VERSION, ActPress, ScreenPress
from bot.telegram.render.common import (
    card_label,
    cards_label,
    private_game,
    rank_label,
    seat_name,
    seat_names,
    suit_label,
)
from bot.telegram.render.content import Button, Keyboard, rows

#: The sub-screen after choosing a card: ``card.7h`` — where does the seven of hearts go?
CARD_SCREEN = "card."
MAIN_SCREEN = "main"

PHASE_PLAY = "play"
PHASE_TAKE = "take"
PHASE_BETWEEN = "between_deals"
PHASE_OVER = "over"


def points(value: int) -> str:
    """A total: ``87``, ``−16`` — a minus sign (U+2212), as every other number the bot shows
    below zero, never the hyphen ``str`` gives."""
    return f"−{-value}" if value < 0 else str(value)


def signed(value: int) -> str:
    """A score with its sign: ``+33``, ``−20``, ``0``."""
    return f"+{value}" if value > 0 else points(value)


def change(value: int) -> str:
    """What a play changes: ``+20``, ``−10``, ``±0``."""
    return signed(value) if value else "±0"


def _ranks(t: Translator, stack: Sequence[Card]) -> str:
    return " ".join(rank_label(t, c.rank) for c in stack)


def stack_lines(
    t: Translator, stacks: Sequence[Sequence[Card]], scores: Sequence[int]
) -> list[str]:
    """One line per non-empty private stack: ``♠ K J 2 6 7 8 → +33``."""
    lines = [
        t("progression.stack", suit=suit_label(suit), cards=_ranks(t, stack), score=signed(score))
        for suit, stack, score in zip(SUITS, stacks, scores, strict=True)
        if stack
    ]
    return lines or [t("progression.no_stacks")]


def _middle_lines(t: Translator, public: Sequence[Sequence[Card]]) -> list[str]:
    lines = []
    for suit, stack in zip(SUITS, public, strict=True):
        if stack:
            below = _ranks(t, stack[:-1])
            top = rank_label(t, stack[-1].rank)
            cards = f"{below} <b>{top}</b>" if below else f"<b>{top}</b>"
            lines.append(t("progression.middle_stack", suit=suit_label(suit), cards=cards))
    return lines or [t("progression.middle_empty")]


def _inline_stacks(t: Translator, stacks: Sequence[Sequence[Card]]) -> str:
    """A player's stacks on one line: ``♠ 5 9 · ♥ A K``."""
    parts = [
        f"{suit_label(suit)} {_ranks(t, stack)}"
        for suit, stack in zip(SUITS, stacks, strict=True)
        if stack
    ]
    return " · ".join(parts) or t("progression.no_stacks_short")


def _middle_tops(t: Translator, public: Sequence[Sequence[Card]]) -> str:
    tops = [card_label(t, stack[-1]) for stack in public if stack]
    return " ".join(tops) or t("progression.middle_empty_short")


def _standings(t: Translator, snapshot: GameSnapshot, totals: Sequence[int]) -> list[str]:
    order = sorted(range(len(totals)), key=lambda seat: (-totals[seat], seat))
    return [
        t(
            "progression.standing",
            place=1 + sum(1 for other in totals if other > totals[seat]),
            name=seat_name(t, snapshot, seat),
            total=points(totals[seat]),
        )
        for seat in order
    ]


def _sheet_lines(t: Translator, snapshot: GameSnapshot, sheet: ScoreSheet) -> list[str]:
    lines = [t("progression.sheet_title", deal=sheet.deal)]
    for seat, row in enumerate(sheet.rows):
        lines += [
            "",
            t(
                "progression.sheet_player",
                name=seat_name(t, snapshot, seat),
                score=signed(row.deal_score),
                total=points(row.total),
            ),
            *stack_lines(t, row.stacks, row.stack_scores),
        ]
    return lines


def _doing(t: Translator, snapshot: GameSnapshot, view: ProgressionView) -> str:
    """What the player to move is doing, in words."""
    if view.to_move is None:
        return ""
    name = seat_name(t, snapshot, view.to_move)
    if view.phase == PHASE_PLAY:
        return t("progression.doing_play", name=name)
    if view.must_draw:
        return t("progression.doing_must_draw", name=name)
    return t("progression.doing_take", name=name)


class ProgressionRenderer:
    def table(self, t: Translator, snapshot: GameSnapshot, now: float) -> list[str]:
        view: ProgressionView = snapshot.public
        if view.phase in (PHASE_BETWEEN, PHASE_OVER) and view.sheet is not None:
            lines = _sheet_lines(t, snapshot, view.sheet)
            # The winner is announced by the log (the match_won event) and the results below.
            if not view.finished and snapshot.status == "playing":
                lines += ["", *self._pause_lines(t, snapshot, view)]
            return lines
        lines = [
            t("progression.deal", deal=view.deal, target=view.target),
            t.plural("progression.draw_pile", view.draw_size),
        ]
        doing = _doing(t, snapshot, view) if snapshot.status == "playing" else None
        if doing:
            lines.append(doing)
        for seat, stacks in enumerate(view.private_stacks):
            marker = "👉 " if seat == view.to_move else ""
            lines += [
                "",
                marker
                + t(
                    "progression.player",
                    name=seat_name(t, snapshot, seat),
                    total=points(view.totals[seat]),
                    score=signed(view.deal_scores[seat]),
                ),
                *stack_lines(t, stacks, view.stack_scores[seat]),
            ]
        lines += ["", t("progression.middle"), *_middle_lines(t, view.public_stacks)]
        return lines

    @staticmethod
    def _pause_lines(t: Translator, snapshot: GameSnapshot, view: ProgressionView) -> list[str]:
        lines = []
        best = max(view.totals)
        if best >= view.target:
            lines.append(t("progression.tie", total=points(best)))
        return [*lines, _next_soon(t, view), *_ready_line(t, snapshot, view)]

    def panel(
        self, t: Translator, snapshot: GameSnapshot, seat: int, screen: str | None
    ) -> tuple[list[str], Keyboard]:
        view: ProgressionView = snapshot.views[seat]
        legal = snapshot.legal.get(seat, ())
        if view.phase in (PHASE_BETWEEN, PHASE_OVER) and view.sheet is not None:
            return self._pause_panel(t, snapshot, view, legal)
        if not legal:
            return self._waiting_lines(t, snapshot, view, seat), ()
        lines = self._state_lines(t, snapshot, view, seat)

        def show(name: str) -> str:
            return ScreenPress(snapshot.game_id, snapshot.version, name).encode()

        plays: dict[Card, dict[bool, str]] = {}
        takes: list[tuple[str, TakeCard]] = []
        for code, action in legal:
            if isinstance(action, PlayCard):
                plays.setdefault(action.card, {})[action.public] = code
            elif isinstance(action, TakeCard):
                takes.append((code, action))

        chosen = _chosen_card(screen)
        if chosen is not None and chosen in plays:
            lines.append(t("progression.prompt_where", card=card_label(t, chosen)))
            suit = chosen.suit
            assert suit is not None
            places = []
            own = plays[chosen].get(False)
            if own is not None:
                stack = view.private_stacks[seat][suit.order]
                gain = stack_score((*stack, chosen)) - stack_score(stack)
                label = t("progression.button_own", suit=suit_label(suit), change=change(gain))
                places.append(Button(label, _press(snapshot, own)))
            public = plays[chosen].get(True)
            if public is not None:
                label = t("progression.button_middle", suit=suit_label(suit))
                places.append(Button(label, _press(snapshot, public)))
            back = Button(t("button.back"), show(MAIN_SCREEN))
            return lines, (tuple(places), (back,))

        if plays:
            fits = [c for c in view.hand or () if False in plays.get(c, {})]
            if fits:
                lines.append(t("progression.fits", cards=cards_label(t, fits)))
            lines.append(t("progression.prompt_play"))
            cards = [
                _card_button(t, snapshot, c, plays[c], show) for c in view.hand or () if c in plays
            ]
            return lines, rows(cards, 5)

        if takes:
            middle = any(action.suit is not None for _, action in takes)
            lines.append(self._take_prompt(t, view, middle))
            draw = [
                Button(t("progression.button_draw", n=view.draw_size), _press(snapshot, code))
                for code, action in takes
                if action.suit is None
            ]
            public_tops = [
                Button(card_label(t, _top(view, action.suit)), _press(snapshot, code))
                for code, action in takes
                if action.suit is not None
            ]
            return lines, tuple(row for row in (tuple(draw), tuple(public_tops)) if row)
        return lines, ()

    @staticmethod
    def _take_prompt(t: Translator, view: ProgressionView, middle: bool) -> str:
        played = view.just_played
        where = ""
        if played is not None:
            key = "you_played_middle" if view.played_public else "you_played_own"
            where = t(f"progression.{key}", card=card_label(t, played)) + " "
        if view.must_draw:
            return where + t("progression.prompt_must_draw")
        return where + t("progression.prompt_take" if middle else "progression.prompt_draw")

    #: Who is ready for the next deal is the pause's own line, not news for the log.
    quiet_events = frozenset({"progression.next"})

    def pausing(self, snapshot: GameSnapshot) -> bool:
        """Between deals nobody is to move: those yet to press Next are not "to move"."""
        view: ProgressionView = snapshot.public
        return view.phase == PHASE_BETWEEN

    def waits(self, snapshot: GameSnapshot, seat: int) -> bool:
        # Between deals a player who has pressed Next is told whom the deal waits for.
        view: ProgressionView = snapshot.public
        return view.phase != PHASE_BETWEEN

    @staticmethod
    def _waiting_lines(
        t: Translator, snapshot: GameSnapshot, view: ProgressionView, seat: int
    ) -> list[str]:
        """His stacks and hand: what the others' turns leave alone."""
        if private_game(snapshot):
            return [_hand_line(t, view)]  # the table right above shows his stacks
        return [
            t("progression.deal", deal=view.deal, target=view.target),
            "",
            t(
                "progression.your_stacks",
                total=points(view.totals[seat]),
                score=signed(view.deal_scores[seat]),
            ),
            *stack_lines(t, view.private_stacks[seat], view.stack_scores[seat]),
            "",
            _hand_line(t, view),
        ]

    @staticmethod
    def _state_lines(
        t: Translator, snapshot: GameSnapshot, view: ProgressionView, seat: int
    ) -> list[str]:
        if private_game(snapshot):
            # The table right above shows the deal, the stacks, the middle and the draw pile.
            return [_hand_line(t, view)]
        lines = [
            t("progression.deal", deal=view.deal, target=view.target),
            t.plural("progression.draw_pile", view.draw_size),
            "",
            t(
                "progression.your_stacks",
                total=points(view.totals[seat]),
                score=signed(view.deal_scores[seat]),
            ),
            *stack_lines(t, view.private_stacks[seat], view.stack_scores[seat]),
        ]
        for other, stacks in enumerate(view.private_stacks):
            if other != seat:
                lines.append(
                    t(
                        "progression.other",
                        name=seat_name(t, snapshot, other),
                        score=signed(view.deal_scores[other]),
                        stacks=_inline_stacks(t, stacks),
                    )
                )
        lines += [
            t("progression.middle_tops", cards=_middle_tops(t, view.public_stacks)),
            "",
            _hand_line(t, view),
        ]
        return lines

    @staticmethod
    def _pause_panel(
        t: Translator,
        snapshot: GameSnapshot,
        view: ProgressionView,
        legal: tuple[tuple[str, object], ...],
    ) -> tuple[list[str], Keyboard]:
        sheet = view.sheet
        assert sheet is not None and view.seat is not None
        if private_game(snapshot):
            # The table right above shows the sheet, the next deal and who is ready.
            return ProgressionRenderer._pause_buttons(t, snapshot, view, legal, [])
        row = sheet.rows[view.seat]
        lines = [
            t("progression.sheet_title", deal=sheet.deal),
            t("progression.you_scored", score=signed(row.deal_score), total=points(row.total)),
            *stack_lines(t, row.stacks, row.stack_scores),
            "",
            t("progression.standings", target=view.target),
            *_standings(t, snapshot, view.totals),
        ]
        if view.finished:
            return lines, ()
        lines.append("")
        if not view.ready[view.seat]:
            lines += [_next_soon(t, view), *_ready_line(t, snapshot, view)]
        return ProgressionRenderer._pause_buttons(t, snapshot, view, legal, lines)

    @staticmethod
    def _pause_buttons(
        t: Translator,
        snapshot: GameSnapshot,
        view: ProgressionView,
        legal: tuple[tuple[str, object], ...],
        lines: list[str],
    ) -> tuple[list[str], Keyboard]:
        """Between deals: the Next button, or — once pressed — whom the deal waits for."""
        assert view.seat is not None
        if view.finished:
            return lines, ()
        if view.ready[view.seat]:
            return [*lines, _waiting_line(t, snapshot, view)], ()
        buttons = [
            # "I am ready" means the same after the others' presses (the rules say so): the
            # keyboard stays as it is — no edit for a version number alone.
            Button(_next_button(t, view), ActPress(snapshot.game_id, ANY_VERSION, code).encode())
            for code, action in legal
            if isinstance(action, NextDeal)
        ]
        return lines, rows(buttons, 1)


def _hand_line(t: Translator, view: ProgressionView) -> str:
    return t("progression.your_hand", cards=cards_label(t, view.hand or ()))


def _next_button(t: Translator, view: ProgressionView) -> str:
    """The Next button's label, which every line about the pause quotes word for word."""
    return t("progression.button_next", deal=view.deal + 1)


def _next_soon(t: Translator, view: ProgressionView) -> str:
    return t(
        "progression.next_soon",
        deal=view.deal + 1,
        seconds=round(BETWEEN_DEALS_SECONDS),
        button=_next_button(t, view),
    )


def _people(snapshot: GameSnapshot, view: ProgressionView, *, ready: bool) -> list[int]:
    """The seats of the people who have (or have not) pressed Next. A computer, or the computer
    playing for a person who is away, presses by itself: nobody waits for it."""
    return [
        info.seat
        for info in snapshot.seats
        if not info.played_by_computer and view.ready[info.seat] == ready
    ]


def _ready_line(t: Translator, snapshot: GameSnapshot, view: ProgressionView) -> list[str]:
    ready = _people(snapshot, view, ready=True)
    return (
        [t("progression.ready", players=seat_names(t, snapshot, ready, marker=False))]
        if ready
        else []
    )


def _waiting_line(t: Translator, snapshot: GameSnapshot, view: ProgressionView) -> str:
    """For a player who has pressed Next: whom the deal still waits for."""
    awaited = _people(snapshot, view, ready=False)
    if not awaited:
        # Only computers are left, and they press in a moment.
        return t("progression.waiting_moment", deal=view.deal + 1)
    return t.plural(
        "progression.waiting_for",
        len(awaited),
        players=seat_names(t, snapshot, awaited, marker=False),
        button=_next_button(t, view),
        deal=view.deal + 1,
        seconds=round(BETWEEN_DEALS_SECONDS),
    )


def _press(snapshot: GameSnapshot, code: str) -> str:
    return ActPress(snapshot.game_id, snapshot.version, code).encode()


def _card_button(
    t: Translator,
    snapshot: GameSnapshot,
    card: Card,
    places: dict[bool, str],
    show: Callable[[str], str],
) -> Button:
    """A card of the hand: it opens the choice of place, or — when the middle is the only
    place it may go — plays it there at once (one press, and the button says where)."""
    own, public = places.get(False), places.get(True)
    if own is None and public is not None:
        label = t("progression.button_to_middle", card=card_label(t, card))
        return Button(label, _press(snapshot, public))
    return Button(card_label(t, card), show(CARD_SCREEN + card.code))


def _top(view: ProgressionView, suit: Suit) -> Card:
    return view.public_stacks[suit.order][-1]


def _chosen_card(screen: str | None) -> Card | None:
    if not screen or not screen.startswith(CARD_SCREEN):
        return None
    try:
        return parse_card(screen[len(CARD_SCREEN) :])
    except ValueError:
        return None


RENDERER = ProgressionRenderer()
