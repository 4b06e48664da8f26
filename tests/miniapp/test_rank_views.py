"""What a Rank page is sent (issue #37): every state of many seeded games, for every reader.

Played through the engine (random legal moves, and now and then a window closing), each state
is drawn as the bot draws it for each seat and for an onlooker, and the JSON (exactly as the
socket writes it, with orjson) must hold no card hidden from its reader — none of another
seat's hand, none of the stock — computed from the state itself; the moves it offers must be
exactly the seat's legal actions; and what the page draws (the pile, the counts, the race, the
drawn card) must be the reader's view of the state.
"""

from __future__ import annotations

import contextlib
from dataclasses import replace
from random import Random
from typing import Any

import orjson
import pytest

from bot.games.cards import JOKER_CODE, parse_card
from bot.games.engine import Event
from bot.games.rank import RankState
from bot.games.registry import get_rules
from bot.i18n import translator
from bot.services.games import RECENT_EVENTS
from bot.services.types import GameSnapshot
from bot.telegram.miniapp.views import page_view
from tests.miniapp.trust import strings
from tests.telegram.render.test_render import NOW
from tests.telegram.render.test_render import snapshot as render_snapshot

RANK = get_rules("rank")
LANGUAGES = ("en", "ru", "uk", "hr")
NAMES = ("Anna", "Boris", None, "Dan", "Eve", "Fay")  # seat 2 is a computer
#: Each game's steps at most: with the round limit of 25, most games end well before.
STEPS = 260


def snapshot(state: RankState, recent: tuple[Event, ...], events: tuple[Event, ...]) -> Any:
    """The game as the bot's snapshot of it holds it (see bot/services/snapshots.py): the
    render tests' game, with its log, its deadline and, once over, the ratings' changes."""
    outcome = RANK.outcome(state)
    return replace(
        render_snapshot(
            state,
            names=NAMES[: state.players],
            status="finished" if outcome is not None else "playing",
        ),
        version=len(recent) + 1,
        options={"turn_seconds": 60, "round_limit": 25},
        deadline_at=RANK.next_deadline(state),
        recent=recent,
        events=events,
        ratings={0: (1500, 1512), 1: (1500, 1488)} if outcome is not None else {},
    )


def codes_in(value: Any) -> set[str]:
    """Every card the JSON names: a string that is a card's code, or the card of a move's
    code (``"p7h"``)."""
    found: set[str] = set()
    for value_text in strings(value):
        for text in (value_text, value_text[1:]) if value_text[:1] == "p" else (value_text,):
            with contextlib.suppress(KeyError, ValueError, IndexError):
                found.add(parse_card(text).code)
    return found


def hidden_from(state: RankState, seat: int | None) -> set[str]:
    """The cards ``seat`` may not see, from the state: the others' hands and the stock —
    but for those his own hand and the pile's top show anyway (two decks: two of a card)."""
    hidden = {c.code for c in state.stock}
    hidden |= {c.code for other, hand in enumerate(state.hands) if other != seat for c in hand}
    return hidden - visible_to(state, seat)


def visible_to(state: RankState, seat: int | None) -> set[str]:
    shown = {c.code for c in state.hands[seat]} if seat is not None else set()
    return shown | ({state.top.code} if state.top is not None else set())


def check(state: RankState, shown: GameSnapshot, seat: int | None, language: str) -> None:
    frame = orjson.loads(orjson.dumps(page_view(shown, seat, translator(language), NOW)))
    named = codes_in(frame)
    # No card hidden from the reader: only his own hand and the pile's top are named.
    assert named <= visible_to(state, seat), (seat, named - visible_to(state, seat))
    assert not named & hidden_from(state, seat)
    if seat is None:
        assert frame["moves"] == [] and frame["hand"] == [] and frame["drawn"] is None
    else:
        legal = RANK.legal_actions(state, seat) if seat in RANK.acting_seats(state) else ()
        assert sorted(m["code"] for m in frame["moves"]) == sorted(
            RANK.encode_action(a) for a in legal
        )
        assert frame["hand"] == [c.code for c in state.hands[seat]]
        drawn = state.drawn if state.turn == seat and state.phase == "drawn" else None
        assert frame["drawn"] == (None if drawn is None else drawn.code)
        assert frame["jokers"] == any(m["kind"] == "play_joker" for m in frame["moves"])
    # The table as the reader's view of the state has it, beside (not over) the shell's part.
    assert frame["status"] == shown.status and frame["seat"] == seat
    assert frame["top"] == (None if state.top is None else state.top.code)
    assert frame["sizes"] == [len(hand) for hand in state.hands]
    assert frame["stock"] == len(state.stock) and frame["discard"] == len(state.discard)
    assert frame["out"] == list(state.out) and frame["turn"] == state.turn
    assert len(frame["standing"]) == len(frame["places"]) == state.players
    if state.named_rank is not None:
        assert frame["named"] and frame["named"] in "A23456789TJQK"
    assert str(state.round) in frame["round"] and str(state.round_limit) in frame["round"]


