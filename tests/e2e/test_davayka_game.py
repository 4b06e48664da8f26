"""Davay-ka! through the real bot and the fake Bot API: a real-time game, as players see it.

Two people press their panels' buttons at the same moment (``asyncio.gather``): presses are
applied in arrival order, a press that lost the race is answered "too late" and changes
nothing, and a press from a panel that is a moment old is judged on its own merits. One test
runs with Telegram's flood limits on and the publisher's real intervals (group 3 s, private
1 s); a player who walks away is played for and finally loses; a game against the computer
moves at a human pace.
"""

from __future__ import annotations

import asyncio
import os
import re
import time
from collections.abc import AsyncIterator, Callable, Iterable
from dataclasses import dataclass
from itertools import pairwise
from pathlib import Path
from random import Random

import pytest

from bot.games.cards import Card, parse_card
from bot.games.davayka import DAVAYKA, make_state
from bot.games.davayka.state import DavaykaState
from bot.storage.repositories import Actions
from bot.telegram.intake import DOUBLE_TAP_SECONDS
from bot.telegram.sender.budget import Limits
from bot.telegram.sender.live import GROUP_INTERVAL
from tests.e2e.harness import Harness, sqlite_url
from tests.e2e.test_private_game import deal_solo
from tests.fakes import (
    FakeBotApi,
    FakeCallback,
    FakeChat,
    FakeMessage,
    FakeUser,
    render_chat,
)
from tests.fakes.models import keyboard_rows

TOO_LATE = "⚡ Too late — the table has changed."
#: The answer to an accepted move: "7♥️ → the left pile. Pile 2 now shows K♠."
PLAYED = re.compile(r"^(?:10|[2-9JQKA])[♠♥♦♣]\ufe0f? → the (?:left pile|right pile|centre)\. ")
OVER = "This game is over."
#: The line of a panel that only the panel has (the table names both players instead).
PANEL_MARK = "You · stock"
COMPUTER_DELAY = 1.0  # the harness's COMPUTER_DELAY_SECONDS
CARD_LABEL = re.compile(r"(?:10|[2-9JQKA])[♠♥♦♣]")
#: How long a person needs for one press, at the very fastest.
HUMAN_PRESS_SECONDS = 0.3


@pytest.fixture
async def harness(tmp_path: Path) -> AsyncIterator[Harness]:
    """The bot with no flood limits and no pause between edits: the game runs at test speed.

    Bot time is the harness's clock, which the players move forward as they press (a person
    needs a moment per press), so the per-user press limit counts in that time too.
    """
    api = FakeBotApi(flood_limits=False)
    harness = Harness(api, sqlite_url(tmp_path))
    app = await harness.start()
    app.bot_data["cardroom"].throttle.clock = harness.clock
    yield harness
    await harness.stop()


@pytest.fixture
async def realistic(tmp_path: Path) -> AsyncIterator[Harness]:
    """Telegram's flood limits on, and the bot's production budget and pacing: a group table
    is edited at most every 3.4 s, a private chat a little over a second apart."""
    api = FakeBotApi(flood_limits=True)
    harness = Harness(api, sqlite_url(tmp_path), limits=Limits())
    app = await harness.start()
    publisher = app.bot_data["cardroom"].publisher
    publisher.group_interval = GROUP_INTERVAL
    yield harness
    await harness.stop()


# -- looking and pressing -------------------------------------------------------------------


@dataclass(frozen=True)
class Press:
    """A button of a panel as its player saw it."""

    user: FakeUser
    message: FakeMessage
    label: str
    data: str

    @property
    def code(self) -> str:
        return self.data.rsplit(":", 1)[1]

    @property
    def version(self) -> int:
        return int(self.data.split(":")[2])

    @property
    def is_move(self) -> bool:
        """A pile's card (not Ready or «Давай-ка!»)."""
        return self.code.startswith("p")

    @property
    def fits(self) -> bool:
        """The panel marks the card as fitting a centre pile now (✓, or ⬅ / ➡ for both)."""
        return self.is_move and self.label.endswith(("✓", "⬅", "➡"))

    @property
    def centre(self) -> int | None:
        """The centre pile a fitting card goes onto as the panel showed it (None for Ready /
        «Давай-ка!» and for a card that fits nothing)."""
        return int(self.code[2]) if self.fits else None


