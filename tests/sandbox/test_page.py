"""The chat page in a real headless browser (Debian's Chromium, driven by Playwright).

A person opens the page of ``python -m bot --sandbox``, plays against a computer from the
group and his private chat, and another user joins through a deep link; on a phone only the
chats scroll, and a photo the bot sends is shown; a ``web_app`` button opens its Mini App,
signed for its user, beside the chat. Screenshots go to ``test-artifacts/``.
Without Playwright or Chromium these tests skip (``.ci/install-browser`` installs Chromium;
``pip install -e ".[test]"`` installs Playwright).
"""

from __future__ import annotations

import asyncio
import re
import struct
import zlib
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest
from tornado.httpserver import HTTPServer
from tornado.netutil import bind_sockets
from tornado.web import Application, RequestHandler

from bot.sandbox.server import FakeBotApiServer
from bot.sandbox.web import page_routes
from bot.sandbox.world import SANDBOX_TOKEN, SandboxWorld
from bot.telegram.handlers import available_games
from tests.browser import PHONE, assert_none_overlaps, chromium, expect
from tests.sandbox.conftest import AS_THE_PAGE, ROOT, SandboxProcess

ARTIFACTS = ROOT / "test-artifacts"
DESKTOP = {"width": 1280, "height": 800}


@pytest.fixture
async def browser() -> AsyncIterator[Any]:
    async with chromium() as launched:
        yield launched


async def open_page(browser: Any, url: str, **options: Any) -> tuple[Any, list[str]]:
    """A new tab on the page; the list collects the page's script errors."""
    page = await browser.new_page(**(options or {"viewport": DESKTOP}))
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.on(
        "console", lambda message: errors.append(message.text) if message.type == "error" else None
    )
    await page.goto(url)
    await expect(page.locator("#people .chip").first).to_be_visible()
    return page, errors


async def write(pane: Any, text: str) -> None:
    box = pane.locator("[data-role=input]")
    await box.fill(text)
    await box.press("Enter")


async def be(page: Any, name: str) -> None:
    chip = page.locator("#people .chip", has_text=name)
    await chip.click()
    await expect(chip).to_have_attribute("aria-checked", "true")


async def screenshot(page: Any, name: str) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    await page.screenshot(path=str(ARTIFACTS / name))


async def test_a_game_against_the_computer_from_the_group_and_the_private_chat(
    sandbox: SandboxProcess, browser: Any
) -> None:
    # Your Trumps when its renderer is in this checkout (``/new`` offers only those), else Rank.
    game = "trumps" if "trumps" in available_games() else "rank"
    page, errors = await open_page(browser, sandbox.url)
    group, dm = page.locator("#pane-group"), page.locator("#pane-dm")
    await expect(page.locator('#people .chip[aria-checked="true"]')).to_contain_text("Anna")

    await write(group, f"/new {game}")
    add_computer = group.get_by_role("button", name="Add computer")
    await expect(add_computer).to_be_visible(timeout=20_000)
    lobby_id = await group.locator(
        ".msg", has=page.get_by_role("button", name="Add computer")
    ).get_attribute("data-message-id")
    table = group.locator(f'.msg[data-message-id="{lobby_id}"] .text')
    await expect(table.locator("b").first).to_be_visible()  # Telegram HTML, drawn as such
    await expect(dm.locator(".msg.in").first).to_be_visible(timeout=10_000)  # the greeting

    await add_computer.click()
    await expect(table).to_contain_text("Computer", timeout=15_000)
    await group.get_by_role("button", name="Start").click()
    await expect(page.locator(".toast").first).to_be_visible(timeout=10_000)
    # The lobby message becomes the table (group edits come at most every few seconds).
    await expect(group.get_by_role("button", name="Start")).to_have_count(0, timeout=20_000)

    # Anna's hand and moves arrive in her private chat; she plays from there.
    panel = dm.locator(".msg").filter(has=page.locator(".key.callback")).last
    await expect(panel.locator(".key.callback").first).to_be_visible(timeout=30_000)
    panel_id = await panel.get_attribute("data-message-id")
    keys = dm.locator(f'.msg[data-message-id="{panel_id}"] .key')
    before_keys = await keys.all_inner_texts()
    before_table = await table.inner_text()
    async with page.expect_response("**/sandbox/api/press") as pressed:
        await keys.first.click()
    answer = await (await pressed.value).json()
    assert answer["answered"] and not answer["text"], answer  # accepted: nothing to say
    await expect(keys).not_to_have_text(before_keys, timeout=20_000)
    await expect(table).not_to_have_text(before_table, timeout=20_000)
    assert "Your hand" not in await group.inner_text(), "a hand is never shown in the group"
    await screenshot(page, "sandbox-1280.png")

    # The same world at a phone's width: one chat at a time, switched with tabs.
    phone, phone_errors = await open_page(browser, sandbox.url, **PHONE)
    await expect(phone.locator("#pane-group")).to_be_visible()
    await expect(phone.locator("#pane-dm")).to_be_hidden()
    await screenshot(phone, "sandbox-390-group.png")
    await phone.locator("#tab-dm").click()
    await expect(phone.locator("#pane-dm")).to_be_visible()
    await expect(phone.locator("#pane-group")).to_be_hidden()
    await expect(phone.locator("#pane-dm .key.callback").first).to_be_visible(timeout=20_000)
    await screenshot(phone, "sandbox-390-dm.png")
    assert errors == [] and phone_errors == []


