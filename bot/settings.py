"""Settings read from the environment (and a ``.env`` file), with their defaults."""

from __future__ import annotations

import hashlib
import hmac
import re
import typing
from typing import Any
from urllib.parse import urlsplit

from pydantic import Field, SecretStr, ValidationError, field_validator
from pydantic_core import ErrorDetails
from pydantic_settings import BaseSettings, SettingsConfigDict

DEFAULT_DATABASE_URL = "sqlite+aiosqlite:///./data/cardroom.db"

#: What Telegram accepts as a webhook's ``secret_token``.
WEBHOOK_SECRET_PATTERN = re.compile(r"[A-Za-z0-9_-]{1,256}")
#: The fewest characters a configured webhook secret may have: a shorter one can be guessed.
WEBHOOK_SECRET_MIN_LENGTH = 16
#: The shape of a bot token from @BotFather: the bot's id, a colon, then the secret part
#: (35 characters today; any 30 or more are taken, so a longer one Telegram may issue passes).
TOKEN_PATTERN = re.compile(r"[0-9]+:[A-Za-z0-9_-]{30,}")
#: The message of the HMAC that derives a webhook secret from the token (see
#: :meth:`Settings.webhook_secret_token`); changing it changes every derived secret.
WEBHOOK_SECRET_DERIVATION = b"cardroom webhook secret"
LOG_LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL")
LOG_FORMATS = ("text", "json")
TELEGRAM_WEB_APP_SCRIPT = "https://telegram.org/js/telegram-web-app.js"
#: Hosts a Mini App may be served from over plain HTTP (this machine: the sandbox).
LOOPBACK_HOSTS = ("127.0.0.1", "localhost", "::1")


class MissingTokenError(Exception):
    """``TELEGRAM_BOT_TOKEN`` is not set: the bot cannot log in."""


class Settings(BaseSettings):
    """Every setting of the bot; the environment variable is the field name in upper case."""

    model_config = SettingsConfigDict(env_file=".env", env_file_encoding="utf-8", extra="ignore")

    telegram_bot_token: SecretStr | None = None
    telegram_api_base_url: str | None = None
    database_url: str = DEFAULT_DATABASE_URL
    turn_seconds: int = Field(default=60, ge=10, le=3600)
    computer_delay_seconds: float = Field(default=1.5, ge=0, le=30)
    webhook_url: str | None = None
    webhook_secret: SecretStr | None = None
    # Loopback: a TLS proxy on the same host forwards to it. A container sets 0.0.0.0.
    webhook_listen: str = "127.0.0.1"
    webhook_port: int = Field(default=8443, ge=1, le=65535)
    # /healthz, /readyz and /metrics, in both modes, on a listener of their own: never on the
    # public port (a catch-all proxy rule would publish them). Loopback by default; a container
    # sets 0.0.0.0 on a private network only. HEALTH_PORT=0 serves none.
    health_host: str = "127.0.0.1"
    health_port: int = Field(default=9464, ge=0, le=65535)
    # How long start-up waits, with backoff, for a database that is not up yet (refuses
    # connections, its host name not found yet, still starting); then exit status 3.
    database_wait_seconds: float = Field(default=60, ge=0, le=3600)
    # How long start-up waits, the same way, for Telegram (or ``TELEGRAM_API_BASE_URL``) not
    # reachable yet (a network or a proxy still coming up); then exit status 3. 0: one try.
    telegram_wait_seconds: float = Field(default=60, ge=0, le=3600)
    # The public HTTPS base URL of the bot's web server (behind the TLS proxy), where the
    # Mini App is served (``<url>/app/table``); unset: no Mini App.
    webapp_url: str | None = None
    # The Mini App's short name, as made with @BotFather's /newapp (its URL
    # ``<WEBAPP_URL>/app/table``): a group's table then carries a button opening the game by
    # direct link (``https://t.me/<bot>/<short name>?startapp=g<game>``) — Telegram allows
    # Mini App buttons only in private chats. Unset: no such button.
    webapp_short_name: str | None = None
    # The script that gives the Mini App ``Telegram.WebApp``: Telegram's own (the sandbox
    # serves a stand-in).
    webapp_script: str = TELEGRAM_WEB_APP_SCRIPT
    # Caps on the Mini App's sockets in one process; each socket is an open file from the
    # moment it opens. In all: some thousand players at once, far more than a process' games
    # need, and never more than half of its open-file limit (the rest is for Telegram, the
    # database and the webhook), so that a flood of sockets cannot stop the bot.
    webapp_max_sockets: int = Field(default=2000, ge=1, le=1_000_000)
    # Per player (Telegram user), across games: his phone, his desktop, and a page reconnecting
    # before its old socket is known dead. One more closes his oldest: who opens the table
    # again wants the new page.
    webapp_sockets_per_player: int = Field(default=3, ge=1, le=100)
    # Per remote address, sockets not signed in yet: a page signs in as it opens, within a
    # round trip, so even many players behind one address hardly ever have more than a few
    # such at once; only a flood does. One more is refused, and its page tries again later.
    webapp_unsigned_sockets_per_address: int = Field(default=10, ge=1, le=10_000)
    log_level: str = "INFO"
    # ``text``: one line per record for a person; ``json``: one JSON object per line (time,
    # level, logger, message, exception) for a log shipper.
    log_format: str = "text"

    @field_validator("telegram_bot_token", mode="before")
    @classmethod
    def _token_shaped_like_botfathers(cls, value: Any) -> Any:
        raw = value.get_secret_value() if isinstance(value, SecretStr) else value
        if not isinstance(raw, str):
            return value  # pydantic says what it must be
        # A token pasted with a space or a line break around it is still the token.
        token = raw.strip()
        if token and not TOKEN_PATTERN.fullmatch(token):
            # The message never quotes the value: it is a secret, however mistyped.
            raise ValueError(
                "is not shaped like a token from @BotFather: the bot's id (digits), a colon, "
                "then 35 letters, digits, _ or - (like 123456789:AAH…); copy it again"
            )
        return token

    @field_validator("webhook_secret", mode="before")
    @classmethod
    def _secret_telegram_accepts(cls, value: Any) -> Any:
        raw = value.get_secret_value() if isinstance(value, SecretStr) else value
        if raw is None or raw == "":
            return None  # ``WEBHOOK_SECRET=`` as in .env.example: derive one
        if not isinstance(raw, str) or not WEBHOOK_SECRET_PATTERN.fullmatch(raw):
            raise ValueError(
                f"must be {WEBHOOK_SECRET_MIN_LENGTH} to 256 characters, each a letter A-Z or "
                "a-z, a digit, _ or -"
            )
        if len(raw) < WEBHOOK_SECRET_MIN_LENGTH:
            raise ValueError(
                f"must be at least {WEBHOOK_SECRET_MIN_LENGTH} characters: a short secret can "
                "be guessed, and whoever guesses it can post updates to the bot as any user "
                "(leave it empty to use one derived from the token)"
            )
        return value

    @field_validator("webapp_url")
    @classmethod
    def _webapp_url_telegram_opens(cls, value: str | None) -> str | None:
        if value is None or not value.strip():
            return None
        parts = urlsplit(value.strip())
        loopback = parts.scheme == "http" and parts.hostname in LOOPBACK_HOSTS
        if not (parts.scheme == "https" or loopback) or not parts.hostname:
            raise ValueError(
                "must be an https:// URL (Telegram opens Mini Apps over HTTPS only), "
                "e.g. https://cards.example.org"
            )
        if parts.query or parts.fragment:
            raise ValueError("must be a base URL, without ? or #")
        return value.strip().rstrip("/")

    @field_validator("webapp_short_name")
    @classmethod
    def _short_name_botfather_takes(cls, value: str | None) -> str | None:
        if value is None or not value.strip():
            return None
        if not re.fullmatch(r"[A-Za-z0-9_]{3,30}", value.strip()):
            raise ValueError(
                "must be the Mini App's short name as @BotFather's /newapp took it: 3 to 30 "
                "letters, digits or underscores (e.g. table)"
            )
        return value.strip()

    @field_validator("log_level")
    @classmethod
    def _known_log_level(cls, value: str) -> str:
        level = value.strip().upper()
        if level not in LOG_LEVELS:
            raise ValueError(f"must be one of {', '.join(LOG_LEVELS)}")
        return level

    @field_validator("log_format")
    @classmethod
    def _known_log_format(cls, value: str) -> str:
        log_format = value.strip().lower()
        if log_format not in LOG_FORMATS:
            raise ValueError(f"must be one of {', '.join(LOG_FORMATS)}")
        return log_format

    def require_token(self) -> str:
        """The bot token, or :class:`MissingTokenError` when it is not configured."""
        if self.telegram_bot_token is None or not self.telegram_bot_token.get_secret_value():
            raise MissingTokenError(
                "TELEGRAM_BOT_TOKEN is not set: put the token from @BotFather in the "
                "environment or in .env (see .env.example)."
            )
        return self.telegram_bot_token.get_secret_value()

    def webhook_secret_token(self) -> str:
        """The secret Telegram must send with every webhook post: ``WEBHOOK_SECRET``, or one
        derived from the token when it is not set (see :func:`derive_webhook_secret`)."""
        if self.webhook_secret is not None:
            return self.webhook_secret.get_secret_value()
        return derive_webhook_secret(self.require_token())


