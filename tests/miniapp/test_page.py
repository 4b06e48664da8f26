"""Davay-ka!'s Mini App page in a real headless browser (Debian's Chromium, via Playwright).

The page's own files (the shell, table.html, and Davay-ka!'s renderer, games/davayka.js) are
served by a small tornado server started here, with a fake bot on its WebSocket: the fake
answers the page's hello with views written by hand (the fields of ``views.page_view``) and
keeps every frame the page sends, so each test checks what a player would notice — the press
a tap sends, the words and colours drawn, the layout on a phone.
Without Playwright or Chromium these tests skip (``.ci/install-browser`` installs Chromium).
"""

from __future__ import annotations

import asyncio
import json
import re
import time
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest
import tornado.httpserver
import tornado.netutil
import tornado.web
import tornado.websocket

from tests.browser import PHONE, assert_none_overlaps, chromium, expect

ROOT = Path(__file__).resolve().parents[2]
STATIC = ROOT / "bot" / "telegram" / "miniapp" / "static"
ARTIFACTS = ROOT / "test-artifacts"
DESKTOP: dict[str, Any] = {"viewport": {"width": 1280, "height": 800}}

#: What Telegram signs (``Telegram.WebApp.initData``): a query string whose values are
#: themselves URL-encoded; in the page's address it is encoded once more.
INIT_DATA = (
    "query_id=AAHdF6IQAAAAAN0XohDhrOrc"
    "&user=%7B%22id%22%3A1001%2C%22first_name%22%3A%22Anna%22%2C%22language_code%22%3A%22en%22%7D"
    "&auth_date=1700000000&hash=c501b71e775f74ce10e377dea85a7ea24ecd640b223ea86dfe453e0eaed2e2b2"
)
GAME = 42
ROUND = 3
LABELS = {
    "ready": "Ready",
    "flip": "Давай-ка!",
    "waiting": "Waiting for the other player",
    "round": "Round",
    "stock": "Stock",
    "cards": "Cards",
    "you": "you",
    "countdown": "Starts in",
    "stall": "Nobody can move",
    "no_move": "No move for you",
    "won": "You won!",
    "lost": "You lost",
    "draw": "A draw",
    "connecting": "Connecting…",
    "offline": "Offline",
    "seconds": "{seconds} s",
    "over": "Game over",
}
TOO_LATE = "Too late"
#: Davay-ka!'s two calls, as the page draws them.
READY, FLIP = ".dk-ready[data-code='r']", ".dk-flip[data-code='f']"
STALE = "This table was opened too long ago: open it again from the chat."


@pytest.fixture
async def browser() -> AsyncIterator[Any]:
    async with chromium() as launched:
        yield launched


def view(**changes: Any) -> dict[str, Any]:
    """Anna's (seat 0) view in round 3, in play, as ``page_view`` writes it (its moves
    follow from ``plays``, ``can_ready`` and ``can_flip``: see :func:`state`).

    Centres: J♠ and 9♥. Her row: 10♥ (fits both), Q♣ (the J only), 8♦ (the 9 only), 3♠
    (neither). 52 cards in all: rows 10 + 10, stocks 12 + 15, centres 3 + 2.
    """
    base: dict[str, Any] = {
        "game": GAME,
        "key": "davayka",
        "number": 7,
        "version": 118,
        "status": "playing",
        "title": "Davay-ka! · game 7",
        "seat": 0,
        "names": ["Anna", "Boris"],
        "computer": [False, False],
        "acting": [0, 1],
        "pause": False,
        "log": [],
        "autopilot": False,
        "series": None,
        "result": None,
        "next": None,
        "now": time.time(),
        "phase": "play",
        "round": ROUND,
        "rows": [
            [
                {"top": "Th", "down": 3},
                {"top": "Qc", "down": 2},
                {"top": "8d", "down": 1},
                {"top": "3s", "down": 0},
            ],
            [
                {"top": "Ac", "down": 3},
                {"top": "7h", "down": 2},
                {"top": "2d", "down": 1},
                {"top": "5c", "down": 0},
            ],
        ],
        "stocks": [12, 15],
        "cards": [22, 25],
        "rounds_won": [1, 1],
        "pressed": [False, False],
        "centres": [
            {"top": "Js", "size": 3, "owner": 0},
            {"top": "9h", "size": 2, "owner": 1},
        ],
        "deadline": None,
        "deadline_kind": "idle",
        "last_move": {"seat": 1, "pile": 3, "card": "9h", "centre": 1, "auto": False},
        "plays": {"0": [0, 1], "1": [0], "2": [1]},
        "can_ready": False,
        "can_flip": False,
        "finished": False,
        "winner": None,
        "end_reason": None,
    }
    base.update(changes)
    return base