async def test_a_new_user_joins_through_the_deep_link_and_text_stays_text(
    sandbox: SandboxProcess, browser: Any
) -> None:
    page, errors = await open_page(browser, sandbox.url)
    group, dm = page.locator("#pane-group"), page.locator("#pane-dm")

    await page.locator("#add-user").click()
    await page.locator("#user-form [name=name]").fill("Carla")
    await page.locator("#user-form [name=language]").fill("uk")
    await page.locator("#user-form button[type=submit]").click()
    carla = page.locator('#people .chip[aria-checked="true"]')
    await expect(carla).to_contain_text("Carla")
    await expect(carla).to_contain_text("uk")
    # She has never opened the bot: her private chat offers Start, like Telegram.
    await expect(dm.locator("[data-role=start-button]")).to_be_visible()

    await be(page, "Anna")
    await write(group, "/new rank")
    join = group.get_by_role("button", name="Join")
    await expect(join).to_be_visible(timeout=20_000)
    lobby_id = await group.locator(
        ".msg", has=page.get_by_role("button", name="Join")
    ).get_attribute("data-message-id")
    lobby = group.locator(f'.msg[data-message-id="{lobby_id}"] .text')

    # Join answers with t.me/<bot>?start=<token>: the page opens Carla's private chat and
    # sends /start <token>, which finishes the join.
    await be(page, "Carla")
    await join.click()
    await expect(dm.locator(".msg.out").first).to_contain_text("/start ", timeout=15_000)
    await expect(dm.locator(".pane-sub")).to_contain_text("Carla")
    await expect(lobby).to_contain_text("Carla", timeout=15_000)
    # The bot answers her in her language (Ukrainian where its catalog has it).
    await expect(dm.locator(".msg.in")).to_have_count(1, timeout=15_000)

    # What users write is shown as they wrote it, never run as markup.
    hostile = '<img src=x onerror="window.pwned=1"><b>not bold</b>'
    await write(group, hostile)
    mine = group.locator(".msg.out .text").last
    await expect(mine).to_contain_text(hostile)
    assert await group.locator(".message-list img").count() == 0
    assert await mine.locator("b").count() == 0
    assert await page.evaluate("window.pwned === undefined")
    await screenshot(page, "sandbox-deep-link-1280.png")
    assert errors == []


# -- a phone's screen ------------------------------------------------------------------------

#: Where the pane's newest message is, against its chat's visible box (1: the chat shows it).
NEWEST_IN_SIGHT = """pane => {
    const box = pane.querySelector('.messages').getBoundingClientRect();
    const newest = pane.querySelector('.message-list').lastElementChild.getBoundingClientRect();
    return newest.bottom <= box.bottom + 1 && newest.bottom > box.top;
}"""
#: Where the page as a whole is: it must never move.
PAGE = """() => ({
    scrolled: document.scrollingElement.scrollTop + window.scrollY + visualViewport.pageTop,
    top: document.querySelector('.topbar').getBoundingClientRect().top,
    composer: document.querySelector('.pane.active [data-role=composer]')
        .getBoundingClientRect().bottom,
    height: window.innerHeight,
})"""


