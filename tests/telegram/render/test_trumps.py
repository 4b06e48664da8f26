"""Your Trumps' table and panel, drawn from engine states: readable, exact, escaped, leak-free."""

from __future__ import annotations

import re
from random import Random
from typing import Any

import pytest

from bot.games.cards import Card, Suit, parse_card
from bot.games.engine import DEALER, Event
from bot.games.trumps import TRUMPS, ChooseTrump, PlayCard, Take, TrumpsState
from bot.games.trumps.state import MAX_MOVES
from bot.i18n import translator
from bot.services.types import GameSnapshot, SeatInfo
from bot.telegram.callbacks import ActPress, parse
from bot.telegram.render import panel_content, table_content
from bot.telegram.render.content import Content

T = translator("en")
NOW = 1_800_000_000.0
S, H, D, C = Suit.SPADES, Suit.HEARTS, Suit.DIAMONDS, Suit.CLUBS
CARD_TEXT = re.compile(r"(?:10|[2-9JQKA])[♠♥♦♣]")


def seats(*names: str | None) -> tuple[SeatInfo, ...]:
    return tuple(
        SeatInfo(i, None if n is None else 100 + i, n or "", "en", None, 0)
        for i, n in enumerate(names)
    )


def snapshot(
    state: TrumpsState,
    *,
    names: tuple[str | None, ...] = ("Anna", "Boris"),
    kind: str = "supergroup",
    recent: tuple[Event, ...] = (),
) -> GameSnapshot:
    infos = seats(*names)
    over = TRUMPS.outcome(state) is not None
    return GameSnapshot(
        game_id=7,
        number=3,
        chat_id=-100 if kind != "private" else 100,
        topic_id=0,
        chat_kind=kind,
        chat_language="en",
        game_key="trumps",
        status="finished" if over else "playing",
        version=3,
        options={"turn_seconds": 60, "deck52": False},
        creator_id=100,
        join_token="tok",
        seats=infos,
        table_message_id=None,
        deadline_at=None,
        min_players=2,
        max_players=2,
        public=TRUMPS.view(state, None),
        views={i.seat: TRUMPS.view(state, i.seat) for i in infos if not i.is_computer},
        legal={
            s: tuple((TRUMPS.encode_action(a), a) for a in TRUMPS.legal_actions(state, s))
            for s in (0, 1)
            if not over and TRUMPS.legal_actions(state, s)
        },
        acting=() if over else TRUMPS.acting_seats(state),
        recent=recent,
        outcome=TRUMPS.outcome(state),
    )


def cs(text: str) -> tuple[Card, ...]:
    return tuple(parse_card(code) for code in text.split())


def position(
    hand0: str,
    hand1: str,
    *,
    pile: str = "",
    phase: str = "beat_or_take",
    to_move: int = 0,
    trumps: tuple[Suit, Suit] = (H, S),
    moves: int = 10,
) -> TrumpsState:
    return TrumpsState.from_hands(
        (cs(hand0), cs(hand1)),
        trumps,
        pile=cs(pile),
        phase=phase,
        to_move=to_move,
        moves=moves,
        opened=NOW,
    )


def labels(content: Content) -> list[str]:
    return [b.text for row in content.keyboard for b in row]


def codes(content: Content) -> list[str]:
    found = []
    for row in content.keyboard:
        for button in row:
            assert button.data is not None and len(button.data.encode()) <= 64
            press = parse(button.data)
            assert isinstance(press, ActPress) and (press.game_id, press.version) == (7, 3)
            found.append(press.code)
    return found


def cards_in(text: str) -> set[str]:
    return set(CARD_TEXT.findall(text))


def label(c: Card) -> str:
    return T("card.rank." + str(c.rank)) + (c.suit.symbol if c.suit else "")


# -- the table -------------------------------------------------------------------------------


def test_table_shows_trumps_sizes_the_pile_top_first_and_what_the_mover_faces() -> None:
    game = snapshot(position("7s 9d Ah", "Qc Kc", pile="6c 7c 8c 9c Tc Jd 8d"))
    text = table_content(T, game, NOW).text
    assert "👉 Anna — trumps ♥️ · 3 cards" in text
    assert "Boris — trumps ♠ · 2 cards" in text
    assert "Pile: 7 cards" in text
    # Top first, at most five, and "…" for the cards further down.
    assert "On top: <b>8♦️</b>, then J♦️ 10♣ 9♣ 8♣ …" in text
    assert "Anna must beat <b>8♦️</b> or take 3 cards." in text
    assert "To move: <b>Anna</b> ⏳ 60 s" in text


