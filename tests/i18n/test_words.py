"""One word for one thing in each language (issue #28): a round of Rank and a round of
Davay-ka! are both a "round" in English, so each language calls them by one word too — and
keeps its other word for Advantage's cycle, which English calls a cycle."""

from __future__ import annotations

import re

import pytest

from bot.i18n import read_catalog

#: Each language's word for a round (its stem), and the word it must not mix in for one
#: (every form of it, as a whole word).
ROUND = {
    "en": ("round", r"\bcycles?\b"),
    "ru": ("раунд", r"\bкруг(?:а|у|ом|е|и|ов|ам|ами|ах)?\b"),
    "uk": ("раунд", r"\b(?:коло|кола|колу|колом|колі|кіл|колах|колами)\b"),
    "hr": ("rund", r"\bkrug\w*"),
}
#: Messages about rounds: Rank's and Davay-ka!'s own, and the lobby's round limit.
ROUND_MESSAGES = re.compile(r"^(rank\.|davayka\.|event\.rank\.|event\.davayka\.|option\.round_)")
#: Messages that must name a round (so the check above cannot pass by saying nothing).
NAMING_A_ROUND = ("rank.round", "rank.race", "event.rank.round_limit", "davayka.phase_play")


def texts(language: str) -> dict[str, str]:
    found = {}
    for message in read_catalog(language):
        if not message.id:
            continue
        key = str(message.id[0] if isinstance(message.id, (tuple, list)) else message.id)
        raw = message.string
        text = " ".join(raw) if isinstance(raw, (tuple, list)) else str(raw)
        found[key] = re.sub(r"{\w+}", "", text)  # words only: "{round}" is no word for it
    return found


@pytest.mark.parametrize("language", sorted(ROUND))
def test_a_round_is_called_by_one_word(language: str) -> None:
    word, other = ROUND[language]
    catalog = texts(language)
    for key in NAMING_A_ROUND:
        assert word in catalog[key].lower(), (key, catalog[key])
    for key, text in catalog.items():
        if ROUND_MESSAGES.match(key):
            assert not re.search(other, text.lower()), (key, text)
