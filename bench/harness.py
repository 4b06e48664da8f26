"""The real bot (PTB Application, services, SQLite) wired to the in-process fake Bot API.

The end-to-end tests drive it (``tests.e2e.harness`` re-exports it), and so does the Mini App
bench (:mod:`bench.davayka_app`): it stands on the package only, so ``python -m bench`` runs
from an install without the tests' extras.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bot.app import App, build_application
from bot.sandbox.bot_api import FakeBotApi
from bot.sandbox.models import FakeChat, FakeMessage, FakeUser
from bot.sandbox.request import FakeRequest
from bot.settings import TELEGRAM_WEB_APP_SCRIPT, Settings
from bot.storage.migrate import upgrade_async
from bot.telegram.intake import PressThrottle
from bot.telegram.sender.budget import Limits
from bot.telegram.sender.replies import ReplyGate


@dataclass
class TestClock:
    """Wall-clock time for the bot that tests move forward to make deadlines fall due."""

    offset: float = 0.0

    def __call__(self) -> float:
        return time.time() + self.offset

    def advance(self, seconds: float) -> None:
        self.offset += seconds


@dataclass
class Harness:
    api: FakeBotApi
    database_url: str
    clock: TestClock = field(default_factory=TestClock)
    turn_seconds: int = 60
    #: The bot's flood budget: none worth the name unless a test is about Telegram's limits.
    limits: Limits = field(default_factory=Limits.unlimited)
    #: Whether informational replies are limited as in production (see ``ReplyGate``).
    limit_replies: bool = False
    app: App | None = None
    #: Seconds a move waits for its player before he is pinged (``None``: the bot's own).
    ping_after: float | None = None
    #: Where the Mini App is served (``None``: not at all).
    webapp_url: str | None = None
    #: The script that gives the Mini App's page ``Telegram.WebApp`` (Telegram's, or the
    #: sandbox's stand-in for a page in a test's browser).
    webapp_script: str = TELEGRAM_WEB_APP_SCRIPT
    #: The Mini App's short name (``None``: no direct link on the groups' tables).
    webapp_short_name: str | None = None

    async def start(self) -> App:
        """Start a bot process (as after a restart: nothing in memory but the database)."""
        await upgrade_async(self.database_url)
        settings = Settings(
            telegram_bot_token=self.api.token,
            database_url=self.database_url,
            turn_seconds=self.turn_seconds,
            computer_delay_seconds=1.0,
            webapp_url=self.webapp_url,
            webapp_script=self.webapp_script,
            webapp_short_name=self.webapp_short_name,
            _env_file=None,  # type: ignore[call-arg]
        )
        app = build_application(
            settings,
            request=FakeRequest(self.api),
            get_updates_request=FakeRequest(self.api),
            limits=self.limits,
            group_interval=0.0,
            private_interval=0.0,
            poll_seconds=0.02,
            clock=self.clock,
        )
        # Scripted players press and ask far faster than people: the per-user limits (and the
        # merging of repeated replies) are tested on their own.
        room = app.bot_data["cardroom"]
        room.throttle = PressThrottle(burst=10_000, rate=10_000.0, double_tap=0.0)
        if not self.limit_replies:
            room.replies = ReplyGate(window=0.0)
            room.openings = ReplyGate(window=0.0)
        if self.ping_after is not None:
            room.publisher.ping_after = self.ping_after
        await app.initialize()
        assert app.post_init is not None
        await app.post_init(app)
        await app.start()
        # Telegram's updates come by PTB's own polling here; the inbox's reader hands over the
        # updates of the bot's own making (Mini App presses).
        app.bot_data["inbox"].start()
        assert app.updater is not None
        await app.updater.start_polling(poll_interval=0.0, timeout=1)
        self.app = app
        return app

    async def stop(self) -> None:
        """Stop the bot; what it has not committed is lost, as in a crash."""
        app = self.app
        if app is None:
            return
        self.app = None
        assert app.updater is not None
        await app.updater.stop()
        await app.bot_data["inbox"].stop()
        await app.stop()
        if app.post_stop is not None:
            await app.post_stop(app)
        if app.post_shutdown is not None:
            await app.post_shutdown(app)
        await app.shutdown()

    async def settle(self) -> None:
        """Wait until the bot has sent everything it meant to, and gone quiet."""
        if self.app is not None:
            room = self.app.bot_data["cardroom"]
            if room.catching_up is not None:
                await room.catching_up
            await room.publisher.drain()  # and the notes it hands over
        await self.api.settle(quiet=0.1, timeout=20)

    async def tick(self, seconds: float) -> None:
        """Let ``seconds`` of bot time pass, and the bot react to it."""
        self.clock.advance(seconds)
        # The poller job looks every 20 ms; one pass here makes sure a look happened after
        # the clock moved, however slow the machine (the job itself may run too: the version
        # check makes the two harmless to each other).
        assert self.app is not None
        await self.app.bot_data["cardroom"].poller.run_once()
        await self.settle()

    # -- looking at chats ------------------------------------------------------------------

    def table(self, group: FakeChat) -> FakeMessage:
        """The newest lobby/table message in the group (they open with 🎴, or 🚫 cancelled)."""
        return next(
            m
            for m in reversed(self.api.bot_messages(group))
            if (m.text or "").startswith(("🎴", "🚫"))
        )

    def panel(self, user: FakeUser) -> FakeMessage | None:
        """The player's newest game panel in his DM."""
        return next(
            (m for m in reversed(self.api.bot_messages(user)) if "Your hand" in m.text), None
        )

    def panel_buttons(self, user: FakeUser) -> list[tuple[str, Any]]:
        """The panel's buttons that press something (not the Mini App's, nor a link)."""
        panel = self.panel(user)
        if panel is None:
            return []
        return [
            button
            for row in self.api.buttons(panel)
            for button in row
            if button[1] and not str(button[1]).startswith(("http://", "https://"))
        ]


def sqlite_url(folder: Path) -> str:
    return f"sqlite+aiosqlite:///{folder / 'cardroom.db'}"