def panel(h: Harness, user: FakeUser | FakeChat) -> FakeMessage | None:
    return next(
        (
            m
            for m in reversed(h.api.bot_messages(user))
            if PANEL_MARK in m.text or "you finished" in m.text
        ),
        None,
    )


def presses(h: Harness, user: FakeUser) -> list[Press]:
    message = panel(h, user)
    if message is None:
        return []
    return [
        Press(user, message, text, data)
        for row in h.api.buttons(message)
        for text, data in row
        if data.startswith("A:")
    ]


def playable(h: Harness, user: FakeUser) -> list[Press]:
    """What a player taps: Ready, «Давай-ка!», or a card his panel marks as fitting."""
    return [p for p in presses(h, user) if p.fits or not p.is_move]


def accepted(text: str | None) -> bool:
    """A callback's answer to a press that was accepted: a move says what happened; Ready
    and «Давай-ка!» whom they wait for, or the centre's new cards if they turned them up (or
    that the round is on, pressed as the countdown ended)."""
    return (
        bool(PLAYED.match(text or ""))
        or (text or "").startswith(("Centre: ", "✅ Done — waiting for"))
        or text == "▶️ The round is on — play!"
    )


def late(text: str | None) -> bool:
    """A refusal as too late — with what the centre shows now, while there is a centre."""
    return (
        text is not None
        and re.fullmatch(rf"{TOO_LATE}(?: Centre: \S+(?: · \S+)?\.)?", text) is not None
    )


def table(h: Harness, chat: FakeChat | FakeUser) -> FakeMessage:
    """The group's table — or, in a private game, its one message (table and hand)."""
    solo = isinstance(chat, FakeUser)
    return next(
        m
        for m in reversed(h.api.bot_messages(chat))
        if m.text.startswith("🎴") and "Davay-ka!" in m.text and (solo or m is not panel(h, chat))
    )


async def settle(h: Harness) -> None:
    """Wait until the bot has sent what it meant to (a shorter quiet time than the harness's)."""
    assert h.app is not None
    await h.app.bot_data["cardroom"].publisher.drain()
    await h.api.settle(quiet=0.02, timeout=30)


async def press_at_once(h: Harness, chosen: Iterable[Press]) -> list[FakeCallback]:
    """Press several buttons at the same moment; wait for the answers only."""
    callbacks = await asyncio.gather(
        *(h.api.press_data(p.user, p.user, p.message.message_id, p.data) for p in chosen)
    )
    await h.api.wait_until(lambda: all(c.answered for c in callbacks), timeout=20)
    return list(callbacks)


async def press_one(h: Harness, chosen: Press) -> FakeCallback:
    (callback,) = await press_at_once(h, [chosen])
    await settle(h)
    return callback


async def game_state(h: Harness, game_id: int) -> tuple[int, DavaykaState]:
    """The stored version and state (read through the service, as the bot would)."""
    assert h.app is not None
    play = h.app.bot_data["cardroom"].play
    async with play.db.transaction() as session:
        game = await play.store.load(session, game_id)
        return game.row.version, DAVAYKA.load(game.row.state)


async def start_game(h: Harness, group: FakeChat, anna: FakeUser, boris: FakeUser) -> int:
    await h.api.send_text(anna, group, "/new davayka")
    await h.api.wait_until(lambda: bool(h.api.bot_messages(group)))
    await settle(h)
    await h.api.press(boris, table(h, group), "✋ Join")
    # His join may wait a moment for his greeting (he never started the bot): Start after it.
    await h.api.wait_until(lambda: f"2. {boris.first_name}" in table(h, group).text)
    await settle(h)
    await h.api.press(anna, table(h, group), "▶️ Start")
    await h.api.wait_until(lambda: panel(h, anna) is not None and panel(h, boris) is not None)
    await settle(h)
    match = re.search(r"game (\d+)", table(h, group).text)
    assert match is not None
    return int(match.group(1))


def hidden_labels(state: DavaykaState) -> set[str]:
    """Labels of the face-down cards: under the row piles' tops and in the stocks."""
    cards = [c for row in state.rows for pile in row for c in pile[:-1]]
    cards += [c for stock in state.stocks for c in stock]
    return {c.label for c in cards}


def picture(text: str) -> str:
    """The table without its event log (which names cards seen earlier)."""
    return "\n".join(line for line in text.split("\n") if not line.startswith("· "))


