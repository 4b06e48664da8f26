"""Telegram's flood limits, applied to what Telegram limits: messages sent and edited.

PTB's ``AIORateLimiter`` holds every call that names a chat to that chat's budget — a group's
20 messages a minute — whatever the call is. A lookup such as ``getChatMember`` (is this user
an admin?) in a busy group would then queue behind the table's edits for seconds, though
Telegram does not count it. :class:`MessageRateLimiter` limits the calls that post or change a
message, and lets the others through at once.
"""

from __future__ import annotations

from collections.abc import Callable, Coroutine
from typing import Any

from telegram.ext import AIORateLimiter

#: Bot API methods that put a message in a chat or change one start with these.
_MESSAGE_METHODS = ("send", "edit", "copy", "forward")


def counts_as_message(endpoint: str) -> bool:
    """Whether a Bot API call posts or changes a message (and so counts against the limits)."""
    return endpoint.startswith(_MESSAGE_METHODS)


class MessageRateLimiter(AIORateLimiter):
    """``AIORateLimiter`` for message calls only; every other call goes straight through."""

    async def process_request(
        self,
        callback: Callable[..., Coroutine[Any, Any, bool | dict[str, Any] | list[dict[str, Any]]]],
        args: Any,
        kwargs: dict[str, Any],
        endpoint: str,
        data: dict[str, Any],
        rate_limit_args: int | None,
    ) -> bool | dict[str, Any] | list[dict[str, Any]]:
        if counts_as_message(endpoint):
            return await super().process_request(
                callback, args, kwargs, endpoint, data, rate_limit_args
            )
        return await callback(*args, **kwargs)
