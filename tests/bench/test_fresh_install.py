"""The benchmarks run from a fresh install (issue #35): ``pip install -e .``, no test extras.

Each check runs a new Python in which the tests' package and what only the ``test`` extra
installs (pytest, asyncpg, Playwright…) cannot be imported, as on a newcomer's machine that
followed the README: every bench module imports, ``python -m bench --help`` answers, and the
PostgreSQL part, which needs asyncpg (the ``postgres`` extra), says so in one line and skips.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
#: What a plain ``pip install -e .`` does not have: the tests, and the test extra's packages.
ABSENT = (
    "tests",
    "pytest",
    "_pytest",
    "pytest_asyncio",
    "xdist",
    "importlinter",
    "asyncpg",
    "mypy",
    "playwright",
)
#: The modules that need asyncpg, and may say so only by failing to import it.
NEED_ASYNCPG = {"bench.workers", "bench.workers_fleet"}

FRESH = f"""
import sys
for name in {ABSENT!r}:
    sys.modules[name] = None  # "import name" raises ModuleNotFoundError
"""

IMPORT_ALL = (
    FRESH
    + f"""
import importlib, pkgutil
import bench
for module in pkgutil.iter_modules(bench.__path__, "bench."):
    try:
        importlib.import_module(module.name)
    except ModuleNotFoundError as error:
        if error.name == "asyncpg" and module.name in {NEED_ASYNCPG!r}:
            print("needs asyncpg:", module.name)
            continue
        raise
    print("imported:", module.name)
"""
)

RUN_BENCH = (
    FRESH
    + """
import runpy
sys.argv = ["python -m bench", *sys.argv[1:]]
runpy.run_module("bench", run_name="__main__", alter_sys=True)
"""
)


def fresh_python(script: str, *arguments: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", script, *arguments],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_every_bench_module_imports_without_the_tests_or_their_extras() -> None:
    done = fresh_python(IMPORT_ALL)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert "imported: bench.world" in lines and "imported: bench.harness" in lines, lines
    assert "imported: bench.davayka_app" in lines and "imported: bench.chaos" in lines, lines
    assert {line.split()[-1] for line in lines if line.startswith("needs")} <= NEED_ASYNCPG


def test_python_m_bench_answers_and_skips_postgresql_in_one_line_without_asyncpg() -> None:
    helped = fresh_python(RUN_BENCH, "--help")
    assert helped.returncode == 0, helped.stderr
    assert "--quick" in helped.stdout

    workers = fresh_python(RUN_BENCH, "--only", "workers")
    assert workers.returncode == 0, workers.stderr
    said = [line for line in workers.stdout.splitlines() if line.startswith("workers:")]
    assert said == ["workers: skipped — needs the postgres extra: pip install -e '.[postgres]'"]
    assert "SUMMARY" in workers.stdout
