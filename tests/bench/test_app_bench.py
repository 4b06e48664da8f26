"""The bench of every game on the Mini App's page (``python -m bench --only app``, issue #37):
its quick variant runs whole and gives every figure, each sane — not the targets (machines are
noisy) — and its pieces say what they are built from."""

from __future__ import annotations

import math
from collections import Counter
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from bench import calls, flood, pages
from bench.pages import GAMES, AppCeiling, Calls, Measured, Page, Plan, PushRun
from bench.report import TARGETS


def _count(key: str, presses: int, group: int, private: int) -> calls.GameCount:
    return calls.GameCount(key, presses, 0, group, private, (0, 0), 0, 1.0)


def test_calls_are_counted_per_applied_move_over_every_game_and_by_kind() -> None:
    counts = [_count(key, 10, 5, 10) for key in GAMES] + [_count("rank", 10, 5, 0)]
    tallied = pages.tally(counts)
    assert tallied.moves == 60
    assert tallied.per_move == (6 * 5 + 5 * 10) / 60
    assert tallied.group == 30 / 60
    assert tallied.by_kind["rank"] == (15 + 5) / 20
    assert tallied.by_kind["trumps"] == 1.5


def test_a_page_tells_when_it_was_written_a_version() -> None:
    page = Page(1, 7, 0, "en")
    page.frames = [(3, 10.0), (4, 12.5), (6, 20.0)]
    assert page.lag(4, 11.0) == 1.5
    assert page.lag(5, 11.0) == 9.0  # a newer version shows it too
    assert page.lag(7, 11.0) is None
    page.answer(5, True, None)
    assert page.answers == {5: True}


def _measured(app_best: int, app_steps: tuple[int, ...]) -> Measured:
    run = AppCeiling(app_best, 0.0, 3.0, 0.5, 2, 5, 0, 25.0, 0.05, 1000, 1100, app_best)
    return Measured(
        PushRun(
            {key: [5.0, 10.0, 60.0] for key in GAMES},
            Counter(dict.fromkeys(GAMES, 1)),
            Counter(dict.fromkeys(GAMES, 3)),
            Counter(),
            0,
            12.0,
            0.4,
            "none over 50 ms",
            "the loop never 40 ms late at a look",
        ),
        Calls(2.4, dict.fromkeys(GAMES, 2.4), 0.6, 1.8, 800, 0),
        Calls(0.6, dict.fromkeys(GAMES, 0.6), 0.5, 0.1, 800, 0),
        (250, {200: 0.9, 250: 1.5, 300: 2.6}),
        (app_best, {n: run for n in app_steps}),
        Plan(12.0, 1, 40.0, (200, 250, 300), app_steps),
    )


def test_the_figures_stand_side_by_side_with_their_targets() -> None:
    figures = {f.key: f for f in pages.figures(_measured(375, (250, 375, 500)))}
    for key in GAMES:
        push = figures[f"app_push_p99_ms_{key}"]
        assert push.value == 60.0
        assert push.target is TARGETS[f"app_push_p99_ms_{key}"]
        assert not push.target.met(push.value)
    assert figures["app_calls_ratio"].value == 0.25
    assert figures["app_calls_ratio"].target is not None
    assert figures["app_calls_ratio"].target.met(0.25)
    assert figures["games_at_ceiling_ratio"].value == 1.5
    assert "lower bound" not in figures["games_at_ceiling_ratio"].what
    # Every step tried held: the ratio is only a lower bound, and says so.
    held = {f.key: f for f in pages.figures(_measured(500, (250, 375, 500)))}
    assert "lower bound" in held["games_at_ceiling_ratio"].what


def test_the_quick_variant_gives_every_figure_and_each_is_sane(tmp_path: Path) -> None:
    figures = {f.key: f.value for f in pages.measure(tmp_path, quick=True)}
    for key in GAMES:
        push = figures[f"app_push_p99_ms_{key}"]
        # Every game was played on its pages, and its presses were pushed.
        assert not math.isnan(push), key
        assert 0 < push < 10_000, key
    chat, app = figures["calls_per_move"], figures["app_calls_per_move"]
    # The same games, the same moves: on the page the players' panels are left as they are.
    assert 0 < app < chat < 10
    assert figures["app_calls_ratio"] == app / chat
    chat_games, app_games = figures["games_at_ceiling_chat"], figures["games_at_ceiling_app"]
    assert chat_games in (0, *pages.QUICK.chat_steps)
    assert app_games in (0, *pages.QUICK.app_steps)
    assert app_games > 0


async def test_the_flood_benchs_watch_passes_on_what_a_delivery_said() -> None:
    """The publisher spends a move's ping on a panel that went out as a new message: the
    ceiling runs' watch must not swallow that answer (it did, and games passed to the
    computer)."""

    class Publisher:
        async def _deliver(self, slot: Any, content: Any) -> bool:
            return True

    publisher = Publisher()
    shown = flood.Deliveries()
    shown.watch(publisher)  # type: ignore[arg-type]
    slot = SimpleNamespace(game_id=3, seat=1, version=7)
    assert await publisher._deliver(slot, None) is True
    assert shown.lag(3, 1, 7, 0.0) is not None
