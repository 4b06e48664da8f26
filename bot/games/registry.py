"""The registry of games: each game key mapped to its rules object."""

from __future__ import annotations

from typing import Any, Final

from bot.games.engine import Rules
from bot.games.rank import RANK

GAMES: Final[dict[str, Rules[Any, Any]]] = {rules.key: rules for rules in (RANK,)}


def get_rules(key: str) -> Rules[Any, Any]:
    """The rules for a game key; ``KeyError`` for an unknown key."""
    return GAMES[key]