async def swipe(page: Any, x: float, start: float, end: float) -> None:
    """A finger on the screen from (x, start) to (x, end): a touch scroll, as on a phone."""
    cdp = await page.context.new_cdp_session(page)
    touch = "Input.dispatchTouchEvent"
    await cdp.send(touch, {"type": "touchStart", "touchPoints": [{"x": x, "y": start}]})
    for step in range(1, 13):
        y = start + (end - start) * step / 12
        await cdp.send(touch, {"type": "touchMove", "touchPoints": [{"x": x, "y": y}]})
        await page.wait_for_timeout(16)
    await cdp.send(touch, {"type": "touchEnd", "touchPoints": []})
    await page.wait_for_timeout(500)  # the fling comes to rest
    await cdp.detach()


async def world_of(sandbox: SandboxProcess) -> dict[str, Any]:
    async with httpx.AsyncClient(base_url=sandbox.url) as client:
        state: dict[str, Any] = (await client.get("/sandbox/api/state")).json()
    return state


async def scrolled_to(box: Any) -> float:
    """Where a pane is scrolled once a swipe's momentum has died down (a loaded machine
    draws the last frames late)."""
    where = await box.evaluate("box => box.scrollTop")
    for _ in range(50):
        await asyncio.sleep(0.1)
        now = await box.evaluate("box => box.scrollTop")
        if now == where:
            return float(now)
        where = now
    return float(where)


async def test_on_a_phone_only_the_chat_scrolls_and_a_tab_opens_where_it_was_left(
    sandbox: SandboxProcess, browser: Any
) -> None:
    world = await world_of(sandbox)
    anna, boris = (user["id"] for user in world["users"])
    group_id = world["group_id"]
    phone, errors = await open_page(browser, sandbox.url, **PHONE)
    group, dm = phone.locator("#pane-group"), phone.locator("#pane-dm")
    # Enough to fill both chats several screens deep: Boris talks in the group, Anna writes
    # notes to herself in her private chat (on the group's tab, so that one is hidden).
    async with httpx.AsyncClient(base_url=sandbox.url) as client:
        for n in range(25):
            words = "words " * 12
            for user, chat, text in ((boris, group_id, "group"), (anna, anna, "note")):
                said = {"user_id": user, "chat_id": chat, "text": f"{text} {n} {words}"}
                sent = await client.post("/sandbox/api/send", json=said, headers=AS_THE_PAGE)
                assert sent.status_code == 200
    await expect(group.locator(".msg", has_text="group 24")).to_have_count(1)
    await expect(dm.locator(".msg", has_text="note 24")).to_have_count(1)
    assert await group.evaluate(NEWEST_IN_SIGHT), "the group opens at its newest message"

    # A finger drags the chat down: the chat scrolls back, the page stays where it is.
    chat = group.locator(".messages")
    newest = await chat.evaluate("box => box.scrollTop")
    await swipe(phone, 200, 350, 700)
    read_at = await chat.evaluate("box => box.scrollTop")
    assert read_at < newest - 200, "the chat scrolled"
    for x, start, end in ((200, 120, 600), (200, 820, 300), (200, 300, 800)):
        await swipe(phone, x, start, end)  # on the tabs, on the composer, past the chat's top
    page = await phone.evaluate(PAGE)
    assert page["scrolled"] == 0 and page["top"] == 0, page
    assert page["composer"] == page["height"], "the composer stays at the bottom"
    read_at = await scrolled_to(chat)

    # The private chat's tab opens at its newest message, which came while it was hidden...
    await phone.locator("#tab-dm").click()
    await expect(dm).to_be_visible()
    assert await dm.evaluate(NEWEST_IN_SIGHT), "the private chat opens at its newest message"
    # ... and back in the group Anna is where she was reading.
    await phone.locator("#tab-group").click()
    await expect(group).to_be_visible()
    assert abs(await scrolled_to(chat) - read_at) <= 2
    assert (await phone.evaluate(PAGE))["scrolled"] == 0
    await screenshot(phone, "sandbox-390-scrolled.png")
    assert errors == []