# -- the tests ------------------------------------------------------------------------------


async def test_two_fast_players_race_through_a_whole_game(harness: Harness) -> None:
    h, api = harness, harness.api
    anna, boris = api.add_user("Anna"), api.add_user("Boris")
    group = api.add_group("Card club", admins=[anna], members=[boris])
    game_id = await start_game(h, group, anna, boris)
    assert "get ready" in table(h, group).text
    assert [p.label for p in playable(h, anna)] == ["✅ Ready"]

    rng = Random(6)
    answers: list[str | None] = []
    races = merits_checked = too_late_checked = again_played = 0
    for _ in range(3000):
        if "Game over" in table(h, group).text:
            break
        mine, theirs = playable(h, anna), playable(h, boris)
        if not mine and not theirs:
            await h.tick(1.0)  # a stall window, the countdown or an autopilot runs
            continue
        moves_a = [p for p in mine if p.is_move]
        moves_b = [p for p in theirs if p.is_move]

        if (
            not merits_checked
            and moves_a
            and any(b.centre != a.centre for a in moves_a for b in moves_b)
        ):
            # Boris moves first; Anna then presses on her older panel: judged on its merits.
            old = next(a for a in moves_a if any(b.centre != a.centre for b in moves_b))
            other = next(b for b in moves_b if b.centre != old.centre)
            assert accepted((await press_one(h, other)).text)
            version, _ = await game_state(h, game_id)
            assert old.version < version, "Anna's panel is out of date"
            judged = await press_one(h, old)
            assert accepted(judged.text), "an older panel's press is judged on its merits"
            assert (await game_state(h, game_id))[0] == version + 1
            merits_checked = 1
            continue

        if not too_late_checked and moves_a:
            # The same button twice: "my pile N" again — the card uncovered beneath, if it
            # fits somewhere (the first answer named it); else too late, changing nothing.
            first = moves_a[0]
            said = (await press_one(h, first)).text
            assert said is not None and accepted(said)
            version, state = await game_state(h, game_id)
            group_text, panels = table(h, group).text, (panel(h, anna), panel(h, boris))
            texts = [p.text for p in panels if p is not None]
            again = await press_one(h, first)
            if not late(again.text):
                assert accepted(again.text) and again.text is not None
                shows = re.search(r"now shows (\S+)\.", said)
                assert shows is not None and again.text.startswith(shows.group(1))
                again_played += 1
                continue
            assert await game_state(h, game_id) == (version, state)
            assert table(h, group).text == group_text
            assert [p.text for p in (panel(h, anna), panel(h, boris)) if p is not None] == texts
            too_late_checked = 1
            continue

        # As fast as they can: both press at the same moment, racing for one pile when they can.
        same = [(a, b) for a in moves_a for b in moves_b if a.centre == b.centre]
        if same and (races < 3 or rng.random() < 0.5):
            chosen = list(rng.choice(same))
            races += 1
        else:
            chosen = [rng.choice(options) for options in (mine, theirs) if options]
        rng.shuffle(chosen)
        callbacks = await press_at_once(h, chosen)
        h.clock.advance(HUMAN_PRESS_SECONDS)
        answers += [c.text for c in callbacks]
        # Each press is played where it fits when it arrives, or is too late (or hears that
        # the game is over, if the other one's card ended it).
        assert all(accepted(c.text) or late(c.text) or c.text == OVER for c in callbacks)
        await settle(h)
        if rng.random() < 0.1:
            _, state = await game_state(h, game_id)
            shown = picture(table(h, group).text)
            assert not hidden_labels(state) & set(CARD_LABEL.findall(shown))
    else:
        raise AssertionError("the game did not end")

    assert merits_checked and too_late_checked and races > 0
    refused = [a for a in answers if not accepted(a)]
    assert any(late(a) for a in refused), "presses that no longer fit are too late"
    assert all(late(a) or a == OVER for a in refused), "refusals say 'too late'"
    final = table(h, group)
    assert "🥇" in final.text and "🥈" in final.text
    assert "🔄 Rematch" in [text for row in api.buttons(final) for text, _ in row]
    assert "Game over — you finished" in (panel(h, anna) or final).text
    assert api.buttons(panel(h, anna) or final) == []
    assert api.unanswered_callbacks() == []
    assert PANEL_MARK not in render_chat(api, group)
    if "Round 2" in "".join(seen(final)):
        # Between rounds each panel says how the last one went (the panel's versions before
        # its last, which came anew at the end, are on the message it replaced).
        shown = [text for m in api.messages(boris, include_deleted=True) for text in seen(m)]
        assert any("won round 1" in text for text in shown)
    write_transcript(api, group, [anna, boris])


