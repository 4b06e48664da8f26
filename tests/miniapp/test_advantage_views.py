"""What an Advantage page is sent: at every state of many games, each reader's frame holds no
card hidden from him (the other hand's private cards, the stock), and exactly his moves."""

from __future__ import annotations

import dataclasses
from random import Random

import orjson

from bot.games.advantage import ADVANTAGE, AdvantageState
from bot.games.cards import Card, parse_card
from bot.games.engine import Event
from bot.i18n import SUPPORTED_LANGUAGES, translator
from bot.services.types import GameSnapshot
from bot.telegram.miniapp.views import page_view, words
from bot.telegram.miniapp.views.advantage import WORDS
from bot.telegram.render.common import card_label
from tests.miniapp.trust import card_codes, strings
from tests.telegram.render.test_advantage import NOW, make, snapshot

R = ADVANTAGE
RECENT = 12


def shown(state: AdvantageState, recent: list[Event], computer: bool) -> GameSnapshot:
    """The snapshot the bot would publish: its log holds only events everybody may see."""
    names = ("Anna", None) if computer else ("Anna", "Boris")
    game = snapshot(state, names=names)
    return dataclasses.replace(game, recent=tuple(recent[-RECENT:]))


def hidden_from(state: AdvantageState, reader: int | None) -> set[Card]:
    """The cards the reader may not see, from the state itself: the stock, and every private
    card but his own."""
    hidden = set(state.stock)
    for seat, cards in enumerate(state.private):
        if seat != reader:
            hidden |= set(cards)
    return hidden


def check_frame(game: GameSnapshot, state: AdvantageState, reader: int | None, lang: str) -> int:
    """Assert the reader's frame shows him nothing hidden; the number of hidden cards
    checked."""
    t = translator(lang)
    frame = page_view(game, reader, t, NOW)
    data = orjson.dumps(frame)
    sent = orjson.loads(data)
    texts = list(strings(sent))
    codes = card_codes(sent)
    hidden = hidden_from(state, reader)
    for card in hidden:
        assert card.code not in codes, (card.code, reader)
        label = card_label(t, card)
        assert not any(label in text for text in texts), (label, reader)
    moves = {move["code"] for move in sent["moves"]}
    legal = {code for code, _ in game.legal.get(reader, ())} if reader is not None else set()
    assert moves == legal
    if reader is not None and reader in game.views:
        # His own private cards are his to see: the frame is not merely empty.
        assert set(sent["hands"][reader]["private"]) == {c.code for c in state.private[reader]}
    for seat in (0, 1):
        assert sent["hands"][seat]["hidden"] == len(state.private[seat])
    return len(hidden)


def test_no_frame_holds_a_card_hidden_from_its_reader_and_moves_are_the_legal_ones() -> None:
    checked = states = privates = 0
    languages = ("en", "ru", "uk", "hr")
    for seed in range(24):
        rng = Random(seed)
        state = R.new_game(2, {"strict_colours": seed % 3 == 0}, rng, NOW)
        computer = seed % 4 == 1
        recent: list[Event] = []
        lang = languages[seed % len(languages)]
        while True:
            game = shown(state, recent, computer)
            for reader in (0, 1, None):
                if reader == 1 and computer:
                    continue
                checked += check_frame(game, state, reader, lang)
            states += 1
            privates += sum(len(p) for p in state.private)
            if state.finished:
                break
            seat = state.to_move
            if rng.random() < 0.1:
                step = R.on_deadline(state, rng, NOW)  # an absent player's default
            else:
                step = R.apply(state, seat, R.choose(state, seat, rng), rng, NOW)
            recent += [e for e in step.events if e.only_seat is None]
            state = step.state
    assert states > 500 and checked > states and privates > 0


def test_the_table_has_the_piles_whole_the_pairs_and_the_drawn_card_for_its_owner() -> None:
    state = make(
        ("7h 9s", "Qc"),
        private=("Ah 5c", "2h 8c 9h"),
        pairs=("3s 3h", ""),
        phase="drop_drawn",
        to_move=0,
        drawn=parse_card("5c"),
    )
    game = shown(state, [], False)
    mine = page_view(game, 0, translator("en"), NOW)
    theirs = page_view(game, 1, translator("en"), NOW)
    public = page_view(game, None, translator("en"), NOW)
    assert mine["piles"][1] == {"top": "6s", "size": 2, "cards": ["3s", "6s"]}
    assert mine["pairs"][0] == [["3s", "3h"]]
    assert mine["hands"][1] == {"public": ["Qc"], "private": [], "hidden": 3}
    assert theirs["hands"][0] == {"public": ["7h", "9s"], "private": [], "hidden": 2}
    assert public["hands"][0]["private"] == public["hands"][1]["private"] == []
    assert mine["facts"] == ["4 cards · 1 pair", "4 cards · 0 pairs"]
    assert mine["prompt"] and theirs["prompt"] == "" and public["prompt"] == ""
    assert theirs["lines"]["doing"].startswith("Anna drew a card that fits")


def test_counts_are_said_in_the_readers_language() -> None:
    state = make(("7h 9s Td 2c Kd", "Qc"), pairs=("3s 3h 4s 4h", ""))
    frame = page_view(shown(state, [], False), None, translator("ru"), NOW)
    assert frame["facts"][0] == "5 карт · 2 пары"
    assert frame["lines"]["stock"] == "🂠 Колода: 3 карты"


def test_every_word_of_the_page_is_translated_in_every_language() -> None:
    for language in SUPPORTED_LANGUAGES:
        said = words(translator(language), "advantage")
        for key, msgid in WORDS.items():
            assert said[key] and said[key] != msgid, (language, key)
