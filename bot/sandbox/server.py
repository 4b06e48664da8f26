"""The fake Bot API over real HTTP (tornado), for smoke tests and a browser sandbox.

Routes, as on ``api.telegram.org``:

* ``GET|POST /bot<token>/<method>`` - a Bot API call; parameters may come as a JSON body,
  ``application/x-www-form-urlencoded``, ``multipart/form-data`` (file uploads) or the query
  string. A token other than ``api.token`` gets ``401 Unauthorized``.
* ``GET /file/bot<token>/<file_path>`` - the content of an uploaded file (see ``getFile``).

Only this machine may call them (see :func:`request_refusal`): the sandbox's token is public, so
a web page open in the same browser could otherwise post into a user's chat, set a webhook, or
(by DNS rebinding) read the updates, players' hands included. Anything else gets ``403``.

More routes (the sandbox's chat page, :mod:`bot.sandbox.web`) can be served beside them.

Point python-telegram-bot at it with ``base_url``::

    server = FakeBotApiServer(api)
    base_url = await server.start()            # "http://127.0.0.1:<port>/bot"
    bot = Bot(api.token, base_url=base_url)
    ...
    await server.stop()
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Sequence
from typing import Any, Final

from tornado.httpserver import HTTPServer
from tornado.netutil import bind_sockets
from tornado.web import Application, RequestHandler

from .bot_api import FakeBotApi
from .models import Upload

__all__ = ["LOOPBACK_HOSTS", "FakeBotApiServer", "Route", "request_refusal"]

Route = tuple[str, type[RequestHandler], dict[str, Any]]
"""A tornado rule: URL pattern, handler class, the handler's ``initialize`` arguments."""

_LOGGER = logging.getLogger(__name__)

LOOPBACK_HOSTS: Final = frozenset({"127.0.0.1", "localhost", "[::1]"})
"""``Host`` names (as tornado's ``request.host_name`` spells them) that only this machine uses."""

_HOST_NAMES_SETTING: Final = "sandbox_host_names"
"""The tornado ``Application`` setting: the ``Host`` names a request may use (see below)."""

_TRUSTED_FETCH_SITES: Final = frozenset({"same-origin", "none"})
"""``Sec-Fetch-Site`` values of the sandbox's own page, and of an address typed by hand."""

_OTHER_FETCH_HEADERS: Final = ("Sec-Fetch-Mode", "Sec-Fetch-Dest", "Sec-Fetch-User")
"""The Sec-Fetch headers a browser sends beside ``Sec-Fetch-Site``; the bot's client sends none."""


def request_refusal(handler: RequestHandler) -> str | None:
    """Why the request ``handler`` serves must be refused (with ``403``), or ``None``.

    A web page in the same browser can reach a loopback port too: blindly with a form or an
    ``<img>``, and readably by DNS rebinding (its own name then resolving to 127.0.0.1). So the
    ``Host`` must name this machine (a rebound name still arrives as the page's own), and a
    browser's request must come from this server's own origin: browsers send ``Origin`` with
    posts and cross-origin fetches and ``Sec-Fetch-Site`` with nearly everything, while the
    bot's HTTP client sends neither, so it is never refused. A request with another
    ``Sec-Fetch-*`` header but no ``Sec-Fetch-Site`` comes from a browser that does not say
    from where: it is refused too.
    """
    request = handler.request
    if request.host_name not in handler.settings.get(_HOST_NAMES_SETTING, LOOPBACK_HOSTS):
        return "the Host is not this machine"
    origin = request.headers.get("Origin")
    if origin is not None and origin.lower() != f"{request.protocol}://{request.host}".lower():
        return "the request comes from another origin"
    site = request.headers.get("Sec-Fetch-Site")
    if site is None:
        # Browsers send the Sec-Fetch headers together; one without the site hides where
        # the request comes from, so it is not taken as the page's own.
        if any(name in request.headers for name in _OTHER_FETCH_HEADERS):
            return "the request does not say which site it comes from"
        return None
    # An allow-list: a value a browser may invent later is refused, not trusted.
    if site.lower() not in _TRUSTED_FETCH_SITES:
        return "the request comes from another site"
    return None


def _host_names(bind_host: str) -> frozenset[str]:
    """``Host`` names for a server bound to ``bind_host``: the loopback ones and ``bind_host``,
    which names this machine too when chosen on purpose, spelled as tornado's
    ``request.host_name`` (lower case, IPv6 in brackets); all interfaces (``""``) add none."""
    name = bind_host.lower()
    if ":" in name and not name.startswith("["):
        name = f"[{name}]"
    return LOOPBACK_HOSTS | {name} if name else LOOPBACK_HOSTS


def _log_request(handler: RequestHandler) -> None:
    """Access log at DEBUG: Bot API errors (4xx) are normal here, not warnings."""
    request = handler.request
    _LOGGER.debug(
        "%d %s %s %.2fms",
        handler.get_status(),
        request.method,
        request.path,
        1000.0 * request.request_time(),
    )


class _BotApiRoute(RequestHandler):
    """Common ground of the Bot API's routes: who may call them, and how errors look."""

    def initialize(self, server: FakeBotApiServer) -> None:
        self._server = server

    def prepare(self) -> None:
        refusal = request_refusal(self)
        if refusal is not None:
            self._fail(403, f"Forbidden: {refusal}")

    def _reply(self, status: int, body: dict[str, Any]) -> None:
        self.set_status(status)
        self.set_header("Content-Type", "application/json")
        self.finish(json.dumps(body, ensure_ascii=False))

    def _fail(self, status: int, description: str) -> None:
        self._reply(status, {"ok": False, "error_code": status, "description": description})


