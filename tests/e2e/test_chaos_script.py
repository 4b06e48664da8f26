"""``python -m bench.chaos`` itself, briefly: a real bot process, killed twice, and checked."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_a_short_chaos_run_with_kills_reports_ok(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("TELEGRAM_", "DATABASE_"))}
    run = subprocess.run(
        [
            sys.executable,
            "-m",
            "bench.chaos",
            *("--minutes", "0.3", "--seed", "7", "--kill-every", "5", "8"),
            *("--people", "3", "--groups", "1", "--wind-down", "10"),
            *("--folder", str(tmp_path)),
        ],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    report = run.stdout + run.stderr
    assert run.returncode == 0, report
    assert report.rstrip().endswith("CHAOS OK"), report
    kills = re.search(r"bot: (\d+) start\(s\), (\d+) SIGKILL", report)
    assert kills is not None and int(kills[2]) >= 1, report
    answered = re.search(r"callbacks: (\d+) of (\d+) answered", report)
    assert answered is not None and answered[1] == answered[2] != "0", report
    assert (tmp_path / "bot.log").read_text().count("=== chaos: start") == int(kills[1])
