"""Ratings: OpenSkill's Plackett–Luce model over finished games, per game, per board.

Every finished game updates two boards in the transaction that finishes it: its chat's and
the global one (:data:`GLOBAL_BOARD`). A rating belongs to a player and a game key. All
computer seats of a game key share one identity, :data:`COMPUTER_PLAYER`, so that beating the
computer is worth what the computer is worth; when several computer seats play one game, each
is rated from the shared rating and the shared rating becomes the mean of theirs.

Places come from the engine's :class:`~bot.games.engine.Outcome` (1 is best; equal places are
ties) and are passed to the model as ranks. The result of a seat, for the tallies:

- a *draw* when every seat shares one place (nobody beat anybody);
- a *win* when the seat is placed first otherwise (a shared first place is a win);
- a *loss* in every other case.

A *streak* is a run of consecutive wins; a draw or a loss ends it.

The displayed rating is the conservative estimate on a friendlier scale::

    rating = round(40 * (mu - 3 * sigma) + 1000)

A newcomer (mu 25, sigma 25/3) shows 1000. The estimate rises as the model grows sure of a
player (sigma shrinks), so a few games are needed before a rating says much — hence boards
list only players with at least :data:`MIN_GAMES` games.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import Enum

from openskill.models import PlackettLuce
from sqlalchemy.ext.asyncio import AsyncSession

from bot.storage.models import COMPUTER_PLAYER, GLOBAL_BOARD, RatingChangeRow, RatingRow, utcnow
from bot.storage.repositories import RatingChanges, Ratings

#: The model, with OpenSkill's defaults: mu 25, sigma 25/3, beta 25/6, tau 25/300.
MODEL = PlackettLuce()
#: How many standard deviations the conservative estimate stays below mu.
Z = 3.0
#: Points per unit of the conservative estimate, and where a newcomer starts.
SCALE, BASE = 40.0, 1000.0
#: Finished games a player needs to appear on a board.
MIN_GAMES = 3


@dataclass(frozen=True, slots=True)
class Skill:
    """A rating as the model sees it: the mean and the uncertainty of a player's skill."""

    mu: float
    sigma: float

    @property
    def display(self) -> int:
        return displayed(self.mu, self.sigma)


NEWCOMER = Skill(MODEL.mu, MODEL.sigma)


def displayed(mu: float, sigma: float) -> int:
    """The rating shown to people: ``round(40 * (mu - 3 * sigma) + 1000)``."""
    return round(SCALE * (mu - Z * sigma) + BASE)


class SeatResult(Enum):
    WIN = "win"
    DRAW = "draw"
    LOSS = "loss"


def seat_results(places: Sequence[int]) -> list[SeatResult]:
    """Each seat's result: a draw when all share one place, else first place wins."""
    if len(set(places)) == 1:
        return [SeatResult.DRAW] * len(places)
    return [SeatResult.WIN if place == 1 else SeatResult.LOSS for place in places]


def rate(skills: Sequence[Skill], places: Sequence[int]) -> list[Skill]:
    """Each seat's skill after a game where seat ``i`` finished at ``places[i]``."""
    if len(skills) != len(places) or len(skills) < 2:
        raise ValueError("a rated game needs two or more seats, each with a place")
    teams = [[MODEL.rating(mu=skill.mu, sigma=skill.sigma)] for skill in skills]
    rated = MODEL.rate(teams, ranks=[float(place) for place in places])
    return [Skill(team[0].mu, team[0].sigma) for team in rated]


def rate_players(
    players: Sequence[int], places: Sequence[int], current: Mapping[int, Skill]
) -> dict[int, Skill]:
    """Each player's skill after a game; ``players[i]`` sat in seat ``i``.

    A player in several seats (the computer) is rated in each from his current skill and ends
    with the mean of the results.
    """
    after = rate([current.get(player, NEWCOMER) for player in players], places)
    seats_of: dict[int, list[Skill]] = {}
    for player, skill in zip(players, after, strict=True):
        seats_of.setdefault(player, []).append(skill)
    return {
        player: Skill(
            sum(s.mu for s in skills) / len(skills), sum(s.sigma for s in skills) / len(skills)
        )
        for player, skills in seats_of.items()
    }


async def record_game(
    session: AsyncSession,
    *,
    game_id: int,
    chat_id: int,
    game_key: str,
    players: Sequence[int | None],
    places: Sequence[int],
) -> None:
    """Rate a finished game on its chat's board and the global one, in ``session``.

    ``players[i]`` is the user in seat ``i`` (``None``: a computer), ``places[i]`` his place.
    """
    ids = [COMPUTER_PLAYER if player is None else player for player in players]
    results = seat_results(places)
    ratings, changes = Ratings(session), RatingChanges(session)
    now = utcnow()
    for board in dict.fromkeys((chat_id, GLOBAL_BOARD)):
        rows = await ratings.lock(board, game_key, ids, mu=NEWCOMER.mu, sigma=NEWCOMER.sigma)
        before = {player: Skill(row.mu, row.sigma) for player, row in rows.items()}
        after = rate_players(ids, places, before)
        for seat, (player, result) in enumerate(zip(ids, results, strict=True)):
            _tally(rows[player], result)
            changes.add(
                RatingChangeRow(
                    game_id=game_id,
                    seat=seat,
                    chat_id=board,
                    game_key=game_key,
                    player_id=player,
                    mu_before=before[player].mu,
                    sigma_before=before[player].sigma,
                    mu=after[player].mu,
                    sigma=after[player].sigma,
                    created_at=now,
                )
            )
        for player, skill in after.items():
            row = rows[player]
            row.mu, row.sigma, row.updated_at = skill.mu, skill.sigma, now


def _tally(row: RatingRow, result: SeatResult) -> None:
    row.games += 1
    if result is SeatResult.WIN:
        row.wins += 1
        row.streak += 1
        row.best_streak = max(row.best_streak, row.streak)
        return
    row.streak = 0
    if result is SeatResult.DRAW:
        row.draws += 1
    else:
        row.losses += 1