def png(width: int, height: int) -> bytes:
    """A plain PNG picture (a grey rectangle), like the charts the bot draws."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    header = struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0)  # 8-bit greyscale
    rows = b"".join(b"\x00" + bytes([160]) * width for _ in range(height))
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(rows))
        + chunk(b"IEND", b"")
    )


async def test_a_photo_the_bot_sends_is_shown_as_its_picture(
    sandbox: SandboxProcess, browser: Any
) -> None:
    world = await world_of(sandbox)
    page, errors = await open_page(browser, sandbox.url)
    group = page.locator("#pane-group")
    # What the bot does for /stats once there is a chart: sendPhoto, the text as its caption.
    async with httpx.AsyncClient(base_url=sandbox.url) as client:
        sent = await client.post(
            f"/bot{SANDBOX_TOKEN}/sendPhoto",
            data={"chat_id": str(world["group_id"]), "caption": "📈 Anna · Rank 1012"},
            files={"photo": ("rating.png", png(320, 160), "image/png")},
        )
    assert sent.json()["ok"], sent.text
    picture = group.locator(".msg img.photo")
    await expect(picture).to_be_visible(timeout=10_000)
    await expect(picture).to_have_js_property("complete", True)
    assert await picture.evaluate("image => [image.naturalWidth, image.naturalHeight]") == [
        320,
        160,
    ]
    box = await picture.bounding_box()
    assert box is not None and box["width"] > 100, "drawn at a size one can read"
    message = group.locator(".msg", has=page.locator("img.photo"))
    await expect(message).to_contain_text("📈 Anna · Rank 1012")
    assert "🖼 photo" not in await group.inner_text()
    await screenshot(page, "sandbox-photo-1280.png")
    assert errors == []


# -- a Mini App beside the chat ---------------------------------------------------------------

#: A Mini App on another loopback port, as the bot's own web server serves Davay-ka!'s: it
#: says whom Telegram's launch parameters were signed for, and asks to be closed as Telegram's
#: script does in the web client.
MINI_APP = """<!doctype html>
<html><head><meta charset="utf-8"><title>Table</title></head>
<body>
  <p id="who">nobody</p>
  <button id="close" type="button">Leave the table</button>
  <script>
    const launch = new URLSearchParams(location.hash.slice(1));
    const initData = new URLSearchParams(launch.get("tgWebAppData") || "");
    const user = JSON.parse(initData.get("user") || "{}");
    document.getElementById("who").textContent =
      `Signed for ${user.first_name} #${user.id} on ${launch.get("tgWebAppPlatform")}`;
    document.getElementById("close").addEventListener("click", () => {
      window.parent.postMessage(JSON.stringify({ eventType: "web_app_close" }), "*");
    });
  </script>
</body></html>"""


class _MiniAppPage(RequestHandler):
    def get(self) -> None:
        self.set_header("Content-Type", "text/html; charset=utf-8")
        self.finish(MINI_APP)


@pytest.fixture
async def world_with_an_app() -> AsyncIterator[tuple[str, str, SandboxWorld]]:
    """The sandbox's page over a world without a bot (the test sends as the bot), and a Mini
    App on another port: (the page's address, the app's, the world)."""
    world = SandboxWorld.create()
    world.api.flood_limits_enabled = False
    server = FakeBotApiServer(world.api, routes=page_routes(world))
    await server.start()
    sockets = bind_sockets(0, "127.0.0.1")
    app_server = HTTPServer(Application([(r"/app/table", _MiniAppPage)]))
    app_server.add_sockets(sockets)
    app_url = f"http://127.0.0.1:{sockets[0].getsockname()[1]}/app/table"
    try:
        yield f"{server.url}/", app_url, world
    finally:
        app_server.stop()
        await server.stop()


async def send_app_button(page_url: str, world: SandboxWorld, name: str, app_url: str) -> None:
    """The bot sends ``name`` a panel with a ``web_app`` button, as Davay-ka!'s panels have."""
    user = next(u for u in world.api.users.values() if u.first_name == name)
    markup = {
        "inline_keyboard": [
            [{"text": "Ready", "callback_data": "r"}],
            [{"text": "Play in the app", "web_app": {"url": f"{app_url}?game=7"}}],
        ]
    }
    async with httpx.AsyncClient(base_url=page_url) as client:
        sent = await client.post(
            f"/bot{world.api.token}/sendMessage",
            json={"chat_id": user.id, "text": f"{name}'s panel", "reply_markup": markup},
        )
    assert sent.json()["ok"], sent.text


