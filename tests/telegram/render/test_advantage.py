"""Advantage's table and panel: the public facts, the private cards only for their owner,
and exactly the legal moves as buttons (at most two presses each)."""

from __future__ import annotations

from random import Random
from typing import Any

from bot.games.advantage import ADVANTAGE, AdvantageState, Draw
from bot.games.cards import Card, parse_card
from bot.games.engine import Event
from bot.i18n import translator
from bot.services.types import GameSnapshot, SeatInfo
from bot.telegram.callbacks import ActPress, ScreenPress, parse
from bot.telegram.render import panel_content, table_content
from bot.telegram.render.content import Content

T = translator("en")
NOW = 1_800_000_000.0
R = ADVANTAGE


def cs(text: str) -> tuple[Card, ...]:
    return tuple(parse_card(code) for code in text.split())


def make(
    hands: tuple[str, str],
    private: tuple[str, str] = ("", ""),
    piles: tuple[str, str, str] = ("Kh", "3s 6s", "5d"),
    stock: str = "2c 3c 4d",
    pairs: tuple[str, str] = ("", ""),
    **fields: Any,
) -> AdvantageState:
    return AdvantageState(
        dealer=1,
        stock=cs(stock),
        public=(cs(hands[0]), cs(hands[1])),
        private=(cs(private[0]), cs(private[1])),
        piles=tuple(cs(p) for p in piles),
        pairs=(cs(pairs[0]), cs(pairs[1])),
        opened=NOW,
        turn_seconds=60,
        **fields,
    )


def snapshot(
    state: AdvantageState,
    *,
    names: tuple[str | None, str | None] = ("Anna", "Boris"),
    events: tuple[Event, ...] = (),
) -> GameSnapshot:
    infos = tuple(
        SeatInfo(i, None if n is None else 100 + i, n or "", "en", None, 0)
        for i, n in enumerate(names)
    )
    legal = {
        s: tuple((R.encode_action(a), a) for a in R.legal_actions(state, s))
        for s in R.acting_seats(state)
    }
    return GameSnapshot(
        game_id=7,
        number=3,
        chat_id=-100,
        topic_id=0,
        chat_kind="supergroup",
        chat_language="en",
        game_key="advantage",
        status="finished" if state.finished else "playing",
        version=3,
        options={"turn_seconds": 60, "strict_colours": False},
        creator_id=100,
        join_token="tok",
        seats=infos,
        table_message_id=None,
        deadline_at=None,
        min_players=2,
        max_players=2,
        public=R.view(state, None),
        views={i.seat: R.view(state, i.seat) for i in infos if not i.is_computer},
        legal=legal,
        acting=tuple(R.acting_seats(state)),
        outcome=R.outcome(state),
        events=events,
    )


def labels(content: Content) -> list[str]:
    return [b.text for row in content.keyboard for b in row]


def presses(content: Content) -> list[Any]:
    return [parse(b.data) for row in content.keyboard for b in row if b.data]


def codes(content: Content) -> set[str]:
    return {p.code for p in presses(content) if isinstance(p, ActPress)}


def legal_codes(game: GameSnapshot, seat: int) -> set[str]:
    return {code for code, _ in game.legal.get(seat, ())}


def reachable(game: GameSnapshot, seat: int) -> tuple[set[str], int]:
    """Every action code a player can reach from the main panel, and the most presses any
    of them takes."""
    main = panel_content(T, game, seat, NOW)
    found = set(codes(main))
    deepest = 1
    for press in presses(main):
        if isinstance(press, ScreenPress):
            assert (press.game_id, press.version) == (7, 3)
            screen = panel_content(T, game, seat, NOW, press.screen)
            assert "↩️ Back" in labels(screen)
            back = [p for p in presses(screen) if isinstance(p, ScreenPress)]
            assert [p.screen for p in back] == ["main"]
            assert codes(screen), press.screen
            found |= codes(screen)
            deepest = 2
    return found, deepest


