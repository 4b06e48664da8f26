"""The actions bench counts a press refused when its game did not move — not when the answer
has words (Davay-ka! answers an accepted press with the centre, or "Done — waiting for …")."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any, cast

from bench.actions import refused


def test_an_accepted_press_answered_with_words_is_not_refused() -> None:
    world = SimpleNamespace(latest={7: SimpleNamespace(version=13)})
    press = SimpleNamespace(
        game=SimpleNamespace(game_id=7), callback=SimpleNamespace(text="Centre: 3♣")
    )
    assert not refused(cast(Any, world), cast(Any, press), 12), "the game moved: accepted"
    assert refused(cast(Any, world), cast(Any, press), 13), "the game did not move: refused"
