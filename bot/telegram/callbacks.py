"""The callback-data codec: compact, at most 64 bytes, parsed defensively.

Formats (``<game>`` and ``<version>`` are decimal numbers):

- ``N:<key>``                       open a lobby of this game (the bare ``/new`` picker)
- ``L:<game>:<op>``                 a lobby button: join, leave, bot, unbot, start, cancel,
                                    back (take one's seat back from the computer), or
                                    ``o.<option>`` to cycle an option
- ``A:<game>:<version>:<code>``     a game action, as the engine encodes it
- ``U:<game>:<version>:<screen>``   a panel screen that is not yet an action (e.g. the
                                    joker's rank picker)
- ``R:<game>``                      rematch of a finished game
- ``H:<key>``                       show the rules of a game
- ``G:<code>``                      set the chat's language (used by /language)
- ``-``                             a place on a keyboard with nothing to press: it keeps the
                                    other buttons where they are (Davay-ka!'s panel)
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Final

MAX_BYTES: Final = 64
#: The largest game id or version the storage holds (a 32-bit ``INTEGER`` column): a larger
#: number in callback data is refused here, before any query sees it.
MAX_NUMBER: Final = 2**31 - 1
#: A decimal number without leading zeros, at most as long as :data:`MAX_NUMBER`.
NUMBER: Final = r"(0|[1-9][0-9]{0,9})"
_TOKEN = r"([A-Za-z0-9_.\-]{1,32})"
_PATTERNS: Final = {
    "N": re.compile(rf"N:{_TOKEN}"),
    "L": re.compile(rf"L:{NUMBER}:(join|leave|bot|unbot|start|cancel|back|o\.[a-z0-9_]{{1,24}})"),
    "A": re.compile(rf"A:{NUMBER}:{NUMBER}:{_TOKEN}"),
    "U": re.compile(rf"U:{NUMBER}:{NUMBER}:{_TOKEN}"),
    "R": re.compile(rf"R:{NUMBER}"),
    "H": re.compile(rf"H:{_TOKEN}"),
    "G": re.compile(r"G:([a-z]{2})"),
    "-": re.compile(r"-"),
}

LOBBY_OPS: Final = ("join", "leave", "bot", "unbot", "start", "cancel", "back")


@dataclass(frozen=True, slots=True)
class NewGame:
    game_key: str

    def encode(self) -> str:
        return f"N:{self.game_key}"


@dataclass(frozen=True, slots=True)
class LobbyPress:
    game_id: int
    op: str

    @property
    def option(self) -> str | None:
        return self.op[2:] if self.op.startswith("o.") else None

    def encode(self) -> str:
        return f"L:{self.game_id}:{self.op}"


#: The version in a button whose press means the same whatever the game's version (every
#: press of a real-time game, or a code the rules list in ``any_version_codes``): it then
#: stays the same from one drawing to the next, and costs no edit.
ANY_VERSION = 0


@dataclass(frozen=True, slots=True)
class ActPress:
    game_id: int
    version: int
    code: str

    def encode(self) -> str:
        return f"A:{self.game_id}:{self.version}:{self.code}"


@dataclass(frozen=True, slots=True)
class ScreenPress:
    game_id: int
    version: int
    screen: str

    def encode(self) -> str:
        return f"U:{self.game_id}:{self.version}:{self.screen}"


@dataclass(frozen=True, slots=True)
class RematchPress:
    game_id: int

    def encode(self) -> str:
        return f"R:{self.game_id}"


@dataclass(frozen=True, slots=True)
class RulesPress:
    game_key: str

    def encode(self) -> str:
        return f"H:{self.game_key}"


@dataclass(frozen=True, slots=True)
class LanguagePress:
    language: str

    def encode(self) -> str:
        return f"G:{self.language}"


@dataclass(frozen=True, slots=True)
class IdlePress:
    """A place with nothing to press."""

    def encode(self) -> str:
        return "-"


Press = (
    NewGame
    | LobbyPress
    | ActPress
    | ScreenPress
    | RematchPress
    | RulesPress
    | LanguagePress
    | IdlePress
)


class BadCallback(ValueError):
    """Callback data that is not ours: forged, truncated or from an old bot version."""


def parse_number(text: str) -> int:
    """A game id or version from callback data, within what the storage holds."""
    value = int(text)
    if value > MAX_NUMBER:
        raise BadCallback("number out of range")
    return value


def parse(data: object) -> Press:
    """The press encoded in ``data``; :class:`BadCallback` for anything else."""
    if not isinstance(data, str) or not data or len(data.encode()) > MAX_BYTES:
        raise BadCallback("unusable callback data")
    pattern = _PATTERNS.get(data[0])
    match = pattern.fullmatch(data) if pattern else None
    if match is None:
        raise BadCallback("unknown callback data")
    groups = match.groups()
    match data[0]:
        case "N":
            return NewGame(groups[0])
        case "L":
            return LobbyPress(parse_number(groups[0]), groups[1])
        case "A":
            return ActPress(parse_number(groups[0]), parse_number(groups[1]), groups[2])
        case "U":
            return ScreenPress(parse_number(groups[0]), parse_number(groups[1]), groups[2])
        case "R":
            return RematchPress(parse_number(groups[0]))
        case "H":
            return RulesPress(groups[0])
        case "-":
            return IdlePress()
        case _:
            return LanguagePress(groups[0])
