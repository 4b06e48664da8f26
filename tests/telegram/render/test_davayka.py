"""Davay-ka!'s table and panels: the whole table in words, exactly the legal buttons, no leak."""

from __future__ import annotations

import re
from dataclasses import replace
from random import Random
from typing import Any

from bot.games.cards import Card, parse_card
from bot.games.davayka import DAVAYKA, EVENT_CODES, DavaykaState, LastMove, make_state
from bot.games.engine import Event
from bot.i18n import translator
from bot.services.types import GameSnapshot, SeatInfo
from bot.telegram.callbacks import ActPress, parse
from bot.telegram.render import panel_content, press_answer, table_content
from bot.telegram.render.common import event_line
from bot.telegram.render.content import Content

T = translator("en")
NOW = 1_800_000_000.0


def cs(text: str) -> tuple[Card, ...]:
    return tuple(parse_card(code) for code in text.split())


def snapshot(
    state: DavaykaState,
    *,
    names: tuple[str | None, str | None] = ("Anna", "Boris"),
    status: str = "playing",
    recent: tuple[Event, ...] = (),
) -> GameSnapshot:
    infos = tuple(
        SeatInfo(i, None if n is None else 100 + i, n or "", "en", None, 0)
        for i, n in enumerate(names)
    )
    legal = {
        s: tuple((DAVAYKA.encode_action(a), a) for a in DAVAYKA.legal_actions(state, s))
        for s in (0, 1)
        if DAVAYKA.legal_actions(state, s)
    }
    return GameSnapshot(
        game_id=7,
        number=3,
        chat_id=-100,
        topic_id=0,
        chat_kind="supergroup",
        chat_language="en",
        game_key="davayka",
        status=status,
        version=12,
        options={"countdown": 5, "idle_seconds": 10, "forfeit_seconds": 120},
        creator_id=100,
        join_token="tok",
        seats=infos,
        table_message_id=None,
        deadline_at=None,
        min_players=2,
        max_players=2,
        public=DAVAYKA.view(state, None),
        views={i.seat: DAVAYKA.view(state, i.seat) for i in infos if not i.is_computer},
        legal=legal,
        acting=DAVAYKA.acting_seats(state),
        outcome=DAVAYKA.outcome(state),
        recent=recent,
    )


def play_state(**kwargs: Any) -> DavaykaState:
    """Anna's 7♥️ fits both 8♣ and 6♦️, her Q♠ fits nothing, her 5♥️ fits 6♦️; Boris's 9♦️ fits
    8♣. Face-down cards are ones that appear nowhere face up."""
    defaults: dict[str, Any] = dict(
        rows=[
            [cs("2s 3s 4s 7h"), cs("2h 3h Qs"), cs("2d 5h"), ()],
            [cs("2c 3c 4c 9d"), (), cs("Kd"), cs("Ac")],
        ],
        stocks=[cs("Th Jh"), cs("Tc")],
        centres=[cs("Jd 8c"), cs("6d")],
        opened=NOW,
        idle_since=(NOW, NOW),
        last_press=(NOW, NOW),
    )
    defaults.update(kwargs)
    return make_state(**defaults)


HIDDEN = ("2♠", "3♠", "4♠", "2♥️", "3♥️", "2♦️", "2♣", "3♣", "4♣", "10♥️", "J♥️", "10♣", "J♦️")


def shown_cards(text: str) -> set[str]:
    return {m.group(0) for m in re.finditer(r"(10|[2-9JQKA])[♠♥♦♣]", text)}


def labels(content: Content) -> list[list[str]]:
    return [[b.text for b in row] for row in content.keyboard]


def presses(content: Content) -> list[ActPress]:
    found = [parse(b.data) for row in content.keyboard for b in row if b.data]
    assert all(isinstance(p, ActPress) for p in found)
    return found  # type: ignore[return-value]


# -- the group table ------------------------------------------------------------------------


def test_table_draws_both_rows_the_centre_and_what_happens_next_without_face_down_cards() -> None:
    content = table_content(T, snapshot(play_state()), NOW + 3.2)
    text = content.text
    assert "🔥 <b>Round 1</b> — play! No turns" in text
    assert "<b>Anna</b> · stock 2 · 🏆 0" in text and "<b>Boris</b> · stock 1 · 🏆 0" in text
    assert "7♥️▪▪▪   Q♠▪▪   5♥️▪   —" in text
    assert "9♦️▪▪▪   —   K♦️   A♣" in text
    assert "🎯 Centre: <b>8♣</b> and <b>6♦️</b> (2 + 1 cards)" in text
    assert "🤖 Autopilot: Anna in 7 s · Boris in 7 s" in text
    assert shown_cards(text) == {"7♥", "Q♠", "5♥", "9♦", "K♦", "A♣", "8♣", "6♦"}
    assert content.keyboard == ()
    assert all(len(line) <= 50 for line in text.split("\n"))
    assert "To move" not in text, "a real-time game has no turns"


