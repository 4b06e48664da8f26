"""Settings: what each variable may be, said in one line, and the derived webhook secret."""

from __future__ import annotations

import re
from typing import Any

import pytest
from pydantic import ValidationError

from bot.sandbox.world import SANDBOX_TOKEN
from bot.settings import Settings, derive_webhook_secret, describe_errors

TOKEN = "123456789:AAFakeTokenForCardroomTests-0123456789"
TELEGRAM_SECRET = re.compile(r"[A-Za-z0-9_-]{1,256}")


def settings(**values: Any) -> Settings:
    return Settings(_env_file=None, **values)  # type: ignore[call-arg]


def problems(**values: Any) -> list[str]:
    with pytest.raises(ValidationError) as raised:
        settings(**values)
    return describe_errors(raised.value)


@pytest.fixture(autouse=True)
def no_settings_from_the_machine(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in (
        "TELEGRAM_BOT_TOKEN",
        "WEBHOOK_SECRET",
        "WEBHOOK_LISTEN",
        "WEBHOOK_PORT",
        "LOG_LEVEL",
        "TURN_SECONDS",
        "DATABASE_WAIT_SECONDS",
        "TELEGRAM_WAIT_SECONDS",
    ):
        monkeypatch.delenv(name, raising=False)


def test_the_webhook_listens_on_loopback_unless_told_otherwise() -> None:
    assert settings().webhook_listen == "127.0.0.1"
    assert settings(webhook_listen="0.0.0.0").webhook_listen == "0.0.0.0"


def test_without_webhook_secret_the_secret_is_derived_from_the_token() -> None:
    derived = settings(telegram_bot_token=TOKEN).webhook_secret_token()
    assert TELEGRAM_SECRET.fullmatch(derived)
    assert TOKEN not in derived and TOKEN.partition(":")[2] not in derived
    # Every process and every restart with this token agree on it; another token, another one.
    assert derived == derive_webhook_secret(TOKEN)
    assert derived == settings(telegram_bot_token=TOKEN, webhook_secret="").webhook_secret_token()
    assert derived != derive_webhook_secret(TOKEN + "x")


def test_a_configured_webhook_secret_is_used_as_it_is() -> None:
    configured = settings(telegram_bot_token=TOKEN, webhook_secret="My_long_secret-42")
    assert configured.webhook_secret_token() == "My_long_secret-42"
    assert settings(webhook_secret="x" * 16).webhook_secret_token() == "x" * 16
    assert settings(webhook_secret="x" * 256).webhook_secret_token() == "x" * 256


@pytest.mark.parametrize(
    "secret", ["has space in the middle", "semi;colon-secret-42", "ünïcode-secret-4242", "x" * 257]
)
def test_a_webhook_secret_telegram_would_refuse_is_a_settings_error(secret: str) -> None:
    (line,) = problems(webhook_secret=secret)
    assert line.startswith("WEBHOOK_SECRET must be 16 to 256 characters")
    assert secret not in line, "a secret is never echoed"


@pytest.mark.parametrize("secret", ["a", "secret", "x" * 15])
def test_a_webhook_secret_short_enough_to_guess_is_a_settings_error(secret: str) -> None:
    (line,) = problems(webhook_secret=secret)
    assert line == (
        "WEBHOOK_SECRET must be at least 16 characters: a short secret can be guessed, and "
        "whoever guesses it can post updates to the bot as any user (leave it empty to use one "
        "derived from the token)"
    )


@pytest.mark.parametrize(
    "token",
    [
        "123:abc",
        "AAFakeTokenForCardroomTests-0123456789",  # the id and the colon left behind
        "bot123456789:AAFakeTokenForCardroomTests-0123456789",  # the URL's "bot" copied too
        "123456789:AAFake TokenForCardroomTests-0123456789",
        "123456789:AAFakeTokenForCardroomTests/0123456789",
        "123456789;AAFakeTokenForCardroomTests-0123456789",
    ],
)
def test_a_token_not_shaped_like_botfathers_is_a_settings_error(token: str) -> None:
    (line,) = problems(telegram_bot_token=token)
    assert line.startswith("TELEGRAM_BOT_TOKEN is not shaped like a token from @BotFather: ")
    assert token not in line and "Fake" not in line, "a token, however mistyped, is a secret"


def test_tokens_shaped_like_botfathers_pass() -> None:
    botfathers = "7123456789:AAFakeShapedLikeBotFathers-01234567"  # 35 after the colon
    for token in (botfathers, TOKEN, SANDBOX_TOKEN):
        assert settings(telegram_bot_token=token).require_token() == token
    # Pasted with the line break or the spaces around it, it is still the token.
    assert settings(telegram_bot_token=f" {botfathers}\n").require_token() == botfathers
    # Unset or empty is another fault, told when the token is needed.
    assert settings(telegram_bot_token="").telegram_bot_token is not None
    assert settings().telegram_bot_token is None


def test_each_bad_variable_is_one_line_naming_it_and_what_it_may_be() -> None:
    lines = problems(
        turn_seconds="3", computer_delay_seconds="soon", webhook_port="99999", log_level="loud"
    )
    assert lines == [
        "TURN_SECONDS must be between 10 and 3600 (got '3')",
        "COMPUTER_DELAY_SECONDS must be a number (got 'soon')",
        "WEBHOOK_PORT must be between 1 and 65535 (got '99999')",
        "LOG_LEVEL must be one of DEBUG, INFO, WARNING, ERROR, CRITICAL (got 'loud')",
    ]


def test_the_log_level_may_be_written_in_any_case() -> None:
    assert settings(log_level="debug").log_level == "DEBUG"


def test_start_up_waits_a_minute_for_telegram_unless_told_otherwise() -> None:
    assert settings().telegram_wait_seconds == 60
    assert settings(telegram_wait_seconds="0").telegram_wait_seconds == 0, "0: one try"
    assert problems(telegram_wait_seconds="-1", database_wait_seconds="forever") == [
        "DATABASE_WAIT_SECONDS must be a number (got 'forever')",
        "TELEGRAM_WAIT_SECONDS must be between 0 and 3600 (got '-1')",
    ]
