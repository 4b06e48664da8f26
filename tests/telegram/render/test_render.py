"""Rendering: the lobby, Rank's table and panels — readable, escaped, and leak-free."""

from __future__ import annotations

from dataclasses import replace
from random import Random
from typing import Any

from bot.games.cards import JOKER, card, parse_cards
from bot.games.cards import Suit as S
from bot.games.rank import RANK, RankState
from bot.i18n import translator
from bot.services.types import GameSnapshot, SeatInfo
from bot.telegram.callbacks import ActPress, ScreenPress, parse
from bot.telegram.render import panel_content, table_content
from bot.telegram.render.common import card_label
from bot.telegram.render.content import Content

T = translator("en")
NOW = 1_800_000_000.0


def seats(*names: str | None) -> tuple[SeatInfo, ...]:
    return tuple(
        SeatInfo(i, None if n is None else 100 + i, n or "", "en", None, 0)
        for i, n in enumerate(names)
    )


def snapshot(
    state: Any = None,
    *,
    names: tuple[str | None, ...] = ("Anna", "Boris"),
    status: str = "playing",
) -> GameSnapshot:
    infos = seats(*names)
    base: dict[str, Any] = dict(
        game_id=7,
        number=3,
        chat_id=-100,
        topic_id=0,
        chat_kind="supergroup",
        chat_language="en",
        game_key="rank",
        status=status,
        version=3,
        options={"turn_seconds": 60, "round_limit": 150},
        creator_id=100,
        join_token="tok",
        seats=infos,
        table_message_id=None,
        deadline_at=None,
        min_players=2,
        max_players=10,
    )
    if state is None:
        return GameSnapshot(**base)
    legal = {
        s: tuple((RANK.encode_action(a), a) for a in RANK.legal_actions(state, s))
        for s in RANK.acting_seats(state)
    }
    return GameSnapshot(
        **base,
        public=RANK.view(state, None),
        views={i.seat: RANK.view(state, i.seat) for i in infos if not i.is_computer},
        legal=legal,
        acting=tuple(RANK.acting_seats(state)),
        outcome=RANK.outcome(state),
    )


def buttons(content: Content) -> list[str]:
    return [b.text for row in content.keyboard for b in row]


def state(hand0: str, hand1: str, top: str, **kw: Any) -> RankState:
    return RankState(
        hands=(parse_cards(hand0.split()), parse_cards(hand1.split())),
        stock=parse_cards(["2c", "3c", "4c", "5c"]),
        discard=parse_cards(top.split()),
        opened=NOW,
        turn_seconds=60,
        **kw,
    )


def test_the_table_shows_the_players_as_the_race_to_the_round_limit() -> None:
    """Most games of Rank end at the round limit, fewest cards first: the table lists the
    players by the place each would take now (ties sharing it), whose turn marked."""
    game = RankState(
        hands=(
            parse_cards(["7h", "9s", "2d"]),
            (),
            parse_cards(["Kd", "Qc", "3s", "4s", "5s"]),
            parse_cards(["Jd", "Tc", "6s"]),
        ),
        stock=parse_cards(["2c"]),
        discard=parse_cards(["8c"]),
        opened=NOW,
        turn_seconds=60,
        out=(1,),
        turn=2,
        round=12,
    )
    content = table_content(T, snapshot(game, names=("Anna", "Boris", "Clara", "Dan")), NOW)
    lines = content.text.splitlines()
    assert "🏁 The race — after round 200, fewest cards wins:" in lines
    race = lines[lines.index("🏁 The race — after round 200, fewest cards wins:") + 1 :][:5]
    assert race == [
        "1. Boris — no cards left",
        "2. Anna — 3 cards",
        "2. Dan — 3 cards",
        "4. 👉 Clara — 5 cards",
        "",
    ]


def test_lobby_lists_players_escaped_with_its_buttons() -> None:
    content = table_content(T, snapshot(names=("<b>Eve</b>", None), status="lobby"), NOW)
    assert "&lt;b&gt;Eve&lt;/b&gt;" in content.text
    assert "🤖 Computer 1" in content.text
    assert {"✋ Join", "Leave", "🤖 Add computer", "▶️ Start", "✖️ Cancel"} <= set(buttons(content))
    assert all(len(b.data.encode()) <= 64 for row in content.keyboard for b in row if b.data)