def test_table_before_the_round_counts_down_and_marks_who_is_ready() -> None:
    state = DAVAYKA.new_game(2, {}, Random(4), NOW)
    state = DAVAYKA.apply(state, 1, DAVAYKA.legal_actions(state, 1)[0], Random(0), NOW).state
    text = table_content(T, snapshot(state), NOW + 1.5).text
    assert "🚦 <b>Round 1</b> — get ready" in text
    assert "<b>Boris ✅</b> · stock 16" in text and "<b>Anna</b> · stock 16" in text
    assert "🎯 Centre: empty until the round starts" in text
    assert "The round starts in 4 s, or as soon as both press Ready." in text
    assert "To move" not in text  # the line above says it, without turns
    tops = {pile[-1].label for row in state.rows for pile in row}
    assert shown_cards(text) == tops


def test_table_in_a_stall_says_when_new_cards_come_and_warns_of_a_forfeit() -> None:
    state = play_state(
        centres=[cs("Jd 8c"), cs("6d")],
        rows=[[cs("2s 3s 4s Kh")], [cs("2c 3c 4c Ks")]],
        phase="stall",
        opened=NOW,
        pressed=(True, False),
        last_press=(NOW, NOW - 100),
    )
    text = table_content(T, snapshot(state), NOW + 1).text
    assert "🛑 <b>Round 1</b> — nobody can move" in text
    assert "«Davay-ka!» New centre cards in 2 s, or as soon as both call it." in text
    assert "<b>Anna ✅</b>" in text
    assert "🚪 Boris loses in 19 s without a press." in text
    assert "Anna loses" not in text


def test_the_tables_clocks_moving_on_alone_change_only_its_text_not_what_it_shows() -> None:
    """The publisher compares ``still_text``: a clock ticking is no reason to edit, a new
    window is."""
    state = DAVAYKA.new_game(2, {}, Random(4), NOW)
    game = snapshot(state)
    first, later = table_content(T, game, NOW + 1.5), table_content(T, game, NOW + 2.5)
    assert first.text != later.text
    assert first.still_text == later.still_text
    pressed = DAVAYKA.apply(state, 1, DAVAYKA.legal_actions(state, 1)[0], Random(0), NOW).state
    assert table_content(T, snapshot(pressed), NOW + 1.5).still_text != first.still_text


def test_table_with_one_centre_pile() -> None:
    state = play_state(
        rows=[[cs("7h"), cs("Qs")], [cs("2c 3c 4c 9d")]],
        stocks=[(), cs("Tc")],
        centres=[cs("Jd 8c")],
    )
    text = table_content(T, snapshot(state), NOW).text
    assert "🎯 Centre: <b>8♣</b> (2 cards) — the only pile" in text
    assert "<b>Anna</b> · stock 0" in text


def test_finished_tables_say_why_with_cards_left_and_places() -> None:
    state = play_state(phase="over", winner=1, end_reason="forfeit")
    content = table_content(T, snapshot(state, status="finished"), NOW)
    assert "🚪 Anna stopped playing — Boris wins." in content.text
    assert "Anna: 11 cards left · 🏆 0" in content.text
    assert "Boris: 7 cards left · 🏆 0" in content.text
    assert "🥇 Boris" in content.text and "🥈 Anna" in content.text
    assert labels(content) == [["🔄 Rematch"]]

    won = play_state(phase="over", winner=0, end_reason="cards", rounds_won=(4, 2), round_no=6)
    assert "🎉 Anna got rid of every card!" in table_content(T, snapshot(won), NOW).text
    drawn = play_state(phase="over", winner=None, end_reason="rounds", round_no=30)
    assert "🤝 After 30 rounds both have as many cards: a draw." in (
        table_content(T, snapshot(drawn), NOW).text
    )
    by_rounds = play_state(phase="over", winner=1, end_reason="rounds", round_no=30)
    assert "⌛ After 30 rounds Boris has fewer cards and wins." in (
        table_content(T, snapshot(by_rounds), NOW).text
    )
    both_away = play_state(phase="over", winner=None, end_reason="forfeit")
    assert "🤝 Both players stopped playing: a draw." in (
        table_content(T, snapshot(both_away), NOW).text
    )


