"""Progression's table and panel: every stack and score in the group, no hand; legal buttons."""

from __future__ import annotations

import re
from dataclasses import replace
from random import Random
from typing import Any

import pytest

from bot.games.cards import parse_cards
from bot.games.progression import (
    NEXT,
    PROGRESSION,
    PlayCard,
    ProgressionState,
    TakeCard,
    build_state,
)
from bot.i18n import SUPPORTED_LANGUAGES, translator
from bot.services.types import GameSnapshot, SeatInfo
from bot.telegram.callbacks import ActPress, ScreenPress, parse
from bot.telegram.render import panel_content, table_content
from bot.telegram.render.common import score_text
from bot.telegram.render.content import Content

T = translator("en")
NOW = 1_800_000_000.0
P = PROGRESSION


def cards(text: str) -> tuple[Any, ...]:
    return parse_cards(text.split())


def snapshot(
    state: ProgressionState,
    *,
    names: tuple[str | None, ...] = ("Anna", None, "Carla"),
    status: str = "playing",
    away: tuple[int, ...] = (),
) -> GameSnapshot:
    """As the services build it: legal actions for every seat that has any. A person's seat in
    ``away`` is on autopilot."""
    infos = tuple(
        SeatInfo(i, None if n is None else 100 + i, n or "", "en", None, 0, autopilot=i in away)
        for i, n in enumerate(names)
    )
    legal = {}
    if status == "playing":
        for info in infos:
            actions = P.legal_actions(state, info.seat)
            if actions:
                legal[info.seat] = tuple((P.encode_action(a), a) for a in actions)
    return GameSnapshot(
        game_id=7,
        number=3,
        chat_id=-100,
        topic_id=0,
        chat_kind="supergroup",
        chat_language="en",
        game_key="progression",
        status=status,
        version=3,
        options={"turn_seconds": 60, "target": 100},
        creator_id=100,
        join_token="tok",
        seats=infos,
        table_message_id=None,
        deadline_at=None,
        min_players=3,
        max_players=3,
        public=P.view(state, None),
        views={i.seat: P.view(state, i.seat) for i in infos if not i.is_computer},
        legal=legal,
        acting=tuple(P.acting_seats(state)) if status == "playing" else (),
        outcome=P.outcome(state),
    )


def buttons(content: Content) -> list[str]:
    return [b.text for row in content.keyboard for b in row]


def presses(content: Content) -> dict[str, Any]:
    found = {}
    for row in content.keyboard:
        for b in row:
            assert b.data is not None and len(b.data.encode()) <= 64
            found[b.text] = parse(b.data)
    return found


def midgame(
    hands: tuple[str, str, str] = ("9h 2c 3c 4c Kd", "5c 6h 7h 8h 9c", "6c Th Jh Qh 2h"),
    **kwargs: Any,
) -> ProgressionState:
    """Anna (seat 0) to play; she has three stacks, the computer one, Carla none."""
    return build_state(
        [cards(h) for h in hands],
        stacks=[
            [cards("Ks Js 2s 6s 7s 8s"), cards("Ah"), cards("Qd 9d Td"), ()],
            [cards("5s 9s"), (), (), ()],
            [(), (), (), ()],
        ],
        public=[cards("3s 4s Qs"), (), cards("7d"), cards("Tc")],
        totals=(40, 12, -5),
        target=100,
        to_move=0,
        opened=NOW - 10,
        **kwargs,
    )


def _last_deal_state(totals: tuple[int, int, int]) -> ProgressionState:
    """Anna takes the last card of the draw pile: the deal ends."""
    state = build_state(
        [cards("9h 2c 3c 4c"), cards("5c"), cards("6c")],
        stacks=[
            [cards("Ks Js 2s 6s 7s 8s"), (), cards("Qd 9d Td"), ()],
            [cards("5s 9s"), cards("Ah Kh"), (), ()],
            [(), (), (), cards("Ac Kc 7c")],
        ],
        draw=cards("Tc"),
        public=[(), cards("8h"), (), ()],
        totals=totals,
        target=100,
        opened=NOW - 10,
    )
    state = P.apply(state, 0, P.decode_action("u9h"), Random(1), NOW - 5).state
    return P.apply(state, 0, P.decode_action("d"), Random(1), NOW - 2).state


