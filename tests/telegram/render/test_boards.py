"""The boards' callback data, /top arguments and rendering — without a bot or a database."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from bot.i18n import SUPPORTED_LANGUAGES, translator
from bot.services.stats import (
    Board,
    BoardLine,
    GameStats,
    Leaders,
    PlayedGame,
    PlayedSeat,
    PlayerStats,
)
from bot.telegram.callbacks import MAX_BYTES, BadCallback
from bot.telegram.render.boards import (
    BoardPress,
    HistoryPress,
    parse,
    rating_chart,
    render_board,
    render_history,
    render_leaders,
    render_stats,
    signed,
)
from bot.telegram.render.content import Content

T = translator("en")


def line(
    position: int, name: str | None, rating: int = 1100, player_id: int = 0, games: int = 4
) -> BoardLine:
    wins = min(3, games)
    return BoardLine(
        position, player_id or 100 + position, name, rating, games, wins, 0, games - wins
    )


def texts(content: Content) -> list[str]:
    return [button.text for row in content.keyboard for button in row]


def datas(content: Content) -> list[str]:
    return [button.data or "" for row in content.keyboard for button in row]


@pytest.mark.parametrize(
    "press",
    [
        BoardPress(None),
        BoardPress("rank"),
        BoardPress("advantage", everyone=True, computers=True, page=9999),
        HistoryPress(),
        HistoryPress(2**31 - 1),
    ],
    ids=lambda p: p.encode(),
)
def test_round_trip_within_64_bytes(press: BoardPress | HistoryPress) -> None:
    data = press.encode()
    assert len(data.encode()) <= MAX_BYTES
    assert parse(data) == press


@pytest.mark.parametrize(
    "data",
    [
        None,
        "",
        "B:",
        "B:chess:ch:0",  # not a game
        "B:rank:xh:0",
        "B:rank:ch:01",
        "B:rank:ch:10000",
        "B:rank:ch:0:extra",
        "Y:2147483648",
        "Y:-1",
        "Y:12;DROP TABLE games",
        "Y:" + "9" * 70,
        "A:1:2:x",  # the generic codec's, not ours
    ],
)
def test_garbage_is_refused(data: object) -> None:
    with pytest.raises(BadCallback):
        parse(data)


def test_a_board_page_escapes_names_and_offers_the_other_pages() -> None:
    lines = (line(11, "<Anna & co>", 1234), line(12, None, 1100, player_id=0))
    board = Board("rank", -100, computers=True, page=1, pages=3, lines=lines)
    content = render_board(T, board)
    assert "11. &lt;Anna &amp; co&gt; — <b>1234</b> · 4 games · 3 wins (75%)" in content.text
    assert "12. 🤖 Computer — <b>1100</b>" in content.text
    assert "Page 2 of 3" in content.text
    assert "?" not in content.text, "nobody is provisional: no mark, no note"
    assert texts(content) == [
        "◀️ Previous",
        "Next ▶️",
        "🌍 Everyone",
        "🤖 Hide the computer",
        "↩️ All games",
    ]
    assert datas(content) == [
        "B:rank:cb:0",
        "B:rank:cb:2",
        "B:rank:gb:0",
        "B:rank:ch:0",
        "B:-:cb:0",
    ]


def test_a_global_board_with_nobody_yet() -> None:
    content = render_board(T, Board("trumps", None, False, 0, 1, ()))
    assert "🌍 <b>Your Trumps</b> — best players everywhere" in content.text
    assert "Nobody has finished a game of Your Trumps yet." in content.text
    assert "Page" not in content.text
    assert "💬 This chat" in texts(content)


def test_long_names_are_shortened() -> None:
    content = render_board(T, Board("rank", -1, False, 0, 1, (line(1, "x" * 40),)))
    assert "x" * 23 + "…" in content.text and "x" * 24 not in content.text


def test_leaders_and_their_game_buttons() -> None:
    leaders = Leaders(-100, {"rank": line(1, "Anna", 1380), "trumps": None})
    content = render_leaders(T, leaders)
    assert "Rank: 🥇 Anna — <b>1380</b> (4 games)" in content.text
    assert "Your Trumps: nobody yet" in content.text
    assert "?" not in content.text
    assert texts(content)[:2] == ["Rank", "Your Trumps"]
    assert datas(content)[:2] == ["B:rank:ch:0", "B:trumps:ch:0"]
    assert render_leaders(T, Leaders(-100, {})).text == "Nobody has finished a game here yet."


def test_provisional_ratings_are_marked_and_explained() -> None:
    lines = (line(1, "Anna", 1150, games=1), line(2, "Boris", 1069, games=4))
    content = render_board(T, Board("rank", -100, False, 0, 1, lines))
    assert content.text.splitlines()[2:] == [
        "1. Anna — <b>1150?</b> · 1 game · 1 win (100%)",
        "2. Boris — <b>1069</b> · 4 games · 3 wins (75%)",
        "",
        "? — fewer than 3 games so far: the rating is provisional.",
    ]
    leaders = render_leaders(T, Leaders(-100, {"rank": line(1, "Anna", 1150, games=1)}))
    assert "Rank: 🥇 Anna — <b>1150?</b> (1 game)" in leaders.text
    assert "? — fewer than 3 games so far" in leaders.text


@pytest.mark.parametrize(
    ("language", "note"),
    [
        ("ru", "? — меньше 3 игр: рейтинг предварительный."),
        ("uk", "? — менше 3 ігор: рейтинг попередній."),
        ("hr", "? — manje od 3 partije: rejting je privremen."),
    ],
)
def test_the_provisional_note_and_the_counts_agree_with_their_numbers(
    language: str, note: str
) -> None:
    t = translator(language)
    lines = (line(1, "Anna", 1150, games=1), line(2, "Boris", 1100, games=2))
    text = render_board(t, Board("rank", -100, False, 0, 1, lines)).text
    assert note in text
    words = {
        "ru": ("1 игра · 1 победа", "2 игры · 2 победы"),
        "uk": ("1 гра · 1 перемога", "2 гри · 2 перемоги"),
        "hr": ("1 partija · 1 pobjeda", "2 partije · 2 pobjede"),
    }[language]
    assert all(counts in text for counts in words)


#: How each language says "group": a private chat's words must not.
GROUP_WORDS = {"en": "group", "ru": "групп", "uk": "груп", "hr": "grup"}


@pytest.mark.parametrize("language", SUPPORTED_LANGUAGES)
def test_boards_in_a_private_chat_speak_of_your_games_not_of_a_group(language: str) -> None:
    t = translator(language)
    private = 42  # a private chat's id is its user's
    shown = [
        render_board(t, Board("rank", private, False, 0, 1, (line(1, "Anna"),)), private=True),
        render_board(t, Board("rank", private, False, 0, 1, ()), private=True),
        render_board(t, Board("rank", None, False, 0, 1, (line(1, "Anna"),)), private=True),
        render_leaders(t, Leaders(private, {"rank": line(1, "Anna")}), private=True),
        render_leaders(t, Leaders(private, {}), private=True),
        render_leaders(t, Leaders(None, {"rank": line(1, "Anna")}), private=True),
    ]
    for content in shown:
        for text in (content.text, *texts(content)):
            assert GROUP_WORDS[language] not in text.lower(), text
    own, _, everyone, own_leaders, _, everyone_leaders = shown
    group = render_board(t, Board("rank", -100, False, 0, 1, (line(1, "Anna"),)))
    assert own.text.splitlines()[0] == t("board.title_private", game=t("game.rank.name"))
    assert own.text.splitlines()[0] != group.text.splitlines()[0]
    assert own_leaders.text.splitlines()[0] == t("board.leaders_private")
    # From everyone's board, the button back goes to the player's own games in this chat.
    assert t("button.board_private") in texts(everyone)
    assert t("button.board_private") in texts(everyone_leaders)
    assert t("button.board_chat") not in texts(everyone) + texts(everyone_leaders)
    assert GROUP_WORDS[language] not in t("board.usage_private").lower()


@pytest.mark.parametrize("language", SUPPORTED_LANGUAGES)
def test_help_in_a_group_tells_how_to_play_there(language: str) -> None:
    t = translator(language)
    private, group = t("help.text"), t("help.group")
    add_me = private.split("\n")[0]  # "Add me to a group and open a game with /new …"
    assert add_me not in group
    assert "/new" in group and "/top" in group and "/help" in group
    if language == "en":
        assert "Add me to a group" in private and "Add me to a group" not in group
        assert group.startswith("Open a game here with /new")


def game_stats(history: tuple[int, ...], key: str = "rank") -> GameStats:
    change = history[-1] - history[-2] if len(history) > 1 else None
    return GameStats(key, history[-1], change, len(history) - 1, 2, 1, 0, 2, history)


def test_stats_text_and_the_chart() -> None:
    stats = PlayerStats(
        1, (game_stats((1000, 1120, 1080, 1200)), game_stats((1000, 950), "trumps"))
    )
    text = render_stats(T, "Anna <3", stats)
    assert text.splitlines() == [
        "📊 <b>Anna &lt;3</b>",
        "<b>Rank</b>: rating <b>1200</b> (+120 last game)",
        "3 games · 2 wins · 1 draw · 0 losses · best streak 2",
        "<b>Your Trumps</b>: rating <b>950?</b> (−50 last game)",
        "1 game · 2 wins · 1 draw · 0 losses · best streak 2",
        "? — fewer than 3 games so far: the rating is provisional.",
    ]
    assert stats.rated_games == 4
    png = rating_chart(T, stats)
    assert png.startswith(b"\x89PNG\r\n\x1a\n") and len(png) > 5000


def test_signed_changes() -> None:
    assert [signed(n) for n in (12, -7, 0)] == ["+12", "−7", "±0"]


def test_history_lines_and_buttons() -> None:
    played = PlayedGame(
        41,
        "rank",
        datetime(2026, 11, 30, 14, 5, tzinfo=UTC),
        (
            PlayedSeat(1, None, "", 1, 15),
            PlayedSeat(0, 7, "Boris", 2, -12),
            PlayedSeat(2, None, "", 2, None),
        ),
    )
    content = render_history(T, [played])
    assert "<b>1.</b> Rank · 30 Nov 2026, 14:05 UTC" in content.text
    assert "🥇 🤖 Computer 1 +15 · 🥈 Boris −12 · 🥈 🤖 Computer 2" in content.text
    assert datas(content) == ["Y:41"]
    assert render_history(T, []).text == "No game has finished here yet."
