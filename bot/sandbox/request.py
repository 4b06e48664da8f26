"""A python-telegram-bot request backend that answers from a :class:`FakeBotApi` in-process.

Give it to a real ``telegram.Bot`` or ``Application`` instead of the HTTP client::

    api = FakeBotApi()
    bot = Bot(api.token, request=FakeRequest(api), get_updates_request=FakeRequest(api))
    app = Application.builder().token(api.token).request(FakeRequest(api)) \\
        .get_updates_request(FakeRequest(api)).build()

No sockets are opened. Everything python-telegram-bot does above the transport (building the
parameters, JSON encoding, turning error bodies into ``BadRequest``, ``Forbidden``,
``RetryAfter``...) runs unchanged.
"""

from __future__ import annotations

import asyncio
import json
from typing import IO, TYPE_CHECKING, Any, cast
from urllib.parse import unquote, urlsplit

from telegram.error import NetworkError, TimedOut
from telegram.request import BaseRequest, RequestData

from .bot_api import FakeBotApi
from .models import Upload

if TYPE_CHECKING:
    from telegram._utils.types import ODVInput

__all__ = ["FakeRequest"]


class FakeRequest(BaseRequest):
    """``BaseRequest`` that routes every call to ``api.handle`` in the running event loop.

    Args:
        api: the fake to answer from.
        read_timeout: the default read timeout (python-telegram-bot adds the long-poll
            ``timeout`` to it for getUpdates); a call taking longer raises ``TimedOut``.
        check_token: refuse calls whose URL token differs from ``api.token`` (401), like
            Telegram does for a wrong token.
    """

    __slots__ = ("_api", "_check_token", "_read_timeout", "_shut_down")

    def __init__(
        self,
        api: FakeBotApi,
        *,
        read_timeout: float | None = 5.0,
        check_token: bool = True,
    ) -> None:
        self._api = api
        self._read_timeout = read_timeout
        self._check_token = check_token
        self._shut_down = False

    @property
    def api(self) -> FakeBotApi:
        return self._api

    @property
    def read_timeout(self) -> float | None:
        return self._read_timeout

    async def initialize(self) -> None:
        self._shut_down = False

    async def shutdown(self) -> None:
        self._shut_down = True

    async def do_request(
        self,
        url: str,
        method: str,
        request_data: RequestData | None = None,
        read_timeout: ODVInput[float] = BaseRequest.DEFAULT_NONE,
        write_timeout: ODVInput[float] = BaseRequest.DEFAULT_NONE,
        connect_timeout: ODVInput[float] = BaseRequest.DEFAULT_NONE,
        pool_timeout: ODVInput[float] = BaseRequest.DEFAULT_NONE,
    ) -> tuple[int, bytes]:
        """See :meth:`telegram.request.BaseRequest.do_request`."""
        if self._shut_down:
            raise RuntimeError("This FakeRequest is not initialized!")
        parts = [unquote(part) for part in urlsplit(url).path.split("/") if part]
        if "file" in parts[:-1]:
            return self._download(parts)
        if not parts:
            return _json_response(404, _error(404, "Not Found"))
        api_method = parts[-1]
        token_part = parts[-2] if len(parts) >= 2 else ""
        if (
            self._check_token
            and token_part.startswith("bot")
            and token_part[3:] != self._api.token
        ):
            return _json_response(401, _error(401, "Unauthorized"))

        params: dict[str, Any] = dict(request_data.parameters) if request_data else {}
        files = _uploads(request_data)
        fault = self._api.take_network_fault(api_method)
        if fault is not None and not fault.processed:
            _raise_network_fault(fault.timeout)

        timeout = (
            self._read_timeout
            if read_timeout is BaseRequest.DEFAULT_NONE
            else cast("float | None", read_timeout)
        )
        call = self._api.handle(api_method, params, files)
        try:
            status, body = await (call if timeout is None else asyncio.wait_for(call, timeout))
        except TimeoutError:
            raise TimedOut() from None
        if fault is not None:
            _raise_network_fault(fault.timeout)
        return _json_response(status, body)

    def _download(self, parts: list[str]) -> tuple[int, bytes]:
        index = parts.index("file")
        token_part = parts[index + 1] if len(parts) > index + 1 else ""
        if self._check_token and token_part[3:] != self._api.token:
            return _json_response(401, _error(401, "Unauthorized"))
        content = self._api.file_content("/".join(parts[index + 2 :]))
        if content is None:
            return _json_response(404, _error(404, "Not Found"))
        return 200, content


def _uploads(request_data: RequestData | None) -> dict[str, Upload]:
    if request_data is None or not request_data.contains_files:
        return {}
    uploads: dict[str, Upload] = {}
    for name, field_tuple in request_data.multipart_data.items():
        filename, content, mime_type = (*field_tuple, None)[:3]
        uploads[name] = Upload(
            filename=filename if isinstance(filename, str) else None,
            content=_read_content(content),
            mime_type=mime_type if isinstance(mime_type, str) else None,
        )
    return uploads


def _read_content(content: bytes | IO[bytes] | Any) -> bytes:
    if isinstance(content, bytes | bytearray | memoryview):
        return bytes(content)
    data = content.read()
    return data if isinstance(data, bytes) else str(data).encode()


def _raise_network_fault(timeout: bool) -> None:
    if timeout:
        raise TimedOut("Timed out (simulated by the fake Bot API)")
    raise NetworkError("Connection reset (simulated by the fake Bot API)")


def _error(code: int, description: str) -> dict[str, Any]:
    return {"ok": False, "error_code": code, "description": description}


def _json_response(status: int, body: dict[str, Any]) -> tuple[int, bytes]:
    return status, json.dumps(body, ensure_ascii=False).encode("utf-8")
