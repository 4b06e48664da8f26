"""Who opened the Mini App: the user Telegram signed in ``initData``, as Telegram documents it.

``initData`` is a query string Telegram hands the page; its ``hash`` is the hex HMAC-SHA256 of
every other field (``key=value``, sorted by key, joined by line feeds), keyed by the
HMAC-SHA256 of the bot's token keyed by ``"WebAppData"``. Only the token's holder can make one,
so a page cannot claim to be anyone else. It is refused when older than an hour: a signed
string copied out of a page stops working.
"""

from __future__ import annotations

import hashlib
import hmac
import json
from dataclasses import dataclass
from urllib.parse import parse_qsl

#: The oldest signature taken, in seconds.
MAX_AGE = 3600.0
#: A signature from this far in the future is no clock's error.
MAX_AHEAD = 60.0
#: The longest ``initData`` read (Telegram's are well under 1 KB).
MAX_LENGTH = 4096


class Refused(Exception):
    """``initData`` that proves nothing: ``forged`` (the signature does not match),
    ``stale`` (too old, or from the future) or ``malformed``."""

    def __init__(self, code: str) -> None:
        super().__init__(code)
        self.code = code


@dataclass(frozen=True, slots=True)
class SignedUser:
    user_id: int
    first_name: str
    username: str | None
    language_code: str | None
    #: The ``startapp`` parameter of the direct link the page was opened by (``None``: not
    #: opened by one). Signed by Telegram, but written by whoever wrote the link: a claim to
    #: judge, never a right.
    start_param: str | None = None


def secret_key(token: str) -> bytes:
    return hmac.new(b"WebAppData", token.encode(), hashlib.sha256).digest()


def signed_user(init_data: str, token: str, now: float, max_age: float = MAX_AGE) -> SignedUser:
    """The user ``init_data`` was signed for, or :class:`Refused`."""
    if not init_data or len(init_data) > MAX_LENGTH:
        raise Refused("malformed")
    try:
        pairs = parse_qsl(init_data, keep_blank_values=True, strict_parsing=True)
    except ValueError:
        raise Refused("malformed") from None
    fields = dict(pairs)
    if len(fields) != len(pairs):
        raise Refused("malformed")  # a field twice: which one was signed?
    given = fields.pop("hash", "")
    check = "\n".join(f"{key}={value}" for key, value in sorted(fields.items()))
    expected = hmac.new(secret_key(token), check.encode(), hashlib.sha256).hexdigest()
    if not hmac.compare_digest(given.encode(), expected.encode()):
        raise Refused("forged")
    try:
        signed_at = int(fields["auth_date"])
        user = json.loads(fields["user"])
        user_id = user["id"]
    except (KeyError, ValueError, TypeError):
        raise Refused("malformed") from None
    if not isinstance(user_id, int) or isinstance(user_id, bool) or user_id <= 0:
        raise Refused("malformed")
    if now - signed_at > max_age or signed_at - now > MAX_AHEAD:
        raise Refused("stale")
    return SignedUser(
        user_id,
        str(user.get("first_name") or ""),
        user.get("username") if isinstance(user.get("username"), str) else None,
        user.get("language_code") if isinstance(user.get("language_code"), str) else None,
        fields.get("start_param") or None,
    )
