"""What Progression's Mini App page is sent: every stack and score, and never a hidden card.

Seeded random matches are played through the engine (turns, timeouts, the pauses between
deals) and, at every state, the page's JSON is built for each seat and for an onlooker. The
cards hidden from that reader are computed from the state itself (the others' hands, the
whole draw pile): none of them may be named in the JSON, by code or by the chat's label.
"""

from __future__ import annotations

from dataclasses import replace
from random import Random

import orjson
import pytest

from bot.games.cards import Card
from bot.games.engine import Event
from bot.games.progression import (
    NEXT,
    PROGRESSION,
    PlayCard,
    ProgressionState,
    build_state,
    score_sheet,
)
from bot.games.registry import get_rules
from bot.i18n import translator
from bot.services.types import GameSnapshot
from bot.telegram.miniapp.views import page_view, words
from bot.telegram.render.common import card_label
from tests.miniapp.trust import card_codes
from tests.telegram.render.test_progression import NOW, cards
from tests.telegram.render.test_progression import snapshot as render_snapshot

P = PROGRESSION
READERS: tuple[int | None, ...] = (0, 1, 2, None)


def snapshot(
    state: ProgressionState, *, recent: tuple[Event, ...] = (), status: str = "playing"
) -> GameSnapshot:
    """The render tests' game with three people (no computer), and a log of the public
    events only, as the services keep it."""
    game = render_snapshot(state, names=("Anna", "Boris", "Carla"), status=status)
    return replace(game, recent=tuple(e for e in recent if e.only_seat is None)[-8:])


def hidden_from(state: ProgressionState, reader: int | None) -> set[Card]:
    """What the reader may not see: every hand but his own, and the draw pile's cards."""
    hidden = set(state.draw)
    for seat, hand in enumerate(state.hands):
        if seat != reader:
            hidden.update(hand)
    return hidden


def check_page(
    shown: GameSnapshot,
    state: ProgressionState,
    reader: int | None,
    revealed: frozenset[Card] = frozenset(),
) -> None:
    """The page of ``reader`` names no hidden card: by code anywhere, nor in words unless the
    card was once ``revealed`` on a stack (the log may say who took it from there, or what
    was played in an earlier deal)."""
    t = translator("en")
    frame = page_view(shown, reader, t, NOW)
    data = orjson.dumps(frame)  # every state's view goes over the socket as it is
    text = data.decode()
    named = card_codes(orjson.loads(data))
    hidden = hidden_from(state, reader)
    leaked = {c.code for c in hidden} & named
    assert not leaked, f"seat {reader} is sent hidden cards {leaked}"
    for c in hidden - revealed:
        # Nor in words: a log line or a prompt naming a hidden card.
        assert orjson.dumps(card_label(t, c)).decode()[1:-1] not in text, (reader, c)
    legal = [code for code, _ in shown.legal.get(reader, ())] if reader is not None else []
    assert [move["code"] for move in frame["moves"]] == legal
    if reader is None:
        assert frame["hand"] is None and frame["plays"] == {}
    else:
        assert frame["hand"] == sorted(frame["hand"], key=lambda c: ("shdc".index(c[1]),))
        assert set(frame["hand"]) == {c.code for c in state.hands[reader]}
    assert frame["draw"] == len(state.draw)


def play_match(seed: int) -> int:
    """A whole match to 100 points by the computer's and random moves (and timeouts), checking
    every state for every reader; the number of states checked."""
    rules = get_rules("progression")
    rng = Random(seed)
    state = rules.new_game(3, {"target": 100, "turn_seconds": 60}, rng, NOW)
    recent: tuple[Event, ...] = ()
    revealed: set[Card] = set()
    for checked in range(1, 5000):
        # Every stack is public: a card once on one may be named by the log ever after.
        revealed.update(c for stack in state.public for c in stack)
        revealed.update(c for stacks in state.stacks for stack in stacks for c in stack)
        shown = snapshot(state, recent=recent)
        for reader in READERS:
            check_page(shown, state, reader, frozenset(revealed))
        if rules.outcome(state) is not None:
            over = snapshot(state, recent=recent, status="finished")
            for reader in READERS:
                check_page(over, state, reader, frozenset(revealed))
            return checked
        acting = rules.acting_seats(state)
        roll = rng.random()
        if roll < 0.05 or not acting:
            step = rules.on_deadline(state, rng, NOW)
        else:
            # Mostly as the computer plays (a match that scores, so it ends), now and then
            # any legal move at all.
            seat = rng.choice(acting)
            legal = rules.legal_actions(state, seat)
            action = rng.choice(legal) if roll < 0.25 else rules.choose(state, seat, rng)
            step = rules.apply(state, seat, action, rng, NOW)
        state = step.state
        recent = (*recent, *step.events)[-20:]
    raise AssertionError("the match did not end")


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_no_page_of_a_random_match_holds_a_card_hidden_from_its_reader(seed: int) -> None:
    assert play_match(seed) > 50


