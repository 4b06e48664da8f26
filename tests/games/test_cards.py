"""Tests of the shared playing cards: codes, decks, interning and seeded shuffles."""

from __future__ import annotations

from collections import Counter
from random import Random

import pytest

from bot.games.cards import (
    ACE,
    JOKER,
    JOKER_CODE,
    RANK_CODES,
    RANKS,
    SUITS,
    Card,
    Suit,
    card,
    codes,
    parse_card,
    parse_cards,
    parse_rank,
    shuffled,
    standard_deck,
    suit_order_key,
)


def test_every_card_code_round_trips() -> None:
    for c in [*standard_deck(), JOKER]:
        assert parse_card(c.code) is c
        assert len(c.code) == 2
    assert parse_cards(codes(standard_deck(jokers=2))) == tuple(standard_deck(jokers=2))


def test_codes_spell_rank_then_suit() -> None:
    assert card(10, Suit.SPADES).code == "Ts"
    assert card(ACE, Suit.HEARTS).code == "Ah"
    assert card(2, Suit.CLUBS).code == "2c"
    assert JOKER.code == JOKER_CODE == "XJ"
    assert JOKER.is_joker and not card(2, Suit.CLUBS).is_joker


@pytest.mark.parametrize("garbage", ["", "T", "Tx", "1s", "ts", "XJX", "AS", " As", "🃏", "10s"])
def test_parse_card_refuses_garbage(garbage: str) -> None:
    with pytest.raises(ValueError):
        parse_card(garbage)


def test_parse_rank() -> None:
    for rank, code in RANK_CODES.items():
        assert parse_rank(code) == rank
    with pytest.raises(ValueError):
        parse_rank("1")


def test_cards_are_interned() -> None:
    assert card(5, Suit.DIAMONDS) is card(5, Suit.DIAMONDS)
    assert parse_card("5d") is card(5, Suit.DIAMONDS)
    two_decks = standard_deck(jokers=2) * 2
    assert len({id(c) for c in two_decks}) == 53  # 52 naturals and one joker object


@pytest.mark.parametrize(
    ("low_rank", "jokers", "size"), [(2, 0, 52), (2, 2, 54), (6, 0, 36), (6, 1, 37)]
)
def test_deck_sizes(low_rank: int, jokers: int, size: int) -> None:
    deck = standard_deck(low_rank=low_rank, jokers=jokers)
    assert len(deck) == size
    assert len(set(deck)) == size - jokers + (1 if jokers else 0)
    assert Counter(c.suit for c in deck if not c.is_joker) == {
        suit: len([r for r in RANKS if r >= low_rank]) for suit in SUITS
    }
    assert deck.count(JOKER) == jokers


def test_shuffles_are_seeded() -> None:
    deck = standard_deck(jokers=2)
    first = shuffled(deck, Random(7))
    assert first == shuffled(deck, Random(7))
    assert first != shuffled(deck, Random(8))
    assert sorted(first, key=suit_order_key) == sorted(deck, key=suit_order_key)
    assert deck == standard_deck(jokers=2)  # the input is not shuffled in place


def test_suit_order_and_labels() -> None:
    assert [s.order for s in SUITS] == [0, 1, 2, 3]
    assert [s.symbol for s in SUITS] == ["♠", "♥", "♦", "♣"]
    assert Suit.HEARTS.is_red and Suit.DIAMONDS.is_red and not Suit.SPADES.is_red
    assert card(10, Suit.HEARTS).label == "10♥"
    assert JOKER.label == "🃏"
    assert isinstance(JOKER, Card) and JOKER.suit is None