def ready_view(now: float) -> dict[str, Any]:
    """The round laid out, before its start: no centre piles yet, Ready to press."""
    return view(
        phase="ready",
        now=now,
        centres=[],
        plays={},
        last_move=None,
        deadline=now + 4.4,
        deadline_kind="countdown",
        can_ready=True,
    )


def stall_view(now: float) -> dict[str, Any]:
    """Nobody can move: «Давай-ка!» to press; the window closes in 3 s."""
    return view(
        phase="stall",
        now=now,
        centres=[
            {"top": "Js", "size": 3, "owner": 0},
            {"top": "6h", "size": 4, "owner": 1},
        ],
        plays={},
        deadline=now + 2.6,
        deadline_kind="stall",
        can_flip=True,
        pressed=[False, True],
    )


def moves(the_view: dict[str, Any]) -> list[dict[str, Any]]:
    """The reader's legal moves as ``page_view`` lists them: one per fitting (pile, centre)."""
    found: list[dict[str, Any]] = []
    for pile, onto in sorted(the_view.get("plays", {}).items()):
        for centre in onto:
            code = f"p{pile}{centre}{the_view['round']}"
            found.append({"code": code, "kind": "play", "row_pile": int(pile), "centre": centre})
    if the_view.get("can_ready"):
        found.append({"code": "r", "kind": "ready", "label": "Ready"})
    if the_view.get("can_flip"):
        found.append({"code": "f", "kind": "flip", "label": "Давай-ка!"})
    return found


def state(the_view: dict[str, Any]) -> dict[str, Any]:
    return {"t": "state", "view": {**the_view, "moves": moves(the_view)}, "labels": LABELS}


# -- the fake bot behind /app/socket ---------------------------------------------------------


@dataclass
class FakeBot:
    """Answers each hello with ``greeting`` (its frames, then a close when ``close`` says so)
    and keeps every frame the page sends."""

    greeting: Callable[[], list[dict[str, Any]]] = lambda: [state(view())]
    close_after_hello: bool = False
    frames: list[dict[str, Any]] = field(default_factory=list)
    sockets: list[tornado.websocket.WebSocketHandler] = field(default_factory=list)
    url: str = ""

    def sent(self, kind: str) -> list[dict[str, Any]]:
        return [frame for frame in self.frames if frame.get("t") == kind]

    async def wait_for(self, kind: str, count: int = 1) -> list[Any]:
        """The first ``count`` frames of ``kind`` the page sent, once it has sent them."""
        deadline = time.monotonic() + 5
        while len(self.sent(kind)) < count:
            if time.monotonic() > deadline:
                raise AssertionError(f"the page sent {self.frames}, not {count} {kind!r}")
            await asyncio.sleep(0.02)
        return self.sent(kind)[:count]

    async def push(self, frame: dict[str, Any]) -> None:
        """A frame to the page on its newest socket."""
        await self.sockets[-1].write_message(json.dumps(frame))


class SocketHandler(tornado.websocket.WebSocketHandler):
    def initialize(self, bot: FakeBot) -> None:
        self.bot = bot

    def open(self, *args: str, **kwargs: str) -> None:
        self.bot.sockets.append(self)

    async def on_message(self, message: str | bytes) -> None:
        frame = json.loads(message)
        self.bot.frames.append(frame)
        if frame.get("t") == "hello":
            for reply in self.bot.greeting():
                await self.write_message(json.dumps(reply))
            if self.bot.close_after_hello:
                self.close()


class PageHandler(tornado.web.RequestHandler):
    def get(self) -> None:
        html = (STATIC / "table.html").read_text(encoding="utf-8")
        self.set_header("Content-Type", "text/html; charset=utf-8")
        self.write(html.replace("{{telegram_script}}", "/app/static/web-app-stand-in.js"))