@pytest.mark.parametrize("players", [2, 3, 4, 6])
def test_every_state_of_many_games_shows_each_reader_only_his_own(players: int) -> None:
    jokers = named = drawn = finished = 0
    for seed in range(6 if players < 6 else 3):
        rng = Random(1000 * players + seed)
        state = RANK.new_game(players, {"round_limit": 25}, rng, NOW)
        recent: tuple[Event, ...] = ()
        events: tuple[Event, ...] = ()
        for step_number in range(STEPS):
            shown = snapshot(state, recent, events)
            language = LANGUAGES[step_number % len(LANGUAGES)]
            for seat in (*range(players), None):
                if seat is not None and NAMES[seat] is None:
                    continue  # a computer has no page
                check(state, shown, seat, language)
            if RANK.outcome(state) is not None:
                finished += 1
                break
            jokers += any(c.code == JOKER_CODE for hand in state.hands for c in hand)
            named += state.named_rank is not None
            drawn += state.phase == "drawn"
            seat = RANK.acting_seats(state)[0]
            if rng.random() < 0.05:
                step = RANK.on_deadline(state, rng, NOW)  # the window closed
            else:
                action = rng.choice(RANK.legal_actions(state, seat))
                step = RANK.apply(state, seat, action, rng, NOW)
            state, events = step.state, tuple(step.events)
            public = tuple(e for e in events if e.only_seat is None)
            recent = (*recent, *public)[-RECENT_EVENTS:]
    # The games went through what the page must keep to itself: jokers, named ranks, draws.
    assert jokers and named and drawn and finished


def test_a_seat_with_a_joker_is_offered_every_rank_and_an_onlooker_sees_the_named_one() -> None:
    state = RankState(
        hands=(
            tuple(parse_card(c) for c in ("Jh", JOKER_CODE)),
            tuple(parse_card(c) for c in ("Ks", "2d")),
        ),
        stock=tuple(parse_card(c) for c in ("2c", "3c")),
        discard=(parse_card("8c"),),
        opened=NOW,
    )
    anna = page_view(snapshot(state, (), ()), 0, translator("ru"), NOW)
    assert sorted(m["code"] for m in anna["moves"] if m["kind"] == "play_joker") == sorted(
        f"j{r}" for r in "A23456789TJQK"
    )
    assert anna["jokers"] and anna["prompt"] and anna["hand"] == ["Jh", JOKER_CODE]
    joker = RANK.decode_action("jQ")
    played = RANK.apply(state, 0, joker, Random(0), NOW).state
    onlooker = page_view(snapshot(played, (), ()), None, translator("hr"), NOW)
    assert onlooker["top"] == JOKER_CODE and onlooker["named"] == "Q"
    assert onlooker["standing"][0] == "1 karta" and onlooker["hand"] == []
    boris = page_view(snapshot(played, (), ()), 1, translator("en"), NOW)
    assert boris["moves"] == [] and boris["prompt"] is None
    # After the joker Anna may add a card next to the queen she named, or end her turn.
    anna = page_view(snapshot(played, (), ()), 0, translator("en"), NOW)
    assert {m["code"] for m in anna["moves"]} == {"pJh", "e"}
    assert anna["phase"] == "follow" and "Q" in anna["prompt"]


def test_a_drawn_card_is_the_drawers_alone() -> None:
    state = RankState(
        hands=(
            tuple(parse_card(c) for c in ("4h", "Ts")),
            tuple(parse_card(c) for c in ("Ks", "2d")),
        ),
        stock=tuple(parse_card(c) for c in ("2c", "9c")),
        discard=(parse_card("8c"),),
        opened=NOW,
    )
    drew = RANK.apply(state, 0, RANK.decode_action("d"), Random(0), NOW).state
    assert drew.phase == "drawn"
    shown = snapshot(drew, (), ())
    anna = page_view(shown, 0, translator("en"), NOW)
    assert anna["drawn"] == "9c" and "9c" in anna["hand"]
    assert {m["code"] for m in anna["moves"]} == {"p9c", "k"}
    for reader in (1, None):
        frame = orjson.dumps(page_view(shown, reader, translator("en"), NOW))
        assert b"9c" not in frame
