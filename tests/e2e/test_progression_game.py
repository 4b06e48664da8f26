"""A whole Progression match through the real bot and the fake Bot API, as players see it.

Anna plays against two computer seats to the lowest target (100 points). After every deal the
group's score sheet is checked against the rules' formula (the engine's scoring module), and
the pause between deals is ended in each of its three ways: everyone's Next press (the
computers press by themselves), a restart of the bot while the pause runs out, and the pause
running out. Two people at one table: one quick Next does not cut the sheet short for the other.
"""

from __future__ import annotations

import re
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from bot.games.cards import RANK_LABELS, SUITS, Card, card
from bot.games.progression import BETWEEN_DEALS_SECONDS, can_stack, stack_score, timeout_card
from bot.i18n import translator
from bot.telegram.poller import poll_deadlines
from bot.telegram.render.common import card_label
from tests.e2e.harness import Harness, sqlite_url
from tests.fakes import FakeBotApi, FakeCallback, FakeChat, FakeMessage, FakeUser, render_chat

TITLE = "Progression · game"
SUIT_BY_SYMBOL = {suit.symbol: suit for suit in SUITS}
RANK_BY_LABEL = {label: rank for rank, label in RANK_LABELS.items()}
T = translator("en")
SHEET_TITLE = re.compile(r"^📋 Deal (\d+) is over — score sheet$", re.M)
# Below zero with a minus sign (U+2212), as every number the bot shows.
SHEET_PLAYER = re.compile(r"^(?P<name>.+) · deal (?P<score>[+−]?\d+) → (?P<total>−?\d+) pts$")
STACK = re.compile(r"^ +(?P<suit>[♠♥♦♣])\ufe0f? (?P<ranks>[0-9AKQJ ]+) → (?P<score>[+−]?\d+)$")
RESULT = re.compile(
    r"^(?:🥇|🥈|🥉) (?P<name>.+?) — (?P<total>−?\d+) points?(?: · rating \d+\?? \(\S+\))?$", re.M
)

#: How long a person needs for one press, at the very fastest (bot time).
HUMAN_PRESS_SECONDS = 0.3

Moment = Callable[[str], Awaitable[None]]


async def start(h: Harness) -> None:
    """Start the bot; its per-user press limit counts in bot time, which the players move on
    as the computers think (a person needs a moment to read the table, too)."""
    app = await h.start()
    app.bot_data["cardroom"].throttle.clock = h.clock


@pytest.fixture
async def harness(tmp_path: Path) -> AsyncIterator[Harness]:
    api = FakeBotApi(flood_limits=False)
    harness = Harness(api, sqlite_url(tmp_path))
    await start(harness)
    yield harness
    await harness.stop()


@dataclass
class _JobContext:
    application: Any

    @property
    def bot_data(self) -> dict[str, Any]:
        return self.application.bot_data  # type: ignore[no-any-return]


async def drain(h: Harness) -> None:
    """Wait until the bot has delivered every table and panel it means to (no quiet wait)."""
    assert h.app is not None
    await h.app.bot_data["cardroom"].publisher.drain()


async def tick(h: Harness, seconds: float) -> None:
    """Like ``h.tick``, without waiting for a quiet spell: one poller pass, then delivery."""
    h.clock.advance(seconds)
    assert h.app is not None
    await poll_deadlines(_JobContext(h.app))  # type: ignore[arg-type]
    await drain(h)


async def press(h: Harness, user: FakeUser, message: FakeMessage, label: str) -> FakeCallback:
    h.clock.advance(HUMAN_PRESS_SECONDS)
    callback = await h.api.press(user, message, label)
    await h.api.wait_until(lambda: callback.answered, timeout=10)
    await drain(h)
    return callback


async def act(h: Harness, user: FakeUser, message: FakeMessage, label: str) -> None:
    """A press in the game: the bot takes it silently (no refusal to show)."""
    callback = await press(h, user, message, label)
    assert not callback.text, callback.text


def panel(h: Harness, user: FakeUser) -> FakeMessage:
    return next(m for m in reversed(h.api.bot_messages(user)) if TITLE in (m.text or ""))


def labels(h: Harness, message: FakeMessage) -> list[str]:
    return [text for row in h.api.buttons(message) for text, _ in row]


def hand_of(message: FakeMessage) -> list[str]:
    found = re.search(r"^Your hand: (.*)$", message.text or "", re.M)
    return found.group(1).split() if found else []


def parse_card_label(label: str, suit_symbol: str | None = None) -> Card:
    label = label.replace("\ufe0f", "")  # red suits are drawn in emoji presentation
    if suit_symbol is None:
        label, suit_symbol = label[:-1], label[-1]
    suit_symbol = suit_symbol.replace("\ufe0f", "")
    return card(RANK_BY_LABEL[label], SUIT_BY_SYMBOL[suit_symbol])


