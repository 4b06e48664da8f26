"""Engine speed: random playouts of every game in the registry, and the engine work of a press.

``engine_actions_per_s_<game>`` counts steps (``apply``, or ``on_deadline`` when nobody can
act) per second of a random playout that asks ``legal_actions`` before each step, over
whole games dealt from successive seeds. ``engine_actions_per_s`` is the slowest game's.

``engine_press_us_<game>`` is what the services ask of an engine for one press, end to end:
``decode_action``, ``load`` of the stored state, ``apply``, ``dump``, ``outcome`` and
``next_deadline`` (saving), then the snapshot: ``acting_seats``, ``view`` for the table and
each seat, ``legal_actions`` + ``encode_action`` for each seat.
"""

from __future__ import annotations

import time
from random import Random
from typing import Any

from bench.report import Figure
from bot.games.engine import DEALER, TURN_SECONDS, Rules
from bot.games.registry import GAMES

#: Seats per game in the playouts (Rank: three players, the common table).
PLAYOUT_SEATS = {"rank": 3, "trumps": 2, "advantage": 2, "progression": 3, "davayka": 2}
NOW = 1_800_000_000.0


def default_options(rules: Rules[Any, Any]) -> dict[str, Any]:
    options: dict[str, Any] = {spec.key: spec.default for spec in rules.options}
    options[TURN_SECONDS] = 60
    options[DEALER] = None
    return options


def _movers(rules: Rules[Any, Any], state: Any, seats: int) -> list[tuple[int, list[Any]]]:
    """Seats that may act now with their legal actions (any seat, e.g. "Next deal")."""
    acting = list(rules.acting_seats(state)) or list(range(seats))
    movers = []
    for seat in acting:
        legal = list(rules.legal_actions(state, seat))
        if legal:
            movers.append((seat, legal))
    return movers


def playout_rate(rules: Rules[Any, Any], seats: int, budget: float) -> tuple[float, int]:
    """Steps per second over whole random games until ``budget`` seconds are spent."""
    steps = 0
    games = 0
    spent = 0.0
    seed = 0
    while spent < budget:
        rng = Random(seed)
        seed += 1
        state = rules.new_game(seats, default_options(rules), rng, NOW)
        now = NOW
        started = time.perf_counter()
        while rules.outcome(state) is None:
            movers = _movers(rules, state, seats)
            now += 1.0
            if movers:
                seat, legal = movers[0] if len(movers) == 1 else rng.choice(movers)
                state = rules.apply(state, seat, rng.choice(legal), rng, now).state
            else:
                deadline = rules.next_deadline(state)
                if deadline is None:
                    break
                now = max(now, deadline)
                state = rules.on_deadline(state, rng, now).state
            steps += 1
        spent += time.perf_counter() - started
        games += 1
    return steps / spent, games


def press_cost(rules: Rules[Any, Any], seats: int, budget: float) -> float:
    """Microseconds of engine work per press, as the services do it (see the module doc)."""
    spent = 0.0
    presses = 0
    seed = 10_000
    while spent < budget:
        rng = Random(seed)
        seed += 1
        data = rules.dump(rules.new_game(seats, default_options(rules), rng, NOW))
        now = NOW
        for _ in range(400):
            state = rules.load(data)
            if rules.outcome(state) is not None:
                break
            movers = _movers(rules, state, seats)
            if not movers:
                break
            seat, legal = rng.choice(movers)
            code = rules.encode_action(rng.choice(legal))
            now += 1.0
            started = time.perf_counter()
            state = rules.load(data)
            step = rules.apply(state, seat, rules.decode_action(code), rng, now)
            data = rules.dump(step.state)
            rules.outcome(step.state)
            rules.next_deadline(step.state)
            rules.acting_seats(step.state)
            rules.view(step.state, None)
            for other in range(seats):
                rules.view(step.state, other)
                for action in rules.legal_actions(step.state, other):
                    rules.encode_action(action)
            spent += time.perf_counter() - started
            presses += 1
    return spent / presses * 1e6


def measure(quick: bool) -> list[Figure]:
    budget = 0.5 if quick else 3.0
    figures = []
    rates = {}
    for key in sorted(GAMES):
        rules = GAMES[key]
        seats = PLAYOUT_SEATS.get(key, rules.min_players)
        rate, games = playout_rate(rules, seats, budget)
        rates[key] = rate
        figures.append(
            Figure(
                f"engine_actions_per_s_{key}",
                rate,
                "/s",
                f"{key}: random playout, {seats} seats, {games} whole games",
            )
        )
        figures.append(
            Figure(
                f"engine_press_us_{key}",
                press_cost(rules, seats, budget / 2),
                "µs",
                f"{key}: engine work of one press (load, apply, dump, views, legal)",
            )
        )
    slowest = min(rates, key=rates.__getitem__)
    figures.insert(
        0,
        Figure(
            "engine_actions_per_s",
            rates[slowest],
            "/s",
            f"random-playout steps per second of the slowest game ({slowest})",
        ),
    )
    return figures