def test_table_shows_public_facts_and_no_hand() -> None:
    game = snapshot(state("7h 9s", "Kd Qc", "8c"))
    content = table_content(T, game, NOW)
    assert "On top: <b>8♣</b>" in content.text
    assert "Anna — 2 cards" in content.text and "Boris — 2 cards" in content.text
    for secret in ("7♥️", "9♠", "K♦️", "Q♣"):
        assert secret not in content.text
    assert "⏳ 60 s" in content.text
    assert content.keyboard == ()


def test_panel_offers_exactly_the_adjacent_cards() -> None:
    game = snapshot(state("7h 9s Kd", "Qc 2d", "8c"))
    content = panel_content(T, game, 0, NOW)
    assert "Your hand: 7♥️ 9♠ K♦️" in content.text
    assert sorted(buttons(content)) == ["7♥️", "9♠"]
    assert "Play a 7 or a 9 (any suit)." in content.text
    codes = [parse(b.data) for row in content.keyboard for b in row if b.data]
    assert all(isinstance(c, ActPress) and c.game_id == 7 and c.version == 3 for c in codes)
    assert "On top: <b>8♣</b>" in content.text and "Others: Boris — 2 cards" in content.text
    waiting = panel_content(T, game, 1, NOW)
    assert waiting.keyboard == () and "Your hand: 2♦️ Q♣" in waiting.text
    assert "⏳ Not your turn — your move will show up here." in waiting.text
    # What the table shows, for his next turn (issue #35) — and none of her cards.
    assert "On top: <b>8♣</b>" in waiting.text and "Others: 👉 Anna — 3 cards" in waiting.text
    assert not {"7♥️", "9♠", "K♦️"} & set(waiting.text.split())


def test_a_waiting_panel_follows_the_table_and_offers_nothing_until_her_move() -> None:
    """Her panel shows the top card and the others' cards as they move (issue #35), with no
    button until her move comes."""
    three = ("Anna", "Boris", "Carla")
    rank = RankState(
        hands=(parse_cards(["7h", "9s"]), parse_cards(["Qc", "2d"]), parse_cards(["5s", "Jd"])),
        stock=parse_cards(["2c", "3c", "8d"]),
        discard=parse_cards(["8c"]),
        opened=NOW,
        turn_seconds=60,
    )
    before = panel_content(T, snapshot(rank, names=three), 2, NOW)
    step = RANK.apply(rank, 0, RANK.decode_action("p7h"), Random(1), NOW)
    after = snapshot(step.state, names=three)
    assert after.acting == (1,)  # Boris's move: Carla still waits
    assert table_content(T, after, NOW) != table_content(T, snapshot(rank, names=three), NOW)
    moved = panel_content(T, after, 2, NOW)
    assert "On top: <b>7♥️</b>" in moved.text and moved.keyboard == ()
    assert "Others: Anna — 1 card · 👉 Boris — 2 cards" in moved.text
    # Boris draws 8♦️, which fits: still his move; Carla sees him holding one more.
    drawn = RANK.apply(step.state, 1, RANK.decode_action("d"), Random(1), NOW).state
    assert RANK.acting_seats(drawn) == (1,)
    waits = panel_content(T, snapshot(drawn, names=three), 2, NOW)
    assert "👉 Boris — 3 cards" in waits.text and waits.keyboard == ()
    # He plays it: her turn, and her panel shows what she must follow.
    played = RANK.apply(drawn, 1, RANK.decode_action("p8d"), Random(1), NOW).state
    mine = panel_content(T, snapshot(played, names=three), 2, NOW)
    assert mine != before and "On top: <b>8♦️</b>" in mine.text and mine.keyboard


def test_the_player_to_move_is_told_whose_last_card_his_move_settles() -> None:
    game = snapshot(
        RankState(
            hands=(parse_cards(["7h", "9s"]), ()),
            stock=parse_cards(["2c", "3c"]),
            discard=parse_cards(["8c"]),
            opened=NOW,
            pending=1,
        )
    )
    acting = panel_content(T, game, 0, NOW).text
    assert "Others: Boris — played the last card…" in acting
    assert (
        "⚠️ The last card of Boris is on the table: if you play a card, Boris draws two and is "
        "back in; if you draw, Boris is out." in acting
    )
    pending = panel_content(T, game, 1, NOW).text
    assert "You played your last card." in pending and "Not your turn" in pending