async def test_a_web_app_button_opens_the_signed_app_beside_the_chat(
    world_with_an_app: tuple[str, str, SandboxWorld], browser: Any
) -> None:
    page_url, app_url, world = world_with_an_app
    anna, boris = (u.id for u in sorted(world.api.users.values(), key=lambda u: u.id))
    for name in ("Anna", "Boris"):
        await send_app_button(page_url, world, name, app_url)
    page, errors = await open_page(browser, page_url)
    dm = page.locator("#pane-dm")
    key = dm.get_by_role("button", name="Play in the app")
    await expect(key).to_be_visible()
    await expect(key).to_have_class("key web_app")  # drawn with its "opens an app" mark
    await expect(key).to_have_attribute("title", "Play in the app (opens an app)")
    await expect(page.locator("#apps")).to_be_hidden()

    await key.click()
    anna_app = page.locator(".app-panel", has_text="Anna")
    frame = anna_app.locator("iframe")
    await expect(frame).to_be_visible()
    src = await frame.get_attribute("src")
    assert src is not None and src.startswith(f"{app_url}?game=7#tgWebAppData="), src
    # The app has loaded (the page's policy lets the frame in) and reads who it is for.
    inside = anna_app.frame_locator("iframe")
    await expect(inside.locator("#who")).to_have_text(f"Signed for Anna #{anna} on web")
    # Beside the chat: a column to the right of the private chat, about 400 px wide.
    chat_box, app_box = await dm.bounding_box(), await anna_app.bounding_box()
    assert chat_box is not None and app_box is not None
    assert app_box["x"] >= chat_box["x"] + chat_box["width"] - 1
    assert 360 <= app_box["width"] <= 440 and app_box["height"] > 500

    # Boris opens his own: both apps are open side by side, each signed for its user.
    await be(page, "Boris")
    await dm.get_by_role("button", name="Play in the app").click()
    boris_app = page.locator(".app-panel", has_text="Boris")
    await expect(boris_app.frame_locator("iframe").locator("#who")).to_have_text(
        f"Signed for Boris #{boris} on web"
    )
    await expect(inside.locator("#who")).to_have_text(f"Signed for Anna #{anna} on web")
    await expect(page.locator(".app-panel")).to_have_count(2)
    await screenshot(page, "sandbox-mini-apps-1280.png")
    # The app asks to be closed (Telegram's web_app_close), and the × closes the other.
    await boris_app.frame_locator("iframe").locator("#close").click()
    await expect(boris_app).to_have_count(0)
    await anna_app.get_by_role("button", name="Close Anna's app").click()
    await expect(page.locator("#apps")).to_be_hidden()

    # In another tab (a phone, say) where Boris is chosen, Boris's app opens, over the screen.
    phone, phone_errors = await open_page(browser, page_url, **PHONE)
    await be(phone, "Boris")
    await phone.locator("#tab-dm").click()
    await phone.locator("#pane-dm").get_by_role("button", name="Play in the app").click()
    overlay = phone.locator(".app-panel", has_text="Boris")
    await expect(overlay.frame_locator("iframe").locator("#who")).to_have_text(
        f"Signed for Boris #{boris} on web"
    )
    box = await overlay.bounding_box()
    assert box is not None and (box["x"], box["y"]) == (0, 0)
    assert (box["width"], box["height"]) == (390, 844), "the whole screen"
    await screenshot(phone, "sandbox-mini-app-390.png")
    await overlay.get_by_role("button", name="Close Boris's app").click()
    await expect(phone.locator("#apps")).to_be_hidden()
    await expect(phone.locator("#pane-dm")).to_be_visible()
    assert errors == [] and phone_errors == []


