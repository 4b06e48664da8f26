"""The real bot wired to the in-process fake Bot API: :mod:`bench.harness`, under its old name.

The harness lives with the benchmarks, which use it too and must not import ``tests``
(``python -m bench`` runs from an install without the test extras); the tests import it from
here as before.
"""

from bench.harness import Harness, TestClock, sqlite_url

__all__ = ["Harness", "TestClock", "sqlite_url"]