def test_table_shows_every_stack_score_total_and_the_middle() -> None:
    text = table_content(T, snapshot(midgame()), NOW).text
    assert "<b>Deal 1</b> · match to 100 points" in text
    assert "Draw pile: 20 cards" in text
    assert "Anna is playing a card." in text
    assert "👉 <b>Anna</b> · 40 pts · deal +27" in text
    assert "   ♠ K J 2 6 7 8 → <b>+33</b>" in text
    assert "   ♥️ A → <b>−20</b>" in text
    assert "   ♦️ Q 9 10 → <b>+14</b>" in text
    assert "<b>🤖 Computer 1</b> · 12 pts · deal +2" in text
    assert "   ♠ 5 9 → <b>+2</b>" in text
    assert "<b>Carla</b> · −5 pts · deal 0\n   <i>no stacks yet</i>" in text
    # The middle: whole stacks, the top card (the one that can be taken) in bold.
    assert "   ♠ 3 4 <b>Q</b>\n   ♦️ <b>7</b>\n   ♣ <b>10</b>" in text
    assert "To move: <b>Anna</b> ⏳ 50 s" in text
    assert "Your hand" not in text
    # Phone width: the visible text (tags aside) stays within about 35 characters a line.
    assert max(len(re.sub(r"<[^>]+>", "", line)) for line in text.splitlines()) <= 36


def test_table_never_depends_on_the_hands() -> None:
    one = midgame()
    other = midgame(("Kd 4c 3c 9h 2c", "Th Jh Qh 2h 6c", "9c 8h 7h 6h 5c"))
    assert P.view(one, None) != P.view(other, 0) and one.hands != other.hands
    assert table_content(T, snapshot(one), NOW) == table_content(T, snapshot(other), NOW)
    text = table_content(T, snapshot(one), NOW).text
    for hand in one.hands:
        for c in hand:
            assert c.label not in text


def test_names_are_escaped() -> None:
    game = snapshot(midgame(), names=("<b>Eve</b>", None, "A&B"))
    text = table_content(T, game, NOW).text
    assert "&lt;b&gt;Eve&lt;/b&gt;" in text and "A&amp;B" in text and "<b>Eve</b>" not in text
    carla_to_move = snapshot(replace(midgame(), to_move=2), names=("<b>Eve</b>", None, "A&B"))
    panel = panel_content(T, carla_to_move, 2, NOW).text
    assert "&lt;b&gt;Eve&lt;/b&gt; (+27): ♠ K J 2 6 7 8 · ♥️ A · ♦️ Q 9 10" in panel


def test_play_is_a_card_then_one_of_its_legal_places() -> None:
    game = snapshot(midgame())
    main = panel_content(T, game, 0, NOW)
    assert "Your hand: <b>9♥️ K♦️ 2♣ 3♣ 4♣</b>" in main.text
    assert "Fit your own stacks: 9♥️ 2♣ 3♣ 4♣" in main.text
    assert "<b>Play a card</b>" in main.text and "👉 <b>Your move</b>" in main.text
    found = presses(main)
    assert list(found) == ["9♥️", "K♦️ → middle", "2♣", "3♣", "4♣"]
    choosing = [p for label, p in found.items() if label != "K♦️ → middle"]
    assert all(isinstance(p, ScreenPress) and p.version == 3 for p in choosing)
    assert found["9♥️"].screen == "card.9h"
    # K♦️ fits none of her stacks: the middle is its only place, so one press plays it there.
    direct = found["K♦️ → middle"]
    assert isinstance(direct, ActPress) and direct.version == 3
    assert P.decode_action(direct.code) == PlayCard(cards("Kd")[0], True)

    # 9♥️ fits on Anna's ♥️ stack (A, -20 → 9 → 0): both places.
    hearts = panel_content(T, game, 0, NOW, "card.9h")
    assert "Where does <b>9♥️</b> go?" in hearts.text
    places = presses(hearts)
    assert list(places) == ["My ♥️ stack (+20)", "Middle ♥️", "↩️ Back"]
    assert P.decode_action(places["My ♥️ stack (+20)"].code) == PlayCard(cards("9h")[0], False)
    assert P.decode_action(places["Middle ♥️"].code) == PlayCard(cards("9h")[0], True)
    assert places["↩️ Back"] == ScreenPress(7, 3, "main")

    # Every legal play is reachable, in one press or through its card's screen, and nothing
    # else.
    reachable = set()
    for press in found.values():
        if isinstance(press, ActPress):
            reachable.add(press.code)
            continue
        for sub in presses(panel_content(T, game, 0, NOW, press.screen)).values():
            if isinstance(sub, ActPress):
                reachable.add(sub.code)
    assert reachable == {code for code, _ in game.legal[0]}