# -- the group table -----------------------------------------------------------------------


def test_table_shows_the_public_facts_and_never_a_hidden_card() -> None:
    state = make(
        ("7h 9s Td", "Qc"),
        private=("Ah 5c", "2h 8c 9h"),
        pairs=("4s 4h", "Js Jd 6c 6h"),
    )
    content = table_content(T, snapshot(state), NOW)
    text = content.text
    assert "🔁 Cycle 1 · ⬇️ <b>Drop phase</b>" in text
    assert "Anna drops a card on a pile, if one fits." in text
    assert "🂠 Stock: 3 cards" in text
    assert "① <b>K♥️</b> · 1 card" in text
    assert "② <b>6♠</b> · 2 cards" in text
    assert "③ <b>5♦️</b> · 1 card" in text
    assert "👉 <b>Anna</b> · 1 pair: 4" in text
    assert "✋ 7♥️ 9♠ 10♦️ + 2 hidden" in text
    assert "<b>Boris</b> · 2 pairs: 6 J" in text
    assert "✋ Q♣ + 3 hidden" in text
    for hidden in ("A♥️", "5♣", "2♥️", "8♣", "9♥️"):
        assert hidden not in text
    assert "To move: <b>Anna</b> ⏳ 60 s" in text
    assert content.keyboard == ()


def test_table_counts_the_last_cycles_once_the_stock_is_empty() -> None:
    soon = table_content(T, snapshot(make(("7h", "Qc"), stock="")), NOW).text
    assert "🂠 Stock empty · the last 6 cycles start next" in soon
    last = table_content(T, snapshot(make(("7h", "Qc"), stock="", last_cycle=2)), NOW).text
    assert "🂠 Stock empty · last cycles: 2 of 6" in last


def test_table_says_what_the_exchange_and_the_drawn_card_phases_are() -> None:
    exchange = make(("7h", "Qc"), phase="exchange", to_move=1)
    text = table_content(T, snapshot(exchange), NOW).text
    assert "🔄 <b>Exchange phase</b>" in text
    assert "Boris may swap a card for a whole pile, or pass." in text
    assert "👉 <b>Boris</b>" in text
    drawn = make(("7h", "Qc"), private=("Jh", ""), phase="drop_drawn", drawn=parse_card("Jh"))
    text = table_content(T, snapshot(drawn), NOW).text
    assert "Anna drew a card that fits: drop it or keep it." in text
    assert "J♥️" not in text


def test_names_are_escaped_everywhere() -> None:
    game = snapshot(make(("7h", "Qc")), names=("<b>Eve</b>", "Bo & Co"))
    table = table_content(T, game, NOW).text
    assert "&lt;b&gt;Eve&lt;/b&gt;" in table and "Bo &amp; Co" in table
    assert "<b>Eve</b>" not in table
    panel = panel_content(T, game, 0, NOW).text
    assert "Bo &amp; Co: Q♣" in panel
    their_turn = snapshot(make(("7h", "Qc"), to_move=1), names=("<b>Eve</b>", "Bo & Co"))
    other = panel_content(T, their_turn, 1, NOW).text
    assert "&lt;b&gt;Eve&lt;/b&gt;: 7♥️" in other and "<b>Eve</b>" not in other


def test_a_computer_seat_is_named_and_has_no_panel() -> None:
    game = snapshot(make(("7h", "Qc")), names=("Anna", None))
    assert "🤖 Computer 1" in table_content(T, game, NOW).text
    assert 1 not in game.views


