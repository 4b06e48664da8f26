"""Figures, the targets of issues #10, #17, #19, #27 and #29 they are held against, and the
printed table."""

from __future__ import annotations

import json
import math
import operator
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

#: The five games (as :data:`bench.world.KINDS`; not imported: this module stands alone).
KINDS = ("advantage", "davayka", "progression", "rank", "trumps")


@dataclass(frozen=True, slots=True)
class Target:
    """A bound a figure should respect: ``≤ limit`` or ``≥ limit``."""

    limit: float
    at_most: bool

    def met(self, value: float) -> bool:
        compare: Callable[[float, float], bool] = operator.le if self.at_most else operator.ge
        return compare(value, self.limit)

    def __str__(self) -> str:
        return f"{'≤' if self.at_most else '≥'} {self.limit:g}"


#: The targets of issues #10 (the machine), #17 (Telegram's limits), #19 (Davay-ka! at the
#: speed of hands) and #27 (nobody waits on anybody), by SUMMARY key.
TARGETS = {
    "flood_429": Target(0, at_most=True),
    "table_lag_p99_s_spam": Target(6, at_most=True),
    "games_at_ceiling": Target(250, at_most=False),
    "next_panel_p99_s": Target(1.5, at_most=True),
    "floor_ratio": Target(1.5, at_most=True),
    "action_p99_ms_50": Target(50, at_most=True),
    "actions_per_s": Target(1000, at_most=False),
    "calls_per_action": Target(1.2, at_most=True),
    "engine_actions_per_s": Target(20_000, at_most=False),
    "resume_s_10k": Target(2, at_most=True),
    "mem_kb_per_game": Target(50, at_most=True),
    "davayka_accepted_share": Target(0.85, at_most=False),
    "davayka_mistaps": Target(0, at_most=True),
    # Issue #30: the same quick players on Davay-ka!'s Mini App.
    "davayka_app_accepted_share": Target(0.95, at_most=False),
    "davayka_app_mistaps": Target(0, at_most=True),
    "davayka_app_push_p99_ms": Target(50, at_most=True),
    "davayka_app_flood_429": Target(0, at_most=True),
    # Issue #37: every game on the page (bench.pages), beside the same games in chat.
    **{f"app_push_p99_ms_{key}": Target(50, at_most=True) for key in KINDS},
    "app_calls_ratio": Target(0.5, at_most=True),
    "games_at_ceiling_ratio": Target(1.5, at_most=False),
    "handlers_in_flight_max": Target(32, at_most=True),
    "others_answer_p99_s": Target(1, at_most=True),
    "others_next_panel_p99_s": Target(2, at_most=True),
    "topic_table_lag_p99_s": Target(6, at_most=True),
    "reply_p95_s": Target(10, at_most=True),
    # Issue #29: several bot processes on PostgreSQL (bench.workers, which needs asyncpg).
    "workers_429": Target(0, at_most=True),
    "workers_duplicate_live_panels": Target(0, at_most=True),
    "workers_moves_ratio": Target(0.98, at_most=False),
    "workers_lost_presses": Target(0, at_most=True),
    "failover_s": Target(5, at_most=True),
    "sigterm_stop_s": Target(3, at_most=True),
}


@dataclass(frozen=True, slots=True)
class Figure:
    """One measured value: its SUMMARY key, unit and what it is, in a few words."""

    key: str
    value: float
    unit: str
    what: str

    @property
    def target(self) -> Target | None:
        return TARGETS.get(self.key)


def percentile(samples: Sequence[float], fraction: float) -> float:
    """The nearest-rank percentile of ``samples`` (``fraction`` 0.5 for the median)."""
    ordered = sorted(samples)
    if not ordered:
        return math.nan
    rank = max(1, math.ceil(fraction * len(ordered)))
    return ordered[rank - 1]


def _number(value: float) -> str:
    if math.isnan(value):
        return "—"
    if abs(value) >= 100:
        return f"{value:,.0f}"
    if abs(value) >= 10:
        return f"{value:.1f}"
    return f"{value:.2f}"


def table(figures: Iterable[Figure]) -> str:
    """The figures as an aligned text table, with the target and whether it is met."""
    rows = [("figure", "value", "unit", "target", "", "what")]
    for figure in figures:
        target = figure.target
        verdict = "" if target is None else ("ok" if target.met(figure.value) else "MISSED")
        rows.append(
            (
                figure.key,
                _number(figure.value),
                figure.unit,
                "" if target is None else str(target),
                verdict,
                figure.what,
            )
        )
    widths = [max(len(row[i]) for row in rows) for i in range(5)]
    lines = []
    for row in rows:
        cells = [row[0].ljust(widths[0]), row[1].rjust(widths[1])]
        cells += [row[i].ljust(widths[i]) for i in (2, 3, 4)]
        lines.append("  ".join([*cells, row[5]]).rstrip())
    return "\n".join(lines)


def markdown(figures: Iterable[Figure]) -> str:
    """The same table in Markdown (for the README)."""
    lines = ["| Figure | Value | Target | What it is |", "|---|---:|---|---|"]
    for figure in figures:
        target = figure.target
        shown = "" if target is None else f"{target} {'✓' if target.met(figure.value) else '✗'}"
        value = f"{_number(figure.value)} {figure.unit}".strip()
        lines.append(f"| `{figure.key}` | {value} | {shown} | {figure.what} |")
    return "\n".join(lines)


def summary_line(figures: Iterable[Figure], extra: dict[str, object]) -> str:
    """``SUMMARY {json}``: every figure by key, rounded, plus the run's context."""
    values: dict[str, object] = dict(extra)
    for figure in figures:
        value = figure.value
        values[figure.key] = None if math.isnan(value) else round(value, 3)
    return "SUMMARY " + json.dumps(values, ensure_ascii=False)