def test_unknown_or_stale_card_screen_falls_back_to_the_hand() -> None:
    game = snapshot(midgame())
    main = panel_content(T, game, 0, NOW)
    assert panel_content(T, game, 0, NOW, "card.As") == main
    assert panel_content(T, game, 0, NOW, "card.zz") == main
    assert panel_content(T, game, 0, NOW, "main") == main


def test_take_offers_the_draw_pile_and_the_middle_tops_but_not_the_card_just_played() -> None:
    state = P.apply(midgame(), 0, P.decode_action("u9h"), Random(1), NOW).state
    game = snapshot(state)
    content = panel_content(T, game, 0, NOW)
    assert "You put 9♥️ in the middle. <b>Take a card</b>" in content.text
    assert content.keyboard[0][0].text == "🂠 Draw pile (20)"
    found = presses(content)
    assert list(found) == ["🂠 Draw pile (20)", "Q♠", "7♦️", "10♣"]
    decoded = {label: P.decode_action(p.code) for label, p in found.items()}
    assert decoded["🂠 Draw pile (20)"] == TakeCard(None)
    assert {code for code, _ in game.legal[0]} == {p.code for p in found.values()}
    assert "Anna is taking a card." in table_content(T, game, NOW).text


def test_with_nothing_to_take_in_the_middle_only_the_draw_pile_is_offered() -> None:
    state = build_state([cards("9h 2c 3c 4c Kd"), cards("5c"), cards("6c")], opened=NOW)
    state = P.apply(state, 0, P.decode_action("u9h"), Random(1), NOW).state
    content = panel_content(T, snapshot(state), 0, NOW)
    assert "You put 9♥️ in the middle. <b>Take a card</b> from the draw pile." in content.text
    assert buttons(content) == ["🂠 Draw pile (45)"]


def test_backstop_leaves_only_the_draw_pile() -> None:
    state = P.apply(midgame(no_draw_turns=3), 0, P.decode_action("m2c"), Random(1), NOW).state
    game = snapshot(state)
    content = panel_content(T, game, 0, NOW)
    assert "You put 2♣ on your stack." in content.text
    assert "<b>take from the draw pile</b>" in content.text
    assert buttons(content) == ["🂠 Draw pile (20)"]
    assert "Anna must take from the draw pile." in table_content(T, game, NOW).text


def test_waiting_player_sees_his_stacks_and_hand_and_no_buttons() -> None:
    content = panel_content(T, snapshot(midgame()), 2, NOW)
    assert content.keyboard == ()
    assert "Your hand: <b>2♥️ 10♥️ J♥️ Q♥️ 6♣</b>" in content.text
    assert "<b>You</b> · −5 pts · deal 0" in content.text
    assert "⏳ Not your turn — your move will show up here." in content.text
    # What the others' turns change is for the player to move (and the group) only.
    for public in ("Middle tops", "Draw pile", "Anna", "Computer"):
        assert public not in content.text, public


def test_the_player_to_move_sees_the_others_stacks_and_the_middle() -> None:
    content = panel_content(T, snapshot(replace(midgame(), to_move=2)), 2, NOW)
    assert "Middle tops: Q♠ 7♦️ 10♣" in content.text
    assert "Anna (+27): ♠ K J 2 6 7 8 · ♥️ A · ♦️ Q 9 10" in content.text
    assert "👉 <b>Your move</b>" in content.text and content.keyboard


def test_a_waiting_panel_is_unchanged_by_another_players_turn() -> None:
    state = midgame()
    before = panel_content(T, snapshot(state), 2, NOW)
    played = P.apply(state, 0, P.decode_action("u9h"), Random(1), NOW).state  # to the middle
    assert panel_content(T, snapshot(played), 2, NOW) == before
    taken = P.apply(played, 0, TakeCard(None), Random(1), NOW).state  # Anna draws
    assert taken.to_move == 1  # the computer's turn: Carla still waits
    assert table_content(T, snapshot(taken), NOW) != table_content(T, snapshot(state), NOW)
    assert panel_content(T, snapshot(taken), 2, NOW) == before


def _pressed(state: ProgressionState, *seats: int) -> ProgressionState:
    """Between deals: these seats press Next."""
    for seat in seats:
        state = P.apply(state, seat, NEXT, Random(1), NOW - 1).state
    assert state.phase == "between_deals"
    return state