def test_the_finished_table_says_why_it_ended_and_who_won() -> None:
    state = make(("", ""), stock="", pairs=("4s 4h 7c 7d", "Js Jd"), phase="over")
    state = AdvantageState(**{**_fields(state), "end_reason": "backstop"})
    text = table_content(T, snapshot(state), NOW).text
    assert "The stock is empty and the last 6 cycles have been played." in text
    assert "🏆 Anna wins with 2 pairs to 1." in panel_content(T, snapshot(state), 1, NOW).text
    assert "🥇 Anna" in text and "🔄 Rematch" in labels(table_content(T, snapshot(state), NOW))
    tie = make(("", ""), stock="", pairs=("4s 4h", "Js Jd"), phase="over", end_reason="quiet")
    text = table_content(T, snapshot(tie), NOW).text
    assert "a whole cycle passed with no drop and no pair" in text
    panel = panel_content(T, snapshot(tie), 0, NOW)
    assert panel.keyboard == () and "🤝 A draw: 1 pair each." in panel.text


def _fields(state: AdvantageState) -> dict[str, Any]:
    return {name: getattr(state, name) for name in AdvantageState.__dataclass_fields__}


# -- the panel -----------------------------------------------------------------------------


def test_panel_shows_the_whole_hand_with_hidden_cards_marked_and_only_its_own() -> None:
    state = make(("7h 9s", "Qc"), private=("Ah 5c", "2h 8c"))
    mine = panel_content(T, snapshot(state), 0, NOW).text
    assert "✋ <b>Your hand</b>: 7♥️ 9♠" in mine
    assert "🔒 Only you see: 5♣ A♥️" in mine
    assert "Boris: Q♣ + 2 hidden" in mine
    assert "2♥️" not in mine and "8♣" not in mine
    theirs = panel_content(T, snapshot(state), 1, NOW).text
    assert "✋ <b>Your hand</b>: Q♣" in theirs and "🔒 Only you see: 2♥️ 8♣" in theirs
    assert "A♥️" not in theirs and "5♣" not in theirs
    assert "⏳ Not your turn — your move will show up here." in theirs
    their_turn = make(("7h 9s", "Qc"), private=("Ah 5c", "2h 8c"), to_move=1)
    theirs = panel_content(T, snapshot(their_turn), 1, NOW).text
    assert "Anna: 7♥️ 9♠ + 2 hidden" in theirs
    assert "A♥️" not in theirs and "5♣" not in theirs


def test_a_waiting_panel_shows_his_own_cards_and_pairs_only() -> None:
    state = make(("7h 9s", "Qc"), private=("Ah 5c", "2h 8c"), pairs=("4s 4h", "Js Jd 6c 6h"))
    text = panel_content(T, snapshot(state), 1, NOW).text
    assert "Your pairs: 2 — 6 J" in text
    assert "✋ <b>Your hand</b>: Q♣" in text and "🔒 Only you see: 2♥️ 8♣" in text
    # Nothing that the other player's moves change: no piles, stock, cycle or his hand.
    for public in ("K♥️", "6♠", "Stock", "Cycle", "Anna", "7♥️"):
        assert public not in text, public
    assert panel_content(T, snapshot(state), 1, NOW).keyboard == ()


def test_a_waiting_panel_is_unchanged_by_the_other_players_move() -> None:
    state = make(("9c", "Qc"), private=("", "2h 8c"), piles=("Kh", "3h 6d", "5d"), stock="2c 7h")
    before = panel_content(T, snapshot(state), 1, NOW)
    # Anna draws 7♥️: the stock, her hand and the table change; Boris's cards do not.
    step = R.apply(state, 0, Draw(), Random(1), NOW)
    assert step.state.to_move == 0 and step.state.phase == "drop_drawn"
    after = snapshot(step.state, events=step.events)
    assert table_content(T, after, NOW) != table_content(T, snapshot(state), NOW)
    assert panel_content(T, after, 1, NOW) == before
    # She drops it: now it is his move, and his panel shows what he decides on.
    drop = next(code for code, action in after.legal[0] if code.startswith("d"))
    dropped = R.apply(step.state, 0, R.decode_action(drop), Random(1), NOW)
    assert dropped.state.to_move == 1
    acting = panel_content(T, snapshot(dropped.state, events=dropped.events), 1, NOW)
    assert acting != before and "① <b>" in acting.text and acting.keyboard