@pytest.fixture
async def bot() -> AsyncIterator[FakeBot]:
    fake = FakeBot()
    app = tornado.web.Application(
        [
            (r"/app/table", PageHandler),
            (r"/app/static/(.*)", tornado.web.StaticFileHandler, {"path": str(STATIC)}),
            (r"/app/socket", SocketHandler, {"bot": fake}),
        ]
    )
    sockets = tornado.netutil.bind_sockets(0, "127.0.0.1")
    server = tornado.httpserver.HTTPServer(app)
    server.add_sockets(sockets)
    port = sockets[0].getsockname()[1]
    fake.url = (
        f"http://127.0.0.1:{port}/app/table?game={GAME}"
        f"#tgWebAppData={quote(INIT_DATA, safe='')}&tgWebAppVersion=7.0&tgWebAppPlatform=web"
    )
    try:
        yield fake
    finally:
        for socket in fake.sockets:
            socket.close()
        server.stop()
        await server.close_all_connections()


@dataclass
class Table:
    """The page in a tab, and the script errors it has made."""

    page: Any
    errors: list[str]

    def pile(self, index: int) -> Any:
        return self.page.locator(f"#hand .dk-pile[data-pile='{index}']")

    def centre(self, index: int) -> Any:
        return self.page.locator(f".dk-centre-pile[data-centre='{index}']")

    async def haptics(self) -> list[dict[str, Any]]:
        found: list[dict[str, Any]] = await self.page.evaluate("window.__haptics")
        return found


async def open_table(browser: Any, bot: FakeBot, options: dict[str, Any] = DESKTOP) -> Table:
    page = await browser.new_page(**options)
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.on(
        "console", lambda message: errors.append(message.text) if message.type == "error" else None
    )
    await page.goto(bot.url)
    return Table(page, errors)


async def seen(table: Table) -> None:
    """Until the page has drawn the bot's first view."""
    await expect(table.page.locator("#hand .dk-pile")).to_have_count(4)


async def cards(locator: Any) -> list[str]:
    """The cards drawn, by code, left to right."""
    codes: list[str] = await locator.evaluate_all("cards => cards.map(c => c.dataset.card)")
    return codes


async def until(table: Table, condition: str) -> None:
    """Until a JavaScript condition holds in the page."""
    await table.page.wait_for_function(condition, timeout=5000)


async def screenshot(table: Table, name: str) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    await table.page.screenshot(path=str(ARTIFACTS / name))


# -- the tests ---------------------------------------------------------------------------------


async def test_hello_carries_telegrams_init_data_and_the_view_is_drawn(
    bot: FakeBot, browser: Any
) -> None:
    held = asyncio.Event()

    def greeting() -> list[dict[str, Any]]:
        held.set()
        return []  # no view yet: the page keeps saying it is connecting

    bot.greeting = greeting
    table = await open_table(browser, bot)
    [hello] = await bot.wait_for("hello")
    assert hello == {"t": "hello", "init_data": INIT_DATA, "game": GAME}
    await held.wait()
    await expect(table.page.locator("#notice")).to_have_text("…")
    await expect(table.page.locator("#hand")).to_be_hidden()

    await bot.push(state(view()))
    await seen(table)
    page = table.page
    await expect(page.locator("#notice")).to_be_hidden()
    await expect(page.locator(".dk-round")).to_have_text("Round 3")
    anna, boris = page.locator(".player[data-seat='0']"), page.locator(".player[data-seat='1']")
    await expect(anna.locator(".name")).to_have_text("Anna")
    await expect(anna.locator(".tag")).to_have_text("you")
    await expect(boris.locator(".name")).to_have_text("Boris")
    await expect(boris.locator(".tag")).to_have_count(0)
    await expect(page.locator(".dk-them .dk-name")).to_have_text("Boris")  # over his row
    await expect(anna.locator(".facts")).to_have_text("🏆 1 · Cards 22 · Stock 12")
    await expect(boris.locator(".facts")).to_have_text("🏆 1 · Cards 25 · Stock 15")
    await expect(page.locator("#hand .dk-pile")).to_have_text(
        ["10♥10♥×3", "Q♣Q♣×2", "8♦8♦×1", "3♠3♠"]
    )
    await expect(page.locator(".dk-them .dk-pile .dk-down")).to_have_text(["×3", "×2", "×1", ""])
    assert await cards(page.locator(".dk-them .dk-pile .card")) == ["Ac", "7h", "2d", "5c"]
    assert await cards(page.locator(".dk-centre-pile .card")) == ["Js", "9h"]
    await expect(page.locator(".dk-centre-pile .dk-size")).to_have_text(["3", "2"])
    # Every move is on the table: no fallback button below it.
    await expect(page.locator("#actions button")).to_have_count(0)
    assert table.errors == []