class _ApiHandler(_BotApiRoute):
    """``/bot<token>/<method>``."""

    def initialize(self, server: FakeBotApiServer) -> None:
        super().initialize(server)
        self._task: asyncio.Future[tuple[int, dict[str, Any]]] | None = None

    def check_xsrf_cookie(self) -> None:
        """Bot API calls carry no XSRF cookie."""

    async def get(self, token: str, method: str) -> None:
        await self._call(token, method)

    async def post(self, token: str, method: str) -> None:
        await self._call(token, method)

    def on_connection_close(self) -> None:
        """The client went away (e.g. it cancelled a long poll): stop working for it."""
        if self._task is not None:
            self._task.cancel()

    async def _call(self, token: str, method: str) -> None:
        api = self._server.api
        if token != api.token:
            self._fail(401, "Unauthorized")
            return
        try:
            params = self._params()
        except ValueError:
            self._fail(400, "Bad Request: can't parse JSON request body")
            return
        fault = api.take_network_fault(method)
        if fault is not None and not fault.processed:
            self._drop_connection()
            return
        self._task = asyncio.ensure_future(api.handle(method, params, self._uploads()))
        self._server.track(self._task)
        try:
            status, body = await self._task
        except asyncio.CancelledError:
            self._drop_connection()
            return
        if fault is not None:
            self._drop_connection()
            return
        self._reply(status, body)

    def _params(self) -> dict[str, Any]:
        params: dict[str, Any] = {
            name: self.decode_argument(values[-1])
            for name, values in self.request.query_arguments.items()
        }
        content_type = self.request.headers.get("Content-Type", "")
        if content_type.startswith("application/json"):
            if self.request.body:
                body = json.loads(self.request.body)
                if not isinstance(body, dict):
                    raise ValueError("JSON body must be an object")
                params.update(body)
        else:
            for name, values in self.request.body_arguments.items():
                params[name] = self.decode_argument(values[-1])
        return params

    def _uploads(self) -> dict[str, Upload]:
        return {
            name: Upload(
                filename=files[-1].filename,
                content=files[-1].body,
                mime_type=files[-1].content_type,
            )
            for name, files in self.request.files.items()
            if files
        }

    def _drop_connection(self) -> None:
        """Close the socket without a response, as a network failure would."""
        stream = self.detach()
        stream.close()


class _FileHandler(_BotApiRoute):
    """``/file/bot<token>/<file_path>``."""

    def get(self, token: str, file_path: str) -> None:
        if token != self._server.api.token:
            self._fail(401, "Unauthorized")
            return
        content = self._server.api.file_content(file_path)
        if content is None:
            self._fail(404, "Not Found")
            return
        self.set_header("Content-Type", "application/octet-stream")
        self.finish(content)


class FakeBotApiServer:
    """Serves a :class:`FakeBotApi` on ``http://<host>:<port>``; ``port=0`` picks a free one.

    ``routes`` are served too, after the Bot API's own; their handlers can call
    :func:`request_refusal`, which accepts ``host`` as a ``Host`` name besides loopback ones.
    """

    def __init__(
        self,
        api: FakeBotApi,
        host: str = "127.0.0.1",
        port: int = 0,
        *,
        routes: Sequence[Route] = (),
    ) -> None:
        self.api = api
        self.host = host
        self.port = port
        self.routes = list(routes)
        self._http: HTTPServer | None = None
        self._tasks: set[asyncio.Future[tuple[int, dict[str, Any]]]] = set()

    @property
    def url(self) -> str:
        """``http://<host>:<port>`` (valid after :meth:`start`)."""
        return f"http://{self.host}:{self.port}"

    @property
    def base_url(self) -> str:
        """The ``base_url`` for python-telegram-bot: ``http://<host>:<port>/bot``."""
        return f"{self.url}/bot"

    @property
    def base_file_url(self) -> str:
        """The ``base_file_url`` for python-telegram-bot: ``http://<host>:<port>/file/bot``."""
        return f"{self.url}/file/bot"

    async def start(self) -> str:
        """Start listening; returns :attr:`base_url`."""
        if self._http is not None:
            return self.base_url
        app = Application(
            [
                (r"/bot([^/]+)/([A-Za-z0-9_]+)/?", _ApiHandler, {"server": self}),
                (r"/file/bot([^/]+)/(.+)", _FileHandler, {"server": self}),
                *self.routes,
            ],
            log_function=_log_request,
        )
        app.settings[_HOST_NAMES_SETTING] = _host_names(self.host)
        sockets = bind_sockets(self.port, self.host)
        self.port = int(sockets[0].getsockname()[1])
        self._http = HTTPServer(app)
        self._http.add_sockets(sockets)
        return self.base_url

    async def stop(self) -> None:
        """Stop listening, abort pending calls (long polls) and close all connections."""
        if self._http is None:
            return
        self._http.stop()
        for task in list(self._tasks):
            task.cancel()
        if self._tasks:
            await asyncio.gather(*self._tasks, return_exceptions=True)
        await self._http.close_all_connections()
        self._http = None

    def track(self, task: asyncio.Future[tuple[int, dict[str, Any]]]) -> None:
        """Remember an in-progress call so :meth:`stop` can abort it."""
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def __aenter__(self) -> FakeBotApiServer:
        await self.start()
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.stop()