def seen(message: FakeMessage) -> list[str]:
    """Every text a message has shown, oldest first."""
    return [version.text or "" for version in message.history] + [message.text]


def write_transcript(api: FakeBotApi, group: FakeChat, users: list[FakeUser]) -> None:
    """With DAVAYKA_TRANSCRIPT=<path>: every version of every message, as people saw it."""
    path = os.environ.get("DAVAYKA_TRANSCRIPT")
    if not path:
        return
    sections = []
    for title, chat in [("GROUP", group), *((f"DM of {u.first_name}", u) for u in users)]:
        lines = [f"===== {title} (final state) =====", render_chat(api, chat), ""]
        for message in api.bot_messages(chat):
            versions = [(v.text or "", v.reply_markup) for v in message.history]
            versions.append((message.text, message.reply_markup))
            lines.append(f"----- message {message.message_id}: {len(versions)} versions -----")
            for number, (text, markup) in enumerate(versions, 1):
                lines += [f"[version {number}]", text]
                lines += [
                    "  " + " ".join(f"[{b}]" for b, _ in row) for row in keyboard_rows(markup)
                ]
                lines.append("")
        sections.append("\n".join(lines))
    Path(path).write_text("\n\n".join(sections), encoding="utf-8")


async def test_a_player_who_walks_away_never_hangs_the_game(harness: Harness) -> None:
    h, api = harness, harness.api
    anna, boris = api.add_user("Anna"), api.add_user("Boris")
    group = api.add_group("Card club", admins=[anna], members=[boris])
    await start_game(h, group, anna, boris)
    # Boris never presses anything; Anna plays whatever she can, and time passes.
    for _ in range(1000):
        if "Game over" in table(h, group).text:
            break
        mine = playable(h, anna)
        if mine:
            await press_one(h, mine[0])
            h.clock.advance(HUMAN_PRESS_SECONDS)
        else:
            await h.tick(2.0)
    else:
        raise AssertionError("the game hangs")
    final = table(h, group)
    assert "🥇" in final.text and "🔄 Rematch" in str(api.buttons(final))
    assert api.unanswered_callbacks() == []


async def test_a_player_who_walks_away_is_played_for_and_then_forfeits(harness: Harness) -> None:
    h, api = harness, harness.api
    anna, boris = api.add_user("Anna"), api.add_user("Boris")
    group = api.add_group("Card club", admins=[anna], members=[boris])
    game_id = await start_game(h, group, anna, boris)

    # Boris never presses anything. Anna is ready; the countdown starts the round without him.
    await press_one(h, playable(h, anna)[0])
    await h.tick(5)
    for _ in range(3):
        mine = playable(h, anna)
        if mine:
            await press_one(h, mine[0])
            h.clock.advance(HUMAN_PRESS_SECONDS)

    # While he is away the autopilot plays for him: his row shrinks though he never pressed…
    for _ in range(10):
        _, before = await game_state(h, game_id)
        await h.tick(10.5)
        _, after = await game_state(h, game_id)
        if after.round_no == before.round_no and row_size(after, 1) < row_size(before, 1):
            break
    else:
        raise AssertionError("the autopilot never played for Boris")

    # …and once he has had something to press for two minutes in all (his clock stands
    # still while he has nothing), he loses. Anna plays on at a calm pace: she stays.
    for turn in range(100):
        if "Game over" in table(h, group).text:
            break
        mine = playable(h, anna)
        if mine and turn % 3 == 0:
            await press_one(h, mine[0])
        await h.tick(10)
    final = table(h, group).text
    assert "🚪 Boris stopped playing — Anna wins." in final
    assert "🥇 Anna" in final


def row_size(state: DavaykaState, seat: int) -> int:
    return sum(len(pile) for pile in state.rows[seat])


