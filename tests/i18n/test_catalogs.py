"""The catalogs hold every message the bot can say, for every game that can be played."""

from __future__ import annotations

import importlib
import re

import pytest

from bot.games.registry import GAMES
from bot.i18n import DEFAULT_LANGUAGE, read_catalog, translator
from bot.telegram.render import has_renderer
from bot.telegram.render.common import option_label

PLAYABLE = [key for key in GAMES if has_renderer(key)]
T = translator(DEFAULT_LANGUAGE)


def test_rank_is_playable() -> None:
    assert "rank" in PLAYABLE


@pytest.mark.parametrize("key", PLAYABLE)
def test_every_event_error_option_and_rules_text_of_a_game_has_words(key: str) -> None:
    package = importlib.import_module(f"bot.games.{key}")
    needed = [f"game.{key}.name", f"rules.{key}"]
    needed += [f"event.{code}" for code in package.EVENT_CODES]
    needed += [f"error.{code}" for code in package.ERROR_CODES]
    needed += [f"option.{spec.key}" for spec in GAMES[key].options]
    missing = [k for k in needed if not T.has(k)]
    assert missing == []
    for spec in GAMES[key].options:
        for choice in spec.choices:
            assert option_label(T, spec.key, choice)


def test_messages_are_non_empty_with_balanced_placeholders() -> None:
    for message in read_catalog(DEFAULT_LANGUAGE):
        if not message.id:
            continue
        texts = message.string if isinstance(message.string, tuple) else (message.string,)
        for text in texts:
            assert text.strip(), message.id
            assert text.count("{") == text.count("}"), message.id
            assert all(re.fullmatch(r"[a-z_]+", name) for name in re.findall(r"{([^}]*)}", text))


def test_plural_forms() -> None:
    assert T.plural("count.games", 1) == "1 game"
    assert T.plural("count.games", 2) == "2 games"
    assert T.plural("rank.cards", 21) == "21 cards"
