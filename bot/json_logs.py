"""Logs as JSON, one object per line, for a log shipper (``LOG_FORMAT=json``).

Each record is one line: ``{"time", "level", "logger", "message"}``, and ``exception`` (the
traceback) or ``stack`` when the record has one. The secrets are replaced before a record
reaches a formatter (:class:`bot.redaction.SecretRedactor` is a filter on the same handler),
and the traceback used is the one the redactor cleaned (``exc_text``), never formatted anew.
"""

from __future__ import annotations

import json
import logging
from datetime import UTC, datetime
from typing import Any


class JsonFormatter(logging.Formatter):
    """A record as one line of JSON: its time (ISO 8601, UTC, milliseconds), level, logger,
    message, and its exception or stack if any."""

    def format(self, record: logging.LogRecord) -> str:
        entry: dict[str, Any] = {
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
        }
        if record.exc_info and not record.exc_text:
            # As logging.Formatter does: cached, so that what a filter cleaned is what shows.
            record.exc_text = self.formatException(record.exc_info)
        if record.exc_text:
            entry["exception"] = record.exc_text
        if record.stack_info:
            entry["stack"] = self.formatStack(record.stack_info)
        # ensure_ascii=False: a Cyrillic message stays readable; json escapes line breaks.
        return json.dumps(entry, ensure_ascii=False, default=str)
