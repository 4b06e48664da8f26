"""The sandbox's chat page over HTTP, served beside the Bot API emulator (tornado).

Routes:

* ``GET /`` - the page (``static/index.html``); ``GET /static/<file>`` - its CSS and JS.
* ``GET /sandbox/api/state?since=<revision>`` - everything the page draws, as JSON
  (:meth:`SandboxWorld.state`); with ``since`` it waits (up to ~25 s) until the world has
  changed, so the page sees edits as they happen without polling hard.
* ``POST /sandbox/api/users`` ``{"name", "language", "started", "member"}`` - add a user (a
  member of the group unless ``member`` is false).
* ``POST /sandbox/api/send`` ``{"user_id", "chat_id", "text"}`` - a user writes in a chat.
* ``POST /sandbox/api/press`` ``{"user_id", "chat_id", "message_id", "data"}`` - a user
  presses a callback button; answers with the bot's callback answer.
* ``POST /sandbox/api/open`` ``{"user_id", "url"}`` - a user follows a deep link.
* ``POST /sandbox/api/webapp`` ``{"user_id", "url", "chat_id"}`` - a user opens a Mini App
  from a ``web_app`` button the bot sent to his private chat, or by the direct link of the
  bot's app (``https://t.me/<bot>/<short name>?startapp=…``, on a URL button in chat
  ``chat_id``): answers ``{"url"}``, the app's URL with the launch parameters Telegram would
  add, ``initData`` signed for him with the bot's token, ``start_param`` and all
  (:meth:`SandboxWorld.open_app`). The page shows it in an ``<iframe>`` beside the chat.
* ``GET /sandbox/api/files/<file_unique_id>`` - a photo the bot sent (a PNG, JPEG or GIF by
  its bytes, served as such and nothing else), for the page's ``<img>``.

The page is for the person at this machine: requests must name a loopback host and, from a
browser, come from the page itself (:func:`~bot.sandbox.server.request_refusal`, shared with
the Bot API). Actions must also be JSON posts carrying the page's header
(``X-Cardroom-Sandbox: 1``): a foreign web page can send neither without a CORS preflight we
never grant, so even a browser that does not say where a request comes from cannot be made to
act for a user.
"""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any, Final

from tornado.web import HTTPError, RequestHandler, StaticFileHandler

from .server import Route, request_refusal
from .world import FILE_ROUTE, SandboxError, SandboxWorld

__all__ = ["PAGE_HEADER", "STATIC_DIR", "page_routes"]

logger = logging.getLogger(__name__)

STATIC_DIR: Final = Path(__file__).parent / "static"
LONG_POLL_SECONDS: Final = 25.0
PAGE_HEADER: Final = "X-Cardroom-Sandbox"
"""The header (value ``1``) the page sends with every action; ``static/sandbox.js`` sends it."""
MINI_APP_SOURCES: Final = "http://127.0.0.1:* http://localhost:* https:"
"""Where the page's Mini App frames may come from: what the emulator takes as a ``web_app``."""


def _refuse_foreign(handler: RequestHandler) -> None:
    """``403`` unless the request comes from this machine and, in a browser, from the page."""
    refusal = request_refusal(handler)
    if refusal is not None:
        raise HTTPError(403, refusal)


class _LocalHandler(RequestHandler):
    """Refuses foreign requests: DNS rebinding, other web pages (see :func:`_refuse_foreign`)."""

    def prepare(self) -> None:
        _refuse_foreign(self)

    def set_default_headers(self) -> None:
        self.set_header("Cache-Control", "no-store")
        self.set_header("X-Content-Type-Options", "nosniff")
        self.set_header("Referrer-Policy", "no-referrer")


class _PageHandler(_LocalHandler):
    """``GET /``: the chat page."""

    def set_default_headers(self) -> None:
        super().set_default_headers()
        self.set_header(
            "Content-Security-Policy",
            "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; "
            f"connect-src 'self'; frame-src {MINI_APP_SOURCES}; frame-ancestors 'none'; "
            "base-uri 'none'; form-action 'none'",
        )

    def get(self) -> None:
        self.set_header("Content-Type", "text/html; charset=utf-8")
        self.finish((STATIC_DIR / "index.html").read_bytes())


class _StaticHandler(StaticFileHandler):
    """``GET /static/<file>``: the page's CSS and JavaScript, never cached (a dev tool)."""

    def prepare(self) -> None:
        _refuse_foreign(self)

    def set_extra_headers(self, path: str) -> None:
        self.set_header("Cache-Control", "no-cache")
        self.set_header("X-Content-Type-Options", "nosniff")


class _ApiHandler(_LocalHandler):
    """Common ground of the JSON endpoints."""

    def initialize(self, world: SandboxWorld) -> None:
        self.world = world

    def check_xsrf_cookie(self) -> None:
        """The page's header and the JSON content type are the check (see the module
        docstring)."""

    def prepare(self) -> None:
        """Refuse foreign requests, and an action (a post) without the page's header."""
        super().prepare()
        if self.request.method == "POST" and self.request.headers.get(PAGE_HEADER) != "1":
            raise HTTPError(403, f"an action must come from the sandbox's page ({PAGE_HEADER})")

    def body(self) -> dict[str, Any]:
        if not self.request.headers.get("Content-Type", "").startswith("application/json"):
            raise HTTPError(415, "send JSON")
        try:
            data = json.loads(self.request.body or b"{}")
        except ValueError:
            raise HTTPError(400, "the body is not JSON") from None
        if not isinstance(data, dict):
            raise HTTPError(400, "the body is not a JSON object")
        return data

    def reply(self, data: Any, status: int = 200) -> None:
        self.set_status(status)
        self.set_header("Content-Type", "application/json; charset=utf-8")
        self.finish(json.dumps(data, ensure_ascii=False))

    def write_error(self, status_code: int, **kwargs: Any) -> None:
        error = kwargs.get("exc_info", (None, None, None))[1]
        detail = error.log_message if isinstance(error, HTTPError) else None
        self.set_header("Content-Type", "application/json; charset=utf-8")
        self.finish(json.dumps({"error": detail or self._reason}))