def test_names_are_escaped_everywhere() -> None:
    game = snapshot(play_state(), names=("<b>Eve</b>", "Bo & Co"))
    table = table_content(T, game, NOW).text
    assert "&lt;b&gt;Eve&lt;/b&gt;" in table and "Bo &amp; Co" in table
    assert "<b>Eve</b>" not in table
    panel = panel_content(T, game, 0, NOW).text
    assert "Bo &amp; Co" in panel
    state = play_state(last_move=LastMove(1, 0, parse_card("9d"), 0, False))
    assert (
        "⚡ Bo &amp; Co played 9♦️."
        in panel_content(T, snapshot(state, names=("A", "Bo & Co")), 0, NOW).text
    )


def test_a_computer_seat_is_named_as_one() -> None:
    text = table_content(T, snapshot(play_state(), names=("Anna", None)), NOW).text
    assert "<b>🤖 Computer 1</b> · stock 1" in text


# -- the panel ------------------------------------------------------------------------------


def test_panel_has_one_place_per_pile_and_a_choice_under_a_card_that_fits_both() -> None:
    game = snapshot(play_state())
    content = panel_content(T, game, 0, NOW)
    # Pile 1's 7♥️ fits both 8♣ and 6♦️: ⬅ above, ➡ below. Q♠ fits nothing; 5♥️ fits 6♦️ (✓);
    # pile 4 is empty. Every other place of the second row has nothing to press.
    assert labels(content) == [["7♥️ ⬅", "Q♠", "5♥️ ✓", "·"], ["7♥️ ➡", "·", "·", "·"]]
    places = [[b.data for b in row] for row in content.keyboard]
    assert places[0][3] == places[1][1] == "-"
    pressed = [[parse(data) for data in row if data != "-"] for row in places]
    codes = [[p.code for p in row if isinstance(p, ActPress)] for row in pressed]
    # "The top card of my pile N", onto the pile asked for if it still fits there; the
    # round of the panel, so that a press arriving in the next round is too late.
    assert codes == [["p001", "p1x1", "p211"], ["p011"]]
    assert {DAVAYKA.decode_action(c) for row in codes for c in row} >= {
        action for _code, action in game.legal[0]
    }
    # Judged on arrival, not by version: the buttons carry none, and stay valid.
    assert all(p.game_id == 7 and p.version == 0 for row in pressed for p in row)  # type: ignore[union-attr]
    assert all(len(b.data.encode()) <= 64 for row in content.keyboard for b in row if b.data)
    text = content.text
    # The other player's row on top, one's own at the bottom.
    assert text.index("<b>Boris</b>") < text.index("🎯 Centre") < text.index("<b>You</b>")
    assert "👆 Tap a card: it goes wherever it fits" in text
    assert "Your move" not in text  # no turns in this game
    assert not shown_cards(text) & set(HIDDEN)


def test_the_keyboard_keeps_its_shape_whatever_happens() -> None:
    """Two rows of four places in every phase: a tap lands where the player aimed."""
    shapes = set()
    states = [
        play_state(),
        play_state(rows=[[cs("2s Qs")], [cs("2c 3c 4c 9d")]]),  # no move for Anna
        play_state(centres=[cs("Jd 8c"), cs("Kd")]),
        DAVAYKA.new_game(2, {}, Random(4), NOW),
        play_state(rows=[[cs("2s Kh")], [cs("2c Ks")]], phase="stall"),
        play_state(rows=[[cs("2s Kh")], [cs("2c Ks")]], phase="stall", pressed=(1, 0)),
    ]
    for state in states:
        keyboard = panel_content(T, snapshot(state), 0, NOW).keyboard
        shapes.add((len(keyboard), len(keyboard[0])))
    assert shapes == {(2, 4)}
    # The centre moving on changes labels, never which pile a place presses.
    before = panel_content(T, snapshot(play_state()), 0, NOW).keyboard[0]
    after = panel_content(T, snapshot(play_state(centres=[cs("Kd"), cs("4c")])), 0, NOW)
    for old, new in zip(before, after.keyboard[0], strict=True):
        if old.data != "-" and new.data != "-":
            first, second = parse(old.data), parse(new.data)
            assert isinstance(first, ActPress) and isinstance(second, ActPress)
            assert first.code[:2] == second.code[:2]  # "p<pile>"


def test_panel_of_a_player_without_a_move_shows_his_cards_to_tap_when_they_fit() -> None:
    state = play_state(rows=[[cs("2s Qs")], [cs("2c 3c 4c 9d")]])
    content = panel_content(T, snapshot(state), 0, NOW)
    assert labels(content) == [["Q♠", "·", "·", "·"], ["·", "·", "·", "·"]]
    assert "None of your cards fits now — keep an eye on the centre." in content.text
    assert "Not your turn" not in content.text
    boris = panel_content(T, snapshot(state), 1, NOW)
    assert labels(boris)[0] == ["9♦️ ✓", "·", "·", "·"]