async def test_frantic_presses_stay_within_the_flood_limits(realistic: Harness) -> None:
    """Both press as fast as a person can, from panels that are redrawn once a second."""
    h, api = realistic, realistic.api
    anna, boris = api.add_user("Anna"), api.add_user("Boris")
    group = api.add_group("Card club", admins=[anna], members=[boris])
    game_id = await start_game(h, group, anna, boris)
    api.reset_stats()
    rng = Random(3)
    started = time.monotonic()
    answers: list[str | None] = []
    while time.monotonic() - started < 10:
        chosen = [rng.choice(p) for p in (playable(h, anna), playable(h, boris)) if p]
        if not chosen:
            await h.tick(1.0)  # a stall window closes
            continue
        # No waiting for the panels: the next presses go from whatever the panels show now.
        answers += [c.text for c in await press_at_once(h, chosen)]
        await asyncio.sleep(HUMAN_PRESS_SECONDS)
    await settle(h)
    elapsed = time.monotonic() - started

    version, _ = await game_state(h, game_id)
    played = sum(1 for a in answers if a is not None and accepted(a))
    refused = [a for a in answers if not accepted(a)]
    assert played > 5 and version > 5
    assert any(late(a) for a in refused), (
        "presses from a stale panel that no longer fit are too late"
    )
    assert all(late(a) or a == "You have already pressed it." for a in refused), refused
    assert api.stats.too_many_requests == 0 and api.stats.flood_limited == 0
    group_sends = api.stats.by_chat_method[(group.id, "editMessageText")]
    assert group_sends <= elapsed / GROUP_INTERVAL + 2
    for user in (anna, boris):
        sends = api.stats.by_chat_method[(api.private_chat_id(user), "editMessageText")]
        assert sends <= elapsed / Limits().private_window + 2
    assert api.unanswered_callbacks() == []


async def action_log(h: Harness, game_id: int) -> list[tuple[int | None, str, float]]:
    """(seat, source, bot time) of every stored step of the game, in order."""
    assert h.app is not None
    play = h.app.bot_data["cardroom"].play
    async with play.db.transaction() as session:
        rows = await Actions(session).of_game(game_id)
    return [(row.seat, row.source, row.at) for row in rows]


async def open_against_the_computer(h: Harness, anna: FakeUser) -> int:
    await deal_solo(h, anna, "/new davayka")  # its options first, then Deal
    await h.api.wait_until(lambda: panel(h, anna) is not None)
    await settle(h)
    board = table(h, anna)
    assert "🤖 Computer 1" in board.text
    match = re.search(r"game (\d+)", board.text)
    assert match is not None
    return int(match.group(1))


