"""Two quick players at Davay-ka! (issue #19): the benchmark's model, on simulated time.

One seeded game played to its end by two simulated attentive players: every tap lands on the
card the player meant (the keyboard keeps its places, a press names a pile), and most of
their moves are accepted. The share is ``python -m bench --only davayka``'s to report; this
test holds a floor under it (the seeded game measures 0.79), and no mis-tap at all.
"""

from __future__ import annotations

from pathlib import Path

from bench import quick_play
from bench.flood import on_simulated_time


def test_two_quick_players_never_mistap_and_most_of_their_moves_land(tmp_path: Path) -> None:
    run = on_simulated_time(lambda: quick_play.play(tmp_path, 300.0, seed=1))
    presses = sum(p.presses for p in run.people)
    accepted = sum(p.accepted for p in run.people)
    assert run.finished, "the game was played to its end"
    assert presses > 30
    assert sum(p.mistaps for p in run.people) == 0
    assert accepted / presses >= 0.7, (accepted, presses)
    assert run.lags and max(run.lags) < 5.0
    # Most refusals are races lost after deciding, not decisions on news not yet shown.
    unseen = sum(p.refused_unseen for p in run.people)
    assert unseen < (presses - accepted) / 2, (unseen, presses - accepted)
