"""Several processes: a standby that holds a player's page says so, and the leader paces his
panel as if the page were its own — until the page closes, or the word goes stale (its
process died)."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Any

from bot.telegram.miniapp.server import PAGING_EVERY, PAGING_STALE, MiniApp


@dataclass(eq=False)
class Socket:
    """What the Mini App reads of a signed-in page's socket."""

    user_id: int | None
    game_id: int | None
    seat: int | None
    name: str | None = None


class Clock:
    def __init__(self) -> None:
        self.now = 1_000.0

    def __call__(self) -> float:
        return self.now


async def no_snapshot(_game_id: int) -> Any:
    raise AssertionError("not asked")


def app(clock: Clock) -> MiniApp:
    return MiniApp("1:token", "https://cards.example.org", "", no_snapshot, clock)


async def test_the_leader_paces_a_page_a_standby_holds_until_it_closes() -> None:
    clock = Clock()
    standby, leader = app(clock), app(clock)
    said: list[dict[str, Any]] = []
    standby.announce = said.append
    left: list[tuple[int, int]] = []
    leader.left = lambda user, game: left.append((user, game))

    page = Socket(user_id=7, game_id=3, seat=1)
    standby._games[3] = {page}  # type: ignore[arg-type]
    standby.seated(page)  # type: ignore[arg-type]
    assert said[-1] == {
        "kind": "paging",
        "user": 7,
        "game": 3,
        "open": True,
        "process": standby.process,
    }
    await leader.announced(said[-1])
    assert leader.paging(7, 3) and not leader.paging(7, 4) and not leader.paging(8, 3)

    # Its own word, heard back, changes nothing.
    await standby.announced(said[-1])
    assert not standby._remote

    standby.closed(page)  # type: ignore[arg-type]
    assert said[-1]["open"] is False
    await leader.announced(said[-1])
    assert not leader.paging(7, 3)
    assert left == [(7, 3)], "his panel is brought up to date"


async def test_a_word_not_said_again_goes_stale_and_an_open_page_is_said_again() -> None:
    clock = Clock()
    standby, leader = app(clock), app(clock)
    said: list[dict[str, Any]] = []
    standby.announce = said.append
    page = Socket(user_id=7, game_id=3, seat=1)
    standby._games[3] = {page}  # type: ignore[arg-type]
    standby.seated(page)  # type: ignore[arg-type]
    await leader.announced(said[-1])

    clock.now += PAGING_STALE + 1  # the standby died: nothing more is heard
    assert not leader.paging(7, 3)

    # Alive, it says it again every PAGING_EVERY seconds.
    assert standby._telling is not None
    said.clear()
    standby._telling.cancel()
    standby._retell()
    assert [n["open"] for n in said] == [True]
    await leader.announced(said[-1])
    assert leader.paging(7, 3)
    assert (
        standby._telling is not None
        and standby._telling.when() > asyncio.get_running_loop().time() + PAGING_EVERY - 1
    )
    standby._telling.cancel()


async def test_an_onlookers_page_and_a_malformed_word_pace_nothing() -> None:
    clock = Clock()
    leader = app(clock)
    for note in (
        {"kind": "paging", "user": "7", "game": 3, "open": True, "process": "x"},
        {"kind": "paging", "user": 7, "game": None, "open": True, "process": "x"},
        {"kind": "paging", "user": 7, "game": 3, "open": True},
    ):
        await leader.announced(note)
    assert not leader._remote
    standby = app(clock)
    said: list[dict[str, Any]] = []
    standby.announce = said.append
    watching = Socket(user_id=9, game_id=3, seat=None)
    standby._games[3] = {watching}  # type: ignore[arg-type]
    standby.closed(watching)  # type: ignore[arg-type]
    assert said == [], "an onlooker has no panel to pace"


def test_the_leader_hears_of_pages_and_a_standby_of_states_and_answers() -> None:
    from types import SimpleNamespace

    import orjson

    from bot.serve import Process

    heard: list[tuple[str, str]] = []

    class Heard:
        def announced(self, note: dict[str, Any]) -> str:
            return str(note["kind"])

    for role in ("leader", "standby"):
        stub = SimpleNamespace(
            room=SimpleNamespace(miniapp=Heard()),
            role=role,
            _spawn=lambda kind, _name, role=role: heard.append((role, kind)),
        )
        for kind in ("paging", "state", "answer"):
            Process._heard_for_app(stub, orjson.dumps({"kind": kind}).decode())  # type: ignore[arg-type]
    assert heard == [("leader", "paging"), ("standby", "state"), ("standby", "answer")]
