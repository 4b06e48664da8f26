"""The chat page in a real headless browser (Debian's Chromium, driven by Playwright).

A person opens the page of ``python -m bot --sandbox``, plays against a computer from the
group and his private chat, and another user joins through a deep link. Screenshots go to
``test-artifacts/``. Without Playwright or Chromium these tests skip (``.ci/install-browser``
installs Chromium; ``pip install -e ".[test]"`` installs Playwright).
"""

from __future__ import annotations

import os
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from bot.telegram.handlers import available_games
from tests.sandbox.conftest import ROOT, SandboxProcess

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
ARTIFACTS = ROOT / "test-artifacts"
DESKTOP = {"width": 1280, "height": 800}
PHONE: dict[str, Any] = {
    "viewport": {"width": 390, "height": 844},
    "device_scale_factor": 2,
    "is_mobile": True,
    "has_touch": True,
}


@pytest.fixture
async def browser() -> AsyncIterator[Any]:
    async with playwright_api.async_playwright() as playwright:
        browser = await playwright.chromium.launch(
            executable_path=str(CHROMIUM), args=CHROMIUM_ARGS
        )
        try:
            yield browser
        finally:
            await browser.close()


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
