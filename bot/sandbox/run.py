"""``python -m bot --sandbox``: the real bot, the Bot API emulator and the chat page, together.

One event loop runs the emulator (:class:`~bot.sandbox.server.FakeBotApiServer`, which also
serves the page of :mod:`bot.sandbox.web`) on a loopback port, and the bot as
``build_application`` makes it, long-polling the emulator through ``TELEGRAM_API_BASE_URL``
like any local Bot API server. The bot's own web server listens on another free loopback port
(``WEBHOOK_PORT``, its public port), where it serves its Mini App (``WEBAPP_URL``) with the
stand-in for Telegram's WebApp script; the page opens it beside the chat
(:mod:`bot.sandbox.webapp`) from a player's ``web_app`` button and, since the bot runs with the
app's short name (``WEBAPP_SHORT_NAME``, as if made with @BotFather's ``/newapp``), from the
direct link on a group's table too. The caller has migrated the database already. Ctrl-C
(SIGINT) or SIGTERM stops the bot, then the server, and returns.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import signal
import socket
import sys
from collections.abc import Sequence
from typing import Final, TextIO

from pydantic import SecretStr

from bot.app import build_application
from bot.serve import Process
from bot.settings import Settings
from bot.storage.leadership import AnotherProcess, Leadership

from .server import FakeBotApiServer
from .web import page_routes
from .webapp import DirectLinkApp
from .world import SANDBOX_TOKEN, SandboxWorld

__all__ = ["APP_PATH", "SANDBOX_DATABASE_URL", "SHORT_NAME", "run_sandbox", "sandbox_settings"]

logger = logging.getLogger(__name__)

SANDBOX_DATABASE_URL: Final = "sqlite+aiosqlite:///./data/sandbox.db"
"""The sandbox's own database: its games and leaderboards never mix with a real bot's."""

HOST: Final = "127.0.0.1"
WEB_APP_SCRIPT_PATH: Final = "/app/static/web-app-stand-in.js"
"""Where the bot's web server serves the stand-in for Telegram's WebApp script (the real one
works only inside Telegram)."""
SHORT_NAME: Final = "table"
"""The Mini App's short name in the sandbox, unless the settings give one: its direct link is
``t.me/<the sandbox bot>/table``, which the page follows to the app."""
APP_PATH: Final = "/app/table"
"""The page a direct link opens on the bot's web server: the URL given to BotFather's
``/newapp`` is ``WEBAPP_URL`` and this (docs/operating.md)."""


def sandbox_settings(settings: Settings, base_url: str, web_port: int) -> Settings:
    """``settings`` for a bot that talks to the emulator at ``base_url``, by long polling, and
    serves its web routes (the Mini App among them) on ``http://127.0.0.1:<web_port>``."""
    web_url = f"http://{HOST}:{web_port}"
    return settings.model_copy(
        update={
            "telegram_bot_token": SecretStr(SANDBOX_TOKEN),
            "telegram_api_base_url": base_url,
            "webhook_url": None,
            "webhook_secret": None,
            "webhook_listen": HOST,
            # The Mini App is public: on the webhook's port in either mode; no health
            # listener (nobody probes the sandbox).
            "webhook_port": web_port,
            "health_port": 0,
            "webapp_url": web_url,
            "webapp_script": web_url + WEB_APP_SCRIPT_PATH,
            # Group tables carry the direct link, which the page opens as Telegram would.
            "webapp_short_name": settings.webapp_short_name or SHORT_NAME,
        }
    )


def direct_link_app(settings: Settings) -> DirectLinkApp | None:
    """The app the bot's direct links open, as ``settings`` (:func:`sandbox_settings`'s)
    have it: what BotFather would have been told."""
    if not settings.webapp_url or not settings.webapp_short_name:
        return None
    return DirectLinkApp(settings.webapp_short_name, settings.webapp_url + APP_PATH)


def free_port() -> int:
    """A loopback port nobody listens on now (the bot's web server takes it a moment later)."""
    with socket.socket() as probe:
        probe.bind((HOST, 0))
        return int(probe.getsockname()[1])


def run_sandbox(
    settings: Settings,
    *,
    port: int = 8080,
    languages: Sequence[str] = ("en",),
    out: TextIO = sys.stdout,
    leadership: Leadership | None = None,
) -> int:
    """Serve the sandbox on ``http://127.0.0.1:<port>/`` until Ctrl-C; the exit status.

    ``settings.database_url`` is used as it is (see :data:`SANDBOX_DATABASE_URL`), claimed
    by ``leadership`` if the caller has claimed it already; the token and the Bot API URL
    are the emulator's. ``port=0`` picks a free port. The page's
    address is printed to ``out`` once the bot is up; nothing is opened by itself.
    """
    try:
        return asyncio.run(_serve(settings, port, languages, out, leadership))
    except KeyboardInterrupt:  # before the signal handlers were in place
        return 0


async def _serve(
    settings: Settings,
    port: int,
    languages: Sequence[str],
    out: TextIO,
    leadership: Leadership | None,
) -> int:
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(signum, stop.set)

    world = SandboxWorld.create(languages=languages)
    server = FakeBotApiServer(world.api, HOST, port, routes=page_routes(world))
    try:
        base_url = await server.start()
    except OSError as error:
        print(
            f"cardroom: cannot listen on {HOST}:{port} ({error.strerror or error}); "
            "choose another port with --port",
            file=sys.stderr,
        )
        return 1
    bot_settings = sandbox_settings(settings, base_url, free_port())
    world.app = direct_link_app(bot_settings)
    # The bot as in production, polling the emulator: updates go through the inbox.
    process = Process(build_application(bot_settings), bot_settings, leadership)
    process.stopping = stop
    running = asyncio.create_task(process.run(signals=False))
    try:
        leading = asyncio.create_task(process.leading.wait())
        await asyncio.wait((running, leading), return_when=asyncio.FIRST_COMPLETED)
        leading.cancel()
        if process.leading.is_set():
            print(
                f"Cardroom sandbox: {server.url}/ (open it in a browser; Ctrl-C stops it)",
                file=out,
                flush=True,
            )
            await stop.wait()
            logger.info("Stopping the sandbox")
        return await running
    except AnotherProcess as error:
        print(f"cardroom: {error}", file=sys.stderr)
        return 2
    finally:
        stop.set()
        with contextlib.suppress(Exception):
            await running
        await server.stop()