def test_table_never_names_a_card_in_a_hand() -> None:
    game = snapshot(position("7s 9d Ah", "Qc Kc", pile="6c 8d"))
    text = table_content(T, game, NOW).text
    assert cards_in(text) == {"6♣", "8♦"}


def test_table_while_trumps_are_chosen_has_no_pile_and_says_who_chooses() -> None:
    state = TRUMPS.new_game(2, {DEALER: 1}, Random(5), NOW)
    text = table_content(T, snapshot(state), NOW).text
    assert "Boris deals and chooses a trump suit first." in text
    assert "Anna — no trumps yet" in text and "Pile" not in text
    state = TRUMPS.apply(state, 1, ChooseTrump(D), Random(0), NOW).state
    text = table_content(T, snapshot(state), NOW).text
    assert "Boris — trumps ♦️" in text and "cards" not in text
    assert "Anna chooses a trump suit from the three left." in text


@pytest.mark.parametrize(
    ("phase", "pile", "line"),
    [
        ("lead", "", "Anna leads: any card."),
        ("second", "7c 9c", "Anna beat it and lays one more card on top."),
    ],
)
def test_table_states_the_phase_in_words(phase: str, pile: str, line: str) -> None:
    game = snapshot(position("7s 9d Ah", "Qc Kc", pile=pile, phase=phase))
    assert line in table_content(T, game, NOW).text


def test_table_in_a_private_chat_leaves_the_pile_to_the_panel_below_it() -> None:
    game = snapshot(
        position("7s 9d Ah", "Qc Kc", pile="6c 8d"), names=("Anna", None), kind="private"
    )
    text = table_content(T, game, NOW).text
    assert "🤖 Computer 1 — trumps ♠ · 2 cards" in text
    assert "Pile" not in text and "must beat" not in text
    panel = panel_content(T, game, 0, NOW).text
    assert "Trumps: you" not in panel  # the table right above says it
    assert "On top: <b>8♦️</b>" in panel and "Beat <b>8♦️</b>" in panel


def test_names_are_escaped_on_the_table_and_in_the_panel() -> None:
    state = position("7s 9d Ah", "Qc Kc", pile="6c 8d", to_move=1)
    recent = (Event("trumps.led", 0, {"card": parse_card("8d")}),)
    game = snapshot(state, names=("<b>Eve</b>", "Bo & Co"), recent=recent)
    table = table_content(T, game, NOW).text
    assert "&lt;b&gt;Eve&lt;/b&gt; — trumps ♥️" in table and "Bo &amp; Co" in table
    assert "<b>Eve</b>" not in table
    panel = panel_content(T, game, 1, NOW).text
    assert "Trumps: you <b>♠</b> · &lt;b&gt;Eve&lt;/b&gt; ♥️" in panel
    assert "· &lt;b&gt;Eve&lt;/b&gt; led 8♦️" in panel


def test_backstop_is_announced_near_the_move_limit() -> None:
    far = snapshot(position("7s", "Qc", pile="8d", moves=MAX_MOVES - 60))
    near = snapshot(position("7s", "Qc", pile="8d", moves=MAX_MOVES - 20))
    assert "moves left" not in table_content(T, far, NOW).text
    assert "⚠️ 20 moves left: at 400, fewer cards wins." in table_content(T, near, NOW).text
    assert "⚠️ 20 moves left" in panel_content(T, near, 0, NOW).text


# -- the end ---------------------------------------------------------------------------------


def finish(state: TrumpsState, code: str) -> tuple[TrumpsState, tuple[Event, ...]]:
    assert state.to_move is not None
    step = TRUMPS.apply(state, state.to_move, TRUMPS.decode_action(code), Random(0), NOW)
    assert step.state.finished
    return step.state, step.events