def test_between_deals_the_group_sees_the_score_sheet_and_everyone_may_press_next() -> None:
    state = _last_deal_state((40, 12, -5))
    assert state.phase == "between_deals"
    game = snapshot(state)
    assert game.acting == (0, 1, 2) and set(game.legal) == {0, 1, 2}
    text = table_content(T, game, NOW).text
    assert "📋 <b>Deal 1 is over</b> — score sheet" in text
    assert (
        "<b>Anna</b> · deal +47 → 87 pts\n   ♠ K J 2 6 7 8 → <b>+33</b>\n"
        "   ♦️ Q 9 10 → <b>+14</b>" in text
    )
    assert (
        "<b>🤖 Computer 1</b> · deal −28 → −16 pts\n   ♠ 5 9 → <b>+2</b>\n"
        "   ♥️ A K → <b>−30</b>" in text
    )
    assert "<b>Carla</b> · deal 0 → −5 pts\n   ♣ A K 7 → <b>0</b>" in text
    # The words quote the button, and say that one press does not do it.
    assert (
        "Deal 2 starts by itself within 20 s — or at once when everyone has pressed "
        "«⏭ Deal 2 now»." in text
    )
    assert "⏳ 18 s" in text  # the 20-second pause: long enough to read the sheet
    assert "Ready:" not in text  # nobody has pressed yet
    assert "tied" not in text.lower()
    for seat in (0, 2):
        panel = panel_content(T, game, seat, NOW)
        found = presses(panel)
        assert list(found) == ["⏭ Deal 2 now"]
        assert found["⏭ Deal 2 now"] == ActPress(7, 0, "n")  # any version
        assert "Not your turn" not in panel.text, "he has a button to press"
        assert "at once when everyone has pressed «⏭ Deal 2 now»" in panel.text
    anna = panel_content(T, game, 0, NOW).text
    assert "You scored <b>+47</b> → 87 pts." in anna
    assert "1. Anna — 87 pts\n2. Carla — −5 pts\n3. 🤖 Computer 1 — −16 pts" in anna


def test_after_pressing_next_the_panel_names_the_people_still_awaited() -> None:
    game = snapshot(_pressed(_last_deal_state((40, 12, -5)), 0), names=("Anna", "Boris", "Carla"))
    assert game.acting == (1, 2) and set(game.legal) == {1, 2}
    anna = panel_content(T, game, 0, NOW)
    assert anna.keyboard == ()
    assert (
        "✅ You are ready. Waiting for Boris, Carla to press «⏭ Deal 2 now» — or deal 2 starts "
        "by itself within 20 s." in anna.text
    )
    assert "Not your turn" not in anna.text and "Your move" not in anna.text
    assert "You scored <b>+47</b> → 87 pts." in anna.text  # the sheet stays
    # Boris has not pressed: his button, and who is ready.
    boris = panel_content(T, game, 1, NOW)
    assert buttons(boris) == ["⏭ Deal 2 now"]
    assert "✅ Ready: Anna" in boris.text and "Waiting for" not in boris.text
    # The table says who is ready, next to the button's own words.
    table = table_content(T, game, NOW).text
    assert (
        "at once when everyone has pressed «⏭ Deal 2 now».\n✅ Ready: Anna\n\n"
        "⏸ Pause ⏳ 18 s" in table
    )
    # Nobody is "to move" in the pause, and saying one is ready is no news for the log.
    assert "To move" not in table and "is ready" not in table
    both = snapshot(
        _pressed(_last_deal_state((40, 12, -5)), 2, 0), names=("Anna", "Boris", "Carla")
    )
    assert "✅ Ready: Anna, Carla" in table_content(T, both, NOW).text
    assert "Waiting for Boris to press «⏭ Deal 2 now»" in panel_content(T, both, 2, NOW).text


def test_computers_and_people_away_are_never_waited_for_nor_listed() -> None:
    # Seat 1 is a computer; it has not pressed yet (it does so by itself, in a moment).
    state = _pressed(_last_deal_state((40, 12, -5)), 0)
    anna = panel_content(T, snapshot(state), 0, NOW).text
    assert "Waiting for Carla to press «⏭ Deal 2 now»" in anna
    assert "Computer" not in anna.splitlines()[-1]
    # Carla is away (the computer plays for her): only the computer is left, nobody to name.
    away = panel_content(T, snapshot(state, away=(2,)), 0, NOW)
    assert "✅ You are ready — deal 2 starts in a moment." in away.text
    assert "Waiting for" not in away.text and away.keyboard == ()
    # A computer that has pressed is no "ready" person either.
    computer_ready = _pressed(state, 1)
    table = table_content(T, snapshot(computer_ready), NOW).text
    assert "✅ Ready: Anna\n" in table
    assert "Ready: Anna, " not in table


