"""Words and figures as a reader meets them (issue #28): articles, agreement, plain counts,
labels that fit, true minus signs, marked ratings, and clocks only where a person has one."""

from __future__ import annotations

from dataclasses import replace

import pytest

from bot.games.cards import parse_cards
from bot.games.davayka import DAVAYKA
from bot.games.rank import RANK, RankState
from bot.i18n import SUPPORTED_LANGUAGES, translator
from bot.services.types import INVITED, REMATCH_OF
from bot.telegram.render import panel_content, result_content, table_content
from bot.telegram.render.content import Content
from tests.telegram.render.test_davayka import play_state
from tests.telegram.render.test_people import finished_rank, snapshot

T = translator("en")
NOW = 1_800_000_000.0
#: What a button shows in full on a 390 px phone when it shares its row with another.
HALF_ROW = 15
MINUS = "\u2212"


def rank_to_play(top: str) -> RankState:
    return RankState(
        hands=(parse_cards(["8h", "Th", "Qh", "Ah", "3h", "7h", "9h"]), parse_cards(["2d", "5s"])),
        stock=parse_cards(["4c", "5c", "6c"]),
        discard=parse_cards([top]),
        opened=NOW,
        turn_seconds=60,
    )


@pytest.mark.parametrize(
    ("top", "prompt"),
    [
        ("9c", "Play an 8 or a 10 (any suit)."),
        ("Kc", "Play a Q or an A (any suit)."),
        ("2c", "Play an A or a 3 (any suit)."),
        ("8c", "Play a 7 or a 9 (any suit)."),
    ],
)
def test_english_takes_an_before_an_eight_and_an_ace(top: str, prompt: str) -> None:
    panel = panel_content(T, snapshot("rank", rank_to_play(top)), 0, NOW).text
    assert prompt in panel


def lobby(key: str, seats: int, invited: int = 0, language: str = "en") -> Content:
    names = ("Anna", "Boris", "Carla")[:seats]
    options: dict[str, object] = {}
    if invited:
        options = {INVITED: [[200 + i, f"Guest {i}"] for i in range(invited)], REMATCH_OF: 1}
    game = snapshot(key, None, names=names, status="lobby", options=options)
    return table_content(translator(language), game, NOW)


def test_a_game_for_two_counts_its_players_plainly() -> None:
    assert "Players: 1 of 2\n" in lobby("trumps", 1).text
    assert "Players: 3 of 3\n" in lobby("progression", 3).text
    assert "Players: 2 (2 to 10 can play)\n" in lobby("rank", 2).text
    for language in SUPPORTED_LANGUAGES:
        line = lobby("trumps", 1, language=language).text.splitlines()[1]
        assert "2" in line and line.count("2") == 1, (language, line)


@pytest.mark.parametrize(
    ("language", "one", "two"),
    [
        ("ru", "Guest 0 подтвердит", "Guest 0, Guest 1 подтвердят"),
        ("uk", "Guest 0 підтвердить", "Guest 0, Guest 1 підтвердять"),
        ("hr", "Guest 0 potvrdi", "Guest 0, Guest 1 potvrde"),
    ],
)
def test_the_verb_agrees_with_how_many_are_awaited(language: str, one: str, two: str) -> None:
    assert one in lobby("rank", 1, invited=1, language=language).text
    assert two in lobby("rank", 1, invited=2, language=language).text


def test_the_lobby_buttons_that_share_a_row_fit_a_phone_in_every_language() -> None:
    for language in SUPPORTED_LANGUAGES:
        content = lobby("rank", 1, language=language)
        shared = [row for row in content.keyboard if len(row) == 2]
        assert len(shared) >= 3
        for row in shared:
            for button in row:
                assert len(button.text) <= HALF_ROW, (language, button.text)


def test_croatian_leave_says_leaving_the_table_not_giving_up() -> None:
    content = lobby("rank", 1, language="hr")
    labels = [b.text for row in content.keyboard for b in row]
    assert "Izlazim" in labels and "Odustajem" not in labels


def rated(*, provisional: frozenset[int] = frozenset()) -> object:
    game = snapshot("rank", finished_rank((1, 2)), status="finished")
    return replace(game, ratings={0: (1000, 1038), 1: (1000, 927)}, provisional=provisional)


def test_rating_changes_take_a_true_minus_sign() -> None:
    game = rated()
    result = result_content(T, game).text  # type: ignore[arg-type]
    assert f"🥈 Boris · rating 927 ({MINUS}73)" in result and "(-73)" not in result
    loser = panel_content(T, game, 1, NOW).text  # type: ignore[arg-type]
    assert f"({MINUS}73)" in loser and "-73" not in loser


def test_a_provisional_rating_is_marked_in_the_result_as_on_the_boards() -> None:
    game = rated(provisional=frozenset({1}))
    result = result_content(T, game).text  # type: ignore[arg-type]
    assert "🥈 Boris · rating 927? (" in result
    assert "🥇 Anna · rating 1038 (+38)" in result
    assert "927?" in panel_content(T, game, 1, NOW).text  # type: ignore[arg-type]


def test_the_final_panels_rating_line_stays_true_after_later_games() -> None:
    """The last panel of a game stays in the chat when a rematch is played: it says what this
    game did to the rating — from and to — not a rating that the next game moves on."""
    panel = panel_content(T, rated(), 0, NOW).text  # type: ignore[arg-type]
    assert "📈 Your rating in this game: 1000 → 1038 (+38)" in panel
    assert "\nRating 1038" not in panel


def test_a_computer_seat_shows_no_autopilot_countdown() -> None:
    state = play_state()  # both can move: both have an idle clock
    view = DAVAYKA.view(state, None)
    assert view.phase == "play" and all(s.idle_at is not None for s in view.seats)
    people = table_content(T, snapshot("davayka", state), NOW).text
    assert "🤖 Autopilot: Anna in 10 s · Boris in 10 s" in people
    computer = table_content(T, snapshot("davayka", state, names=("Anna", None)), NOW).text
    assert "🤖 Autopilot: Anna in 10 s" in computer
    assert "Computer 1 in" not in computer
    first = table_content(T, snapshot("davayka", state, names=(None, "Boris")), NOW).text
    assert "🤖 Autopilot: Boris in 10 s" in first and "Computer 1 in" not in first


def test_rank_prompts_read_the_same_from_the_engine() -> None:
    """The prompt's ranks are the ring's neighbours of the top card (a sanity check of the
    positions the article tests use)."""
    game = snapshot("rank", rank_to_play("9c"))
    assert sorted(code for code, _ in game.legal[0]) == sorted(
        RANK.encode_action(a) for a in RANK.legal_actions(rank_to_play("9c"), 0)
    )