async def test_the_tables_link_opens_the_game_for_a_player_an_onlooker_and_no_outsider(
    sandbox: SandboxProcess, browser: Any
) -> None:
    # Issue #37: a group's table carries the bot's Mini App by its direct link (a URL button);
    # pressed on the page, it opens the real table page signed as Telegram would sign it.
    async with httpx.AsyncClient(base_url=sandbox.url, timeout=30) as client:

        async def act(path: str, **action: Any) -> dict[str, Any]:
            response = await client.post(f"/sandbox/api/{path}", json=action, headers=AS_THE_PAGE)
            assert response.status_code == 200, response.text
            answer: dict[str, Any] = response.json()
            return answer

        for name, member in (("Dora", True), ("Eve", False)):
            await act("users", name=name, language="en", started=True, member=member)
    page, errors = await open_page(browser, sandbox.url)
    group = page.locator("#pane-group")
    await write(group, "/new davayka")
    await expect(group.get_by_role("button", name="Join")).to_be_visible(timeout=20_000)
    await be(page, "Boris")
    await group.get_by_role("button", name="Join").click()
    await be(page, "Anna")
    start = group.get_by_role("button", name=re.compile(r"Start$"))  # not "start in 5 s"
    await expect(start).to_be_visible(timeout=15_000)
    await start.click()
    link = group.get_by_role("button", name="Open the table")
    await expect(link).to_be_visible(timeout=20_000)
    await expect(link).to_have_attribute("title", re.compile(r"opens an app"))

    async def opened(name: str) -> Any:
        """``name`` presses the table's link: his app panel, and the table page in it."""
        await be(page, name)
        await group.get_by_role("button", name="Open the table").click()
        panel = page.locator(".app-panel", has_text=name)
        src = await panel.locator("iframe").get_attribute("src", timeout=10_000)
        assert src is not None and "/app/table?tgWebAppStartParam=g" in src, src
        assert "#tgWebAppData=" in src and "game=" not in src.split("#", 1)[0]
        return panel.frame_locator("iframe").locator("#app")

    dora = await opened("Dora")  # in the group, not seated: she watches
    await expect(dora).to_have_attribute("data-state", "live", timeout=15_000)
    await expect(dora).to_have_attribute("data-reader", "onlooker")
    anna = await opened("Anna")  # seated: her own seat, her hand
    await expect(anna).to_have_attribute("data-state", "live", timeout=15_000)
    await expect(anna).to_have_attribute("data-reader", "player")
    await expect(anna.locator(".me")).to_contain_text("Anna")
    eve = await opened("Eve")  # outside the group: refused, and told so
    await expect(eve).to_have_attribute("data-state", "error", timeout=15_000)
    await expect(eve.locator("#notice")).to_be_visible()
    await screenshot(page, "sandbox-table-link-1280.png")
    assert errors == []


# -- room to read: the top bar, toasts and chats beside Mini Apps (issue #35) ------------------

#: Each user's chip against the row that holds them: its box, and how much of it is in sight.
CHIPS_IN_SIGHT = """() => {
    const row = document.querySelector('#people').getBoundingClientRect();
    return [...document.querySelectorAll('#people .chip')].map(chip => {
        const box = chip.getBoundingClientRect();
        const name = chip.querySelector('.name');
        return {
            name: name.textContent,
            width: box.width,
            seen: Math.max(0, Math.min(box.right, row.right) - Math.max(box.left, row.left)),
            nameShown: name.getBoundingClientRect().width,
        };
    });
}"""


def box_of(box: dict[str, float] | None) -> dict[str, float]:
    assert box is not None
    return {
        "left": box["x"],
        "right": box["x"] + box["width"],
        "top": box["y"],
        "bottom": box["y"] + box["height"],
    }


async def chips_at_rest(page: Any) -> list[dict[str, Any]]:
    """The chips once the row has stopped scrolling."""
    chips: list[dict[str, Any]] = await page.evaluate(CHIPS_IN_SIGHT)
    for _ in range(50):
        await asyncio.sleep(0.1)
        now: list[dict[str, Any]] = await page.evaluate(CHIPS_IN_SIGHT)
        if now == chips:
            break
        chips = now
    return chips


def assert_whole(chips: list[dict[str, Any]]) -> list[str]:
    """Every chip is in sight whole or not at all (never cut to its avatar's letter), with
    some of its name; the names in sight."""
    for chip in chips:
        assert chip["seen"] < 1 or chip["seen"] >= chip["width"] - 1, f"cut: {chip}"
        assert chip["nameShown"] >= 30, f"no name to read: {chip}"
    return [chip["name"] for chip in chips if chip["seen"] >= 1]