def _integer(data: dict[str, Any], name: str) -> int:
    value = data.get(name)
    if isinstance(value, bool) or not isinstance(value, int):
        raise HTTPError(400, f"{name} must be a whole number")
    return value


def _text(data: dict[str, Any], name: str) -> str:
    value = data.get(name)
    if not isinstance(value, str):
        raise HTTPError(400, f"{name} must be text")
    return value


class _StateHandler(_ApiHandler):
    """``GET /sandbox/api/state[?since=<revision>]``."""

    _gone = False

    def on_connection_close(self) -> None:
        """The page went away (reloaded, closed) while waiting."""
        self._gone = True

    async def get(self) -> None:
        since = self.get_query_argument("since", None)
        if since is not None and since.lstrip("-").isdigit():
            await self.world.wait_for_change(int(since), LONG_POLL_SECONDS)
        if not self._gone:
            self.set_header("Content-Type", "application/json; charset=utf-8")
            self.finish(self.world.state_json())


class _UsersHandler(_ApiHandler):
    """``POST /sandbox/api/users``."""

    def post(self) -> None:
        data = self.body()
        language = data.get("language")
        try:
            user = self.world.add_user(
                _text(data, "name"),
                language if isinstance(language, str) else None,
                started=bool(data.get("started", False)),
                member=bool(data.get("member", True)),
            )
        except SandboxError as error:
            self.reply({"error": str(error)}, 400)
            return
        self.reply({"id": user.id, "name": user.full_name})


class _SendHandler(_ApiHandler):
    """``POST /sandbox/api/send``."""

    async def post(self) -> None:
        data = self.body()
        try:
            message = await self.world.send(
                _integer(data, "user_id"), _integer(data, "chat_id"), _text(data, "text")
            )
        except SandboxError as error:
            self.reply({"error": str(error)}, 400)
            return
        self.reply({"message_id": message.message_id})


class _PressHandler(_ApiHandler):
    """``POST /sandbox/api/press``."""

    async def post(self) -> None:
        data = self.body()
        try:
            answer = await self.world.press(
                _integer(data, "user_id"),
                _integer(data, "chat_id"),
                _integer(data, "message_id"),
                _text(data, "data"),
            )
        except SandboxError as error:
            self.reply({"error": str(error)}, 400)
            return
        self.reply(answer.to_dict())


class _OpenHandler(_ApiHandler):
    """``POST /sandbox/api/open``."""

    async def post(self) -> None:
        data = self.body()
        try:
            message = await self.world.open_link(_integer(data, "user_id"), _text(data, "url"))
        except SandboxError as error:
            self.reply({"error": str(error)}, 400)
            return
        self.reply({"chat_id": message.chat_id, "message_id": message.message_id})


class _WebAppHandler(_ApiHandler):
    """``POST /sandbox/api/webapp``."""

    def post(self) -> None:
        data = self.body()
        chat_id = None if data.get("chat_id") is None else _integer(data, "chat_id")
        try:
            url = self.world.open_app(_integer(data, "user_id"), _text(data, "url"), chat_id)
        except SandboxError as error:
            self.reply({"error": str(error)}, 400)
            return
        self.reply({"url": url})


class _FileHandler(_LocalHandler):
    """``GET /sandbox/api/files/<file_unique_id>``: a photo the bot sent, as its image type.

    Only this page may load it (see :class:`_LocalHandler`), and only an image is served: a
    file the bot uploaded is never given to the browser as anything it could run.
    """

    def initialize(self, world: SandboxWorld) -> None:
        self.world = world

    def get(self, file_unique_id: str) -> None:
        image = self.world.image(file_unique_id)
        if image is None:
            raise HTTPError(404)
        # An uploaded file never changes: the page need not fetch it again.
        self.set_header("Cache-Control", "private, max-age=86400, immutable")
        self.set_header("Content-Type", image.mime_type)
        self.set_header("Content-Security-Policy", "default-src 'none'; sandbox")
        self.finish(image.data)


def page_routes(world: SandboxWorld) -> list[Route]:
    """The page's routes, to serve beside the Bot API (``FakeBotApiServer(routes=...)``)."""
    api = {"world": world}
    return [
        (r"/", _PageHandler, {}),
        (r"/static/(.*)", _StaticHandler, {"path": str(STATIC_DIR)}),
        (r"/sandbox/api/state", _StateHandler, api),
        (r"/sandbox/api/users", _UsersHandler, api),
        (r"/sandbox/api/send", _SendHandler, api),
        (r"/sandbox/api/press", _PressHandler, api),
        (r"/sandbox/api/open", _OpenHandler, api),
        (r"/sandbox/api/webapp", _WebAppHandler, api),
        (FILE_ROUTE + r"([A-Za-z0-9_-]{1,64})", _FileHandler, api),
    ]
