"""Settings read from the environment (and a ``.env`` file), with their defaults."""

from __future__ import annotations

from pydantic import Field, SecretStr
from pydantic_settings import BaseSettings, SettingsConfigDict

DEFAULT_DATABASE_URL = "sqlite+aiosqlite:///./data/cardroom.db"


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
    webhook_listen: str = "0.0.0.0"
    webhook_port: int = 8443
    log_level: str = "INFO"

    def require_token(self) -> str:
        """The bot token, or :class:`MissingTokenError` when it is not configured."""
        if self.telegram_bot_token is None or not self.telegram_bot_token.get_secret_value():
            raise MissingTokenError(
                "TELEGRAM_BOT_TOKEN is not set: put the token from @BotFather in the "
                "environment or in .env (see .env.example)."
            )
        return self.telegram_bot_token.get_secret_value()