def test_a_win_shows_places_and_rematch_and_tells_each_player() -> None:
    state, events = finish(position("7c", "Qd Kd", phase="lead"), "p7c")
    game = snapshot(state, recent=events)
    content = table_content(T, game, NOW)
    assert "Anna — trumps ♥️ · 0 cards" in content.text and "👉" not in content.text
    assert "🏁 <b>Game over</b>" in content.text and "🥇 Anna" in content.text
    assert labels(content) == ["🔄 Rematch"]
    assert "🏆 You are out of cards — you win!" in panel_content(T, game, 0, NOW).text
    loser = panel_content(T, game, 1, NOW)
    assert "Anna is out of cards and wins." in loser.text and loser.keyboard == ()
    assert "Game over — you finished 2 of 2." in loser.text
    assert "wins" not in loser.text.split("Anna is out of cards")[0]  # said once


def test_a_private_game_ends_with_the_table_telling_and_the_panel_showing_the_hand() -> None:
    state, events = finish(position("Ac", "Qd Kd", phase="lead"), "pAc")
    game = snapshot(state, names=(None, "Boris"), kind="private", recent=events)
    table = table_content(T, game, NOW).text
    assert "🤖 Computer 1 — trumps ♥️ · 0 cards" in table and "On top: <b>A♣</b>" in table
    assert "🥇 🤖 Computer 1" in table
    panel = panel_content(T, game, 1, NOW).text
    assert "Your hand — 2 cards:" in panel and "Game over — you finished 2 of 2." in panel
    assert "Pile" not in panel and "wins" not in panel


def test_the_draw_rule_names_the_card_that_would_beat() -> None:
    # Anna lays her last card, 7♣; Boris's only card, 9♣, beats it: a draw.
    state, events = finish(position("7c", "9c", phase="lead"), "p7c")
    game = snapshot(state, recent=events)
    why = "Anna laid the last card, but Boris's last card, 9♣, beats it."
    text = table_content(T, game, NOW).text
    assert why in text and text.count("🥇") == 2
    for seat in (0, 1):
        assert "🤝 A draw: " + why in panel_content(T, game, seat, NOW).text
    # Without the log (it keeps only the last few events) the sentence still reads.
    plain = table_content(T, snapshot(state), NOW).text
    assert "Anna laid the last card, but Boris's last card beats it." in plain


@pytest.mark.parametrize(
    ("hands", "table", "anna", "boris"),
    [
        (
            ("7c 8c", "9d"),
            "400 moves played: fewer cards wins.",
            "400 moves played: Boris holds fewer cards and wins.",
            "🏆 400 moves played, and you hold fewer cards — you win!",
        ),
        (
            ("7c", "9d Td"),
            "400 moves played, with equal cards.",
            "🤝 A draw: 400 moves played, with equal cards.",
            "🤝 A draw: 400 moves played, with equal cards.",
        ),
    ],
)
def test_the_backstop_ending_says_why(
    hands: tuple[str, str], table: str, anna: str, boris: str
) -> None:
    # Anna takes the 6♠ on the 400th move: the game ends by the move limit.
    state, events = finish(position(*hands, pile="6s", moves=MAX_MOVES - 1), "k")
    game = snapshot(state, recent=events)
    assert table in table_content(T, game, NOW).text
    assert anna in panel_content(T, game, 0, NOW).text
    assert boris in panel_content(T, game, 1, NOW).text


# -- the panel -------------------------------------------------------------------------------


def test_the_dealer_chooses_from_four_suits_the_other_from_the_three_left() -> None:
    state = TRUMPS.new_game(2, {DEALER: 0}, Random(5), NOW)
    dealer = panel_content(T, snapshot(state), 0, NOW)
    assert labels(dealer) == ["♠", "♥️", "♦️", "♣"] and codes(dealer) == ["ts", "th", "td", "tc"]
    assert "You deal, so you choose your trump suit first." in dealer.text
    waiting = panel_content(T, snapshot(state), 1, NOW)
    assert waiting.keyboard == () and "Anna deals and chooses a trump suit first" in waiting.text
    state = TRUMPS.apply(state, 0, ChooseTrump(H), Random(0), NOW).state
    other = panel_content(T, snapshot(state), 1, NOW)
    assert labels(other) == ["♠", "♦️", "♣"]
    assert "Anna chose <b>♥️</b> as trumps." in other.text
    assert (
        "Your trumps: <b>♥️</b>. Now Boris chooses"
        in panel_content(T, snapshot(state), 0, NOW).text
    )