def test_ready_and_davayka_buttons_and_what_follows_a_press() -> None:
    state = DAVAYKA.new_game(2, {}, Random(4), NOW)
    ready = panel_content(T, snapshot(state), 0, NOW)
    assert labels(ready)[1] == ["✅ Ready"]
    assert parse(ready.keyboard[1][0].data) == ActPress(7, 0, "r")
    assert "Press <b>Ready</b>" in ready.text
    state = DAVAYKA.apply(state, 0, DAVAYKA.legal_actions(state, 0)[0], Random(0), NOW).state
    done = panel_content(T, snapshot(state), 0, NOW)
    assert labels(done)[1] == ["⏳ Waiting for Boris"] and done.keyboard[1][0].data == "-"
    assert "✅ You are ready. Waiting for Boris or the countdown." in done.text

    stall = play_state(rows=[[cs("2s Kh")], [cs("2c Ks")]], phase="stall")
    flip = panel_content(T, snapshot(stall), 1, NOW)
    assert labels(flip) == [["K♠", "·", "·", "·"], ["🔔 Davay-ka!"]]
    assert parse(flip.keyboard[1][0].data) == ActPress(7, 0, "f")
    assert "press <b>Davay-ka!</b>" in flip.text and "in 3 s" in flip.text
    pressed = play_state(rows=[[cs("2s Kh")], [cs("2c Ks")]], phase="stall", pressed=(0, 1))
    waiting = panel_content(T, snapshot(pressed), 1, NOW)
    assert labels(waiting)[1] == ["⏳ Waiting for Anna"]
    assert "🔔 You called «Davay-ka!» New cards come when Anna does too" in waiting.text


def test_a_panel_is_unchanged_by_the_other_players_ready_and_davayka_presses() -> None:
    state = DAVAYKA.new_game(2, {}, Random(4), NOW)
    before = panel_content(T, snapshot(state), 0, NOW)
    ready = DAVAYKA.apply(state, 1, DAVAYKA.legal_actions(state, 1)[0], Random(0), NOW).state
    after = replace(snapshot(ready), version=13)
    assert "✅" in table_content(T, after, NOW).text  # the group sees Boris is ready
    assert panel_content(T, after, 0, NOW) == before

    stall = play_state(rows=[[cs("2s Kh")], [cs("2c Ks")]], phase="stall")
    before = panel_content(T, snapshot(stall), 0, NOW)
    flipped = DAVAYKA.apply(stall, 1, DAVAYKA.legal_actions(stall, 1)[0], Random(0), NOW).state
    assert flipped.phase == "stall"  # the flip waits for Anna too, or the window's end
    assert panel_content(T, replace(snapshot(flipped), version=13), 0, NOW) == before


def test_panel_says_what_just_happened_to_the_reader() -> None:
    theirs = play_state(last_move=LastMove(1, 0, parse_card("9d"), 0, False))
    assert "⚡ Boris played 9♦️." in panel_content(T, snapshot(theirs), 0, NOW).text
    auto = play_state(last_move=LastMove(0, 0, parse_card("7h"), 0, True))
    assert "🤖 The autopilot played your 7♥️." in panel_content(T, snapshot(auto), 0, NOW).text
    mine = play_state(last_move=LastMove(0, 0, parse_card("7h"), 0, False))
    assert "You played 7♥️." in panel_content(T, snapshot(mine), 0, NOW).text


def test_a_new_round_panel_says_who_won_the_last_one() -> None:
    state = DAVAYKA.new_game(2, {}, Random(4), NOW)
    won = (
        Event("davayka.out", 1),
        Event("davayka.round_won", 1, {"round": 1, "reason": "out", "taken": 23}),
        Event("davayka.laid_out", None, {"round": 2}),
    )
    game = snapshot(state, recent=won)
    assert "🏆 You won round 1! Anna took 23 cards." in panel_content(T, game, 1, NOW).text
    assert "Boris won round 1; you took 23 cards." in panel_content(T, game, 0, NOW).text
    drawn = (Event("davayka.round_drawn", None, {"round": 4}),)
    assert "🤝 Round 4 was a draw" in panel_content(T, snapshot(state, recent=drawn), 0, NOW).text
    assert "won round" not in panel_content(T, snapshot(state), 0, NOW).text


