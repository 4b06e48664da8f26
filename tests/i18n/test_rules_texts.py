"""``/rules <game>``: each game's rules fit one Telegram message and say what leaving costs, in
every language the bot speaks."""

from __future__ import annotations

import html
import re

import pytest

from bot.games.registry import GAMES
from bot.i18n import SUPPORTED_LANGUAGES, translator

#: Telegram's limit on a message's text, counted after its HTML markup is parsed, in UTF-16
#: code units.
MESSAGE_LIMIT = 4096

CASES = [(language, key) for language in sorted(SUPPORTED_LANGUAGES) for key in sorted(GAMES)]


def shown_length(markup: str) -> int:
    """The length Telegram counts: the text without tags, entities decoded, in UTF-16 units."""
    text = html.unescape(re.sub(r"<[^<>]+>", "", markup))
    return len(text.encode("utf-16-le")) // 2


@pytest.mark.parametrize(("language", "key"), CASES)
def test_the_rules_fit_one_message(language: str, key: str) -> None:
    assert shown_length(translator(language)(f"rules.{key}")) <= MESSAGE_LIMIT


@pytest.mark.parametrize("key", sorted(GAMES))
def test_the_rules_say_that_leaving_loses(key: str) -> None:
    rules = translator("en")(f"rules.{key}")
    leaving = next(p for p in rules.split("\n\n") if p.startswith("<b>Leaving:</b>"))
    assert "block the bot" in leaving and "leave the group" in leaving
    assert "placed below everyone who stayed" in leaving and "a loss" in leaving


@pytest.mark.parametrize(("language", "key"), [c for c in CASES if c[0] != "en"])
def test_each_translation_of_the_rules_has_every_paragraph(language: str, key: str) -> None:
    english = translator("en")(f"rules.{key}").split("\n\n")
    translated = translator(language)(f"rules.{key}").split("\n\n")
    assert len(translated) == len(english)
    # Each paragraph opens with its bold heading, as the English one does.
    assert [p.startswith("<b>") for p in translated] == [p.startswith("<b>") for p in english]
