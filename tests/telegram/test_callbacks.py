"""The callback-data codec: round trips, the 64-byte limit, and garbage refused."""

from __future__ import annotations

import pytest

from bot.telegram import callbacks
from bot.telegram.callbacks import (
    ActPress,
    BadCallback,
    LanguagePress,
    LobbyPress,
    NewGame,
    RematchPress,
    RulesPress,
    ScreenPress,
    parse,
)

PRESSES = [
    NewGame("rank"),
    LobbyPress(12, "join"),
    LobbyPress(12, "o.round_limit"),
    ActPress(2**31 - 1, 2**31 - 1, "jQ"),
    ScreenPress(5, 7, "joker"),
    RematchPress(9),
    RulesPress("trumps"),
    LanguagePress("uk"),
]


@pytest.mark.parametrize("press", PRESSES, ids=lambda p: p.encode())
def test_round_trip_within_64_bytes(press: callbacks.Press) -> None:
    data = press.encode()
    assert len(data.encode()) <= callbacks.MAX_BYTES
    assert parse(data) == press


@pytest.mark.parametrize(
    "data",
    [
        None,
        "",
        "X",
        "A:1:2",
        "A:1:2:",
        "A:01:2:d",
        "A:-1:2:d",
        "A:1:2:d;drop",
        "L:1:explode",
        "L:1:o.",
        "A:1:2:" + "d" * 40,
        "A:1234567890123:1:d",
        # Past what the storage holds (a 32-bit INTEGER): refused before any query.
        "A:2147483648:1:d",
        "A:1:2147483648:d",
        "L:2147483648:join",
        "R:9999999999",
        "U:2147483648:1:joker",
        "N:",
        "G:english",
        "R:1:2",
        "A:1:2:d\n",
        "Ａ:1:2:d",
        "A:1:2:" + "é",
        "x" * 65,
        42,
    ],
)
def test_garbage_is_refused(data: object) -> None:
    with pytest.raises(BadCallback):
        parse(data)
