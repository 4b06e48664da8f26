"""Lobby options read in full on a phone (issue #21): each on its own row, short in every
language, whatever the value."""

from __future__ import annotations

from bot.games.engine import AUTOPILOT_AFTER, TURN_SECONDS
from bot.games.registry import GAMES, get_rules
from bot.i18n import SUPPORTED_LANGUAGES, translator
from bot.services.lobby import AUTOPILOT_CHOICES, turn_choices
from bot.telegram.render.common import option_label

#: What a button of a 390 px wide phone shows in full, on a row of its own (emoji included).
ROW = 30


def test_every_option_label_fits_a_phones_row_in_every_language() -> None:
    labels = []
    for language in SUPPORTED_LANGUAGES:
        t = translator(language)
        for key in GAMES:
            choices = {spec.key: spec.choices for spec in get_rules(key).options}
            choices[TURN_SECONDS] = turn_choices(3600)
            choices[AUTOPILOT_AFTER] = AUTOPILOT_CHOICES
            for option, values in choices.items():
                labels += [option_label(t, option, value) for value in values]
    assert len(labels) > 50 and all(len(label) <= ROW for label in labels), max(labels, key=len)
