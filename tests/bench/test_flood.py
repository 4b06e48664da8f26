"""Inside Telegram's limits under pressure (issue #17), against a fake that enforces them as
strict sliding windows (20 calls in any 60 s a group, one a second a private chat, 30 a second
in all), on simulated time: seconds of play pass in no time and do not depend on the machine.
No time is measured here; ``python -m bench`` prints the figures."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from bench import flood
from bench.report import percentile


@pytest.fixture
def bot_log(caplog: pytest.LogCaptureFixture) -> pytest.LogCaptureFixture:
    caplog.set_level(logging.INFO)
    return caplog


def problems(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [
        f"{r.levelname} {r.name}: {r.getMessage()}"
        for r in caplog.records
        if r.levelno >= logging.WARNING and r.name.startswith(("bot", "telegram"))
    ]


def test_a_busy_game_beside_a_spammer_draws_no_429_and_its_table_keeps_up(
    tmp_path: Path, bot_log: pytest.LogCaptureFixture
) -> None:
    run = flood.on_simulated_time(lambda: flood.spam_run(tmp_path, 90))
    assert len(run.table_lags) > 30, "the game was played"
    assert run.too_many == 0
    assert run.unanswered == 0, "every press answered, the spammer's included"
    assert percentile(run.table_lags, 0.99) <= 6.0, sorted(run.table_lags)[-5:]
    assert problems(bot_log) == []
    held = [r for r in bot_log.records if "held back" in r.getMessage()]
    assert held, "the spammer's extra asks were held back, not queued"


def test_a_stop_in_the_middle_of_busy_games_draws_no_429_and_loses_nothing(
    tmp_path: Path, bot_log: pytest.LogCaptureFixture
) -> None:
    run = flood.on_simulated_time(lambda: flood.stop_run(tmp_path, games=20, seconds=20))
    assert run.too_many == 0
    assert run.behind == 0, "after the restart every table shows its game's newest state"
    assert problems(bot_log) == []


def test_the_next_movers_panel_goes_first_when_telegram_is_the_limit(tmp_path: Path) -> None:
    """150 games at a move every 10 s want more than 30 calls a second: the panels of the
    players who must act go first, and the tables wait (first come, first served, they
    would all wait alike)."""
    ours = flood.on_simulated_time(lambda: flood.ceiling_run(tmp_path, 150, 40, prioritised=True))
    fifo = flood.on_simulated_time(lambda: flood.ceiling_run(tmp_path, 150, 40, prioritised=False))
    assert ours <= flood.PANEL_WITHIN < fifo, (ours, fifo)
