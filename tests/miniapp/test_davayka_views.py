"""Trust in Davay-ka!'s page: at every state of many seeded random games, the JSON each reader
is sent (each seat's, and an onlooker's) names no card hidden from him — no face-down row card,
nothing of a stock — and offers the seat exactly its legal moves.

The hidden cards are computed from the engine's state, never from the view under test; the
games are driven through the engine as the bot drives them (presses in arrival order, the
deadlines polled between), a computer in one seat of some of them.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from random import Random

import orjson
import pytest

from bot.games.davayka.state import DavaykaState
from bot.games.engine import Event
from bot.games.registry import get_rules
from bot.i18n import translator
from bot.services.types import GameSnapshot
from bot.telegram.miniapp.views import page_view
from tests.miniapp.trust import card_codes
from tests.telegram.render.test_davayka import snapshot

RULES = get_rules("davayka")
SEEDS = range(30)
#: A game is long (hundreds of states): every state of every game is read by every reader.
MAX_STEPS = 3000
READERS_T = {"en": translator("en"), "ru": translator("ru")}


def hidden(state: DavaykaState) -> set[str]:
    """The face-down cards: under every row pile's top, and every stock."""
    cards = [card for row in state.rows for pile in row for card in pile[:-1]]
    cards += [card for stock in state.stocks for card in stock]
    return {card.code for card in cards}


def face_up(state: DavaykaState) -> set[str]:
    """What anyone may see: the rows' and the centre piles' top cards."""
    tops = [pile[-1] for row in state.rows for pile in row if pile]
    tops += [pile[-1] for pile in state.centres if pile]
    return {card.code for card in tops}


def playout(seed: int) -> Iterator[tuple[DavaykaState, tuple[Event, ...]]]:
    """Each state of one seeded game, with the events that led to it."""
    rng = Random(seed)
    now = 1_700_000_000.0 + seed
    options = {"countdown": 3, "idle_seconds": rng.choice((5, 10)), "forfeit_seconds": 120}
    state = RULES.new_game(2, options, rng, now)
    yield state, ()
    computer = seed % 3 == 0  # seat 1 plays as the computer does
    for _ in range(MAX_STEPS):
        if state.phase == "over":
            return
        seats = list(RULES.acting_seats(state))
        if not seats or rng.random() < 0.1:
            deadline = RULES.next_deadline(state)
            assert deadline is not None
            now = max(now + rng.uniform(0, 3), deadline if not seats else now)
            step = RULES.on_deadline(state, rng, now)
        else:
            seat = rng.choice(seats)
            legal = RULES.legal_actions(state, seat)
            action = (
                RULES.choose(state, seat, rng) if computer and seat == 1 else rng.choice(legal)
            )
            now += rng.uniform(0, 0.5)
            step = RULES.apply(state, seat, action, rng, now)
        state = step.state
        yield state, tuple(step.events)
    raise AssertionError(f"seed {seed} did not end in {MAX_STEPS} steps")


def snapshot_of(state: DavaykaState, recent: tuple[Event, ...], computer: bool) -> GameSnapshot:
    over = state.phase == "over"
    shown = snapshot(
        state,
        names=("Anna", None if computer else "Boris"),
        status="finished" if over else "playing",
        recent=recent,
    )
    if over:
        people = (0,) if computer else (0, 1)
        shown = replace(
            shown, ratings={seat: (1500, 1500 + 8 * (1 - 2 * seat)) for seat in people}
        )
    return shown


@pytest.mark.parametrize("seed", SEEDS)
def test_every_state_holds_no_hidden_card_for_any_reader_and_exactly_the_legal_moves(
    seed: int,
) -> None:
    computer = seed % 3 == 0
    recent: tuple[Event, ...] = ()
    states = 0
    language = "ru" if seed % 2 else "en"
    t = READERS_T[language]
    for state, events in playout(seed):
        states += 1
        recent = (recent + events)[-8:]
        shown = snapshot_of(state, recent, computer)
        secret, visible = hidden(state), face_up(state)
        readers: list[int | None] = [None, 0] if computer else [None, 0, 1]
        for reader in readers:
            frame = orjson.dumps(page_view(shown, reader, t, 1_700_000_000.0))
            view = orjson.loads(frame)
            named = card_codes(view)
            assert not named & secret, (seed, reader, named & secret)
            assert named <= visible, (seed, reader, named - visible)
            legal = [] if reader is None else RULES.legal_actions(state, reader)
            expected = [RULES.encode_action(action) for action in legal]
            assert [move["code"] for move in view["moves"]] == expected, (seed, reader)
            if reader is not None:
                assert view["seat"] == reader
        if state.phase == "over":
            assert view["result"] is not None and view["result"]["lines"]
    assert states > 20, "a real game, not a deal and its end"
    if computer:
        # Against the computer the other row has a name, as the chat's table numbers it.
        assert view["names"] == ["Anna", "🤖 " + t("seat.computer", n=1)]


def test_an_onlookers_view_is_the_public_table_and_offers_nothing() -> None:
    """A reader with no seat: both rows' tops and counts, no plays, no Ready or «Давай-ка!»."""
    for state, _ in playout(1):
        if state.phase == "play" and any(RULES.legal_actions(state, s) for s in (0, 1)):
            break
    view = page_view(snapshot_of(state, (), False), None, translator("en"), 0.0)
    assert view["seat"] is None and view["moves"] == []
    assert view["plays"] == {} and not view["can_ready"] and not view["can_flip"]
    assert [[pile["top"] for pile in row] for row in view["rows"]] == [
        [pile[-1].code if pile else None for pile in row] for row in state.rows
    ]
    assert [[pile["down"] for pile in row] for row in view["rows"]] == [
        [max(0, len(pile) - 1) for pile in row] for row in state.rows
    ]
    assert view["stocks"] == [len(stock) for stock in state.stocks]
