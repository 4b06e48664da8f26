"""What the Mini App's page is sent: names as the chat shows them, no bidi control in them."""

from __future__ import annotations

from bot.telegram.miniapp.views import view_json
from tests.telegram.render.test_davayka import play_state, snapshot


def test_a_name_with_a_right_to_left_override_reaches_the_page_without_it() -> None:
    shown = snapshot(play_state(), names=("Anna\u202eynnA", "Boris"))
    names = view_json(shown, 0, 0.0)["names"]
    assert names == ["AnnaynnA", "Boris"]
    assert not any("\u202e" in name for name in names)