def test_a_seat_sees_its_hand_and_where_each_card_may_go_with_what_it_scores() -> None:
    state = build_state(
        [cards("2s 9s Kh 3d Ac"), cards("4s 5s 6s 7s 8s"), cards("4h 5h 6h 7h 8h")],
        stacks=[[cards("Ks 5s"), (), (), ()], [(), (), (), ()], [(), (), (), ()]],
        public=[(), cards("Th"), (), ()],
        draw=cards("2c 3c 4c 5c"),
        totals=(40, -10, 7),
        target=100,
        deal=3,
    )
    frame = page_view(snapshot(state), 0, translator("en"), NOW)
    assert frame["heading"] == "Deal 3 · to 100 points"
    assert frame["hand"] == ["2s", "9s", "Kh", "3d", "Ac"]
    # 2♠ does not go on the 5♠; 9♠ does: K 5 9 is 14, worth 2 × 2 = 4 more than K 5.
    assert frame["plays"]["2s"] == {"own": None, "middle": "u2s", "gain": None}
    assert frame["plays"]["9s"] == {"own": "m9s", "middle": "u9s", "gain": "+4"}
    assert frame["plays"]["Kh"]["gain"] == "−20"
    assert frame["stacks"][0][0] == ["Ks", "5s"] and frame["middle"][1] == ["Th"]
    assert frame["totals"] == [40, -10, 7] and frame["shown_totals"][1] == "−10"
    assert frame["draw"] == 4 and frame["hand_sizes"] == [5, 5, 5]
    # The others see Anna's stacks and the middle, but not her hand nor where it may go.
    boris = page_view(snapshot(state), 1, translator("en"), NOW)
    assert boris["stacks"][0][0] == ["Ks", "5s"] and boris["plays"] == {}
    assert "9s" not in orjson.dumps(boris).decode()


def test_the_take_phase_says_where_the_card_went_and_that_the_pile_must_be_drawn() -> None:
    state = build_state(
        [cards("2s 9s Kh 3d"), cards("4s 5s 6s 7s 8s"), cards("4h 5h 6h 7h 8h")],
        public=[cards("Ac"), cards("Th"), (), ()],
        draw=cards("2c 3c 4c 5c"),
        phase="take",
        just_played=cards("Ac")[0],
        played_public=True,
        no_draw_turns=3,
    )
    frame = page_view(snapshot(state), 0, translator("ru"), NOW)
    assert frame["must_draw"] is True
    assert [m["code"] for m in frame["moves"]] == ["d"]
    assert frame["played_line"] == "Ты кладёшь Т♣ в центр: её не взять обратно в этот ход."


def test_between_deals_the_score_sheet_and_who_is_ready_are_sent() -> None:
    ended = build_state(
        [(), (), ()],
        stacks=[
            [cards("Ks Js 2s 6s 7s 8s"), cards("Ah Kh"), (), cards("5c 9c")],
            [(), cards("Jh"), (), ()],
            [(), (), (), ()],
        ],
        draw=(),
        totals=(80, 20, 0),
    )
    sheet = score_sheet(ended)
    state = replace(
        ended, phase="between_deals", sheet=sheet, totals=(115, 0, 0), ready=(False, True, False)
    )
    frame = page_view(snapshot(state), 2, translator("hr"), NOW)
    rows = frame["sheet"]["rows"]
    # K J 2 6 7 8 → 33, A K → −30, 5 9 → 2: the rules' own worked examples.
    assert rows[0]["scores"] == ["+33", "−30", "0", "+2"]
    assert (rows[0]["before"], rows[0]["deal"], rows[0]["total"]) == ("80", "+5", "85")
    assert rows[1]["deal"] == "−20" and rows[1]["total"] == "0"
    assert frame["ready"] == [False, True, False]
    assert [m["kind"] for m in frame["moves"]] == ["next_deal"]
    assert frame["moves"][0]["label"]  # the panel's own words for the button
    said = words(translator("hr"), "progression")
    assert said["p_before_col"] == "Prije" and said["p_ready"] == "spreman"
    assert NEXT in P.legal_actions(state, 2)


def test_an_onlooker_is_sent_the_public_table_and_no_moves() -> None:
    state = build_state(
        [cards("2s 9s Kh 3d Ac"), cards("4s 5s 6s 7s 8s"), cards("4h 5h 6h 7h 8h")],
        draw=cards("2c 3c 4c 5c"),
    )
    frame = page_view(snapshot(state), None, translator("en"), NOW)
    assert frame["moves"] == [] and frame["hand"] is None
    assert frame["hand_sizes"] == [5, 5, 5] and frame["draw"] == 4
    assert isinstance(P.legal_actions(state, 0)[0], PlayCard)
