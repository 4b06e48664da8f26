"""Cardroom's benchmarks (issue #10): ``python -m bench [--quick]``; not run by pytest.

One module per measurement, each returning :class:`bench.report.Figure` values:

* :mod:`bench.engines` — random playouts and the engine work of a press, per game;
* :mod:`bench.actions` — a press through the real Application with 1,000 active games,
  one at a time and 50 at once, beside the floor of :mod:`bench.floor`;
* :mod:`bench.calls` — Bot API calls per player action over whole games at a human pace;
* :mod:`bench.resume` — start-up with 10,000 active games in the database;
* :mod:`bench.memory` — memory the running bot keeps per active game.

:mod:`bench.world` builds the bot on the fake Bot API (:mod:`bot.sandbox`), as
:mod:`bench.harness` does for the Mini App (and the end-to-end tests), :mod:`bench.clone`
copies game rows to make many games fast, :mod:`bench.warp` runs an event loop on simulated
time, :mod:`bench.press_profile` shows where a press's time goes (``--profile``), and
:mod:`bench.report` holds the targets and prints the table and the ``SUMMARY`` line.

The benchmarks stand on the package, never on ``tests``: ``pip install -e .`` runs them (the
PostgreSQL part also needs the ``postgres`` extra, and says so when it is missing).
"""
