"""Keeping the bot's secrets out of what it prints: log lines and tracebacks.

The bot token is in every Bot API URL and the webhook secret is a ``setWebhook`` parameter;
python-telegram-bot, httpx and tornado log both at DEBUG, and python-telegram-bot puts the
token in the message of :class:`telegram.error.InvalidToken`. A :class:`SecretRedactor` on
the root logger's handlers replaces them, wherever they occur in a record, with placeholders;
:func:`redact_uncaught_exceptions` does the same for a traceback the process dies with.
"""

from __future__ import annotations

import logging
import sys
import threading
import traceback
from collections.abc import Mapping
from types import TracebackType

TOKEN_PLACEHOLDER = "<token>"
WEBHOOK_SECRET_PLACEHOLDER = "<webhook-secret>"


def secrets_to_redact(token: str | None, webhook_secret: str | None = None) -> dict[str, str]:
    """Each secret with its placeholder: the token, the token's secret half (after ``:``,
    which is also what is left of it once the colon is percent-encoded; the half before is
    the bot's public user id) and the webhook secret."""
    secrets: dict[str, str] = {}
    if token:
        secrets[token] = TOKEN_PLACEHOLDER
        secret_half = token.partition(":")[2]
        if secret_half:
            secrets[secret_half] = TOKEN_PLACEHOLDER
    if webhook_secret:
        secrets[webhook_secret] = WEBHOOK_SECRET_PLACEHOLDER
    return secrets


class SecretRedactor(logging.Filter):
    """A handler filter that replaces secrets in a record's message, exception and stack."""

    def __init__(self, secrets: Mapping[str, str]) -> None:
        super().__init__()
        # Longest first: the whole token goes before its secret half leaves the id behind.
        self._secrets = sorted(
            ((secret, placeholder) for secret, placeholder in secrets.items() if secret),
            key=lambda pair: len(pair[0]),
            reverse=True,
        )
        self._formatter = logging.Formatter()

    def redact(self, text: str) -> str:
        """``text`` with every secret replaced by its placeholder."""
        for secret, placeholder in self._secrets:
            text = text.replace(secret, placeholder)
        return text

    def filter(self, record: logging.LogRecord) -> bool:
        if not self._secrets:
            return True
        try:
            message = record.getMessage()
        except Exception:  # a malformed logging call: still printed, still redacted
            message = f"{record.msg!r} % {record.args!r}"
        # The secret may be in an argument: the message is formatted once, here, and the
        # handlers print the redacted text as it is.
        record.msg = self.redact(message)
        record.args = None
        if record.exc_info and not record.exc_text:
            # Formatters print a cached exc_text rather than format the exception again.
            record.exc_text = self._formatter.formatException(record.exc_info)
        if record.exc_text:
            record.exc_text = self.redact(record.exc_text)
        if record.stack_info:
            record.stack_info = self.redact(record.stack_info)
        return True


def redact_logs(redactor: SecretRedactor) -> None:
    """Put ``redactor`` on every handler of the root logger, where all records end up."""
    for handler in logging.getLogger().handlers:
        if redactor not in handler.filters:
            handler.addFilter(redactor)


def redact_uncaught_exceptions(redactor: SecretRedactor) -> None:
    """Print the traceback of an exception nobody caught, in any thread, redacted."""

    def print_redacted(
        kind: type[BaseException], error: BaseException, trace: TracebackType | None
    ) -> None:
        text = "".join(traceback.format_exception(kind, error, trace))
        print(redactor.redact(text), end="", file=sys.stderr, flush=True)

    def print_redacted_in_thread(arguments: threading.ExceptHookArgs) -> None:
        if arguments.exc_type is SystemExit or arguments.exc_value is None:
            return
        name = arguments.thread.name if arguments.thread is not None else "?"
        print(f"Exception in thread {name}:", file=sys.stderr)
        print_redacted(arguments.exc_type, arguments.exc_value, arguments.exc_traceback)

    sys.excepthook = print_redacted
    threading.excepthook = print_redacted_in_thread