@pytest.mark.parametrize("language", SUPPORTED_LANGUAGES)
def test_every_language_quotes_the_button_and_agrees_with_the_number_awaited(
    language: str,
) -> None:
    t = translator(language)
    names = ("Anna", "Boris", "Carla")
    one_pressed = snapshot(_pressed(_last_deal_state((40, 12, -5)), 0), names=names)
    two_pressed = snapshot(_pressed(_last_deal_state((40, 12, -5)), 0, 2), names=names)
    boris = panel_content(t, one_pressed, 1, NOW)
    (label,) = buttons(boris)
    assert "2" in label
    # Croatian quotes „so“; the others «so».
    quoted = f"„{label}“" if language == "hr" else f"«{label}»"
    assert quoted in boris.text and quoted in table_content(t, one_pressed, NOW).text
    waiting_two = panel_content(t, one_pressed, 0, NOW)
    waiting_one = panel_content(t, two_pressed, 0, NOW)
    assert waiting_two.keyboard == () == waiting_one.keyboard
    assert "Boris, Carla" in waiting_two.text and quoted in waiting_two.text
    assert "Boris" in waiting_one.text and "Carla" not in waiting_one.text.split("\n")[-1]
    # One person awaited, or two: the verb agrees (Russian, Ukrainian, Croatian).
    verbs = {
        "ru": ("нажмёт", "нажмут"),
        "uk": ("натисне", "натиснуть"),
        "hr": ("pritisne", "pritisnu"),
    }
    if language in verbs:
        one, many = verbs[language]
        assert f" {one} " in waiting_one.text and f" {many} " not in waiting_one.text
        assert f" {many} " in waiting_two.text and f" {one} " not in waiting_two.text


def test_a_tie_at_the_top_is_announced() -> None:
    state = _last_deal_state((60, 135, -5))
    assert state.totals[:2] == (107, 107) and state.phase == "between_deals"
    text = table_content(T, snapshot(state), NOW).text
    assert "🤝 Tied at the top with 107 points — one more deal decides." in text


def test_the_end_shows_the_last_sheet_the_winner_and_rematch() -> None:
    state = _last_deal_state((80, 12, -5))
    game = snapshot(state, status="finished")
    content = table_content(T, game, NOW)
    assert "📋 <b>Deal 1 is over</b>" in content.text
    assert "🥇 Anna — 127 points" in content.text
    assert "Next" not in content.text
    assert buttons(content) == ["🔄 Rematch"]
    panel = panel_content(T, game, 0, NOW)
    assert panel.keyboard == ()
    assert "You scored <b>+47</b> → 127 pts." in panel.text
    assert "Game over — you finished 1 of 3" in panel.text


def test_a_game_that_stopped_says_nobody_is_playing_a_card() -> None:
    """Everyone away (finished early) or cancelled: the table keeps the deal as it stood, but
    nobody is "playing a card" any more."""
    for status in ("finished", "cancelled"):
        text = table_content(T, snapshot(midgame(), status=status), NOW).text
        assert "<b>Deal 1</b> · match to 100 points" in text
        assert "is playing a card" not in text, status


#: An ASCII hyphen-minus right before a digit: "-20" where the bot writes "−20".
HYPHEN_NUMBER = re.compile(r"(?<![\w-])-\d")


@pytest.mark.parametrize("language", SUPPORTED_LANGUAGES)
def test_scores_below_zero_take_the_minus_sign(language: str) -> None:
    """Stack scores, deal scores, totals and what a play would change: −20, as every other
    number of the bot below zero (ratings' −12), never the hyphen "-20" (issue #35, item 14)."""
    t = translator(language)
    # Anna holds K♣ and has no ♣ stack: a lone face would score −20 there.
    game = snapshot(midgame(("9h 2c 3c 4c Kc", "5c 6h 7h 8h 9c", "6c Th Jh Qh 2h")))
    texts = [table_content(t, game, NOW).text]
    texts += [panel_content(t, game, seat, NOW).text for seat in (0, 2)]
    kings = panel_content(t, game, 0, NOW, "card.Kc")
    texts += [kings.text, *buttons(kings)]
    between = snapshot(_last_deal_state((40, 12, -5)))
    texts += [table_content(t, between, NOW).text]
    texts += [panel_content(t, between, seat, NOW).text for seat in (0, 2)]
    shown = "\n".join(texts)
    assert "−20" in shown and "−5" in shown and "−28" in shown and "−16" in shown
    assert any("(−20)" in label for label in buttons(kings))
    assert not HYPHEN_NUMBER.search(shown), HYPHEN_NUMBER.findall(shown)


def test_a_result_shows_a_score_below_zero_with_a_minus_sign() -> None:
    assert [score_text(v) for v in (12, 7.5, 0, -16, -2.5)] == ["12", "7.5", "0", "−16", "−2.5"]