@dataclass
class Sheet:
    deal: int
    scores: dict[str, int] = field(default_factory=dict)
    totals: dict[str, int] = field(default_factory=dict)
    stacks: dict[str, list[tuple[Card, ...]]] = field(default_factory=dict)


def number(shown: str) -> int:
    """A number as the bot shows it (``+5``, ``−16``)."""
    return int(shown.replace("−", "-"))


def read_sheet(text: str) -> Sheet | None:
    """The score sheet the group sees, checked line by line against the scoring rules."""
    title = SHEET_TITLE.search(text)
    if title is None:
        return None
    sheet = Sheet(int(title.group(1)))
    name: str | None = None
    shown: dict[str, int] = {}
    for line in text[title.end() :].splitlines():
        player = SHEET_PLAYER.match(line)
        stack = STACK.match(line)
        if player:
            name = player["name"]
            shown[name] = number(player["score"])
            sheet.totals[name] = number(player["total"])
            sheet.stacks[name] = []
        elif stack:
            assert name is not None
            suit = stack["suit"]
            cards = tuple(parse_card_label(rank, suit) for rank in stack["ranks"].split())
            # Each stack was built by the private-stack rule and scores by the formula.
            assert all(can_stack(cards[:i], cards[i]) for i in range(len(cards))), line
            assert number(stack["score"]) == stack_score(cards), line
            sheet.stacks[name].append(cards)
        elif line.strip() and "no stacks yet" not in line:
            break
    for player, stacks in sheet.stacks.items():
        sheet.scores[player] = sum(stack_score(s) for s in stacks)
        assert shown[player] == sheet.scores[player], player
    every = [c for stacks in sheet.stacks.values() for s in stacks for c in s]
    assert len(every) == len(set(every)), "a card in two stacks"
    assert len(sheet.totals) == 3
    return sheet


async def open_lobby(h: Harness, group: FakeChat, anna: FakeUser) -> None:
    await h.api.send_text(anna, group, "/new progression")
    await h.api.wait_until(lambda: bool(h.api.bot_messages(group)))
    await h.settle()


async def open_match(h: Harness, group: FakeChat, anna: FakeUser) -> FakeMessage:
    await open_lobby(h, group, anna)
    await press(h, anna, h.table(group), "🤖 Add computer")
    await press(h, anna, h.table(group), "🤖 Add computer")
    # The lowest target keeps the match short: 200 → 300 → 100.
    await press(h, anna, h.table(group), "🎯 to 200 points")
    await press(h, anna, h.table(group), "🎯 to 300 points")
    lobby = h.table(group)
    assert "🎯 to 100 points" in lobby.text
    assert "🤖 Computer 1" in lobby.text and "🤖 Computer 2" in lobby.text
    await press(h, anna, lobby, "▶️ Start")
    return lobby


async def human_turn(h: Harness, group: FakeChat, anna: FakeUser, moment: Moment | None) -> None:
    """Anna's simple strategy: a card that fits her own stacks onto it, else her first card
    to the middle; then take from the draw pile."""
    message = panel(h, anna)
    buttons = labels(h, message)
    text = message.text or ""
    if "Play a card" in text:
        fits = re.search(r"^Fit your own stacks: (.*)$", text, re.M)
        if not fits:
            # Nothing fits her stacks: every card goes to the middle, in one press.
            assert all(b.endswith(" → middle") for b in buttons), buttons
            await act(h, anna, message, buttons[0])
            assert "Take a card" in (panel(h, anna).text or "") or "draw pile" in (
                panel(h, anna).text or ""
            )
            return
        choice = fits.group(1).split()[0]
        await act(h, anna, message, choice)
        where = panel(h, anna)
        assert where.message_id == message.message_id, "the panel is edited in place"
        places = labels(h, where)
        assert f"Where does {choice} go?" in (where.text or "")
        suit = choice.replace("\ufe0f", "")[-1]
        assert places[-1] == "↩️ Back" and places[-2].replace("\ufe0f", "") == f"Middle {suit}"
        if moment is not None:
            await moment("Anna chose a card")
        own = [p for p in places if p.startswith("My ")]
        assert own
        await act(h, anna, where, own[0])
        return
    assert "Take a card" in text or "take from the draw pile" in text
    assert buttons[0].startswith("🂠 Draw pile (")
    before = hand_of(message)
    await act(h, anna, message, buttons[0])
    after = panel(h, anna)
    if "score sheet" in (after.text or ""):
        return
    drawn = [c for c in hand_of(after) if c not in before]
    assert len(drawn) == 1
    # The card she drew is hers alone: the group does not see it.
    assert drawn[0] not in h.table(group).text


