"""Your Trumps on a Mini App page: every frame of many played games shows each reader only
what he may see, offers exactly his legal moves, and says what the chat says."""

from __future__ import annotations

from collections.abc import Iterator
from random import Random
from typing import Any

import orjson
import pytest

from bot.games.cards import Card, Suit, parse_card
from bot.games.engine import DEALER, Event
from bot.games.trumps import TRUMPS, TrumpsState
from bot.games.trumps.rules import DECK52
from bot.i18n import translator
from bot.telegram.miniapp.views import page_view
from tests.miniapp.trust import card_codes
from tests.telegram.render.test_trumps import CARD_TEXT, NOW, position, snapshot

EN = translator("en")
READERS = (0, 1, None)


def label(card: Card) -> str:
    return EN("card.rank." + str(card.rank)) + (card.suit.symbol if card.suit else "")


def played_games(count: int) -> Iterator[tuple[TrumpsState, tuple[Event, ...], set[Card]]]:
    """Every state of ``count`` seeded games (a random player against the computer's choice,
    and now and then a closed window), with the log's last events and every card that has
    lain face up on the pile so far (what anyone may know of a hand: the cards taken)."""
    for number in range(count):
        rng = Random(number)
        options = {DECK52: number % 3 == 0, DEALER: number % 2}
        state = TRUMPS.new_game(2, options, rng, NOW)
        recent: tuple[Event, ...] = ()
        seen: set[Card] = set()
        yield state, recent, set(seen)
        while not state.finished:
            seat = state.to_move
            assert seat is not None
            roll = rng.random()
            if roll < 0.05:
                step = TRUMPS.on_deadline(state, rng, NOW)
            elif roll < 0.6:
                step = TRUMPS.apply(state, seat, TRUMPS.choose(state, seat, rng), rng, NOW)
            else:
                action = rng.choice(list(TRUMPS.legal_actions(state, seat)))
                step = TRUMPS.apply(state, seat, action, rng, NOW)
            state = step.state
            seen |= set(state.pile)
            recent = (*recent, *step.events)[-12:]
            yield state, recent, set(seen)


def hidden_from(state: TrumpsState, seen: set[Card], reader: int | None) -> set[Card]:
    """The cards ``reader`` may not know of: the undealt deck, and the other hands' cards
    that never lay face up on the pile."""
    secret = set(state.stock)
    for seat, hand in enumerate(state.hands):
        if seat != reader:
            secret |= set(hand) - seen
    return secret


def cards_named(frame: bytes) -> tuple[set[Card], set[str]]:
    """The cards a frame names by code, and the card labels its texts write."""
    text = frame.decode().replace("\ufe0f", "")
    codes = {parse_card(code) for code in card_codes(orjson.loads(frame))}
    return codes, set(CARD_TEXT.findall(text))


def test_no_frame_of_any_played_game_shows_a_reader_a_card_he_may_not_see() -> None:
    states = finished = 0
    for state, recent, seen in played_games(12):
        shown = snapshot(state, recent=recent)
        for reader in READERS:
            view = page_view(shown, reader, EN, NOW)
            frame = orjson.dumps(view)  # every frame is JSON a page can read
            secret = hidden_from(state, seen, reader)
            codes, labels = cards_named(frame)
            assert not codes & secret, (reader, codes & secret)
            assert not labels & {label(c) for c in secret}, (reader, labels)
            if state.stock:  # before the deal nobody sees a card, nor the deck's order
                assert not codes and not labels and view["hand"] == []
            legal = [TRUMPS.encode_action(a) for a in TRUMPS.legal_actions(state, reader or 0)]
            expected = [] if reader is None or state.finished or reader != state.to_move else legal
            assert [move["code"] for move in view["moves"]] == expected
            if reader is not None:
                assert view["hand"] == [c.code for c in state.hands[reader]]
            else:
                assert view["hand"] == []
            assert view["hand_sizes"] == [len(h) for h in state.hands]
        states += 1
        finished += state.finished
    assert finished == 12 and states > 500


