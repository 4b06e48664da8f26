"""Updates: the queue the bot reads with ``getUpdates``, and webhooks.

What users do (:mod:`~bot.sandbox.messages`, :mod:`~bot.sandbox.callbacks`,
:mod:`~bot.sandbox.chats`) is enqueued here as updates, filtered by the ``allowed_updates`` the
bot asked for. ``getUpdates`` long-polls with Telegram's ``offset`` confirmation and answers a
second poller with 409, as Telegram does; a set webhook makes polling a 409 too (the fake
records the webhook but posts nothing to it).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import re
import time
from typing import Final

from .calls import Args, JSONValue, api_method
from .models import ApiError, JSONDict
from .store import ApiStore, PendingUpdate, WebhookConfig

__all__ = ["Updates"]

# Update types Telegram sends when ``allowed_updates`` was never set (or set to []).
_DEFAULT_UPDATE_TYPES: Final = frozenset(
    {
        "message",
        "edited_message",
        "channel_post",
        "edited_channel_post",
        "inline_query",
        "chosen_inline_result",
        "callback_query",
        "shipping_query",
        "pre_checkout_query",
        "poll",
        "poll_answer",
        "my_chat_member",
        "chat_join_request",
        "chat_boost",
        "removed_chat_boost",
    }
)
_SECRET_TOKEN = re.compile(r"^[A-Za-z0-9_-]{1,256}$")


class Updates(ApiStore):
    """The update queue, long polling and webhooks."""

    @property
    def pending_updates(self) -> int:
        """Updates enqueued but not yet fetched by getUpdates."""
        return sum(1 for update in self._updates if update.update_id > self._delivered_id)

    def _cond(self) -> asyncio.Condition:
        loop = asyncio.get_running_loop()
        if self._condition is None or self._condition_loop is not loop:
            self._condition = asyncio.Condition()
            self._condition_loop = loop
        return self._condition

    def _update_allowed(self, kind: str) -> bool:
        allowed = self.webhook.allowed_updates if self.webhook else self.allowed_updates
        return kind in allowed if allowed else kind in _DEFAULT_UPDATE_TYPES

    async def _enqueue(self, kind: str, body: JSONDict) -> None:
        if not self._update_allowed(kind):
            return
        update_id = self._next_update_id
        self._next_update_id += 1
        payload = {"update_id": update_id, **body}
        self._updates.append(PendingUpdate(update_id, kind, payload))
        self.update_log.append(payload)
        self._last_enqueued_id = update_id
        self.revision += 1
        condition = self._cond()
        async with condition:
            condition.notify_all()

    def _confirm(self, offset: int | None) -> None:
        if offset is None or offset == 0:
            return
        if offset > 0:
            self._updates = [u for u in self._updates if u.update_id >= offset]
        else:
            self._updates = self._updates[offset:]
        if self._updates:
            first = self._updates[0].update_id
            self._delivered_id = max(self._delivered_id, first - 1)
        else:
            self._delivered_id = max(self._delivered_id, self._last_enqueued_id)

    def _drop_pending_updates(self) -> None:
        self._updates.clear()
        self._delivered_id = self._last_enqueued_id

    # ----------------------------------------------------------------------------------------
    # Bot API methods: updates, webhook

    @api_method("getUpdates")
    async def _get_updates(self, args: Args) -> JSONValue:
        if self.webhook is not None:
            raise ApiError(
                409,
                "Conflict: can't use getUpdates method while webhook is active; "
                "use deleteWebhook to delete the webhook first",
            )
        offset = args.integer("offset")
        limit = min(max(args.integer("limit") or 100, 1), 100)
        timeout = max(args.integer("timeout") or 0, 0)
        allowed = args.get("allowed_updates")
        if isinstance(allowed, list):
            self.allowed_updates = [str(kind) for kind in allowed] or None
        self._confirm(offset)
        self._poll_generation += 1
        generation = self._poll_generation
        deadline = time.monotonic() + timeout
        condition = self._cond()
        async with condition:
            condition.notify_all()  # an older poll learns that it was superseded
            while True:
                if generation != self._poll_generation:
                    raise ApiError(
                        409,
                        "Conflict: terminated by other getUpdates request; make sure that "
                        "only one bot instance is running",
                    )
                batch = self._updates[:limit]
                remaining = deadline - time.monotonic()
                if batch or remaining <= 0:
                    break
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(condition.wait(), remaining)
        if batch:
            self._delivered_id = max(self._delivered_id, batch[-1].update_id)
        return [json.loads(json.dumps(update.payload)) for update in batch]

    @api_method("setWebhook")
    async def _set_webhook(self, args: Args) -> JSONValue:
        url = args.text("url") or ""
        if args.flag("drop_pending_updates"):
            self._drop_pending_updates()
        if not url:
            self.webhook = None
            return True
        match = re.match(r"^https://[^/:?#]+(?::(?P<port>[0-9]+))?(?:[/?#].*)?$", url)
        if match is None:
            raise ApiError.bad_request("bad webhook: An HTTPS URL must be provided for webhook")
        if match["port"] is not None and int(match["port"]) not in (80, 88, 443, 8443):
            raise ApiError.bad_request(
                "bad webhook: Webhook can be set up only on ports 80, 88, 443 or 8443"
            )
        secret = args.text("secret_token")
        if secret is not None and not _SECRET_TOKEN.match(secret):
            raise ApiError.bad_request("bad webhook: secret token contains unallowed characters")
        allowed = args.get("allowed_updates")
        self.webhook = WebhookConfig(
            url=url,
            secret_token=secret,
            max_connections=args.integer("max_connections") or 40,
            allowed_updates=[str(k) for k in allowed] if isinstance(allowed, list) else None,
            ip_address=args.text("ip_address"),
            has_custom_certificate=args.get("certificate") is not None
            or "certificate" in args.files,
        )
        return True

    @api_method("deleteWebhook")
    async def _delete_webhook(self, args: Args) -> JSONValue:
        self.webhook = None
        if args.flag("drop_pending_updates"):
            self._drop_pending_updates()
        return True

    @api_method("getWebhookInfo")
    async def _get_webhook_info(self, args: Args) -> JSONValue:
        info: JSONDict = {
            "url": self.webhook.url if self.webhook else "",
            "has_custom_certificate": bool(self.webhook and self.webhook.has_custom_certificate),
            "pending_update_count": len(self._updates),
        }
        if self.webhook is not None:
            info["max_connections"] = self.webhook.max_connections
            if self.webhook.allowed_updates is not None:
                info["allowed_updates"] = list(self.webhook.allowed_updates)
            if self.webhook.ip_address:
                info["ip_address"] = self.webhook.ip_address
        return info