async def play_match(
    h: Harness, group: FakeChat, anna: FakeUser, moment: Moment | None = None
) -> list[Sheet]:
    """Play the match to the end; every deal's sheet is read and checked."""
    sheets: list[Sheet] = []
    totals = {"Anna": 0, "🤖 Computer 1": 0, "🤖 Computer 2": 0}
    for _ in range(5000):
        table = h.table(group)
        sheet = read_sheet(table.text or "")
        if sheet is not None and sheet.deal == len(sheets) + 1:
            assert set(sheet.totals) == set(totals)
            for name, total in sheet.totals.items():
                assert total == totals[name] + sheet.scores[name], name
            totals = dict(sheet.totals)
            sheets.append(sheet)
            if moment is not None:
                await moment(f"Deal {sheet.deal} is over")
            if "Game over" in table.text:
                return sheets
            await end_pause(h, group, anna, sheet.deal, len(sheets))
            if moment is not None:
                await moment(f"Deal {sheet.deal + 1} begins")
            continue
        assert "Game over" not in table.text
        message = panel(h, anna)
        if labels(h, message):
            if moment is not None:
                await moment("Anna's move")
            await human_turn(h, group, anna, moment)
        else:
            await tick(h, 1.5)  # a computer's pause passes
    raise AssertionError("the match did not end")


async def end_pause(h: Harness, group: FakeChat, anna: FakeUser, deal: int, pause: int) -> None:
    """End the pause after ``deal``: the first runs out while the bot is down, the second
    ends by Anna's Next, the others run out."""
    table = h.table(group)
    button = f"⏭ Deal {deal + 1} now"
    assert (
        f"Deal {deal + 1} starts by itself within 20 s — or at once when everyone has pressed "
        f"«{button}»." in table.text
    )
    assert button in labels(h, panel(h, anna))
    # The computers are ready by themselves, together a moment after the deal (one each
    # poller pass); Anna reads the sheet.
    await tick(h, 1.5)
    await tick(h, 0)
    assert h.app is not None
    play = h.app.bot_data["cardroom"].play
    game = await play.snapshot_in_topic(group.id, 0)
    assert game is not None and game.public.ready == (False, True, True)
    text = h.table(group).text
    assert read_sheet(text) is not None
    # Computers are never named as ready, nor anyone as "to move": it is a pause.
    assert "is ready for the next deal" not in text and "Ready:" not in text
    assert "⏸ Pause ⏳" in text and "To move" not in text
    if pause == 1:
        # The computers do not cut the pause short…
        await tick(h, 1.5)
        assert read_sheet(h.table(group).text) is not None
        # …and when the pause runs out while the bot is down, the match goes on at start.
        await h.stop()
        h.clock.advance(BETWEEN_DEALS_SECONDS + 2)
        await start(h)
        await h.tick(0)
        assert h.table(group).message_id == table.message_id
    elif pause == 2:
        # Everyone else is ready: her press deals at once.
        await act(h, anna, panel(h, anna), button)
        assert read_sheet(h.table(group).text) is None, "the next deal started at once"
    else:
        # (Bot time is wall-clock time plus the harness's offset: leave room for a slow run.)
        # 1.5 s for the computers above, 15 s here: not yet; 4 s more: 20.5 s, it has.
        await tick(h, BETWEEN_DEALS_SECONDS - 5)
        assert read_sheet(h.table(group).text) is not None, "the pause has not run out yet"
        await tick(h, 4.0)
    text = h.table(group).text
    assert read_sheet(text) is None and f"Deal {deal + 1} · match to 100 points" in text
    assert f"Deal {deal + 1} — " in text  # the log says who deals


