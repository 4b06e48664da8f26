"""An in-process fake of the Telegram Bot API.

:class:`FakeBotApi` holds the world a bot lives in (its own user, users, private chats,
groups and forum topics, the messages in each chat, pending updates, callback queries) and
answers Bot API calls the way Telegram does where a bot depends on it: message ids, edits and
their "message is not modified" error, 403 for users who never started or blocked the bot,
flood limits with ``retry_after``, callback answers that work only once, parse-mode errors,
long polling with ``offset`` confirmation.

Transports feed it: :class:`bot.sandbox.request.FakeRequest` (python-telegram-bot's
``BaseRequest``, no sockets) and :class:`bot.sandbox.server.FakeBotApiServer` (real HTTP).
Both call :meth:`FakeBotApi.handle`, which returns an HTTP status and Telegram's JSON body.

Tests drive the users' side with the simulation API (``add_user``, ``add_group``,
``send_text``, ``press``...) and wait for the bot to finish reacting with :meth:`settle`;
the browser sandbox (:mod:`bot.sandbox.world`) drives the same API for a person.

The class is made of parts, one module for each thing it emulates:

* :mod:`~bot.sandbox.store` - what it holds, and finding a chat or a message;
* :mod:`~bot.sandbox.updates` - the update queue, ``getUpdates`` and webhooks;
* :mod:`~bot.sandbox.chats` - users, groups, topics and members;
* :mod:`~bot.sandbox.messages` - what users write; what the bot sends, edits, deletes, pins;
* :mod:`~bot.sandbox.callbacks` - button presses, deep links, ``answerCallbackQuery``;
* :mod:`~bot.sandbox.files` - uploads and ``getFile``;
* :mod:`~bot.sandbox.profile` - ``getMe``, the command menus, the bot's names;
* :mod:`~bot.sandbox.flood` - the flood limits; :mod:`~bot.sandbox.calls` - decoding a call's
  parameters and the register of methods.

This module adds the front desk: :meth:`FakeBotApi.handle`, fault injection, the record of
calls and the statistics, and waiting for the bot to settle.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Mapping
from typing import Any

from .callbacks import Callbacks
from .calls import METHODS, Args, coerce_params
from .models import ApiCall, ApiError, FakeChat, FakeUser, JSONDict, Stats, Upload
from .profile import Profile
from .store import (
    DEFAULT_TOKEN,
    ChatRef,
    InjectedError,
    InjectedNetworkFault,
    MessageLike,
    MessageRef,
    NetworkFault,
    WebhookConfig,
)

__all__ = [
    "DEFAULT_TOKEN",
    "ChatRef",
    "FakeBotApi",
    "MessageLike",
    "MessageRef",
    "NetworkFault",
    "WebhookConfig",
    "coerce_params",
]


class FakeBotApi(Callbacks, Profile):
    """State and behaviour of a fake Telegram Bot API for one bot.

    Args:
        token: the bot token transports must present; its numeric prefix is the bot's id.
        bot_username: the bot's @username (without ``@``).
        bot_first_name: the bot's display name.
        clock: monotonic seconds used for flood limits, callback ages and message dates;
            inject a controllable clock to advance time in tests.
        flood_limits: whether Telegram's flood limits apply (see :class:`FloodPolicy`).
        flood_policy: custom limits (defaults to Telegram's).
        privacy_mode: Telegram's group privacy mode: in groups where the bot is not an
            administrator it only receives commands, replies to it and mentions of it.
        callback_answer_timeout: if set, answering a callback query later than this many
            clock seconds after the press fails like an expired query.
        latency: real seconds each call (except getUpdates) takes.
    """

    # ----------------------------------------------------------------------------------------
    # Transport entry point

    async def handle(
        self,
        method: str,
        params: Mapping[str, Any] | None = None,
        files: Mapping[str, Upload] | None = None,
    ) -> tuple[int, JSONDict]:
        """Answer one Bot API call: ``(http_status, json_body)``.

        ``method`` is case-insensitive. ``params`` may hold JSON values or strings as sent in
        form fields (see :func:`coerce_params`); ``files`` are multipart uploads by part name.
        """
        decoded = coerce_params(params or {})
        key = method.lower()
        entry = METHODS.get(key)
        name = entry[0] if entry is not None else method
        self._record_call(method, name, decoded)
        polling = key == "getupdates"
        if not polling:
            self._in_flight += 1
        self._last_activity = time.monotonic()
        try:
            if self.latency > 0 and not polling:
                await asyncio.sleep(self.latency)
            try:
                fault = self._take_fault(key, decoded)
                if fault is not None:
                    raise fault
                if entry is None:
                    raise ApiError(404, "Not Found: method not found")
                result = await entry[1](self, Args(decoded, files or {}))
            except ApiError as error:
                self.stats.errors[(name, error.error_code)] += 1
                if error.error_code == 429:
                    self.stats.too_many_requests += 1
                return error.error_code, error.to_body()
            return 200, {"ok": True, "result": result}
        finally:
            if not polling:
                self._in_flight -= 1
                self.revision += 1
            self._last_activity = time.monotonic()

    def _record_call(self, method: str, name: str, params: JSONDict) -> None:
        self.calls.append(ApiCall(name, dict(params)))
        self.stats.by_method[name] += 1
        chat_id = params.get("chat_id")
        if isinstance(chat_id, int):
            self.stats.by_chat[chat_id] += 1
            self.stats.by_chat_method[(chat_id, name)] += 1

    # ----------------------------------------------------------------------------------------
    # Fault injection

    def fail_next(
        self,
        method: str,
        error_code: int,
        description: str,
        retry_after: int | None = None,
        times: int = 1,
        chat_id: ChatRef | str | None = None,
    ) -> None:
        """Make the next ``times`` calls of ``method`` (optionally only to ``chat_id``) fail.

        The call is recorded but has no effect. With ``retry_after`` the error carries
        ``parameters.retry_after`` (python-telegram-bot raises ``RetryAfter``).
        """
        parameters = {"retry_after": retry_after} if retry_after is not None else None
        if isinstance(chat_id, FakeChat | FakeUser):
            chat_id = self.chat(chat_id).id
        self._faults.append(
            InjectedError(
                method.lower(), ApiError(error_code, description, parameters), times, chat_id
            )
        )

    def network_error_next(
        self,
        method: str,
        *,
        timeout: bool = False,
        processed: bool = False,
        times: int = 1,
    ) -> None:
        """Make the transport fail the next ``times`` calls of ``method`` at network level.

        :class:`~bot.sandbox.request.FakeRequest` raises ``telegram.error.TimedOut`` when
        ``timeout`` else ``telegram.error.NetworkError``; the HTTP server drops the connection.
        With ``processed`` the call takes effect before its response is lost.
        """
        self._network_faults.append(
            InjectedNetworkFault(method.lower(), timeout, processed, times)
        )

    def take_network_fault(self, method: str) -> NetworkFault | None:
        """For transports: consume and return a pending network fault for ``method``."""
        key = method.lower()
        for fault in self._network_faults:
            if fault.method == key:
                fault.remaining -= 1
                if fault.remaining <= 0:
                    self._network_faults.remove(fault)
                return NetworkFault(timeout=fault.timeout, processed=fault.processed)
        return None

    def _take_fault(self, key: str, params: JSONDict) -> ApiError | None:
        for fault in self._faults:
            if fault.method != key:
                continue
            if fault.chat_id is not None and params.get("chat_id") != fault.chat_id:
                continue
            fault.remaining -= 1
            if fault.remaining <= 0:
                self._faults.remove(fault)
            error = fault.error
            return ApiError(error.error_code, error.description, error.parameters)
        return None

    # ----------------------------------------------------------------------------------------
    # Flood limits and statistics

    @property
    def flood_limits_enabled(self) -> bool:
        return self.flood.policy.enabled

    @flood_limits_enabled.setter
    def flood_limits_enabled(self, enabled: bool) -> None:
        self.flood.policy.enabled = enabled

    def reset_stats(self) -> None:
        """Forget recorded calls and counters (state such as messages is kept)."""
        self.calls.clear()
        self.stats = Stats()

    def calls_of(self, method: str) -> list[JSONDict]:
        """The parameters of every recorded call of ``method`` (case-insensitive), in order.

        Recorded method names are canonical (``sendMessage``) for the methods the fake knows.
        """
        key = method.lower()
        return [call.params for call in self.calls if call.method.lower() == key]

    # ----------------------------------------------------------------------------------------
    # Waiting

    async def settle(
        self,
        *,
        quiet: float = 0.05,
        timeout: float = 10.0,  # noqa: ASYNC109 - a deadline is this helper's whole API
    ) -> None:
        """Wait until the bot has fetched every update and made no call for ``quiet`` seconds.

        Real time is used (not the injectable clock). Raises ``TimeoutError`` after
        ``timeout`` seconds. A bot that pauses longer than ``quiet`` between calls (e.g.
        ``asyncio.sleep`` before a computer move) needs a larger ``quiet``.
        """
        deadline = time.monotonic() + timeout
        step = max(0.002, min(quiet / 5, 0.02))
        while True:
            now = time.monotonic()
            fetched = self._delivered_id >= self._last_enqueued_id
            idle = self._in_flight == 0 and now - self._last_activity >= quiet
            if fetched and idle:
                return
            if now >= deadline:
                raise TimeoutError(
                    f"the fake Bot API did not settle within {timeout}s: "
                    f"{self.pending_updates} update(s) not fetched, "
                    f"{self._in_flight} call(s) in flight"
                )
            await asyncio.sleep(step)

    async def wait_until(
        self,
        predicate: Callable[[], bool],
        *,
        timeout: float = 10.0,  # noqa: ASYNC109 - a deadline is this helper's whole API
        interval: float = 0.01,
    ) -> None:
        """Poll ``predicate`` until it is true; raise ``TimeoutError`` after ``timeout`` s."""
        deadline = time.monotonic() + timeout
        while not predicate():
            if time.monotonic() >= deadline:
                raise TimeoutError(f"condition not met within {timeout}s")
            await asyncio.sleep(interval)

    @classmethod
    def supported_methods(cls) -> list[str]:
        """The Bot API methods this fake implements (canonical spelling)."""
        return sorted(name for name, _ in METHODS.values())