def test_a_player_facing_a_card_sees_the_pile_what_a_take_collects_and_what_to_do() -> None:
    state = position(
        "7h Jh 9s",
        "6c 8d",
        pile="6s 7s 8s 9d Td Qd Kc",
        trumps=(Suit.HEARTS, Suit.SPADES),
        moves=351,
    )
    view = page_view(snapshot(state), 0, EN, NOW)
    # The pile's top five, the card to beat last.
    assert view["pile_top"] == ["8s", "9d", "Td", "Qd", "Kc"] and view["facing"] == "Kc"
    assert view["pile_size"] == 7 and view["take_count"] == 3
    assert view["trumps"] == ["h", "s"] and view["phase"] == "beat_or_take"
    texts = view["texts"]
    assert texts["facts"] == ["trumps ♥ · 3 cards", "trumps ♠ · 2 cards"]
    assert texts["pile"] == "Pile: 7 cards"
    assert texts["hint"] == "Beat K♣ — or take 3 cards."
    assert texts["count"] == "Move 351 of 400" and texts["deck"] == "36-card deck"
    assert texts["warning"] == "⚠️ 49 moves left: at 400, fewer cards wins."
    # Her hearts beat the club (her trumps); the spade does not. Take says how many.
    moves = {move["code"]: move for move in view["moves"]}
    assert set(moves) == {"p7h", "pJh", "k"}
    assert moves["k"]["label"] == "📥 Take 3 cards"

    other = page_view(snapshot(state), 1, EN, NOW)
    assert other["moves"] == [] and other["hand"] == ["8d", "6c"]
    assert other["texts"]["hint"] == "Anna must beat K♣ or take 3 cards."
    watcher = page_view(snapshot(state), None, EN, NOW)
    assert watcher["hand"] == [] and watcher["moves"] == []
    assert watcher["texts"]["hint"] == other["texts"]["hint"]


def test_while_trumps_are_chosen_the_page_names_them_and_offers_the_free_suits() -> None:
    state = TRUMPS.new_game(2, {DEALER: 1}, Random(5), NOW)
    step = TRUMPS.apply(state, 1, TRUMPS.decode_action("th"), Random(5), NOW)
    shown = snapshot(step.state, recent=step.events)
    anna = page_view(shown, 0, EN, NOW)
    assert anna["trumps"] == [None, "h"] and anna["phase"] == "choose_trump"
    assert [move["code"] for move in anna["moves"]] == ["ts", "td", "tc"]
    assert anna["texts"]["hint"] == (
        "Boris chose ♥ as trumps. The cards are dealt once you choose yours."
    )
    assert anna["texts"]["facts"] == ["no trumps yet", "trumps ♥"]
    boris = page_view(shown, 1, EN, NOW)
    assert boris["moves"] == [] and boris["texts"]["hint"].startswith("Your trumps: ♥.")
    watcher = page_view(shown, None, EN, NOW)
    assert watcher["texts"]["hint"] == "Anna chooses a trump suit from the three left."


@pytest.mark.parametrize("language", ["ru", "uk", "hr"])
def test_the_words_of_the_page_are_the_readers_language(language: str) -> None:
    t = translator(language)
    state = position("7h Jh 9s", "6c 8d", pile="Kc", trumps=(Suit.HEARTS, Suit.SPADES))
    view: dict[str, Any] = page_view(snapshot(state), 0, t, NOW)
    english = page_view(snapshot(state), 0, EN, NOW)
    for key in ("pile", "count", "deck", "hint"):
        assert view["texts"][key] and view["texts"][key] != english["texts"][key], key
    assert view["texts"]["facts"][0] != english["texts"]["facts"][0]


def test_after_a_beat_the_page_asks_for_the_second_card_and_offers_the_whole_hand() -> None:
    state = position(
        "7h 9s 6c", "8d", pile="6s Ts", phase="second", trumps=(Suit.HEARTS, Suit.SPADES)
    )
    view = page_view(snapshot(state), 0, EN, NOW)
    assert view["texts"]["hint"] == (
        "You beat 6♠ with 10♠. Now lay one more card on top: any card."
    )
    assert [move["code"] for move in view["moves"]] == ["p9s", "p7h", "p6c"]
    assert view["facing"] is None and view["take_count"] == 0
