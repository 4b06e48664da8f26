"""Ratings: OpenSkill's Plackett–Luce model over finished games, per game, per board.

Every finished game updates two boards in the transaction that finishes it: its chat's and
the global one (:data:`GLOBAL_BOARD`). A rating belongs to a player and a game key. All
computer seats of a game key share one identity, :data:`COMPUTER_PLAYER`, so that beating the
computer is worth what the computer is worth; when several computer seats play one game, each
is rated from the shared rating and the shared rating becomes the mean of theirs.

Places come from the engine's :class:`~bot.games.engine.Outcome` as it counts (1 is best;
equal places are ties; a seat abandoned before the end already ranks below every seat that
stayed, :func:`~bot.games.engine.counted_outcome`) and are passed to the model as ranks. The
result of a seat, for the tallies:

- a *loss* for an abandoned seat, whatever the places (every person gone and no computer
  playing: they all share the last place, tied — and it is no draw for any of them);
- a *draw* when every seat shares one place (nobody beat anybody);
- a *win* when the seat is placed first otherwise (a shared first place is a win);
- a *loss* in every other case.

Leaving never raises a rating either. An abandoned player's skill is rated from the counted
places like everyone's, but if his conservative estimate (what the displayed rating rounds)
would come out higher than before, he keeps his skill as it was (and his rating change shows
none). A draw among leavers lifts the weaker one, and even a loss can lift an estimate: every
game shrinks sigma (the model grows surer), and a loss to a much stronger player drops mu so
little that ``mu - 3 * sigma`` ends higher — two newcomers who both leave would each gain
some 30 points from their "draw". The exact
estimate is compared, not the rounded rating, so that no run of such games can creep a
leaver's rating up unseen. The players who stayed are rated as the model says.

A *streak* is a run of consecutive wins; a draw or a loss ends it.

The displayed rating is the conservative estimate on a friendlier scale::

    rating = round(40 * (mu - 3 * sigma) + 1000)

A newcomer (mu 25, sigma 25/3) shows 1000. The estimate rises as the model grows sure of a
player (sigma shrinks), so a few games are needed before a rating says much — hence a player
with fewer than :data:`MIN_GAMES` games is on the boards from his first, marked provisional.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
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
#: Finished games before a rating stops being provisional (marked so on the boards).
MIN_GAMES = 3


@dataclass(frozen=True, slots=True)
class Skill:
    """A rating as the model sees it: the mean and the uncertainty of a player's skill."""

    mu: float
    sigma: float

    @property
    def display(self) -> int:
        return displayed(self.mu, self.sigma)

    @property
    def estimate(self) -> float:
        """The conservative estimate ``mu - 3 * sigma`` that the displayed rating shows."""
        return self.mu - Z * self.sigma


NEWCOMER = Skill(MODEL.mu, MODEL.sigma)


def displayed(mu: float, sigma: float) -> int:
    """The rating shown to people: ``round(40 * (mu - 3 * sigma) + 1000)``."""
    return round(SCALE * (mu - Z * sigma) + BASE)


class SeatResult(Enum):
    WIN = "win"
    DRAW = "draw"
    LOSS = "loss"


def seat_results(places: Sequence[int], abandoned: Collection[int] = ()) -> list[SeatResult]:
    """Each seat's result: an abandoned seat loses; a draw when all share one place, else
    first place wins."""
    if len(set(places)) == 1:
        results = [SeatResult.DRAW] * len(places)
    else:
        results = [SeatResult.WIN if place == 1 else SeatResult.LOSS for place in places]
    return [SeatResult.LOSS if seat in abandoned else r for seat, r in enumerate(results)]


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


def shown_board(chat_id: int) -> int:
    """The board a game's players see its ratings on: its group's — or the global one for a
    game in a private chat, where the chat is the player's own."""
    return GLOBAL_BOARD if chat_id > 0 else chat_id


@dataclass(frozen=True, slots=True)
class RatedGame:
    """A finished game's rating changes as its players see them: by seat, the rating before
    and after, and the seats whose rating is still provisional."""

    changes: dict[int, tuple[int, int]]
    provisional: frozenset[int]


async def record_game(
    session: AsyncSession,
    *,
    game_id: int,
    chat_id: int,
    game_key: str,
    players: Sequence[int | None],
    places: Sequence[int],
    abandoned: Collection[int] = (),
) -> RatedGame:
    """Rate a finished game on its chat's board and the global one, in ``session``.

    ``players[i]`` is the user in seat ``i`` (``None``: a computer), ``places[i]`` his place
    as it counts; ``abandoned`` are the seats whose players left before the end (each a
    loss, and none of them rises). Returns each person's seat's displayed rating before and
    after on the board people see for this game: the chat's in a group, the global one in a
    private chat (where the chat is the player's own) — and which of those seats' ratings are
    still provisional there (fewer than :data:`MIN_GAMES` games).
    """
    board_shown = shown_board(chat_id)
    shown: dict[int, tuple[int, int]] = {}
    provisional: set[int] = set()
    ids = [COMPUTER_PLAYER if player is None else player for player in players]
    results = seat_results(places, abandoned)
    leavers = {ids[seat] for seat in abandoned if players[seat] is not None}
    ratings, changes = Ratings(session), RatingChanges(session)
    now = utcnow()
    for board in dict.fromkeys((chat_id, GLOBAL_BOARD)):
        rows = await ratings.lock(board, game_key, ids, mu=NEWCOMER.mu, sigma=NEWCOMER.sigma)
        before = {player: Skill(row.mu, row.sigma) for player, row in rows.items()}
        after = rate_players(ids, places, before)
        for player in leavers:
            if after[player].estimate > before[player].estimate:
                after[player] = before[player]
        for seat, (player, result) in enumerate(zip(ids, results, strict=True)):
            _tally(rows[player], result)
            if board == board_shown and players[seat] is not None:
                shown[seat] = (before[player].display, after[player].display)
                if rows[player].games < MIN_GAMES:
                    provisional.add(seat)
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
    return RatedGame(shown, frozenset(provisional))


async def rated_game(session: AsyncSession, game_id: int, chat_id: int) -> RatedGame:
    """A finished game's rating changes read back — what :func:`record_game` returned when
    it finished: each person's seat's rating before and after on the board people see for
    this game, and which were provisional then — so that every later snapshot of the game
    (a rematch's republished table, a summary in ``/history``) shows them as its end did.
    Empty for a game that was not rated."""
    repository = RatingChanges(session)
    changes = [
        change
        for change in await repository.of_games([game_id], shown_board(chat_id))
        if change.player_id != COMPUTER_PLAYER
    ]
    games = await repository.games_until(changes)
    return RatedGame(
        {
            change.seat: (
                displayed(change.mu_before, change.sigma_before),
                displayed(change.mu, change.sigma),
            )
            for change in changes
        },
        frozenset(change.seat for change in changes if games.get(change.id, 0) < MIN_GAMES),
    )


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