async def test_a_card_that_fits_one_centre_pile_is_played_there_at_one_tap(
    bot: FakeBot, browser: Any
) -> None:
    table = await open_table(browser, bot)
    await seen(table)
    # Quick taps, one after another, none waiting for the bot's answer.
    await table.pile(1).click()  # Q♣ fits the J♠ only
    await table.pile(2).click()  # 8♦ fits the 9♥ only
    await table.pile(3).click()  # 3♠ fits neither here: the bot decides on arrival
    acts = await bot.wait_for("act", 3)
    assert acts == [
        {"t": "act", "code": f"p10{ROUND}", "seq": 1},
        {"t": "act", "code": f"p21{ROUND}", "seq": 2},
        {"t": "act", "code": f"p3x{ROUND}", "seq": 3},
    ]
    assert table.errors == []


async def test_a_card_that_fits_both_centre_piles_asks_which(bot: FakeBot, browser: Any) -> None:
    table = await open_table(browser, bot)
    await seen(table)
    await table.pile(0).click()  # 10♥: on the J♠ or the 9♥
    await expect(table.centre(0)).to_have_class(re.compile(r"\btarget\b"))
    await expect(table.centre(1)).to_have_class(re.compile(r"\btarget\b"))
    await table.page.wait_for_timeout(200)
    assert bot.sent("act") == [], "nothing is sent before the player picks a centre pile"

    await table.centre(1).click()
    [act] = await bot.wait_for("act")
    assert act == {"t": "act", "code": f"p01{ROUND}", "seq": 1}
    await expect(table.page.locator(".dk-centre-pile.target")).to_have_count(0)

    # Tapped twice, the same pile goes wherever it fits.
    await table.pile(0).click()
    await table.pile(0).click()
    acts = await bot.wait_for("act", 2)
    assert acts[1] == {"t": "act", "code": f"p0x{ROUND}", "seq": 2}
    assert table.errors == []


async def test_ready_and_davayka_are_pressed_and_their_seconds_counted_by_the_bots_clock(
    bot: FakeBot, browser: Any
) -> None:
    # The bot's clock is an hour ahead of the browser's: the page counts by the bot's.
    bot.greeting = lambda: [state(ready_view(time.time() + 3600))]
    table = await open_table(browser, bot)
    page = table.page
    ready = page.locator(READY)
    await expect(ready).to_have_text("Ready")
    # 4.4 s left when sent (whole seconds, rounded up); 3604 had it counted by the browser's.
    await expect(page.locator("#status")).to_have_text(re.compile(r"^Starts in[345] s$"))
    await expect(page.locator(FLIP)).to_be_hidden()
    await ready.click()
    [act] = await bot.wait_for("act")
    assert act["code"] == "r"

    await bot.push(state(stall_view(time.time() + 3600)))
    flip = page.locator(FLIP)
    await expect(flip).to_have_text("Давай-ка!")
    await expect(ready).to_be_hidden()
    await expect(page.locator("#status")).to_have_text(re.compile(r"^Nobody can move[123] s$"))
    await expect(page.locator(".player[data-seat='1'] .facts")).to_have_text(re.compile("^✓ · "))
    await expect(page.locator(".player[data-seat='0'] .facts")).not_to_have_text(re.compile("✓"))
    await flip.click()
    acts = await bot.wait_for("act", 2)
    assert acts[1] == {"t": "act", "code": "f", "seq": 2}
    seconds = page.locator("#status .seconds")
    await expect(seconds).not_to_have_text(await seconds.inner_text(), timeout=3000)  # ticks
    assert table.errors == []