async def test_a_game_against_the_computer_moves_at_a_human_pace(harness: Harness) -> None:
    h, api = harness, harness.api
    anna = api.add_user("Anna")
    game_id = await open_against_the_computer(h, anna)

    # Anna presses whatever she can at once; when she has nothing, time passes.
    for _ in range(3000):
        if "Game over" in table(h, anna).text:
            break
        mine = playable(h, anna)
        if mine:
            await press_one(h, mine[0])
            h.clock.advance(HUMAN_PRESS_SECONDS)
        else:
            await h.tick(COMPUTER_DELAY / 4)
    else:
        raise AssertionError("the game against the computer did not end")
    final = table(h, anna)
    assert "🥇" in final.text
    assert "🔄 Rematch" in [text for row in api.buttons(final) for text, _ in row]
    assert api.unanswered_callbacks() == []

    # Not absurdly fast: the computer acts a pause after it got what it does, never sooner
    # (two of its moves are a pause apart at least); not absurdly slow: Anna's quick presses
    # do not put it off — it keeps its pace while she plays (issue #21: it used to wait for
    # her to stop, then lose 52–0).
    log = await action_log(h, game_id)
    times = [at for _, source, at in log if source == "computer"]
    assert len(times) >= 5
    gaps = [later - earlier for earlier, later in pairwise(times)]
    assert min(gaps) >= COMPUTER_DELAY * 0.95
    assert sorted(gaps)[len(gaps) // 2] <= COMPUTER_DELAY + 0.5


async def test_the_computer_keeps_its_pace_when_the_person_is_idle(harness: Harness) -> None:
    h = harness
    anna = h.api.add_user("Anna")
    game_id = await open_against_the_computer(h, anna)
    # Rig the table: the computer (seat 1) has a run of four cards on the left centre pile,
    # Anna has a queen for the king on the right one, and her idle window is about to close.
    now = h.clock()
    state = make_state(
        rows=[[cards("2h Qs"), cards("3h")], [cards("6s"), cards("7h"), cards("8d"), cards("9c")]],
        stocks=[cards("4d 4c"), cards("Jc Jd")],
        centres=[cards("5c"), cards("Kd")],
        opened=now,
        idle_since=(now - 9.9, now),
        last_press=(now, now),
    )
    assert h.app is not None
    play = h.app.bot_data["cardroom"].play
    async with play.locks.hold(game_id), play.db.transaction() as session:
        game = await play.store.load(session, game_id)
        await play.store.commit_step(
            game, state, (), seat=None, source="rigged", action=None, now=now
        )
    for _ in range(8):
        await h.tick(COMPUTER_DELAY / 4)
    log = [entry for entry in await action_log(h, game_id) if entry[2] > now]
    # Anna's autopilot plays her queen when her window closes, and the computer plays its run
    # one card per pause — not four cards within a blink.
    assert ("timeout" in [source for _, source, _ in log]) and sum(
        1 for _, source, _ in log if source == "computer"
    ) <= 2


def cards(text: str) -> tuple[Card, ...]:
    return tuple(parse_card(code) for code in text.split())


#: The answer to a second tap within the double-tap window.
DOUBLE = "Once is enough — that tap counted."


async def until_true(
    h: Harness, anna: FakeUser, boris: FakeUser, done: Callable[[], bool]
) -> None:
    """Press Ready and «Давай-ка!», or let time pass, until ``done`` (a round is on)."""
    for _ in range(200):
        if done():
            return
        ready = [p for p in playable(h, anna) + playable(h, boris) if not p.is_move]
        if ready:
            await press_one(h, ready[0])
        else:
            await h.tick(1.0)
    raise AssertionError("the round never came")


async def test_a_double_tap_on_a_pile_plays_one_card(harness: Harness) -> None:
    """A finger's double tap is one press: the second would otherwise play the card beneath,
    which the player has not seen yet."""
    h, api = harness, harness.api
    assert h.app is not None
    anna, boris = api.add_user("Anna"), api.add_user("Boris")
    group = api.add_group("Card club", admins=[anna], members=[boris])
    game_id = await start_game(h, group, anna, boris)
    await until_true(h, anna, boris, lambda: any(p.is_move for p in playable(h, anna)))
    moves = [p for p in playable(h, anna) if p.is_move]
    version, _ = await game_state(h, game_id)
    # Both taps reach the bot at the same moment of its press clock, however loaded the
    # machine is (the verdict must not depend on how fast the two are handled).
    throttle = h.app.bot_data["cardroom"].throttle
    throttle.double_tap = DOUBLE_TAP_SECONDS
    now = throttle.clock() + 1.0  # well after her last press
    throttle.clock = lambda: now
    first, second = await press_at_once(h, [moves[0], moves[0]])
    await settle(h)
    texts = sorted([first.text or "", second.text or ""], key=lambda text: text == DOUBLE)
    assert accepted(texts[0]) and PLAYED.match(texts[0])
    assert texts[1] == DOUBLE, "the second tap is answered, in words, and does nothing"
    assert (await game_state(h, game_id))[0] == version + 1, "one card played"


async def test_a_crafted_card_is_refused_as_an_old_press_is(harness: Harness) -> None:
    """A press naming a card no panel showed (face down in the player's row) is answered as
    "too late", word for word like a real old press: a different answer would tell him about
    cards he cannot see."""
    h, api = harness, harness.api
    anna, boris = api.add_user("Anna"), api.add_user("Boris")
    group = api.add_group("Card club", admins=[anna], members=[boris])
    game_id = await start_game(h, group, anna, boris)
    await until_true(h, anna, boris, lambda: any(p.is_move for p in playable(h, anna)))
    version, state = await game_state(h, game_id)
    assert state.phase == "play"
    hidden = next(pile[0] for pile in state.rows[0] if len(pile) > 1)
    own = panel(h, anna)
    assert own is not None
    forged = f"A:{game_id}:{version}:m0{hidden.code}0"
    callback = await api.press_data(anna, anna, own.message_id, forged)
    await api.wait_until(lambda: callback.answered)
    assert late(callback.text), callback.text
    assert (await game_state(h, game_id))[0] == version, "nothing changed"