def test_lead_offers_every_card_one_suit_to_a_row() -> None:
    game = snapshot(position("7s Ts 6h 9d Jd Qd 8c", "Qc Kc", phase="lead", moves=0))
    content = panel_content(T, game, 0, NOW)
    rows = [[b.text for b in row] for row in content.keyboard]
    # Her trumps (♥️) are marked: the suit that beats any other.
    assert rows == [["7♠", "10♠"], ["6♥️ ★"], ["9♦️", "J♦️", "Q♦️"], ["8♣"]]
    assert sorted(codes(content)) == sorted(["p7s", "pTs", "p6h", "p9d", "pJd", "pQd", "p8c"])
    assert "You lead: lay any card." in content.text
    # The hand by suit stays in the text, though every card is a button too.
    assert "♠ 7 10\n♥️ 6 · trumps\n♦️ 9 J Q\n♣ 8" in content.text
    assert "👉 <b>Your move</b> ⏳ 60 s" in content.text


@pytest.mark.parametrize(
    ("hand", "rows"), [("6d 7d 8d 9d Td Jd Qd", [7]), ("6d 7d 8d 9d Td Jd Qd Kd Ad", [5, 4])]
)
def test_a_long_suit_fills_two_even_rows(hand: str, rows: list[int]) -> None:
    game = snapshot(position(hand, "Qc", phase="lead"))
    assert [len(row) for row in panel_content(T, game, 0, NOW).keyboard] == rows


def test_facing_a_card_offers_only_the_beaters_and_take_with_its_count() -> None:
    # Anna's trumps are ♥️. On 8♦️ she beats with a higher ♦️ or any ♥️; ♠ and lower ♦️ do not.
    game = snapshot(position("7s 6d 9d 6h Ah 8c", "Qc Kc", pile="6c 7c 8d"))
    content = panel_content(T, game, 0, NOW)
    assert labels(content) == ["6♥️ ★", "A♥️ ★", "9♦️", "📥 Take 3 cards"]
    assert codes(content) == ["p6h", "pAh", "p9d", "k"]
    assert "Beat <b>8♦️</b> — or take 3 cards." in content.text
    # The hand is shown in full, one suit a line, her trumps marked.
    assert "Your hand — 6 cards:" in content.text
    assert "♠ 7\n♥️ 6 A · trumps\n♦️ 6 9\n♣ 8" in content.text


@pytest.mark.parametrize(
    ("pile", "count"),
    [
        ("6c", 1),  # a short pile: all of it
        ("6c 7c 8c 9c 6d 7d 8d", 3),  # not her trump: 3
        ("6c 7c 8c 9c 6d 7d 8h", 5),  # her own trump: 5
        ("6c 7c 8c 9c 6d 7d Ah", 7),  # the ace of her trumps: the whole pile
    ],
)
def test_take_says_how_many_cards_it_collects(pile: str, count: int) -> None:
    game = snapshot(position("7s", "Qc", pile=pile))
    content = panel_content(T, game, 0, NOW)
    take = T.plural("trumps.button_take", count)
    assert labels(content)[-1] == take and codes(content)[-1] == "k"
    assert take.endswith("1 card" if count == 1 else f"{count} cards")


def test_no_beater_means_only_take() -> None:
    game = snapshot(position("7s 6d", "Qc", pile="6c 8d"))
    content = panel_content(T, game, 0, NOW)
    assert labels(content) == ["📥 Take 2 cards"]
    assert "You cannot beat <b>8♦️</b>: take 2 cards." in content.text


def test_after_a_beat_any_card_goes_on_top() -> None:
    game = snapshot(position("7s 6h 9d", "Qc Kc", pile="6c 7d 8d", phase="second"))
    content = panel_content(T, game, 0, NOW)
    assert sorted(codes(content)) == ["p6h", "p7s", "p9d"]
    assert "You beat 7♦️ with 8♦️. Now lay one more card on top: any card." in content.text