async def test_match_with_two_computers_to_100_points(harness: Harness) -> None:
    h, api = harness, harness.api
    anna = api.add_user("Anna")
    group = api.add_group("Card club", admins=[anna])

    lobby = await open_match(h, group, anna)
    table = h.table(group)
    assert table.message_id == lobby.message_id
    assert "Deal 1 · match to 100 points" in table.text
    assert "Draw pile: 37 cards" in table.text
    assert "Your hand" in panel(h, anna).text

    sheets = await play_match(h, group, anna)

    final = h.table(group)
    assert final.message_id == lobby.message_id
    last = sheets[-1]
    assert max(last.totals.values()) >= 100
    results = {m["name"]: number(m["total"]) for m in RESULT.finditer(final.text)}
    assert results == last.totals
    order = [m["name"] for m in RESULT.finditer(final.text)]
    assert order == sorted(last.totals, key=lambda name: -last.totals[name])
    winner = order[0]
    assert last.totals[winner] > max(t for n, t in last.totals.items() if n != winner)
    assert f"Deal {len(sheets)} is over" in final.text
    assert f"🏆 {winner} wins the match with {last.totals[winner]} points" in final.text
    assert labels(h, final) == ["🔄 Rematch"]
    place = 1 + sum(1 for t in last.totals.values() if t > last.totals["Anna"])
    assert f"you finished {place} of 3" in panel(h, anna).text
    assert labels(h, panel(h, anna)) == []

    transcript = render_chat(api, group)
    for private in ("Your hand", "You drew", "You were dealt", "Fit your own"):
        assert private not in transcript
    assert api.unanswered_callbacks() == []

    # The match counts as one finished game.
    before = len(api.bot_messages(group))
    await api.send_text(anna, group, "/stats")
    await api.wait_until(lambda: len(api.bot_messages(group)) > before)
    stats = api.bot_messages(group)[-1].text or ""
    assert "Progression" in stats and "1 game ·" in stats

    await press(h, anna, final, "🔄 Rematch")
    rematch = h.table(group)
    assert rematch.message_id != final.message_id
    assert "Deal 1 · match to 100 points" in rematch.text
    assert "Your hand" in panel(h, anna).text


async def test_an_absent_player_plays_his_lowest_card_to_the_middle_and_draws(
    harness: Harness,
) -> None:
    h = harness
    anna = h.api.add_user("Anna")
    group = h.api.add_group("Card club", admins=[anna])
    await open_match(h, group, anna)
    while not labels(h, panel(h, anna)):
        await tick(h, 1.5)
    hand = hand_of(panel(h, anna))
    # The rules' timeout default: the lowest value (faces are worth 0), then rank, then suit.
    lowest = timeout_card([parse_card_label(label) for label in hand])
    await tick(h, 61)
    text = h.table(group).text
    assert "⏰ Anna ran out of time" in text
    assert f"Anna put {card_label(T, lowest)} in the middle" in text
    assert "Anna drew from the pile" in text
    assert lowest.label not in hand_of(panel(h, anna))
    assert "Not your turn" in panel(h, anna).text


async def test_the_next_deal_waits_until_both_people_have_pressed_next(harness: Harness) -> None:
    h, api = harness, harness.api
    anna, boris = api.add_user("Anna"), api.add_user("Boris")
    group = api.add_group("Card club", admins=[anna], members=[boris])
    await open_lobby(h, group, anna)
    await press(h, boris, h.table(group), "✋ Join")
    await press(h, anna, h.table(group), "🤖 Add computer")
    await press(h, anna, h.table(group), "▶️ Start")
    people = (anna, boris)
    for _ in range(3000):
        if read_sheet(h.table(group).text or "") is not None:
            break
        mover = next((user for user in people if labels(h, panel(h, user))), None)
        if mover is None:
            await tick(h, 1.5)  # the computer's turn
        else:
            await human_turn(h, group, mover, None)
    else:
        raise AssertionError("the deal did not end")
    assert "Game over" not in h.table(group).text
    await tick(h, 1.5)  # the computer is ready by itself
    button = "⏭ Deal 2 now"
    assert labels(h, panel(h, anna)) == [button] == labels(h, panel(h, boris))
    # Boris's button is not redrawn for the others' presses (each a new version of the game).
    ((_, boris_next),) = api.buttons(panel(h, boris))[0]
    edits = len(panel(h, boris).history)

    await act(h, anna, panel(h, anna), button)
    # Anna's quick press does not cut the sheet short for Boris.
    table = h.table(group).text
    assert read_sheet(table) is not None, "the deal has not started"
    assert "✅ Ready: Anna\n" in table
    waiting = panel(h, anna)
    assert labels(h, waiting) == []
    assert f"Waiting for Boris to press «{button}» — or deal 2 starts by itself" in waiting.text
    assert labels(h, panel(h, boris)) == [button]
    assert "✅ Ready: Anna" in panel(h, boris).text

    assert [d for row in api.buttons(panel(h, boris)) for _, d in row] == [boris_next]
    assert len(panel(h, boris).history) == edits + 1, "one edit: Anna is ready"
    # Boris's press is the last one needed: the deal starts at once — even from a keyboard a
    # client drew with the game's version of long ago (being ready is never out of date).
    game, _version, code = boris_next.removeprefix("A:").split(":")
    stale = f"A:{game}:1:{code}"
    callback = await api.press_data(boris, boris, panel(h, boris).message_id, stale)
    await api.wait_until(lambda: callback.answered)
    await h.settle()
    assert not callback.text, callback.text
    table = h.table(group).text
    assert read_sheet(table) is None and "Deal 2 · match to 200 points" in table
    assert "Deal 2 — " in table
    assert api.unanswered_callbacks() == []
