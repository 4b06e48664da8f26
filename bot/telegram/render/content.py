"""What a message shows: HTML text and an inline keyboard, as plain comparable data."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Button:
    """An inline button: callback ``data`` or a ``url``."""

    text: str
    data: str | None = None
    url: str | None = None


Keyboard = tuple[tuple[Button, ...], ...]


@dataclass(frozen=True, slots=True)
class Content:
    """A message's text (Telegram HTML) and keyboard. Equal contents need no edit."""

    text: str
    keyboard: Keyboard = ()


def rows(buttons: list[Button], width: int) -> Keyboard:
    """Lay ``buttons`` out ``width`` to a row."""
    return tuple(tuple(buttons[i : i + width]) for i in range(0, len(buttons), width))
