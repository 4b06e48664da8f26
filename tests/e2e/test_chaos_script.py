"""``python -m bench.chaos`` itself, briefly: a real bot process, killed with SIGKILL, and checked.

Its verdict must not depend on the machine's speed (issue #21: "callbacks: 31 of 53 answered"
on a busy 2-core machine). Python-telegram-bot confirms the updates it fetched with its next
``getUpdates``, before it handles them, so a press that a process fetched and had not answered
when it was killed is lost with it, as with Telegram. On a quiet machine that is rare: a press
is answered in a tenth of a second. On a loaded one a start takes seconds, and a process may
still be working through what piled up while the bot was down when its kill comes. So the run
is told that the machine's speed is unknown (``--in-flight inf``: no bound on how long a killed
process may have held a press), and the test counts every press: answered, or taken by a
process that was then killed before it answered — never one fetched by the process that lived
on, nor one left unfetched. What the verdict rests on is awaited as a condition under a
generous deadline (polling after a start, every press answered, every game closed, a clean
stop that handles what was fetched), never a fixed pause.
"""

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
            *("--minutes", "0.3", "--seed", "7", "--kill-every", "4", "6"),
            *("--people", "3", "--groups", "1", "--wind-down", "10", "--in-flight", "inf"),
            *("--folder", str(tmp_path)),
        ],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    report = run.stdout + run.stderr
    assert run.returncode == 0, report
    assert report.rstrip().endswith("CHAOS OK"), report
    kills = re.search(r"bot: (\d+) start\(s\), (\d+) SIGKILL", report)
    assert kills is not None and int(kills[2]) >= 1, report
    callbacks = re.search(r"callbacks: (\d+) of (\d+) answered", report)
    lost = re.search(
        r"lost in flight with a killed process \(fetched by it, [^)]*\): (\d+)", report
    )
    assert callbacks is not None and lost is not None, report
    answered, pressed, lost_with_a_kill = int(callbacks[1]), int(callbacks[2]), int(lost[1])
    assert answered > 0, report
    assert answered + lost_with_a_kill == pressed, report
    assert (tmp_path / "bot.log").read_text().count("=== chaos: start") == int(kills[1])
    # Nothing the bot decided to say was lost with a killed process.
    assert re.search(r"ends_unshown 0 .*replies_lost 0 ", report), report