def test_a_player_who_is_out_is_not_told_to_wait_for_his_move() -> None:
    game = snapshot(
        RankState(
            hands=(parse_cards(["7h"]), (), parse_cards(["5s"])),
            stock=parse_cards(["2c", "3c"]),
            discard=parse_cards(["8c"]),
            opened=NOW,
            out=(1,),
        ),
        names=("Anna", "Boris", "Carla"),
    )
    out = panel_content(T, game, 1, NOW)
    assert "You are out of cards for good — place 1." in out.text
    assert "Not your turn" not in out.text and out.keyboard == ()


def joker_game() -> GameSnapshot:
    """Anna to move with 3♥️ and the joker on 8♣; Boris holds Q♣."""
    return snapshot(
        RankState(
            hands=((card(3, S.HEARTS), JOKER), (card(12, S.CLUBS),)),
            stock=parse_cards(["2c"]),
            discard=parse_cards(["8c"]),
            opened=NOW,
        )
    )


def test_joker_opens_a_rank_picker_with_a_way_back() -> None:
    game = joker_game()
    main = panel_content(T, game, 0, NOW)
    assert "Joker…" in buttons(main) and "Draw" in buttons(main)
    joker = next(b for row in main.keyboard for b in row if b.text == "Joker…")
    assert parse(joker.data) == ScreenPress(7, 3, "joker")
    picker = panel_content(T, game, 0, NOW, "joker")
    labels = buttons(picker)
    assert labels[:13] == ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"]
    assert labels[-1] == "↩️ Back"


def test_the_joker_is_named_in_words_never_by_its_emoji() -> None:
    """🃏 is drawn as a boxed star by some systems' fonts: the joker reads as a word."""
    game = joker_game()
    for language, word in (("en", "Joker"), ("ru", "Джокер"), ("uk", "Джокер"), ("hr", "Džoker")):
        t = translator(language)
        assert card_label(t, JOKER) == word
        main = panel_content(t, game, 0, NOW)
        assert word in main.text
        assert "🃏" not in main.text + " ".join(buttons(main))
        assert "🃏" not in t("event.rank.joker", player="Anna", rank="7")


def test_stuck_prompts_say_what_is_possible() -> None:
    only_draw = panel_content(T, snapshot(state("2h 4d", "Qc", "8c")), 0, NOW)
    assert "No card fits: draw one." in only_draw.text
    assert buttons(only_draw) == ["Draw"]
    escape = panel_content(T, snapshot(state("As 4d", "Qc", "8c")), 0, NOW)
    assert "play an ace or a joker, or draw" in escape.text
    assert buttons(escape) == ["A♠", "Draw"]


def test_a_rematch_table_shows_the_series_score() -> None:
    game = snapshot(state("7h 9s", "Kd Qc", "8c"))
    game = replace(game, options={**game.options, "series": [2, 1]})
    assert "🔄 Series: Anna 2 · Boris 1" in table_content(T, game, NOW).text
    assert "Series" not in table_content(T, snapshot(state("7h", "Kd", "8c")), NOW).text


def test_red_suits_are_drawn_red_and_black_ones_as_text() -> None:
    """Telegram's apps draw ♥ and ♦ black like ♠ and ♣ unless they come in emoji
    presentation (U+FE0F): hearts and diamonds do, so a hand reads at a glance."""
    from bot.games.cards import parse_card
    from bot.telegram.render.common import card_label

    t = translator("en")
    labels = [card_label(t, parse_card(code)) for code in ("7h", "Kd", "As", "Tc")]
    assert labels == ["7♥\ufe0f", "K♦\ufe0f", "A♠", "10♣"]


def test_scores_in_the_results_agree_with_their_numbers() -> None:
    t = translator("en")
    assert t.plural("results.score.advantage", 1, score="1") == "1 pair"
    assert t.plural("results.score.advantage", 3, score="3") == "3 pairs"
    assert t.plural("results.score", 1, score="1") == "1 point"
    assert t.plural("results.score", 2, score="1.5") == "1.5 points"
