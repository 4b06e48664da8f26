"""What a message shows: HTML text and an inline keyboard, as plain comparable data."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True, slots=True)
class Button:
    """An inline button: callback ``data``, a ``url``, or a Mini App (``web_app``: its URL,
    opened inside Telegram; private chats only)."""

    text: str
    data: str | None = None
    url: str | None = None
    web_app: str | None = None


Keyboard = tuple[tuple[Button, ...], ...]


@dataclass(frozen=True, slots=True)
class Content:
    """A message's text (Telegram HTML) and keyboard. Equal contents need no edit."""

    text: str
    keyboard: Keyboard = ()
    #: The text with every "time left" read as its deadline (``None``: the same as ``text``):
    #: two contents whose ``still_text`` and keyboards are equal differ by the passing of
    #: time alone (not compared: it says nothing the text does not).
    timeless: str | None = field(default=None, compare=False)

    @property
    def still_text(self) -> str:
        return self.text if self.timeless is None else self.timeless


def rows(buttons: list[Button], width: int) -> Keyboard:
    """Lay ``buttons`` out ``width`` to a row."""
    return tuple(tuple(buttons[i : i + width]) for i in range(0, len(buttons), width))