def test_panel_shows_whole_piles_top_first() -> None:
    text = panel_content(T, snapshot(make(("7h", "Qc"), piles=("Kh", "2s 3s 6s", "5d"))), 0, NOW)
    assert "② <b>6♠</b> on 3♠ 2♠" in text.text
    assert "① <b>K♥️</b>\n" in text.text


def test_a_drawn_card_is_told_only_to_its_owner() -> None:
    state = make(("9s", "Qc"), piles=("Kh", "3h 6d", "5d"), stock="2c 3c 7h")
    step = R.apply(state, 0, Draw(), Random(1), NOW)
    game = snapshot(step.state, events=step.events)
    mine = panel_content(T, game, 0, NOW)
    assert "· 🔒 You drew 7♥️" in mine.text
    assert "drew 1 from the stock" not in mine.text
    assert "You drew <b>7♥️</b> and it fits: <b>drop it</b> on a pile, or keep it." in mine.text
    assert labels(mine) == ["7♥️ → ① K♥️", "7♥️ → ② 6♦️", "7♥️ → ③ 5♦️", "✋ Keep 7♥️"]
    assert codes(mine) == legal_codes(game, 0)
    theirs = panel_content(T, game, 1, NOW).text
    assert "drew" not in theirs and "7♥️" not in theirs  # waiting: his own cards only
    table = table_content(T, game, NOW).text
    assert "· Anna drew 1 from the stock" in table or "Anna drew a card that fits" in table
    assert "7♥️" not in table


def test_few_drops_are_one_press_each_a_row_per_card() -> None:
    game = snapshot(make(("7h 2s", "Qc"), private=("Jc", "")))
    content = panel_content(T, game, 0, NOW)
    assert "⬇️ <b>Drop one card on a pile</b> — you must. Then you draw a new one." in (
        content.text
    )
    assert [[b.text for b in row] for row in content.keyboard] == [
        ["2♠ → ② 6♠"],
        ["7♥️ → ① K♥️", "7♥️ → ③ 5♦️"],
        ["J♣ → ② 6♠"],
    ]
    assert codes(content) == legal_codes(game, 0)
    assert all(
        isinstance(p, ActPress) and (p.game_id, p.version) == (7, 3) for p in presses(content)
    )


def test_many_drops_take_at_most_two_presses_and_cover_every_legal_move() -> None:
    game = snapshot(make(("7h 9s Td Jh 2s 8d", "Qc"), private=("Ah 5c", "")))
    assert len(game.legal[0]) > 9
    main = panel_content(T, game, 0, NOW)
    assert "2♠ → ② 6♠" in labels(main)  # a card that fits one pile still takes one press
    assert "10♦️ → …" in labels(main)
    found, deepest = reachable(game, 0)
    assert found == legal_codes(game, 0)
    assert deepest == 2
    screen = panel_content(T, game, 0, NOW, "d.Td")
    assert "Which pile does <b>10♦️</b> go on?" in screen.text
    assert labels(screen) == ["10♦️ → ① K♥️", "10♦️ → ② 6♠", "10♦️ → ③ 5♦️", "↩️ Back"]
    assert all(len(b.data.encode()) <= 64 for row in main.keyboard for b in row if b.data)


def test_an_unknown_or_outdated_screen_shows_the_main_panel() -> None:
    game = snapshot(make(("7h 2s", "Qc")))
    main = panel_content(T, game, 0, NOW)
    for screen in ("d.Xx", "x.7h", "d.Ks", "nonsense", "main"):
        assert panel_content(T, game, 0, NOW, screen) == main


