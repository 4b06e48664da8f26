"""The registry of games: each game key mapped to its rules object."""

from __future__ import annotations

from typing import Any, Final

from bot.games.advantage import ADVANTAGE
from bot.games.davayka import DAVAYKA
from bot.games.engine import Rules
from bot.games.progression import PROGRESSION
from bot.games.rank import RANK
from bot.games.trumps import TRUMPS

_ALL: Final[tuple[Rules[Any, Any], ...]] = (ADVANTAGE, DAVAYKA, PROGRESSION, RANK, TRUMPS)
GAMES: Final[dict[str, Rules[Any, Any]]] = {rules.key: rules for rules in _ALL}


def get_rules(key: str) -> Rules[Any, Any]:
    """The rules for a game key; ``KeyError`` for an unknown key."""
    return GAMES[key]
