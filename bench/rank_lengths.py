"""``python -m bench.rank_lengths``: how long Rank runs when played out, by player count.

The computer plays every seat (``RANK.choose``) with no round limit; the table gives the
rounds and moves of 60 seeded games per player count. It is what Rank's default round limit
(``bot.games.rank.model.AUTO_ROUND_LIMITS``: about ten minutes of play at a person's pace) and
the rules summary's "Length" paragraph are drawn from (issue #21).
"""

from __future__ import annotations

import statistics
from random import Random

from bot.games.rank import RANK
from bot.games.rank.model import AUTO_ROUND_LIMITS

GAMES = 60
NO_LIMIT = 100_000


def played_out(seats: int, seed: int) -> tuple[int, int]:
    """Rounds and moves of one game played out by the computer in every seat."""
    rng = Random(seed)
    state = RANK.new_game(seats, {"round_limit": NO_LIMIT}, rng, 0.0)
    moves = 0
    while not RANK.view(state, None).finished:
        seat = RANK.acting_seats(state)[0]
        state = RANK.apply(state, seat, RANK.choose(state, seat, rng), rng, 0.0).state
        moves += 1
    return RANK.view(state, None).round, moves


def main() -> None:
    print("players  rounds p50  p80  moves p50  moves/round  default limit")
    for seats in range(2, 7):
        games = [played_out(seats, seed) for seed in range(GAMES)]
        rounds = sorted(r for r, _ in games)
        moves = sorted(m for _, m in games)
        per_round = statistics.mean(m / r for r, m in games)
        print(
            f"{seats:7}  {rounds[GAMES // 2]:10}  {rounds[GAMES * 4 // 5]:3}  "
            f"{moves[GAMES // 2]:9}  {per_round:11.1f}  {AUTO_ROUND_LIMITS[seats]:13}"
        )


if __name__ == "__main__":
    main()
