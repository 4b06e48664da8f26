"""Leaving never pays: an abandoned seat ranks below every seat that stayed, in every game."""

from __future__ import annotations

from bot.games.engine import Outcome, counted_outcome


def test_nobody_left_changes_nothing() -> None:
    outcome = Outcome((2, 1, 3), (4.0, 9.0, 1.0))
    assert counted_outcome(outcome, ()) == outcome
    assert counted_outcome(outcome, frozenset()) == outcome


def test_a_winner_who_left_is_placed_below_the_one_who_stayed() -> None:
    assert counted_outcome(Outcome((1, 2)), {0}) == Outcome((2, 1))
    assert counted_outcome(Outcome((2, 1)), {1}) == Outcome((1, 2))


def test_a_leaver_already_last_stays_last() -> None:
    assert counted_outcome(Outcome((1, 2, 3)), {2}) == Outcome((1, 2, 3))


def test_the_stayers_keep_their_order_and_move_up_past_the_leaver() -> None:
    # Seat 1 won and left: seat 3 (second) now wins, seat 0 (third) is second, seat 2 third.
    counted = counted_outcome(Outcome((3, 1, 4, 2)), {1})
    assert counted.places == (2, 4, 3, 1)


def test_several_leavers_share_the_place_after_the_last_stayer() -> None:
    # Nobody gains on another leaver by leaving first: the two leavers tie, whoever led.
    counted = counted_outcome(Outcome((1, 2, 3, 4)), {0, 2})
    assert counted.places == (3, 1, 3, 2)


def test_everyone_left_is_a_loss_for_each_not_a_draw() -> None:
    """Issue #35: nobody stayed to the end, so nobody won — they all share the last place,
    which the table, the panels and the history read as the loss it counts as."""
    assert counted_outcome(Outcome((1, 2)), {0, 1}).places == (2, 2)
    assert counted_outcome(Outcome((2, 3, 1)), {0, 1, 2}).places == (3, 3, 3)
    scored = counted_outcome(Outcome((1, 2), (5.0, 3.0)), {0, 1})
    assert scored.scores == (5.0, 3.0), "the scores stay as the game counted them"


def test_computer_players_stay_and_rank_above_the_people_who_left() -> None:
    # Two people (seats 0 and 2) left; the computers in seats 1 and 3 played on.
    counted = counted_outcome(Outcome((1, 4, 2, 3)), {0, 2})
    assert counted.places == (3, 2, 3, 1)


def test_ties_among_the_stayers_are_kept_as_competition_places() -> None:
    # Seats 1 and 2 drew for second behind the leaver: they now share the first place.
    counted = counted_outcome(Outcome((1, 2, 2, 4)), {0})
    assert counted.places == (4, 1, 1, 3)
    # A draw between stayers below a leaver who tied with one of them.
    counted = counted_outcome(Outcome((1, 1, 3)), {0})
    assert counted.places == (3, 1, 2)


def test_a_drawn_game_is_lost_by_the_one_who_left() -> None:
    assert counted_outcome(Outcome((1, 1)), {1}).places == (1, 2)
    assert counted_outcome(Outcome((1, 1, 1)), {1}).places == (1, 3, 1)


def test_scores_stay_as_the_game_counted_them() -> None:
    outcome = Outcome((1, 2, 3), (30.0, 20.0, 10.0))
    assert counted_outcome(outcome, {0}) == Outcome((3, 1, 2), (30.0, 20.0, 10.0))


def test_places_are_a_competition_ranking_whatever_leaves() -> None:
    """Every set of leavers of some small outcomes: the stayers above them in their own
    order, the leavers tied just below."""
    outcomes = [(1, 2, 3, 4), (1, 1, 3, 4), (2, 1, 2, 4), (1, 1, 1, 1), (4, 3, 2, 1)]
    for places in outcomes:
        for mask in range(1 << len(places)):
            abandoned = {seat for seat in range(len(places)) if mask >> seat & 1}
            counted = counted_outcome(Outcome(places), abandoned).places
            stayers = [seat for seat in range(len(places)) if seat not in abandoned]
            if not stayers:
                # Nobody stayed, nobody won: all share the last place, a loss for each.
                assert counted == (len(places),) * len(places)
                continue
            # Competition places: a seat's place is one more than the seats ahead of it.
            assert counted == tuple(
                1 + sum(1 for other in counted if other < place) for place in counted
            )
            for stayer in stayers:
                assert all(counted[stayer] < counted[gone] for gone in abandoned)
                for other in stayers:
                    before = places[stayer] < places[other]
                    assert before == (counted[stayer] < counted[other])
            assert len({counted[gone] for gone in abandoned}) <= 1
            if abandoned:
                assert counted[next(iter(abandoned))] == len(stayers) + 1
