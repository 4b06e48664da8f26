"""Rank's panel while the others move (issue #35, item 6): what the table shows, compactly.

A player waiting for his turn in a group game plans it: his panel shows the top card and how
many cards each of the others holds, in turn order from him with the one to move marked —
from his own view only, never another's card — and follows the others' moves. A player out
for good has no turn to plan; in a private chat the table right above shows it all.
"""

from __future__ import annotations

from random import Random

from bot.games.cards import parse_cards
from bot.games.rank import RANK, RankState
from bot.telegram.render import panel_content, solo_content
from bot.telegram.render.common import card_label
from tests.telegram.render.test_render import NOW, T, snapshot
from tests.telegram.render.test_solo import private_snapshot

FOUR = ("Anna", "Boris", "Carla", "Dan")
WAIT = "⏳ Not your turn — your move will show up here."


def four_players() -> RankState:
    """Anna (seat 0) to move on 8♣; Carla (seat 2) waits with two cards."""
    return RankState(
        hands=(
            parse_cards(["7h", "9s", "Kd"]),
            parse_cards(["Qc", "2d", "5h", "6h"]),
            parse_cards(["5s", "Jd"]),
            parse_cards(["3d"]),
        ),
        stock=parse_cards(["2c", "3c", "8d"]),
        discard=parse_cards(["8c"]),
        opened=NOW,
        turn_seconds=60,
    )


def test_a_waiting_panel_shows_the_top_card_and_the_others_in_turn_order() -> None:
    game = snapshot(four_players(), names=FOUR)
    waiting = panel_content(T, game, 2, NOW)
    lines = waiting.text.splitlines()
    assert "Your hand: 5♠ J♦️" in lines
    assert "On top: <b>8♣</b>" in lines
    # After Carla come Dan, Anna and Boris; Anna is to move.
    assert "Others: Dan — 1 card · 👉 Anna — 3 cards · Boris — 4 cards" in lines
    assert lines[-1] == WAIT and waiting.keyboard == ()
    # Only what her own view holds: nobody else's card.
    others = {card_label(T, c) for s in (0, 1, 3) for c in four_players().hands[s]}
    assert not others & set(waiting.text.replace("<b>", " ").replace("</b>", " ").split())


def test_a_waiting_panel_follows_the_others_moves() -> None:
    rank = four_players()
    before = panel_content(T, snapshot(rank, names=FOUR), 2, NOW)
    played = RANK.apply(rank, 0, RANK.decode_action("p7h"), Random(1), NOW).state
    after = panel_content(T, snapshot(played, names=FOUR), 2, NOW)
    assert RANK.acting_seats(played) == (1,)
    assert "On top: <b>7♥️</b>" in after.text
    assert "Others: Dan — 1 card · Anna — 2 cards · 👉 Boris — 4 cards" in after.text
    assert after != before and after.keyboard == ()


def test_the_acting_panel_shows_the_same_two_lines_above_its_prompt() -> None:
    lines = panel_content(T, snapshot(four_players(), names=FOUR), 0, NOW).text.splitlines()
    top = lines.index("On top: <b>8♣</b>")
    assert lines[top + 1] == "Others: Boris — 4 cards · Carla — 2 cards · Dan — 1 card"
    assert lines[top + 2] == "Play a 7 or a 9 (any suit)."


def test_a_player_out_for_good_is_not_shown_the_table() -> None:
    game = RankState(
        hands=(parse_cards(["7h"]), (), parse_cards(["5s"])),
        stock=parse_cards(["2c", "3c"]),
        discard=parse_cards(["8c"]),
        opened=NOW,
        out=(1,),
    )
    out = panel_content(T, snapshot(game, names=("Anna", "Boris", "Carla")), 1, NOW)
    assert "On top" not in out.text and "Others" not in out.text


def test_in_a_private_game_the_table_above_shows_the_top_card_once() -> None:
    rank = RankState(
        hands=(parse_cards(["7h", "9s"]), parse_cards(["Qc", "2d"])),
        stock=parse_cards(["2c", "3c"]),
        discard=parse_cards(["8c"]),
        opened=NOW,
        turn=1,  # the computer's move: the player waits
    )
    text = solo_content(T, private_snapshot("rank", rank), 0, NOW).text
    assert text.count("On top") == 1 and "Others:" not in text
