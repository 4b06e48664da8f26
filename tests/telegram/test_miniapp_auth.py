"""Who opened the Mini App: initData checked as Telegram documents it."""

from __future__ import annotations

import hashlib
import hmac
import json
from urllib.parse import urlencode

import pytest

from bot.telegram.miniapp.auth import Refused, secret_key, signed_user

TOKEN = "123456789:AAFakeTokenForCardroomTests-0123456789"
NOW = 1_800_000_000.0


def sign(fields: dict[str, str], token: str = TOKEN) -> dict[str, str]:
    check = "\n".join(f"{k}={v}" for k, v in sorted(fields.items()))
    return {
        **fields,
        "hash": hmac.new(secret_key(token), check.encode(), hashlib.sha256).hexdigest(),
    }


def fields(user: object = None, at: float = NOW) -> dict[str, str]:
    return {
        "query_id": "AAH",
        "user": json.dumps(user or {"id": 42, "first_name": "Анна", "language_code": "ru"}),
        "auth_date": str(int(at)),
    }


def test_a_signed_user_is_read() -> None:
    user = signed_user(urlencode(sign(fields())), TOKEN, NOW + 10)
    assert (user.user_id, user.first_name, user.language_code) == (42, "Анна", "ru")


@pytest.mark.parametrize(
    ("init_data", "code"),
    [
        (urlencode(sign(fields(), token="987:" + "b" * 35)), "forged"),  # another bot's
        (urlencode({**sign(fields()), "user": json.dumps({"id": 7})}), "forged"),
        (urlencode(sign(fields(at=NOW - 3601))), "stale"),
        (urlencode(sign(fields(at=NOW + 120))), "stale"),
        (urlencode(sign(fields(user={"id": "42"}))), "malformed"),
        (urlencode(sign(fields())) + "&auth_date=1", "malformed"),  # a field twice
        ("", "malformed"),
        ("x" * 5000, "malformed"),
        ("no-equals-sign", "malformed"),
    ],
)
def test_anything_else_is_refused(init_data: str, code: str) -> None:
    with pytest.raises(Refused) as refused:
        signed_user(init_data, TOKEN, NOW)
    assert refused.value.code == code