def test_stuck_in_the_drop_phase_draw_then_pass_once_the_stock_is_empty() -> None:
    game = snapshot(make(("9c", "Qc"), piles=("Kh", "3h 6d", "5d")))
    content = panel_content(T, game, 0, NOW)
    assert labels(content) == ["🂠 Draw a card"]
    assert "None of your cards fits a pile: <b>draw one</b> from the stock." in content.text
    empty = snapshot(make(("9c", "Qc"), piles=("Kh", "3h 6d", "5d"), stock=""))
    content = panel_content(T, empty, 0, NOW)
    assert labels(content) == ["Pass"]
    assert "the stock is empty: <b>pass</b>" in content.text
    assert codes(content) == {"s"}


def test_exchange_offers_swaps_and_pass_or_draw_and_pass() -> None:
    game = snapshot(make(("7h 2s", "Qc"), phase="exchange", piles=("Kh", "3s 6s", "Td")))
    content = panel_content(T, game, 0, NOW)
    assert "🔄 <b>Swap?</b> Give one card and take a whole pile into your hand" in content.text
    assert "2♠ ⇄ ② 6♠" in labels(content) and "7♥️ ⇄ ① K♥️" in labels(content)
    assert labels(content)[-1] == "Pass"
    assert codes(content) == legal_codes(game, 0)
    stuck = snapshot(make(("9c", "Qc"), phase="exchange", piles=("Kh", "3h 6d", "5d")))
    content = panel_content(T, stuck, 0, NOW)
    assert labels(content) == ["🂠 Draw a card", "Pass"]
    assert "No swap is possible: <b>draw a card</b> and try it, or pass." in content.text
    assert codes(content) == {"w", "s"}


def test_exchange_after_a_draw_offers_the_drawn_card_or_pass() -> None:
    state = make(("9c", "Qc"), phase="exchange", piles=("Kh", "3h 6d", "5d"), stock="2c 7h")
    step = R.apply(state, 0, Draw(), Random(1), NOW)
    game = snapshot(step.state, events=step.events)
    content = panel_content(T, game, 0, NOW)
    assert "You drew <b>7♥️</b>: <b>swap it</b> for a pile, or pass." in content.text
    assert codes(content) == legal_codes(game, 0)
    assert labels(content)[-1] == "Pass"
    assert all(label.startswith("7♥️ ⇄") for label in labels(content)[:-1])


def test_many_swaps_open_a_pile_picker() -> None:
    state = make(
        ("7h 9h Jh 2h 8d", "Qc"), private=("Ah 5d", ""), phase="exchange", piles=("Kh", "3d", "Th")
    )
    game = snapshot(state)
    found, deepest = reachable(game, 0)
    assert found == legal_codes(game, 0) and deepest == 2
    assert "7♥️ ⇄ …" in labels(panel_content(T, game, 0, NOW))
    screen = panel_content(T, game, 0, NOW, "x.7h")
    assert "Which pile do you take for <b>7♥️</b>?" in screen.text
    assert labels(screen)[0].startswith("7♥️ ⇄")


def test_random_positions_always_offer_exactly_the_legal_moves() -> None:
    for seed in range(40):
        rng = Random(seed)
        state = R.new_game(2, {}, rng, NOW)
        while not state.finished:
            game = snapshot(state)
            seat = state.to_move
            found, _ = reachable(game, seat)
            assert found == legal_codes(game, seat), seed
            table = table_content(T, game, NOW).text
            for s in (0, 1):
                for hidden in state.private[s]:
                    label = hidden.code.replace("T", "10")[:-1]
                    symbol = {"s": "♠", "h": "♥️", "d": "♦️", "c": "♣"}[hidden.code[-1]]
                    assert label + symbol not in table
            state = R.apply(state, seat, R.choose(state, seat, rng), rng, NOW).state


def test_a_player_without_cards_is_told_why_he_can_only_pass() -> None:
    for phase in ("drop", "exchange"):
        game = snapshot(make(("", "Qc"), stock="", phase=phase))
        content = panel_content(T, game, 0, NOW)
        assert "✋ <b>Your hand</b>: no cards" in content.text
        assert "You have no cards and the stock is empty: <b>pass</b>." in content.text
        assert labels(content) == ["Pass"]
