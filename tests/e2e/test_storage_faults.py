"""When the database refuses to write — a read-only file, a full disk — people hear it in
words, nothing changes, the log says it once, and the bot carries on by itself afterwards."""

from __future__ import annotations

import asyncio
import logging
import os
import subprocess
import uuid
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest

from tests.e2e.harness import Harness, sqlite_url
from tests.e2e.test_absent_players import two_player_game
from tests.e2e.test_commands import say
from tests.e2e.test_rank_game import press
from tests.fakes import FakeBotApi, FakeUser

CANNOT_MOVE = "⚠️ I cannot save right now: your move was not made — please try again in a minute."
CANNOT_SAVE = (
    "⚠️ I cannot save anything right now, so nothing was changed — please try again in a minute."
)


def moves(h: Harness, user: FakeUser) -> list[str]:
    return [label for label, data in h.panel_buttons(user) if data.startswith("A:")]


async def version(h: Harness, chat_id: int) -> int:
    assert h.app is not None
    shown = await h.app.bot_data["cardroom"].play.snapshot_in_topic(chat_id, 0)
    assert shown is not None
    return int(shown.version)


def outage_lines(caplog: pytest.LogCaptureFixture) -> tuple[list[str], list[str]]:
    began = [r.getMessage() for r in caplog.records if "refuses to write" in r.getMessage()]
    ended = [r.getMessage() for r in caplog.records if "database writes again" in r.getMessage()]
    return began, ended


async def the_outage(h: Harness, caplog: pytest.LogCaptureFixture) -> tuple[FakeUser, int]:
    """With the database refusing writes: a move, a /new and due deadlines. Returns who
    is to move and the game's version, which nothing changed."""
    group = h.api.chat(next(c for c in h.api.chats.values() if c.is_group))
    mover = next(u for u in h.api.users.values() if moves(h, u))
    before = await version(h, group.id)
    answer = await press(h, mover, h.panel(mover), moves(h, mover)[0])
    assert answer.text == CANNOT_MOVE
    other = h.api.add_group("Second club", admins=[mover])
    assert await say(h, mover, other, "/new rank") == CANNOT_SAVE
    # The deadlines fall due meanwhile: the poller backs off, quietly.
    h.clock.advance(61)
    await asyncio.sleep(1.0)
    assert await version(h, group.id) == before
    errors = [r for r in caplog.records if r.levelno >= logging.ERROR or r.exc_info]
    assert errors == []
    began, ended = outage_lines(caplog)
    assert len(began) == 1 and ended == [], "one line when it began, whatever was refused"
    return mover, before


async def recovered(h: Harness, caplog: pytest.LogCaptureFixture, before: int) -> None:
    """The database writes again: the due timeout is applied, and people play on."""
    group = next(c for c in h.api.chats.values() if c.is_group)
    for _ in range(100):
        if await version(h, group.id) > before:
            break
        await asyncio.sleep(0.2)
    assert await version(h, group.id) > before, "the poller resumed by itself"
    await h.settle()
    mover = next(u for u in h.api.users.values() if moves(h, u))
    answer = await press(h, mover, h.panel(mover), moves(h, mover)[0])
    assert answer.text is None
    began, ended = outage_lines(caplog)
    assert len(began) == 1 and len(ended) == 1, "and one line when it ended"


async def test_a_read_only_database_refuses_in_words_and_recovers(
    harness: Harness, caplog: pytest.LogCaptureFixture
) -> None:
    h = harness
    caplog.set_level(logging.INFO)
    await two_player_game(h)
    assert h.app is not None
    connection = await h.app.bot_data["cardroom"].play.db._sqlite()
    connection.execute("PRAGMA query_only = ON")  # the file turned read-only
    _, before = await the_outage(h, caplog)
    connection.execute("PRAGMA query_only = OFF")
    await recovered(h, caplog, before)


# -- a full disk: a small tmpfs, where this machine lets the tests mount one -----------------


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Path]:
    folder = tmp_path / "small"
    folder.mkdir()
    mounted = (
        os.geteuid() == 0
        and subprocess.run(
            ["mount", "-t", "tmpfs", "-o", "size=4m", "tmpfs", str(folder)], capture_output=True
        ).returncode
        == 0
    )
    if not mounted:
        pytest.skip("no tmpfs can be mounted here (needs root)")
    try:
        yield folder
    finally:
        subprocess.run(["umount", "-l", str(folder)], check=False)


@pytest.fixture
async def on_small_disk(small_disk: Path) -> AsyncIterator[Harness]:
    harness = Harness(FakeBotApi(flood_limits=False), sqlite_url(small_disk))
    await harness.start()
    yield harness
    await harness.stop()


def fill(folder: Path) -> Path:
    """Fill the disk up to its last byte."""
    filler = folder / f"filler-{uuid.uuid4().hex}"
    descriptor = os.open(filler, os.O_WRONLY | os.O_CREAT)
    try:
        for size in (65536, 1):
            while True:
                try:
                    os.write(descriptor, b"\0" * size)
                except OSError:
                    break
    finally:
        os.close(descriptor)
    return filler


async def test_a_full_disk_refuses_in_words_and_recovers_when_space_comes_back(
    on_small_disk: Harness, small_disk: Path, caplog: pytest.LogCaptureFixture
) -> None:
    h = on_small_disk
    caplog.set_level(logging.INFO)
    await two_player_game(h)
    filler = fill(small_disk)
    _, before = await the_outage(h, caplog)
    began, _ = outage_lines(caplog)
    assert "full" in began[0]
    filler.unlink()
    await recovered(h, caplog, before)
