"""What the Mini App's page is sent: names as the chat shows them, no bidi control in them."""

from __future__ import annotations

import pytest

from bot.i18n import translator
from bot.telegram.miniapp import views
from bot.telegram.miniapp.views import page_view
from tests.telegram.render.test_davayka import play_state, snapshot


def test_a_name_with_a_right_to_left_override_reaches_the_page_without_it() -> None:
    shown = snapshot(play_state(), names=("Anna\u202eynnA", "Boris"))
    names = page_view(shown, 0, translator("en"), 0.0)["names"]
    assert names == ["AnnaynnA", "Boris"]
    assert not any("\u202e" in name for name in names)


def test_a_games_table_may_not_take_a_name_the_shell_reads(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    shown = snapshot(play_state(), names=("Anna", "Boris"))
    assert page_view(shown, 0, translator("en"), 0.0)["status"] == shown.status
    module = views._module("davayka")
    real = module.table
    monkeypatch.setattr(module, "table", lambda *args: {**real(*args), "status": ["4 cards"]})
    with pytest.raises(ValueError, match="status"):
        page_view(shown, 0, translator("en"), 0.0)