def test_finished_panel_has_the_result_and_no_buttons() -> None:
    state = play_state(phase="over", winner=0, end_reason="cards")
    content = panel_content(T, snapshot(state, status="finished"), 1, NOW)
    assert content.keyboard == ()
    assert "🎉 Anna got rid of every card!" in content.text
    assert "🏁 Game over — you finished 2 of 2." in content.text


def test_the_answer_to_a_move_says_the_card_where_it_went_and_what_the_pile_shows() -> None:
    state = play_state()
    step = DAVAYKA.apply(state, 0, DAVAYKA.decode_action("p011"), Random(0), NOW)
    after = replace(snapshot(step.state), events=step.events)
    assert (
        press_answer(T, after, 100) == "7♥️ → the right pile. Pile 1 now shows 4♠. Centre: 8♣ · 7♥️."
    )
    assert press_answer(T, after, 101) is None  # not Boris's move
    step = DAVAYKA.apply(state, 0, DAVAYKA.decode_action("p211"), Random(0), NOW)
    again = replace(snapshot(step.state), events=step.events)
    assert (
        press_answer(T, again, 100) == "5♥️ → the right pile. Pile 3 now shows 2♦️. Centre: 8♣ · 5♥️."
    )
    alone = play_state(rows=[[cs("2s 3s 4s 7h"), (), cs("5h"), ()], [cs("2c 3c 4c 9d")]])
    step = DAVAYKA.apply(alone, 0, DAVAYKA.decode_action("p2x1"), Random(0), NOW)
    emptied = replace(snapshot(step.state), events=step.events)
    assert (
        press_answer(T, emptied, 100)
        == "5♥️ → the right pile. Pile 3 is empty now. Centre: 8♣ · 5♥️."
    )
    last = play_state(rows=[[(), (), cs("5h"), ()], [cs("2c 3c 4c 9d")]])
    step = DAVAYKA.apply(last, 0, DAVAYKA.decode_action("p2x1"), Random(0), NOW)
    out = replace(snapshot(step.state), events=step.events)
    assert press_answer(T, out, 100) == (
        "5♥️ → the right pile. «Out!» Your row is empty: the round is yours."
    )
    ru = translator("ru")
    answer = press_answer(ru, after, 100)
    assert answer is not None and "правую" in answer


def test_every_event_reads_as_a_sentence() -> None:
    game = snapshot(play_state())
    args: dict[str, Any] = {
        "round": 2,
        "card": parse_card("7h"),
        "pile": 1,
        "centre": 0,
        "auto": 0,
        "count": 12,
        "reason": "out",
        "taken": 9,
        "kind": "idle",
    }
    for code in EVENT_CODES:
        line = event_line(T, game, Event(code, 0, args))
        assert line and not line.startswith("event.") and "{" not in line, code
    assert event_line(T, game, Event("davayka.played", 1, args)) == "Boris plays 7♥️"


def test_timeouts_read_as_what_happened_and_the_calls_speak_the_readers_language() -> None:
    game = snapshot(play_state())
    said = {
        kind: event_line(T, game, Event("davayka.timeout", 0, {"kind": kind}))
        for kind in ("countdown", "stall", "idle", "forfeit")
    }
    assert said["countdown"] == "⏰ Anna was not ready: the round starts all the same"
    assert said["idle"] == "🤖 Anna is idle: the autopilot plays a card"
    assert len(set(said.values())) == 4 and not any("Time's up" in s for s in said.values())
    assert event_line(T, game, Event("davayka.out", 1)) == "📣 Boris: «Out!» — the row is empty"
    english = "".join(T(key) for key in ("davayka.button_flip", "rules.davayka"))
    assert not set("АаДдйкуЙ") & set(english), "no Cyrillic in English"
    ru = translator("ru")
    assert ru("davayka.button_flip") == "🔔 Давай-ка!"


def test_a_cancelled_game_keeps_its_table_without_clocks() -> None:
    text = table_content(T, snapshot(play_state(), status="cancelled"), NOW).text
    assert "7♥️▪▪▪   Q♠▪▪   5♥️▪   —" in text and "Autopilot" not in text
    assert text.splitlines()[-1] == "🚫 <b>Davay-ka!</b> was cancelled."


def test_a_drawn_game_says_draw_not_only_two_gold_medals() -> None:
    state = play_state(phase="over", winner=None, end_reason="rounds")
    text = table_content(T, snapshot(state, status="finished"), NOW).text
    assert text.count("🥇") == 2
    assert "🤝 A draw: nobody comes first alone." in text
    won = play_state(phase="over", winner=0, end_reason="cards")
    assert "🤝" not in table_content(T, snapshot(won, status="finished"), NOW).text
