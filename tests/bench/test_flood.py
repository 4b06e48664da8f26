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
    assert run.most_waiting <= 3, "the spammer's asks were merged or held back, not queued"


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


# -- nobody waits on anybody (issue #27) -------------------------------------------------------


def test_a_storm_of_old_board_presses_keeps_nobody_else_waiting(
    tmp_path: Path, bot_log: pytest.LogCaptureFixture
) -> None:
    """20 groups play Rank while one account presses 300 old boards at 4 a second, every
    update handled in a task of its own as PTB's update fetcher does: the handlers never
    pile up, and the players' presses and panels do not wait for the attacker's boards."""
    run = flood.on_simulated_time(lambda: flood.storm_run(tmp_path, 45))
    assert run.board_presses >= 170, "the attacker pressed throughout"
    assert len(run.answers) > 150 and len(run.panels) > 150, "the games were played"
    assert run.in_hand <= 32, run.in_hand
    assert run.unanswered == 0
    assert percentile(run.answers, 0.99) <= 1.0, sorted(run.answers)[-5:]
    assert percentile(run.panels, 0.99) <= 2.0, sorted(run.panels)[-5:]
    assert run.too_many == 0
    assert problems(bot_log) == []


def test_spam_in_one_forum_topic_does_not_hold_up_a_game_in_another(
    tmp_path: Path, bot_log: pytest.LogCaptureFixture
) -> None:
    """A member presses his lobby's options and sends commands every 0.3 s in one topic:
    the game in another topic of the same group keeps its table up to date."""
    run = flood.on_simulated_time(lambda: flood.topic_run(tmp_path, 120))
    assert len(run.table_lags) > 40, "the game was played"
    assert run.option_presses > 100 and run.commands > 100, "the spammer spammed"
    assert run.unanswered == 0
    assert run.too_many == 0
    assert percentile(run.table_lags, 0.99) <= 6.0, sorted(run.table_lags)[-5:]
    assert problems(bot_log) == []


def test_a_members_commands_beside_a_fast_game_are_answered_in_time(
    tmp_path: Path, bot_log: pytest.LogCaptureFixture
) -> None:
    """A command every 5 s in a group whose game uses its window: each reply comes in the
    group or in the asker's private chat within 10 s, and none is lost."""
    run = flood.on_simulated_time(lambda: flood.reply_run(tmp_path, 150))
    assert len(run.waits) >= 29, "he asked throughout"
    assert run.dropped == 0
    assert run.too_many == 0
    assert percentile(run.waits, 0.95) <= 10.0, sorted(run.waits)[-5:]
    assert problems(bot_log) == []