async def test_a_new_view_refills_the_same_piles_and_buttons_under_the_finger(
    bot: FakeBot, browser: Any
) -> None:
    """A press that began on a pile or on Ready lands on it though a view came meanwhile: the
    elements stay, only what they show changes."""
    bot.greeting = lambda: [state(ready_view(time.time()))]
    table = await open_table(browser, bot)
    page = table.page
    await expect(page.locator(READY)).to_be_visible()
    keep = """() => { window.__kept = [document.querySelector("#hand .dk-pile[data-pile='1']"),
        document.querySelector(".dk-centre-pile[data-centre='0']"),
        document.querySelector(".dk-ready")]; }"""
    await page.evaluate(keep)
    await bot.push(state(ready_view(time.time()) | {"pressed": [False, True], "version": 119}))
    await expect(page.locator(".player[data-seat='1'] .facts")).to_have_text(re.compile("^✓"))
    same = """() => window.__kept.every(e => e.isConnected) && window.__kept[0] ===
        document.querySelector("#hand .dk-pile[data-pile='1']") && window.__kept[2] ===
        document.querySelector(".dk-ready")"""
    assert await page.evaluate(same)
    await bot.push(state(view(version=120)))
    await expect(page.locator(READY)).to_have_count(0)
    assert await page.evaluate(
        "() => window.__kept[0].isConnected && window.__kept[1].isConnected"
    )
    assert await page.evaluate(
        "() => window.__kept[0] === document.querySelector(\"#hand .dk-pile[data-pile='1']\")"
    )
    await expect(page.locator("#hand .dk-pile[data-pile='1']")).to_have_attribute("data-top", "Qc")
    assert table.errors == []


async def test_a_refused_press_says_why_and_buzzes(bot: FakeBot, browser: Any) -> None:
    table = await open_table(browser, bot)
    await seen(table)
    await table.pile(1).click()
    [act] = await bot.wait_for("act")
    await bot.push({"t": "answer", "seq": act["seq"], "ok": False, "text": TOO_LATE})
    toast = table.page.locator("#toast")
    await expect(toast).to_have_text(TOO_LATE)
    await expect(toast).to_be_visible()
    assert {"kind": "notification", "style": "error"} in await table.haptics()
    # In the status line's place: it covers neither the other player's row nor the counts.
    await expect(table.page.locator("#status")).to_be_hidden()
    boxes = await table.page.evaluate(BOXES, ["#toast", ".dk-them", "#players", "#hand"])
    assert_none_overlaps(boxes)
    await expect(toast).to_be_hidden(timeout=3000)  # a short notice, not a wall
    await until(table, "!document.querySelector('#status').hidden")  # the line is back

    await table.pile(2).click()
    await bot.wait_for("act", 2)
    await bot.push({"t": "answer", "seq": 2, "ok": True})
    await until(table, "window.__haptics.some(h => h.kind === 'impact' && h.style === 'light')")
    assert table.errors == []


async def test_hearts_and_diamonds_are_red_and_the_rest_black(bot: FakeBot, browser: Any) -> None:
    table = await open_table(browser, bot)
    await seen(table)
    colour = "card => getComputedStyle(card).color"
    hearts = await table.pile(0).locator(".card").evaluate(colour)  # 10♥
    diamonds = await table.pile(2).locator(".card").evaluate(colour)  # 8♦
    clubs = await table.pile(1).locator(".card").evaluate(colour)  # Q♣
    spades = await table.centre(0).locator(".card").evaluate(colour)  # J♠

    def rgb(css: str) -> tuple[int, ...]:
        return tuple(int(part) for part in css[css.index("(") + 1 : -1].split(",")[:3])

    for red in (hearts, diamonds):
        r, g, b = rgb(red)
        assert r >= 150 and g <= 80 and b <= 80, red
    for black in (clubs, spades):
        assert max(rgb(black)) <= 60, black
    assert table.errors == []


#: The boxes of the elements the selectors name (first of each).
BOXES = """(selectors) => selectors.map(s => {
    const r = document.querySelector(s).getBoundingClientRect();
    return {name: s, left: r.left, top: r.top, right: r.right, bottom: r.bottom};
})"""


