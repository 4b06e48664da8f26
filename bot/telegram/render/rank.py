"""Rank's table and panel.

Every panel shows the player's hand and his own status (out, or his last card pending), and
— while he still plays — what the table shows, in two lines: the top card, and how many cards
each of the others holds, in turn order from him (the one to move marked 👉). With up to ten
players, one waits through several moves and plans his next turn meanwhile, so unlike the
other games' panels a waiting one here follows the others' moves: an edit of his private
chat, which the sender coalesces (the newest state only, at most about one a second) and puts
after the mover's panel. The acting player's panel adds whose last card his move settles,
the prompt, and exactly the legal moves: playable cards, the joker (which opens a rank
picker, then the follow-up cards or End turn), Draw, then the drawn card or Keep, or Pass.
In a private chat the table is right above the panel, in the same message: the panel leaves
the top card and the others to it.
"""

from __future__ import annotations

from typing import Any

from bot.games.rank import Draw, EndTurn, Keep, Pass, Play, PlayJoker, RankView
from bot.i18n import Translator
from bot.services.types import GameSnapshot
from bot.telegram.callbacks import ActPress, ScreenPress
from bot.telegram.render.common import (
    a_rank,
    card_label,
    cards_label,
    private_game,
    rank_label,
    seat_name,
)
from bot.telegram.render.content import Button, Keyboard, rows

#: The order of the joker's rank picker: the rank ring from the ace.
RING = (14, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13)
JOKER_SCREEN = "joker"


def _top(t: Translator, view: RankView) -> str:
    if view.top is None:
        return "—"
    if view.named_rank is not None:
        return t(
            "rank.top_named", card=card_label(t, view.top), rank=rank_label(t, view.named_rank)
        )
    return card_label(t, view.top)


def seat_status(t: Translator, view: RankView, seat: int) -> str:
    """What the table says of a seat (the chat's and the Mini App's): its cards, or out and
    where, or a last card."""
    if seat in view.out:
        return t("rank.status_out", place=view.out.index(seat) + 1)
    if view.pending == seat:
        return t("rank.status_pending")
    return t.plural("rank.cards", view.hand_sizes[seat])


