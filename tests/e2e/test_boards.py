"""/top, /stats and /history as people meet them: real bot, fake Bot API, seeded games.

Finished games are seeded into the bot's database through the services (the same finishing
path a game played through the bot takes), so each test needs seconds, not a whole game.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from telegram.ext import CommandHandler

from bot.services.types import ChatRef
from bot.storage.database import Database
from bot.storage.migrate import upgrade_async
from bot.telegram.handlers import boards
from tests.e2e.harness import Harness, sqlite_url
from tests.e2e.test_rank_game import press
from tests.fakes import FakeBotApi, FakeCallback, FakeChat, FakeMessage, FakeUser
from tests.services.helpers import make_services, person
from tests.services.test_boards import play_game


@dataclass
class Club:
    """A running bot, a group and its people."""

    h: Harness
    group: FakeChat
    people: list[FakeUser]
    db: Database

    @property
    def api(self) -> FakeBotApi:
        return self.h.api

    def chat_ref(self, chat: FakeChat | None = None) -> ChatRef:
        chat = chat or self.group
        return ChatRef(chat.id, "supergroup", chat.title)

    async def seed(
        self,
        seated: Sequence[FakeUser | None],
        places: Sequence[int],
        *,
        chat: FakeChat | None = None,
        moves: int = 0,
    ) -> int:
        """A finished Rank game between ``seated`` (``None``: a computer)."""
        players = [None if u is None else person(u.id, u.first_name) for u in seated]
        services = make_services(self.db)
        return await play_game(services, players, places, chat=self.chat_ref(chat), moves=moves)

    async def say(
        self,
        user: FakeUser,
        text: str,
        *,
        reply_to: FakeMessage | None = None,
        private: bool = False,
    ) -> FakeMessage:
        """Send a command in the group (or the user's private chat); the bot's newest message
        there after it."""
        where: FakeChat | FakeUser = user if private else self.group
        count = len(self.api.bot_messages(where))
        await self.api.send_text(user, None if private else self.group, text, reply_to=reply_to)
        await self.api.wait_until(lambda: len(self.api.bot_messages(where)) > count)
        await self.h.settle()
        return self.api.bot_messages(where)[-1]

    async def press(self, user: FakeUser, message: FakeMessage, button: str) -> FakeCallback:
        return await press(self.h, user, message, button)

    def labels(self, message: FakeMessage) -> list[str]:
        return [text for row in self.api.buttons(message) for text, _ in row]

    def current(
        self, message: FakeMessage, chat: FakeChat | FakeUser | None = None
    ) -> FakeMessage:
        return self.api.message(chat or self.group, message.message_id)


def wire_boards(app: Any) -> None:
    """Attach the board handlers unless the application already has them."""
    commands = {
        command
        for handlers in app.handlers.values()
        for handler in handlers
        if isinstance(handler, CommandHandler)
        for command in handler.commands
    }
    if "history" not in commands:
        boards.register(app)


@pytest.fixture
async def club(tmp_path: Path) -> AsyncIterator[Club]:
    url = sqlite_url(tmp_path)
    await upgrade_async(url)
    api = FakeBotApi(flood_limits=False)
    people = [api.add_user(name) for name in ("Anna", "Boris", "Clara", "Denis")]
    group = api.add_group("Card club", admins=people[:1], members=people[1:])
    harness = Harness(api, url)
    app = await harness.start()
    wire_boards(app)
    db = Database.from_url(url)
    yield Club(harness, group, people, db)
    await db.close()
    await harness.stop()


async def test_empty_chat(club: Club) -> None:
    anna = club.people[0]
    assert "Nobody has finished a game here yet" in (await club.say(anna, "/top")).text
    assert "you have not finished a game yet" in (await club.say(anna, "/stats")).text
    assert "No game has finished here yet" in (await club.say(anna, "/history")).text


async def test_top_leaders_then_a_paginated_board_here_and_everywhere(club: Club) -> None:
    api = club.api
    anna = club.people[0]
    others = [api.add_user(f"Player{i:02d}") for i in range(11)]
    twelve = [anna, *others]
    # Four 9-seat games, windows shifted by three: each of the twelve plays exactly three.
    for k in range(4):
        await club.seed([twelve[(3 * k + j) % 12] for j in range(9)], list(range(1, 10)))
    elsewhere = api.add_group("Elsewhere", admins=[anna])
    stranger = api.add_user("Zed <b>")
    for _ in range(3):
        await club.seed([stranger, club.people[1]], [1, 2], chat=elsewhere)

    leaders = await club.say(anna, "/top")
    assert "Best players here" in leaders.text
    assert "Rank: 🥇" in leaders.text
    assert club.labels(leaders) == ["Rank", "🌍 Everyone", "🤖 Show the computer"]

    await club.press(anna, leaders, "Rank")
    board = club.current(leaders)
    assert "Rank — best players here" in board.text
    assert "Page 1 of 2" in board.text
    assert "1. " in board.text and "10. " in board.text and "11. " not in board.text
    assert "3 games" in board.text
    assert "Next ▶️" in club.labels(board)

    await club.press(anna, board, "Next ▶️")
    board = club.current(leaders)
    assert "Page 2 of 2" in board.text
    assert "11. " in board.text and "12. " in board.text
    assert "◀️ Previous" in club.labels(board) and "Next ▶️" not in club.labels(board)

    await club.press(anna, board, "🌍 Everyone")
    board = club.current(leaders)
    assert "Rank — best players everywhere" in board.text
    # Everyone's board holds the other chat's winner too; names are escaped, not markup.
    second_page = await club.say(anna, "/top rank global")
    await club.press(anna, second_page, "Next ▶️")
    both = club.current(board).text + club.current(second_page).text
    assert "Zed <b>" in both

    # The newer board replaced the older one: its buttons are gone.
    assert club.labels(club.current(leaders)) == []
    await club.press(anna, second_page, "↩️ All games")
    assert "Best players everywhere" in club.current(second_page).text

    usage = await club.say(anna, "/top chess")
    assert "/top &lt;game&gt;" not in usage.text and "/top <game>" in usage.text


async def test_the_computer_is_listed_only_when_asked(club: Club) -> None:
    anna = club.people[0]
    for places in ([1, 2], [2, 1], [1, 2]):
        await club.seed([anna, None], places)
    plain = await club.say(anna, "/top rank")
    assert "Anna" in plain.text and "Computer" not in plain.text
    bots = await club.say(anna, "/top rank bots")
    assert "🤖 Computer" in bots.text
    await club.press(anna, bots, "🤖 Hide the computer")
    assert "Computer" not in club.current(bots).text


async def test_stats_your_own_and_as_a_reply_with_a_chart(club: Club) -> None:
    anna, boris, clara, _ = club.people
    await club.seed([anna, boris], [1, 2])
    mine = await club.say(anna, "/stats")
    assert mine.photo is None, "no chart before three rated games"
    assert "Anna" in mine.text
    assert "Rank: rating" in mine.text and "last game" in mine.text
    assert "1 game · 1 win · 0 draws · 0 losses · best streak 1" in mine.text

    await club.seed([anna, boris], [1, 2])
    await club.seed([anna, boris, None], [1, 1, 3])
    chart = await club.say(anna, "/stats")
    assert chart.photo is not None and chart.photo.data is not None
    assert chart.photo.data.startswith(b"\x89PNG")
    assert "3 games · 3 wins · 0 draws · 0 losses · best streak 3" in (chart.text or "")

    # Clara replies to Boris's message: she sees his numbers, not hers.
    said = await club.api.send_text(boris, club.group, "good game")
    theirs = await club.say(clara, "/stats", reply_to=said)
    # Boris shared the first place of the three-seat game: a win, not a draw.
    assert "📊 Boris" in (theirs.text or "")
    assert "3 games · 1 win · 0 draws · 2 losses · best streak 1" in (theirs.text or "")
    nobody = await club.say(
        boris, "/stats", reply_to=await club.api.send_text(clara, club.group, "hi")
    )
    assert "Clara has not finished a game yet." in nobody.text


async def test_history_lists_games_and_opens_their_summaries(club: Club) -> None:
    api = club.api
    anna, boris, clara, _ = club.people
    first = await club.seed([anna, boris], [2, 1], moves=2)
    await club.seed([anna, boris, None], [1, 3, 2], moves=3)
    elsewhere = api.add_group("Elsewhere", admins=[clara])
    foreign = await club.seed([clara, anna], [1, 2], chat=elsewhere)

    listing = await club.say(anna, "/history")
    assert "Last games here" in listing.text
    assert "1. Rank" in listing.text and "2. Rank" in listing.text and "3." not in listing.text
    assert "🥇 Anna +" in listing.text and "🥉 Boris −" in listing.text
    assert "🥈 🤖 Computer 1" in listing.text
    assert club.labels(listing) == ["1", "2"]

    await club.press(anna, listing, "2")
    summary = club.current(listing)
    assert f"game {first}" in summary.text
    assert "Game over" in summary.text
    assert "Lasted 9 s · 3 moves (1 by timeout)" in summary.text
    # Who moved depends on the deal; two presses between them, each counted once.
    by_seat = re.search(r"Anna: (\d) moves? · Boris: (\d) moves?", summary.text)
    assert by_seat is not None and sum(map(int, by_seat.groups())) == 2
    assert club.labels(summary) == ["↩️ Back to the list"]

    await club.press(anna, summary, "↩️ Back to the list")
    assert "Last games here" in club.current(listing).text

    # Another chat's game, and garbage, are refused; the message stays as it was.
    before = club.current(listing).text
    forged = await api.press_data(anna, club.group, listing.message_id, f"Y:{foreign}")
    garbage = await api.press_data(anna, club.group, listing.message_id, "B:chess:ch:0")
    await api.wait_until(lambda: forged.answered and garbage.answered)
    await club.h.settle()
    assert forged.text == "That game is not in this chat's history."
    assert garbage.text == "This button does not work any more."
    assert club.current(listing).text == before
    assert api.unanswered_callbacks() == []


async def test_a_board_button_is_answered_before_its_slow_redraw(club: Club) -> None:
    """The redraw may wait for the group's flood budget; the press is answered meanwhile."""
    api = club.api
    anna = club.people[0]
    await club.seed([anna, club.people[1]], [1, 2])
    leaders = await club.say(anna, "/top")
    release = asyncio.Event()
    handle = api.handle

    async def slow_edits(method: str, params: Any = None, files: Any = None) -> Any:
        if method == "editMessageText":
            await release.wait()
        return await handle(method, params, files)

    api.handle = slow_edits  # type: ignore[method-assign]
    callback = await api.press_data(
        anna, club.group, leaders.message_id, api.buttons(leaders)[0][0][1] or ""
    )
    await api.wait_until(lambda: callback.answered, timeout=5)
    assert "Rank — best players" not in club.current(leaders).text, "the edit is still held"
    release.set()
    await club.h.settle()
    assert "Rank — best players here" in club.current(leaders).text
    api.handle = handle  # type: ignore[method-assign]


async def test_a_first_game_fills_the_board_with_provisional_ratings(club: Club) -> None:
    anna, boris = club.people[:2]
    await club.seed([anna, boris], [1, 2])
    leaders = await club.say(anna, "/top")
    assert re.search(r"Rank: 🥇 Anna — \d+\? \(1 game\)", leaders.text)
    board = await club.say(anna, "/top rank")
    assert re.search(r"1\. Anna — \d+\? · 1 game · 1 win \(100%\)", board.text)
    assert re.search(r"2\. Boris — \d+\? · 1 game · 0 wins \(0%\)", board.text)
    assert "? — fewer than 3 games so far: the rating is provisional." in board.text

    for places in ([1, 2], [2, 1]):
        await club.seed([anna, boris], places)
    settled = await club.say(anna, "/top rank global")
    assert "Anna — " in settled.text and "?" not in settled.text
    assert "3 games" in settled.text


async def test_top_in_a_private_chat_shows_everyone_then_your_own_games(club: Club) -> None:
    anna, boris = club.people[:2]
    await club.seed([anna, boris], [1, 2])
    leaders = await club.say(anna, "/top", private=True)
    assert "Best players everywhere" in leaders.text and "Rank: 🥇 Anna" in leaders.text
    assert club.labels(leaders) == ["Rank", "🙋 My games here", "🤖 Show the computer"]
    await club.press(anna, leaders, "🙋 My games here")
    own = club.current(leaders, anna).text
    assert own == "You have not finished a game here yet.", "her games were in the group"

    board = await club.say(anna, "/top rank", private=True)
    assert "Rank — best players everywhere" in board.text and "1. Anna" in board.text
    await club.press(anna, board, "🙋 My games here")
    own = club.current(board, anna).text
    assert "Rank — your games in this chat" in own
    assert "You have not finished a game of Rank here yet." in own
    usage = await club.say(anna, "/top chess", private=True)
    assert "everywhere" in usage.text and " here" not in usage.text


async def test_help_in_a_group_is_about_the_group(club: Club) -> None:
    anna = club.people[0]
    here = await club.say(anna, "/help")
    assert here.text.startswith("Open a game here with /new")
    assert "Add me to a group" not in here.text
    alone = await club.say(anna, "/help", private=True)
    assert alone.text.startswith("Add me to a group")
