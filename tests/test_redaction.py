"""The secrets filter: no token or webhook secret in a log line, an exception or a stack."""

from __future__ import annotations

import io
import logging
import sys
import threading
from collections.abc import Iterator

import pytest

from bot.redaction import (
    SecretRedactor,
    redact_logs,
    redact_uncaught_exceptions,
    secrets_to_redact,
)

TOKEN = "123456789:AAFakeTokenForCardroomTests-0123456789"
SECRET = "the-webhook-secret_42"


@pytest.fixture
def printed() -> Iterator[tuple[logging.Logger, io.StringIO]]:
    """A logger whose records go to a handler with the redactor, and what it printed."""
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.setFormatter(logging.Formatter("%(levelname)s %(message)s"))
    handler.addFilter(SecretRedactor(secrets_to_redact(TOKEN, SECRET)))
    log = logging.getLogger("tests.redaction")
    log.addHandler(handler)
    log.setLevel(logging.DEBUG)
    log.propagate = False
    yield log, stream
    log.removeHandler(handler)


def test_secrets_in_the_message_or_its_arguments_are_replaced(
    printed: tuple[logging.Logger, io.StringIO],
) -> None:
    log, stream = printed
    log.debug("Set Bot API URL: %s", f"https://api.telegram.org/bot{TOKEN}")
    log.debug("Calling setWebhook with %s", {"secret_token": SECRET, "port": 8443})
    log.info(f"literal {TOKEN} and %d%% done", 50)
    text = stream.getvalue()
    assert TOKEN not in text and SECRET not in text
    assert "https://api.telegram.org/bot<token>" in text
    assert "'secret_token': '<webhook-secret>', 'port': 8443" in text
    assert "literal <token> and 50% done" in text


def test_the_secret_half_of_the_token_is_replaced_on_its_own(
    printed: tuple[logging.Logger, io.StringIO],
) -> None:
    log, stream = printed
    log.warning("GET /bot123456789%%3A%s/getMe", TOKEN.partition(":")[2])
    assert stream.getvalue() == "WARNING GET /bot123456789%3A<token>/getMe\n"


def test_secrets_in_an_exception_and_a_stack_are_replaced(
    printed: tuple[logging.Logger, io.StringIO],
) -> None:
    log, stream = printed
    try:
        raise ValueError(f"The token `{TOKEN}` was rejected, secret {SECRET}")
    except ValueError:
        log.exception("Start failed")
    log.info("here", stack_info=True)
    text = stream.getvalue()
    assert "Traceback" in text and "ValueError: The token `<token>` was rejected" in text
    assert "secret <webhook-secret>" in text and "Stack (most recent call last)" in text
    assert TOKEN not in text and SECRET not in text


def test_a_malformed_logging_call_is_still_printed_redacted(
    printed: tuple[logging.Logger, io.StringIO],
) -> None:
    log, stream = printed
    log.info("two %s %s", TOKEN)
    assert TOKEN not in stream.getvalue() and "<token>" in stream.getvalue()


def test_it_goes_on_the_root_handlers(monkeypatch: pytest.MonkeyPatch) -> None:
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    monkeypatch.setattr(logging.getLogger(), "handlers", [handler])
    redact_logs(SecretRedactor(secrets_to_redact(TOKEN)))
    logging.getLogger("httpcore.tests").warning("POST /bot%s/getUpdates", TOKEN)
    assert stream.getvalue() == "POST /bot<token>/getUpdates\n"


def test_an_uncaught_exception_prints_a_redacted_traceback(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(sys, "excepthook", sys.excepthook)
    monkeypatch.setattr(threading, "excepthook", threading.excepthook)
    redact_uncaught_exceptions(SecretRedactor(secrets_to_redact(TOKEN, SECRET)))
    try:
        raise RuntimeError(f"bot{TOKEN} with {SECRET}")
    except RuntimeError as error:
        sys.excepthook(type(error), error, error.__traceback__)
    err = capsys.readouterr().err
    assert err.startswith("Traceback") and "RuntimeError: bot<token> with <webhook-secret>" in err
    assert TOKEN not in err and SECRET not in err


def test_nothing_to_redact_leaves_records_alone() -> None:
    assert secrets_to_redact(None, None) == {}
    record = logging.LogRecord("x", logging.INFO, __file__, 1, "a %s", ("b",), None)
    assert SecretRedactor({}).filter(record) and record.args == ("b",)