class RankRenderer:
    def table(self, t: Translator, snapshot: GameSnapshot, now: float) -> list[str]:
        """The top card and the piles, then the players as the race they are: by the place
        each would take if the game stopped now (most games end at the round limit, fewest
        cards first) — whose turn it is marked; the turn order is each panel's to show."""
        view: RankView = snapshot.public
        lines = [
            t("rank.round", round=view.round, limit=view.round_limit),
            t("rank.top", top=_top(t, view)),
            t("rank.piles", stock=view.stock_size, discard=view.discard_size),
            "",
        ]
        if not view.finished:
            lines.append(t("rank.race", limit=view.round_limit))
        places = view.race()
        for seat in sorted(range(view.players), key=lambda s: (places[s], s)):
            marker = "👉 " if seat == view.turn else ""
            status = t("rank.status_no_cards") if seat in view.out else seat_status(t, view, seat)
            lines.append(f"{places[seat]}. {marker}{seat_name(t, snapshot, seat)} — {status}")
        return lines

    def panel(
        self, t: Translator, snapshot: GameSnapshot, seat: int, screen: str | None
    ) -> tuple[list[str], Keyboard]:
        view: RankView = snapshot.views[seat]
        lines = [t("rank.your_hand", cards=cards_label(t, view.hand))]
        if seat in view.out:
            lines.append(t("rank.you_are_out", place=view.out.index(seat) + 1))
        elif view.pending == seat:
            lines.append(t("rank.you_are_pending"))
        legal = snapshot.legal.get(seat, ())
        if not private_game(snapshot) and not view.finished and seat not in view.out:
            # What the table shows, for his next turn; in a private chat the table is right
            # above. A player out for good has no turn to plan.
            lines.append(t("rank.top", top=_top(t, view)))
            lines.append(self._others(t, snapshot, view, seat))
        if not legal:
            return lines, ()
        if view.pending is not None and view.pending != seat:
            lines.append(t("rank.pending_other", player=seat_name(t, snapshot, view.pending)))

        def press(code: str) -> str:
            return ActPress(snapshot.game_id, snapshot.version, code).encode()

        jokers = [code for code, a in legal if isinstance(a, PlayJoker)]
        if screen == JOKER_SCREEN and jokers:
            lines.append(t("rank.pick_rank"))
            by_rank = {a.rank: code for code, a in legal if isinstance(a, PlayJoker)}
            buttons = [Button(rank_label(t, r), press(by_rank[r])) for r in RING if r in by_rank]
            back = Button(
                t("button.back"), ScreenPress(snapshot.game_id, snapshot.version, "main").encode()
            )
            return lines, (*rows(buttons, 5), (back,))
        lines.append(self.prompt(t, view, [a for _, a in legal]))
        cards = [
            Button(card_label(t, a.card), press(code)) for code, a in legal if isinstance(a, Play)
        ]
        keyboard = list(rows(cards, 4))
        extra: list[Button] = []
        if jokers:
            extra.append(
                Button(
                    t("rank.button_joker"),
                    ScreenPress(snapshot.game_id, snapshot.version, JOKER_SCREEN).encode(),
                )
            )
        for code, action in legal:
            label = _simple_label(t, action)
            if label:
                extra.append(Button(label, press(code)))
        if extra:
            keyboard.append(tuple(extra))
        return lines, tuple(keyboard)

    def waits(self, snapshot: GameSnapshot, seat: int) -> bool:
        view: RankView = snapshot.views[seat]
        return seat not in view.out

    @staticmethod
    def _others(t: Translator, snapshot: GameSnapshot, view: RankView, seat: int) -> str:
        """The other players in turn order from the reader: cards held, out or pending; the
        one to move marked as on the table (a waiting reader sees how far his turn is)."""
        order = [(seat + step) % view.players for step in range(1, view.players)]
        players = " · ".join(
            f"{'👉 ' if other == view.turn else ''}{seat_name(t, snapshot, other)}"
            f" — {seat_status(t, view, other)}"
            for other in order
        )
        return t("rank.others", players=players)

    @staticmethod
    def prompt(t: Translator, view: RankView, actions: list[Any]) -> str:
        if view.phase == "drawn" and view.drawn is not None:
            return t("rank.prompt_drawn", card=card_label(t, view.drawn))
        if view.phase == "follow" and view.named_rank is not None:
            return t("rank.prompt_follow", rank=rank_label(t, view.named_rank))
        if any(isinstance(a, Draw) for a in actions):
            escapes = any(isinstance(a, (Play, PlayJoker)) for a in actions)
            return t("rank.prompt_escape" if escapes else "rank.prompt_draw")
        if any(isinstance(a, Pass) for a in actions):
            return t("rank.prompt_pass")
        current = (
            view.named_rank
            if view.named_rank is not None
            else (view.top.rank if view.top is not None else None)
        )
        if current is None:
            return t("rank.prompt_any")
        below, above = neighbours(current)
        return t("rank.prompt_play", below=a_rank(t, below), above=a_rank(t, above))


def neighbours(rank: int) -> tuple[int, int]:
    """The ranks next to ``rank`` on the ring A 2 … K A (aces are 14)."""
    position = RING.index(rank)
    return RING[position - 1], RING[(position + 1) % len(RING)]


def _simple_label(t: Translator, action: Any) -> str | None:
    if isinstance(action, Draw):
        return t("rank.button_draw")
    if isinstance(action, Keep):
        return t("rank.button_keep")
    if isinstance(action, EndTurn):
        return t("rank.button_end_turn")
    if isinstance(action, Pass):
        return t("rank.button_pass")
    return None


RENDERER = RankRenderer()