def derive_webhook_secret(token: str) -> str:
    """A webhook secret only the token's holder can compute: HMAC-SHA256 of a fixed message
    keyed by the token, in hex.

    Not random per process: several processes behind one webhook URL each call
    ``setWebhook``, and with secrets of their own the last one would lock the others out. Derived,
    it is the same in every process and across restarts, and changes when the token does.
    """
    return hmac.new(token.encode(), WEBHOOK_SECRET_DERIVATION, hashlib.sha256).hexdigest()


def describe_errors(error: ValidationError) -> list[str]:
    """One line per bad setting, naming its environment variable and what it may be."""
    return [_describe(details) for details in error.errors()]


def _describe(details: ErrorDetails) -> str:
    name = str(details["loc"][0]) if details["loc"] else ""
    field = Settings.model_fields.get(name)
    variable = name.upper() or "the settings"
    kind = details["type"]
    context = details.get("ctx") or {}
    if kind == "value_error" and "error" in context:
        allowed = str(context["error"])
    elif kind == "int_parsing":
        allowed = "must be a whole number"
    elif kind == "float_parsing":
        allowed = "must be a number"
    elif kind in ("greater_than_equal", "less_than_equal") and field is not None:
        allowed = _range_of(field.metadata)
    else:
        allowed = f"is not valid: {details['msg']}"
    if field is not None and _is_secret(field.annotation):
        return f"{variable} {allowed}"  # never echo a secret
    return f"{variable} {allowed} (got {details['input']!r})"


def _range_of(constraints: list[Any]) -> str:
    lowest = next((c.ge for c in constraints if hasattr(c, "ge")), None)
    highest = next((c.le for c in constraints if hasattr(c, "le")), None)
    if lowest is not None and highest is not None:
        return f"must be between {lowest} and {highest}"
    if lowest is not None:
        return f"must be at least {lowest}"
    return f"must be at most {highest}"


def _is_secret(annotation: Any) -> bool:
    return annotation is SecretStr or SecretStr in typing.get_args(annotation)