def test_the_panel_tells_what_the_other_did_and_the_waiting_player_what_he_faces() -> None:
    recent = (
        Event("trumps.led", 1, {"card": parse_card("6c")}),
        Event("trumps.beat", 0, {"card": parse_card("7c"), "cards": cs("6c")}),
        Event("trumps.second", 0, {"card": parse_card("8d")}),
    )
    game = snapshot(position("7s 9d", "Qc Kc 6h", pile="6c 7c 8d", to_move=1), recent=recent)
    mover = panel_content(T, game, 1, NOW).text
    assert "· Anna beat 6♣ with 7♣\n· Anna laid 8♦️ on top" in mover
    assert "led 6♣" not in mover  # his own move is not repeated to him
    assert "You cannot beat <b>8♦️</b>: take 3 cards." in mover
    waiting = panel_content(T, game, 0, NOW)
    assert waiting.keyboard == ()
    assert "Trumps: you <b>♥️</b> · Boris ♠" in waiting.text
    assert "Your hand — 2 cards:" in waiting.text and "♦️ 9" in waiting.text
    assert "⏳ Not your turn — your move will show up here." in waiting.text
    # What moves with Boris's moves is for Boris (and the group): not the pile, not his moves.
    for public in ("8♦️", "Pile", "must beat", "Anna beat"):
        assert public not in waiting.text, public


def test_a_waiting_panel_is_unchanged_by_the_other_players_beat() -> None:
    # Boris beats 7♣ with his trump 6♠... then lays a second card: Anna waits through the beat.
    state = position("7s 9d", "Qc Kc 6s", pile="6c 7c", to_move=1)
    before = panel_content(T, snapshot(state), 0, NOW)
    beat = TRUMPS.apply(state, 1, PlayCard(parse_card("6s")), Random(0), NOW)
    assert beat.state.to_move == 1 and beat.state.phase == "second"
    after = snapshot(beat.state, recent=beat.events)
    assert table_content(T, after, NOW) != table_content(T, snapshot(state), NOW)
    assert panel_content(T, after, 0, NOW) == before
    second = TRUMPS.apply(beat.state, 1, PlayCard(parse_card("Qc")), Random(0), NOW)
    assert second.state.to_move == 0  # now she faces Q♣: her panel shows it
    facing = panel_content(T, snapshot(second.state, recent=second.events), 0, NOW)
    assert facing != before and "Q♣" in facing.text


def test_own_hand_only_never_the_other_one() -> None:
    game = snapshot(position("7s 9d", "Qc Kc 6h", pile="8d"))
    text = panel_content(T, game, 0, NOW).text
    assert not {"Q♣", "K♣", "6♥️"} & cards_in(text)
    assert "♣ Q K" not in text and "♣ —" in text


def test_event_and_error_words() -> None:
    assert T("error.trumps.cannot_beat") == "That card does not beat the top card."
    assert T.plural("trumps.button_take", 1) == "📥 Take 1 card"
    assert T.plural("trumps.cards", 1) == "1 card"
    assert "Your Trumps" in T("rules.trumps")
    assert T("option.deck52", value=T("option.off")) == "🎴 52-card deck: off"


# -- every position of many games: the panel offers exactly the legal moves -------------------


def public_cards(game: GameSnapshot, events: tuple[Event, ...]) -> set[str]:
    shown = {label(c) for c in game.public.pile_top}
    for event in events:
        for value in event.args.values():
            if isinstance(value, Card):
                shown.add(label(value))
            elif isinstance(value, tuple):
                shown |= {label(c) for c in value}
    return shown


@pytest.mark.parametrize("seed", range(12))
def test_random_games_buttons_are_the_legal_moves_and_the_table_leaks_nothing(seed: int) -> None:
    rng = Random(seed)
    state = TRUMPS.new_game(2, {"deck52": seed % 3 == 0}, rng, NOW)
    recent: tuple[Event, ...] = ()
    for _ in range(500):
        game = snapshot(state, recent=recent[-3:])
        table = table_content(T, game, NOW)
        assert cards_in(table.text) <= public_cards(game, recent[-3:])
        for seat in (0, 1):
            panel = panel_content(T, game, seat, NOW)
            legal = [code for code, _ in game.legal.get(seat, ())]
            assert sorted(codes(panel)) == sorted(legal)
            assert sum(len(row) for row in panel.keyboard) <= 100
            assert all(len(row) <= 8 for row in panel.keyboard)
            hand = {label(c) for c in state.hands[1 - seat]} - public_cards(game, recent)
            assert not (cards_in(panel.text) & hand)
        if state.finished:
            break
        assert state.to_move is not None
        actions = TRUMPS.legal_actions(state, state.to_move)
        action: Any = actions[rng.randrange(len(actions))]
        assert isinstance(action, (ChooseTrump, PlayCard, Take))
        step = TRUMPS.apply(state, state.to_move, action, rng, NOW)
        state, recent = step.state, (*recent, *step.events)
    else:
        pytest.fail("no end")