#: Every control the player can press, with the box of all it draws (a card sticking out of
#: its button counts).
CONTROLS = """() => [...document.querySelectorAll('button')]
    .filter(b => b.offsetParent !== null && getComputedStyle(b).visibility !== 'hidden')
    .map(b => {
        const boxes = [b, ...b.querySelectorAll('*')].map(e => e.getBoundingClientRect())
            .filter(r => r.width > 0 && r.height > 0);
        return {name: b.dataset.code ? `code ${b.dataset.code}`
                    : b.dataset.pile ? `pile ${b.dataset.pile}` : `centre ${b.dataset.centre}`,
                left: Math.min(...boxes.map(r => r.left)),
                top: Math.min(...boxes.map(r => r.top)),
                right: Math.max(...boxes.map(r => r.right)),
                bottom: Math.max(...boxes.map(r => r.bottom))};
    })"""


async def controls_fit(table: Table, width: int, height: int) -> list[dict[str, Any]]:
    controls: list[dict[str, Any]] = await table.page.evaluate(CONTROLS)
    for box in controls:
        assert box["left"] >= 0 and box["right"] <= width, f"cut off at the side: {box}"
        assert box["top"] >= 0 and box["bottom"] <= height, f"cut off below: {box}"
        assert box["right"] - box["left"] >= 44 and box["bottom"] - box["top"] >= 44, box
    assert_none_overlaps(controls)
    return controls


async def test_on_a_phone_no_control_is_cut_off_or_overlaps_another(
    bot: FakeBot, browser: Any
) -> None:
    bot.greeting = lambda: [state(ready_view(time.time()))]
    table = await open_table(browser, bot, PHONE)
    page = table.page
    await expect(page.locator(READY)).to_be_visible()
    names = {box["name"] for box in await controls_fit(table, 390, 844)}
    assert "code r" in names and len(names) == 7, names  # Ready, 4 piles, 2 centre piles

    await bot.push(state(view()))
    await expect(page.locator(READY)).to_be_hidden()
    await table.pile(0).tap()  # aiming: both centre piles lit
    await expect(page.locator(".dk-centre-pile.target")).to_have_count(2)
    assert len(await controls_fit(table, 390, 844)) == 6
    await screenshot(table, "miniapp-390-play.png")

    await bot.push(state(stall_view(time.time())))
    await expect(page.locator(FLIP)).to_be_visible()
    names = {box["name"] for box in await controls_fit(table, 390, 844)}
    assert "code f" in names, names
    await screenshot(table, "miniapp-390-stall.png")

    scrolls = await page.evaluate("document.documentElement.scrollWidth")
    assert scrolls <= 390, "nothing sticks out sideways"
    assert table.errors == []


async def test_a_stale_sign_in_is_shown_and_not_retried(bot: FakeBot, browser: Any) -> None:
    bot.greeting = lambda: [{"t": "error", "code": "stale", "text": STALE}]
    bot.close_after_hello = True
    table = await open_table(browser, bot)
    await expect(table.page.locator("#notice")).to_have_text(STALE)
    await expect(table.page.locator("#notice")).to_be_visible()
    await table.page.wait_for_timeout(2500)  # a retry would have come in 0.4–0.6 s
    assert len(bot.sent("hello")) == 1
    assert len(bot.sockets) == 1
    await expect(table.page.locator("#notice")).to_have_text(STALE)


async def test_a_dropped_socket_is_shown_offline_and_opened_again(
    bot: FakeBot, browser: Any
) -> None:
    table = await open_table(browser, bot)
    await seen(table)
    bot.greeting = lambda: []  # the next hello gets no view at once: offline shows meanwhile
    bot.sockets[-1].close()
    await expect(table.page.locator("#link")).to_have_text("Offline")
    hellos = await bot.wait_for("hello", 2)
    assert hellos[1] == hellos[0], "the same hello on the new socket"
    await bot.push(state(view(round=4)))
    await expect(table.page.locator("#link")).to_be_hidden()
    await expect(table.page.locator(".dk-round")).to_have_text("Round 4")
    await table.pile(1).click()
    [act] = await bot.wait_for("act")
    assert act["code"] == "p104"
    assert table.errors == []
