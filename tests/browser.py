"""Chromium for the page tests: Debian's (``bash .ci/install-browser``), driven by Playwright.

A test module that imports from here is skipped, with the reason, where either is missing.
"""

from __future__ import annotations

import asyncio
import json
import os
import time
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.harness import Harness
from tests.fakes import FakeUser
from tests.miniapp.pages import seat_url, watch_url

playwright_api = pytest.importorskip(
    "playwright.async_api",
    reason="Playwright for Python is not installed (pip install -e '.[test]'): no browser tests",
)
CHROMIUM = Path(os.environ.get("CARDROOM_CHROMIUM", "/usr/bin/chromium"))
if not CHROMIUM.exists():
    pytest.skip(
        f"no Chromium at {CHROMIUM} (bash .ci/install-browser installs Debian's): "
        "no browser tests",
        allow_module_level=True,
    )

expect = playwright_api.expect
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
#: A phone (an iPhone's 390 × 844 CSS pixels), touch and all.
PHONE: dict[str, Any] = {
    "viewport": {"width": 390, "height": 844},
    "device_scale_factor": 2,
    "is_mobile": True,
    "has_touch": True,
}
WIDTH, HEIGHT = PHONE["viewport"]["width"], PHONE["viewport"]["height"]


@asynccontextmanager
async def chromium() -> AsyncIterator[Any]:
    """Chromium, headless, until the block ends (each page test's ``browser`` fixture)."""
    async with playwright_api.async_playwright() as playwright:
        launched = await playwright.chromium.launch(
            executable_path=str(CHROMIUM), args=CHROMIUM_ARGS
        )
        try:
            yield launched
        finally:
            await launched.close()


def assert_none_overlaps(controls: list[dict[str, Any]]) -> None:
    """No two boxes (``left``, ``right``, ``top``, ``bottom``) share a pixel."""
    for i, one in enumerate(controls):
        for other in controls[i + 1 :]:
            apart = (
                one["right"] <= other["left"]
                or other["right"] <= one["left"]
                or one["bottom"] <= other["top"]
                or other["bottom"] <= one["top"]
            )
            assert apart, f"{one} overlaps {other}"


@pytest.fixture(name="browser")
async def browser_fixture() -> AsyncIterator[Any]:
    """Chromium for one test: a page test's module imports this to have ``browser``."""
    async with chromium() as launched:
        yield launched


@dataclass
class Player:
    """One person's page, in a browser context of its own: the script errors it made and the
    view of every ``state`` frame its sockets were sent, from the first."""

    name: str
    page: Any
    errors: list[str] = field(default_factory=list)
    views: list[dict[str, Any]] = field(default_factory=list)

    @property
    def view(self) -> dict[str, Any]:
        return self.views[-1] if self.views else {}

    async def until(self, test: Callable[[dict[str, Any]], bool], seconds: float = 8.0) -> None:
        """Until the newest view the page was sent passes ``test``."""
        deadline = time.monotonic() + seconds
        while not (self.views and test(self.view)):
            if time.monotonic() > deadline:
                raise AssertionError(f"{self.name}: not met; last view {self.view}")
            await asyncio.sleep(0.01)


async def open_page(
    browser: Any, url: str, name: str, options: dict[str, Any] | None = None
) -> Player:
    """``url`` opened on a phone (or as ``options`` say), listened to from before it loads."""
    context = await browser.new_context(**(options or PHONE))
    page = await context.new_page()
    player = Player(name, page)

    def received(payload: str | bytes) -> None:
        frame = json.loads(payload)
        if frame.get("t") == "state":
            player.views.append(frame["view"])

    page.on("websocket", lambda socket: socket.on("framereceived", received))
    page.on("pageerror", lambda error: player.errors.append(str(error)))
    page.on(
        "console",
        lambda message: player.errors.append(message.text) if message.type == "error" else None,
    )
    await page.goto(url)
    return player


async def seat_page(
    h: Harness, base: str, browser: Any, user: FakeUser, game_id: int, **signing: Any
) -> Player:
    """The player's page, opened from his private panel."""
    return await open_page(browser, seat_url(h, base, user, game_id, **signing), user.first_name)


async def open_table(
    h: Harness,
    base: str,
    browser: Any,
    game_id: int,
    players: Sequence[FakeUser],
    onlooker: FakeUser,
    languages: Sequence[str | None] = (),
) -> list[Player]:
    """Each player's page from his private panel, then the onlooker's from the group's direct
    link (no game in the address: the signed ``start_param``), each signed with his language
    of ``languages`` where one is given (players first)."""
    signed = [*languages, *[None] * (len(players) + 1 - len(languages))]
    pages = [
        await seat_page(h, base, browser, user, game_id, language=language)
        for user, language in zip(players, signed, strict=False)
    ]
    url = watch_url(h, base, onlooker, game_id, language=signed[len(players)])
    return [*pages, await open_page(browser, url, onlooker.first_name)]


def controls(
    selector: str, name: str, *, outermost: str | None = None, uncut: str | None = None
) -> str:
    """The script that lists every control ``selector`` finds that is shown (with
    ``outermost``, none inside another such), named by the script expression ``name``: the box
    of everything it draws (a card sticking out of its pile counts), and whether its own text
    is cut short (not asked of what ``uncut`` finds: a card whose tag stands out of it)."""
    inside = f"\n    .filter(e => !e.parentElement.closest('{outermost}'))" if outermost else ""
    measured = f"!e.matches('{uncut}') && " if uncut else ""
    return f"""() => [...document.querySelectorAll('{selector}')]
    .filter(e => e.offsetParent !== null && getComputedStyle(e).visibility !== 'hidden'){inside}
    .map(e => {{
        const boxes = [e, ...e.querySelectorAll('*')].map(c => c.getBoundingClientRect())
            .filter(r => r.width > 0 && r.height > 0);
        return {{name: {name},
                left: Math.min(...boxes.map(r => r.left)),
                top: Math.min(...boxes.map(r => r.top)),
                right: Math.max(...boxes.map(r => r.right)),
                bottom: Math.max(...boxes.map(r => r.bottom)),
                cut: {measured}e.scrollWidth > e.clientWidth + 1}};
    }})"""


async def controls_fit(page: Any, script: str, *, below: bool = True) -> list[str]:
    """The names of the controls ``script`` (see ``controls``) finds, once none is cut off at
    the side, its text cut short, or lying on another; nor, with ``below``, cut off at the
    screen's foot (a page that scrolls, a long hand, is measured without it)."""
    shown: list[dict[str, Any]] = await page.evaluate(script)
    for box in shown:
        assert box["left"] >= 0 and box["right"] <= WIDTH, f"cut off at the side: {box}"
        if below:
            assert box["top"] >= 0 and box["bottom"] <= HEIGHT, f"cut off below: {box}"
        assert not box["cut"], f"its text is cut short: {box}"
    assert_none_overlaps(shown)
    width = await page.evaluate("document.documentElement.scrollWidth")
    assert width <= WIDTH, "nothing sticks out sideways"
    return [str(box["name"]) for box in shown]
