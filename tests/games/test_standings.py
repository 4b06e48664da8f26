"""``Rules.standings``: the outcome of a game stopped now (issue #9: every human on autopilot).

For each game: a few hand-built positions whose standing is worked out by hand (including the
"barely begun" boundary), then seeded random playouts in which every state met is compared
with a referee written here from the rules file, independently of the engine, and finished
games are compared with ``outcome``.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable, Iterator
from random import Random
from typing import Any

import pytest

from bot.games.advantage import ADVANTAGE, AdvantageState
from bot.games.advantage.state import PHASE_OVER as ADVANTAGE_OVER
from bot.games.cards import Card, Suit, parse_card, standard_deck
from bot.games.davayka import DAVAYKA, DavaykaState, make_state
from bot.games.engine import Outcome, Rules
from bot.games.progression import PROGRESSION, ProgressionState, build_state
from bot.games.rank import RANK, RankState
from bot.games.registry import GAMES
from bot.games.trumps import TRUMPS, TrumpsState

NOW = 1000.0


def cs(text: str) -> tuple[Card, ...]:
    return tuple(parse_card(code) for code in text.split())


def competition_places(keys: list[Any]) -> tuple[int, ...]:
    """Places where lower keys are better and equal keys share ("1224"), counted by hand."""
    ordered = sorted(keys)
    return tuple(ordered.index(key) + 1 for key in keys)


def check_places(places: tuple[int, ...], players: int) -> None:
    """A valid competition ranking: one place per seat, 1 taken, ties skip the next places."""
    assert len(places) == players
    assert all(1 <= p <= players for p in places)
    assert min(places) == 1
    for p in places:
        assert sum(1 for q in places if q < p) == p - 1, places


# --- the protocol ----------------------------------------------------------------------------


def test_every_game_offers_standings_in_the_protocol() -> None:
    assert "standings" in Rules.__dict__
    for key, rules in GAMES.items():
        assert callable(getattr(rules, "standings", None)), key


# --- hand-built positions: Rank -------------------------------------------------------------


def rank_state(**fields: Any) -> RankState:
    hands = fields.pop("hands")
    return RankState(
        hands=tuple(cs(h) for h in hands),
        stock=cs("2c 3c 4c 5c"),
        discard=cs("9h"),
        **fields,
    )


def test_rank_out_players_keep_their_order_then_fewer_cards() -> None:
    # Seat 3 went out first, seat 1 second, seat 0's exit is pending (it stands); of those
    # holding cards seat 4 has fewest; seats 2 and 5 tie with three cards each.
    st = rank_state(
        hands=["", "", "2s 3s 4s", "", "Kd", "5h 6h 7h"],
        out=(3, 1),
        pending=0,
        turn=2,
        round=4,
    )
    assert RANK.standings(st) == Outcome((3, 2, 5, 1, 4, 5))


def test_rank_more_cards_is_behind() -> None:
    st = rank_state(hands=["2s 3s 4s 5s", "Kd", "6h 7h"], turn=0, round=2)
    assert RANK.standings(st) == Outcome((3, 1, 2))
    assert RANK.standings(rank_state(hands=["2s 3s", "Kd Qd"], turn=0, round=2)) == Outcome((1, 1))


def test_rank_barely_begun_until_the_first_round_is_complete() -> None:
    hands = ["2s 3s 4s 5s", "Kd", "6h 7h"]
    assert RANK.standings(rank_state(hands=hands, turn=2, round=1, had_turn=0b011)) is None
    assert RANK.standings(rank_state(hands=hands, turn=0, round=2)) is not None


def test_rank_finished_game_is_its_outcome() -> None:
    st = rank_state(
        hands=["", "Kd", "", "2s"],
        out=(2, 0),
        turn=None,
        phase="over",
        round=1,  # even a (hand-made) game over in the first round has its result
        loser=None,
        ended_by="round_limit",
    )
    assert RANK.standings(st) == RANK.outcome(st) == Outcome((2, 3, 1, 3))


# --- hand-built positions: Your Trumps ------------------------------------------------------


def trumps_state(hand0: str, hand1: str, **kwargs: Any) -> TrumpsState:
    return TrumpsState.from_hands((cs(hand0), cs(hand1)), (Suit.SPADES, None), **kwargs)


def test_trumps_fewer_cards_is_ahead_and_equal_is_a_draw() -> None:
    ahead = trumps_state("6s 7s 8s", "9h Th Jh Qh Kh", pile="6d", phase="beat_or_take", moves=9)
    assert TRUMPS.standings(ahead) == Outcome((1, 2))
    behind = trumps_state("6s 7s 8s 9s", "9h", pile="6d", phase="lead", moves=30)
    assert TRUMPS.standings(behind) == Outcome((2, 1))
    level = trumps_state("6s 7s", "9h Th", phase="lead", moves=12)
    assert TRUMPS.standings(level) == Outcome((1, 1))


def test_trumps_hands_count_as_they_stand_between_a_beat_and_its_second_card() -> None:
    st = trumps_state("6s 7s", "9h Th Jh", pile="6d 8d", phase="second", to_move=0, moves=7)
    assert TRUMPS.standings(st) == Outcome((1, 2))


def test_trumps_barely_begun_until_both_players_have_had_a_turn() -> None:
    rng = Random(5)
    st = TRUMPS.new_game(2, {"dealer": 1}, rng, NOW)
    assert TRUMPS.standings(st) is None  # choosing trumps
    st = TRUMPS.apply(st, 1, TRUMPS.decode_action("ts"), rng, NOW).state
    st = TRUMPS.apply(st, 0, TRUMPS.decode_action("th"), rng, NOW).state
    assert st.phase == "lead" and st.to_move == 0
    assert TRUMPS.standings(st) is None  # dealt, nobody has played
    lead = st.hands[0][0]
    st = TRUMPS.apply(st, 0, TRUMPS.decode_action("p" + lead.code), rng, NOW).state
    assert TRUMPS.standings(st) is None  # the dealer has not answered yet
    beat = next(a for a in TRUMPS.legal_actions(st, 1) if TRUMPS.encode_action(a) != "k")
    after_beat = TRUMPS.apply(st, 1, beat, rng, NOW).state
    assert after_beat.phase == "second"
    assert TRUMPS.standings(after_beat) is None  # his turn is not over: the second card
    second = TRUMPS.legal_actions(after_beat, 1)[0]
    done = TRUMPS.apply(after_beat, 1, second, rng, NOW).state
    assert TRUMPS.standings(done) == Outcome((2, 1))  # 17 cards against 16
    took = TRUMPS.apply(st, 1, TRUMPS.decode_action("k"), rng, NOW).state
    assert TRUMPS.standings(took) == Outcome((1, 2))  # 17 cards against 19


# --- hand-built positions: Advantage ---------------------------------------------------------


def advantage_state(pairs: tuple[str, str], **fields: Any) -> AdvantageState:
    return AdvantageState(
        dealer=0,
        stock=cs("2c 3c"),
        public=(cs("4h 7s"), cs("9d")),
        private=((), cs("Jc")),
        piles=(cs("5h"), cs("9h"), cs("Kh")),
        pairs=(cs(pairs[0]), cs(pairs[1])),
        **fields,
    )


def test_advantage_more_pairs_is_ahead_with_the_counts_as_scores() -> None:
    st = advantage_state(("2s 2h", "3s 3h 4s 4h 5s 5d"), cycle=3)
    assert ADVANTAGE.standings(st) == Outcome((2, 1), (1.0, 3.0))
    level = advantage_state(("2s 2h", "3s 3h"), cycle=2, phase="exchange")
    assert ADVANTAGE.standings(level) == Outcome((1, 1), (1.0, 1.0))
    nothing = advantage_state(("", ""), cycle=2)
    assert ADVANTAGE.standings(nothing) == Outcome((1, 1), (0.0, 0.0))


def test_advantage_barely_begun_during_the_first_cycle() -> None:
    assert ADVANTAGE.standings(advantage_state(("2s 2h", ""), cycle=1, phase="exchange")) is None
    assert ADVANTAGE.standings(advantage_state(("2s 2h", ""), cycle=2)) is not None


def test_advantage_finished_game_is_its_outcome() -> None:
    st = advantage_state(("2s 2h 3s 3h", "4s 4h"), cycle=9, phase=ADVANTAGE_OVER)
    assert ADVANTAGE.standings(st) == ADVANTAGE.outcome(st) == Outcome((1, 2), (2.0, 1.0))


# --- hand-built positions: Progression -------------------------------------------------------


HANDS = (cs("2h 3h"), cs("4h 5h"), cs("6h 7h"))


def test_progression_totals_of_finished_deals_rank_the_match() -> None:
    st = build_state(HANDS, totals=(50, 120, 50), deal=3)
    assert PROGRESSION.standings(st) == Outcome((2, 1, 2), (50.0, 120.0, 50.0))


def test_progression_the_deal_in_progress_does_not_count() -> None:
    # Seat 0's stacks would score (2+…+10 − 12) × 1 = 42 now, more than the 30 he trails by.
    stacks: list[list[tuple[Card, ...]]] = [
        [cs("2s 3s 4s 5s 6s 7s 8s 9s Ts"), (), (), ()],
        [(), (), (), ()],
        [(), (), (), ()],
    ]
    st = build_state(HANDS, stacks=stacks, totals=(10, 40, -20), deal=2)
    assert PROGRESSION.standings(st) == Outcome((2, 1, 3), (10.0, 40.0, -20.0))


def test_progression_barely_begun_until_the_first_deal_is_scored() -> None:
    assert PROGRESSION.standings(build_state(HANDS, deal=1)) is None
    assert PROGRESSION.standings(build_state(HANDS, deal=1, phase="take")) is None
    between = build_state(HANDS, deal=1, phase="between_deals", totals=(0, 14, -30))
    assert PROGRESSION.standings(between) == Outcome((2, 1, 3), (0.0, 14.0, -30.0))
    assert PROGRESSION.standings(build_state(HANDS, deal=2)) == Outcome((1, 1, 1), (0.0, 0.0, 0.0))


def test_progression_finished_match_is_its_outcome() -> None:
    st = build_state(HANDS, deal=5, phase="over", totals=(90, 210, 90))
    expected = Outcome((2, 1, 2), (90.0, 210.0, 90.0))
    assert PROGRESSION.standings(st) == PROGRESSION.outcome(st) == expected


# --- hand-built positions: Davay-ka! ---------------------------------------------------------

DECK = standard_deck()


def davayka_state(
    row_sizes: tuple[int, int],
    stock_sizes: tuple[int, int],
    centre_sizes: tuple[int, ...],
    **kwargs: Any,
) -> DavaykaState:
    """Piles of the given sizes cut from one deck (card identities do not matter here)."""
    cards = iter(DECK)

    def take(n: int) -> tuple[Card, ...]:
        return tuple(next(cards) for _ in range(n))

    rows = [[take(n)] for n in row_sizes]
    stocks = [take(n) for n in stock_sizes]
    centres = [take(n) for n in centre_sizes]
    return make_state(rows=rows, stocks=stocks, centres=centres, **kwargs)


def test_davayka_between_rounds_fewer_cards_in_all_is_ahead() -> None:
    st = davayka_state((10, 10), (20, 12), (), phase="ready", round_no=3)
    assert DAVAYKA.standings(st) == Outcome((2, 1))
    level = davayka_state((10, 10), (16, 16), (), phase="ready", round_no=2)
    assert DAVAYKA.standings(level) == Outcome((1, 1))


def test_davayka_the_round_in_progress_ends_as_a_stuck_round() -> None:
    # Seat 1 holds fewer cards now (5 + 3 = 8 against 12), but seat 0 has the shorter row:
    # he wins the round and keeps 12, seat 1 takes both centre piles: 3 + 16 + 16 + 5 = 40.
    st = davayka_state((2, 5), (10, 3), (16, 16), round_no=2)
    assert DAVAYKA.standings(st) == Outcome((1, 2))
    # Equal rows: each takes back his own centre pile: 3 + 20 + 4 = 27 against 10 + 5 + 4 = 19.
    st = davayka_state((4, 4), (3, 10), (20, 5), round_no=2, phase="stall")
    assert DAVAYKA.standings(st) == Outcome((2, 1))
    # One centre pile (seat 1 has no stock; the pile is seat 0's): seat 1 has the shorter row.
    st = davayka_state((6, 2), (12, 0), (30,), round_no=4)
    assert DAVAYKA.standings(st) == Outcome((2, 1))


def test_davayka_barely_begun_during_the_first_round() -> None:
    assert DAVAYKA.standings(DAVAYKA.new_game(2, {}, Random(1), NOW)) is None
    assert DAVAYKA.standings(davayka_state((2, 9), (10, 3), (16, 12), round_no=1)) is None
    assert DAVAYKA.standings(davayka_state((2, 9), (10, 3), (16, 12), round_no=2)) is not None


def test_davayka_finished_game_is_its_outcome() -> None:
    won = make_state(rows=[], stocks=[(), DECK], phase="over", winner=0, end_reason="cards")
    assert DAVAYKA.standings(won) == DAVAYKA.outcome(won) == Outcome((1, 2))
    forfeit = make_state(
        rows=[[DECK[:3]], [DECK[3:9]]],
        stocks=[DECK[9:30], DECK[30:]],
        phase="over",
        round_no=1,
        winner=1,
        end_reason="forfeit",
    )
    assert DAVAYKA.standings(forfeit) == DAVAYKA.outcome(forfeit) == Outcome((2, 1))


# --- referees written from the rules files, for the playouts ---------------------------------


def rank_referee(st: RankState) -> Outcome | None:
    if st.round == 1:
        return None
    gone = [*st.out] + ([st.pending] if st.pending is not None else [])
    keys = [(0, gone.index(s)) if s in gone else (1, len(h)) for s, h in enumerate(st.hands)]
    return Outcome(competition_places(keys))


def advantage_referee(st: AdvantageState) -> Outcome | None:
    if st.cycle == 1:
        return None
    pairs = [len(p) // 2 for p in st.pairs]
    return Outcome(competition_places([-n for n in pairs]), tuple(float(n) for n in pairs))


def progression_referee(st: ProgressionState) -> Outcome | None:
    if st.deal == 1 and st.sheet is None:
        return None
    totals = list(st.totals)
    return Outcome(competition_places([-t for t in totals]), tuple(float(t) for t in totals))


def davayka_referee(st: DavaykaState) -> Outcome | None:
    if st.round_no == 1:
        return None
    rows = [sum(len(p) for p in row) for row in st.rows]
    held = [len(st.stocks[s]) + rows[s] for s in (0, 1)]
    centre = [0, 0]
    for pile, owner in zip(st.centres, st.centre_owners, strict=True):
        centre[owner] += len(pile)
    if rows[0] == rows[1]:
        held = [held[s] + centre[s] for s in (0, 1)]
    else:
        loser = 0 if rows[0] > rows[1] else 1
        held[loser] += sum(centre)
    return Outcome(competition_places(held))


# --- playouts --------------------------------------------------------------------------------


Pair = tuple[Any, Any]  # (state before a step, state after it)


def playout(
    rules: Rules[Any, Any],
    seats: int,
    options: dict[str, Any],
    seed: int,
    *,
    deadline_odds: float = 0.05,
    step_seconds: float = 1.0,
) -> Iterator[Pair]:
    """A seeded game of random (now and then computer-chosen) moves and timeouts: each step."""
    rng = Random(seed)
    now = NOW
    state = rules.new_game(seats, options, rng, now)
    yield None, state
    steps = 0
    while rules.outcome(state) is None:
        steps += 1
        assert steps < 50_000, f"seed {seed} does not end"
        acting = rules.acting_seats(state)
        if not acting or rng.random() < deadline_odds:
            deadline = rules.next_deadline(state)
            assert deadline is not None
            now = max(now + rng.uniform(0, step_seconds), deadline)
            step = rules.on_deadline(state, rng, now)
        else:
            seat = rng.choice(acting)
            legal = rules.legal_actions(state, seat)
            if seed % 3 == 0 and seat == 0:
                action = rules.choose(state, seat, rng)
            else:
                action = rng.choice(list(legal))
            now += rng.uniform(0, step_seconds)
            step = rules.apply(state, seat, action, rng, now)
        yield state, step.state
        state = step.state


class Tally:
    """What the playouts met, so a test fails when they stop reaching the interesting cases."""

    def __init__(self) -> None:
        self.counts: Counter[str] = Counter()


def check_state(
    rules: Rules[Any, Any],
    seats: int,
    st: Any,
    referee: Callable[[Any], Outcome | None],
    tally: Tally,
    rng: Random,
) -> Outcome | None:
    standing = rules.standings(st)
    outcome = rules.outcome(st)
    if outcome is not None:
        assert standing == outcome
        tally.counts["finished"] += 1
        return standing
    assert standing == referee(st), st
    if standing is None:
        tally.counts["none"] += 1
        return None
    check_places(standing.places, seats)
    tally.counts["standing"] += 1
    if len(set(standing.places)) < seats:
        tally.counts["tie"] += 1
    if len(set(standing.places)) > 1:
        tally.counts["ranked"] += 1
    if rng.random() < 0.02:  # the services load the state before asking
        again = rules.load(json.loads(json.dumps(rules.dump(st))))
        assert rules.standings(again) == standing
    return standing


def run_playouts(
    rules: Rules[Any, Any],
    games: list[tuple[int, dict[str, Any], int]],
    referee: Callable[[Any], Outcome | None],
    **playout_kwargs: Any,
) -> Tally:
    tally = Tally()
    for seats, options, seed in games:
        rng = Random(-seed)
        begun = False
        last: Any = None
        for _, st in playout(rules, seats, options, seed, **playout_kwargs):
            standing = check_state(rules, seats, st, referee, tally, rng)
            if standing is not None:
                begun = True
                # Scores are filled as ``outcome`` fills them (both or neither).
                assert (standing.scores is None) == (rules.key in ("rank", "trumps", "davayka"))
            else:
                assert not begun, "a game that has begun cannot go back to barely begun"
            last = st
        final = rules.outcome(last)
        assert final is not None and rules.standings(last) == final
    return tally


def assert_reached(tally: Tally, *kinds: str) -> None:
    for kind in ("none", "standing", "finished", "ranked", *kinds):
        assert tally.counts[kind] > 0, (kind, tally.counts)


@pytest.mark.parametrize("players", [2, 3, 6])
def test_rank_playouts(players: int) -> None:
    games = [(players, {"round_limit": (3, 8, 20)[seed % 3]}, seed) for seed in range(60)]
    tally = run_playouts(RANK, games, rank_referee)
    assert_reached(tally, "tie")


def test_advantage_playouts() -> None:
    games = [(2, {"strict_colours": seed % 2 == 0}, seed) for seed in range(60)]
    tally = run_playouts(ADVANTAGE, games, advantage_referee)
    assert_reached(tally, "tie")


def test_progression_playouts() -> None:
    games = [(3, {"target": 100}, seed) for seed in range(12)]
    tally = run_playouts(PROGRESSION, games, progression_referee)
    assert_reached(tally, "tie")


def test_davayka_playouts() -> None:
    games = [(2, {"forfeit_seconds": 300}, seed) for seed in range(60)]
    tally = run_playouts(DAVAYKA, games, davayka_referee, deadline_odds=0.1, step_seconds=0.5)
    assert_reached(tally, "tie")


def test_trumps_playouts() -> None:
    """The "barely begun" boundary is tracked here from the moves, not from the state."""
    tally = Tally()
    for seed in range(80):
        rng = Random(-seed)
        options = {"deck52": seed % 2 == 1}
        dealer_done = False
        last: Any = None
        for before, st in playout(TRUMPS, 2, options, seed):
            # The dealer's first turn is over when the move passes from him to the other
            # player after a move of play (trump choices do not count).
            if (
                before is not None
                and before.phase != "choose_trump"
                and before.to_move == st.dealer
                and st.to_move != st.dealer
            ):
                dealer_done = True

            def referee(s: TrumpsState, done: bool = dealer_done) -> Outcome | None:
                if not done:
                    return None
                sizes = [len(h) for h in s.hands]
                return Outcome(competition_places(sizes))

            check_state(TRUMPS, 2, st, referee, tally, rng)
            last = st
        assert TRUMPS.standings(last) == TRUMPS.outcome(last) is not None
    assert_reached(tally, "tie")