async def test_on_a_phone_every_user_shows_whole_and_the_row_says_there_are_more(
    world_with_an_app: tuple[str, str, SandboxWorld], browser: Any
) -> None:
    page_url, _, world = world_with_an_app
    names = ["Anna", "Boris", "Carla", "Dmitro", "Marko", "Ivana", "Svetlana"]
    for name in names[2:]:
        world.add_user(name, "en", started=True)
    phone, errors = await open_page(browser, page_url, **PHONE)
    await expect(phone.locator("#people .chip")).to_have_count(len(names))
    more = phone.locator("#people-more")
    await expect(more).to_be_visible()  # the row holds more than the screen's width
    assert_none_overlaps(
        [box_of(await more.bounding_box()), box_of(await phone.locator("#people").bounding_box())]
    )
    first = assert_whole(await chips_at_rest(phone))
    assert "Anna" in first and len(first) < len(names), first
    await screenshot(phone, "sandbox-390-people.png")

    # The arrow shows the next users, whole; at the end it leads back to the first ones.
    seen = set(first)
    for _ in range(len(names)):
        await more.click()
        in_sight = assert_whole(await chips_at_rest(phone))
        seen.update(in_sight)
        if "Svetlana" in in_sight:
            break
    assert seen == set(names)
    await expect(more).to_have_attribute("aria-label", "Back to the first users")
    await more.click()
    assert "Anna" in assert_whole(await chips_at_rest(phone))

    # Choosing a user keeps his chip whole in sight.
    await be(phone, "Marko")
    assert "Marko" in assert_whole(await chips_at_rest(phone))

    # On a desktop they all fit: no arrow.
    desktop, desktop_errors = await open_page(browser, page_url)
    await expect(desktop.locator("#people .chip")).to_have_count(len(names))
    await expect(desktop.locator("#people-more")).to_be_hidden()
    assert len(assert_whole(await chips_at_rest(desktop))) == len(names)
    assert errors == [] and desktop_errors == []


async def test_on_a_phone_a_toast_leaves_the_tabs_in_sight(
    world_with_an_app: tuple[str, str, SandboxWorld], browser: Any
) -> None:
    page_url, _, _ = world_with_an_app
    phone, errors = await open_page(browser, page_url, **PHONE)
    await phone.locator("#add-user").click()
    await phone.locator("#user-form [name=name]").fill("Carla")
    await phone.locator("#user-form button[type=submit]").click()
    toast = phone.locator(".toast", has_text="Carla joined the group.")
    await expect(toast).to_be_visible()
    await expect(phone.locator("#tab-group")).to_be_visible()
    boxes = [
        box_of(await toast.bounding_box()),
        box_of(await phone.locator(".switcher").bounding_box()),
        box_of(await phone.locator(".topbar").bounding_box()),
    ]
    assert_none_overlaps(boxes)
    await screenshot(phone, "sandbox-390-toast.png")
    assert errors == []


async def test_with_two_mini_apps_open_a_chat_keeps_room_to_be_read(
    world_with_an_app: tuple[str, str, SandboxWorld], browser: Any
) -> None:
    page_url, app_url, world = world_with_an_app
    for name in ("Anna", "Boris"):
        await send_app_button(page_url, world, name, app_url)
    page, errors = await open_page(browser, page_url)
    group, dm = page.locator("#pane-group"), page.locator("#pane-dm")

    async def chat_widths() -> list[float]:
        widths = []
        for pane in (group, dm):
            if await pane.is_visible():
                box = await pane.bounding_box()
                assert box is not None
                widths.append(box["width"])
        return widths

    async def titles_whole() -> None:
        for title in await page.locator(".pane .pane-title").all():
            if await title.is_visible():
                cut = await title.evaluate("t => t.scrollWidth > t.clientWidth")
                assert not cut, await title.inner_text()

    # One app: both chats beside it, each wide enough to read.
    await be(page, "Anna")
    await dm.get_by_role("button", name="Play in the app").click()
    await expect(page.locator(".app-panel")).to_have_count(1)
    widths = await chat_widths()
    assert len(widths) == 2 and min(widths) >= 360, widths
    await expect(page.locator("#tab-dm")).to_be_hidden()

    # Two apps: one chat at a time under tabs, the one the app was opened from in sight.
    await be(page, "Boris")
    await dm.get_by_role("button", name="Play in the app").click()
    await expect(page.locator(".app-panel")).to_have_count(2)
    await expect(page.locator("#tab-dm")).to_be_visible()
    await expect(dm).to_be_visible()
    assert (await chat_widths())[0] >= 360, await chat_widths()
    await titles_whole()
    await screenshot(page, "sandbox-two-apps-1280.png")
    await page.locator("#tab-group").click()
    await expect(group).to_be_visible()
    await expect(dm).to_be_hidden()
    assert (await chat_widths())[0] >= 360
    await titles_whole()

    # Both closed: the two chats side by side again.
    for name in ("Anna", "Boris"):
        await page.get_by_role("button", name=f"Close {name}'s app").click()
    await expect(page.locator("#apps")).to_be_hidden()
    await expect(dm).to_be_visible()
    await expect(group).to_be_visible()
    await expect(page.locator("#tab-group")).to_be_hidden()
    assert errors == []
