"""The chat page's HTTP side: the page, its files, and the JSON endpoints beside the Bot API."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from dataclasses import dataclass

import httpx
import pytest
from telegram import Bot, InlineKeyboardButton, InlineKeyboardMarkup

from bot.sandbox.server import FakeBotApiServer
from bot.sandbox.web import PAGE_HEADER, STATIC_DIR, page_routes
from bot.sandbox.world import SandboxWorld
from tests.sandbox.conftest import AS_THE_PAGE


@dataclass
class Served:
    world: SandboxWorld
    server: FakeBotApiServer
    client: httpx.AsyncClient


@pytest.fixture
async def served() -> AsyncIterator[Served]:
    world = SandboxWorld.create()
    server = FakeBotApiServer(world.api, routes=page_routes(world))
    await server.start()
    try:
        async with httpx.AsyncClient(base_url=server.url, timeout=10) as client:
            yield Served(world, server, client)
    finally:
        await server.stop()


async def test_the_page_and_its_files_are_served_with_a_strict_policy(served: Served) -> None:
    page = await served.client.get("/")
    assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
    assert "/static/sandbox.js" in page.text and "/static/sandbox.css" in page.text
    policy = page.headers["content-security-policy"]
    assert "script-src 'self'" in policy and "unsafe-inline" not in policy
    for name in ("sandbox.js", "sandbox.css", "index.html"):
        assert (STATIC_DIR / name).is_file()
        served_file = await served.client.get(f"/static/{name}")
        assert served_file.status_code == 200
        assert served_file.content == (STATIC_DIR / name).read_bytes()
    assert (await served.client.get("/static/../web.py")).status_code in (403, 404)


async def test_the_bot_api_is_served_beside_the_page(served: Served) -> None:
    token = served.world.api.token
    me = await served.client.get(f"/bot{token}/getMe")
    assert me.json()["result"]["username"] == "cardroom_bot"
    assert (await served.client.get("/botWRONG/getMe")).status_code == 401


async def test_a_foreign_host_name_is_refused(served: Served) -> None:
    # A page on another site that rebinds its name to 127.0.0.1 still sends its own Host.
    for path in ("/", "/sandbox/api/state", "/static/sandbox.js"):
        response = await served.client.get(path, headers={"Host": "evil.example"})
        assert response.status_code == 403, path
    assert (await served.client.get("/", headers={"Host": "localhost:1"})).status_code == 200


def bot_for(served: Served) -> Bot:
    """python-telegram-bot over HTTP, as the sandbox's bot talks to the emulator."""
    server = served.server
    return Bot(served.world.api.token, server.base_url, server.base_file_url)


def own_origin(served: Served) -> dict[str, str]:
    """What Chromium adds to the page's own ``fetch`` posts."""
    return {"Origin": served.server.url, "Sec-Fetch-Site": "same-origin"}


def the_page(served: Served) -> dict[str, str]:
    """The headers of an action the page posts: Chromium's, and the one its script adds."""
    return {**own_origin(served), **AS_THE_PAGE}


async def test_the_bot_api_refuses_a_foreign_host_name(served: Served) -> None:
    # DNS rebinding: another site's name, resolving to 127.0.0.1, could read what it asks for.
    client, api, group = served.client, served.world.api, served.world.group
    port = served.server.port
    for host in ("evil.example", f"evil.example:{port}", f"127.0.0.1.evil.example:{port}"):
        me = await client.get(f"/bot{api.token}/getMe", headers={"Host": host})
        assert me.status_code == 403, host
        assert me.json() == {
            "ok": False,
            "error_code": 403,
            "description": "Forbidden: the Host is not this machine",
        }
        sent = await client.post(
            f"/bot{api.token}/sendMessage",
            data={"chat_id": str(group.id), "text": "hi"},
            headers={"Host": host},
        )
        assert sent.status_code == 403, host
    assert api.messages(group) == [] and api.calls_of("sendMessage") == []
    for host in (f"localhost:{port}", f"[::1]:{port}", "LOCALHOST"):
        me = await client.get(f"/bot{api.token}/getMe", headers={"Host": host})
        assert me.json()["result"]["username"] == "cardroom_bot", host


async def test_files_are_served_to_the_bot_not_to_other_sites(served: Served) -> None:
    table = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + (64).to_bytes(4, "big") * 2 + b"A spades"
    async with bot_for(served) as bot:
        sent = await bot.send_photo(served.world.group.id, table)
        file = await bot.get_file(sent.photo[-1].file_id)
        assert bytes(await file.download_as_bytearray()) == table
    assert file.file_path is not None and "/file/bot" in file.file_path
    for foreign in ({"Host": "evil.example"}, {"Sec-Fetch-Site": "cross-site"}):
        refused = await served.client.get(file.file_path, headers=foreign)
        assert refused.status_code == 403, foreign
        assert b"A spades" not in refused.content
    typed = await served.client.get(file.file_path, headers={"Sec-Fetch-Site": "none"})
    assert typed.content == table


async def test_another_web_page_cannot_set_the_webhook(served: Served) -> None:
    # A plain HTML form or an <img src> on any site needs no CORS preflight; a webhook would
    # stop the sandbox's bot, which long-polls.
    client, api = served.client, served.world.api
    url = f"/bot{api.token}/setWebhook"
    hook = {"url": "https://evil.example/hook"}
    form = await client.post(url, data=hook, headers={"Origin": "http://evil.example"})
    assert form.status_code == 403
    assert form.json()["description"] == "Forbidden: the request comes from another origin"
    for site in ("cross-site", "same-site"):
        image = await client.get(url, params=hook, headers={"Sec-Fetch-Site": site})
        assert image.status_code == 403, site
        assert image.json()["description"] == "Forbidden: the request comes from another site"
    # Another loopback origin (another local web server, another port) is another page too.
    for origin in ("http://localhost:{port}", "http://127.0.0.1:1", "https://127.0.0.1:{port}"):
        other = origin.format(port=served.server.port)
        refused = await client.post(url, data=hook, headers={"Origin": other})
        assert refused.status_code == 403, other
    assert api.webhook is None and api.calls_of("setWebhook") == []

    async with bot_for(served) as bot:  # python-telegram-bot sends neither header
        assert await bot.set_webhook("https://example.org/hook")
    assert api.webhook is not None and api.webhook.url == "https://example.org/hook"


async def test_a_browser_request_that_hides_its_site_cannot_set_the_webhook(
    served: Served,
) -> None:
    # Browsers send the Sec-Fetch headers together: one without Sec-Fetch-Site is a browser's
    # request that does not say where it comes from, so it is not taken as the page's own.
    client, api = served.client, served.world.api
    url = f"/bot{api.token}/setWebhook"
    hook = {"url": "https://evil.example/hook"}
    for headers in ({"Sec-Fetch-Mode": "no-cors"}, {"Sec-Fetch-Dest": "image"}):
        refused = await client.post(url, data=hook, headers=headers)
        assert refused.status_code == 403, headers
        assert refused.json() == {
            "ok": False,
            "error_code": 403,
            "description": "Forbidden: the request does not say which site it comes from",
        }
    assert api.webhook is None and api.calls_of("setWebhook") == []
    # The page's own requests, and an address typed by hand, say where they come from.
    own = {"Sec-Fetch-Site": "same-origin", "Sec-Fetch-Mode": "cors", "Sec-Fetch-Dest": "empty"}
    typed = {"Sec-Fetch-Site": "none", "Sec-Fetch-Mode": "navigate", "Sec-Fetch-User": "?1"}
    for headers in (own, typed):
        me = await client.get(f"/bot{api.token}/getMe", headers=headers)
        assert me.json()["ok"], headers


async def test_an_action_without_the_pages_header_is_refused(served: Served) -> None:
    # A browser that sends neither Origin nor Sec-Fetch-Site (an old one) cannot be told apart
    # from the page by them; the page's header, which another site's page cannot add without
    # a preflight the sandbox never grants, can.
    client, world = served.client, served.world
    anna = next(iter(world.api.users.values()))
    users_before = len(world.api.users)
    actions = {
        "/sandbox/api/users": {"name": "Mallory", "language": "en"},
        "/sandbox/api/send": {"user_id": anna.id, "chat_id": world.group.id, "text": "/new"},
        "/sandbox/api/press": {
            "user_id": anna.id,
            "chat_id": world.group.id,
            "message_id": 1,
            "data": "fold",
        },
        "/sandbox/api/open": {"user_id": anna.id, "url": "https://t.me/cardroom_bot?start=x"},
    }
    for path, action in actions.items():
        for headers in ({}, {PAGE_HEADER: "0"}, own_origin(served)):
            refused = await client.post(path, json=action, headers=headers)
            assert refused.status_code == 403, (path, headers)
            assert PAGE_HEADER in refused.json()["error"], (path, headers)
    assert len(world.api.users) == users_before
    assert world.api.messages(world.group) == [] and world.api.last_message(anna) is None
    sent = await client.post(
        "/sandbox/api/send", json=actions["/sandbox/api/send"], headers=the_page(served)
    )
    assert sent.status_code == 200
    assert [message.text for message in world.api.messages(world.group)] == ["/new"]


async def test_updates_are_read_only_without_a_foreign_site(served: Served) -> None:
    # Updates carry what players write and press: another site must not read them.
    client, world = served.client, served.world
    anna = next(iter(world.api.users.values()))
    await world.send(anna.id, world.group.id, "/new my hand")
    url = f"/bot{world.api.token}/getUpdates"
    refused = await client.get(url, headers={"Sec-Fetch-Site": "cross-site"})
    assert refused.status_code == 403 and "my hand" not in refused.text
    for allowed in ({}, {"Sec-Fetch-Site": "none"}, own_origin(served)):
        read = await client.get(url, headers=allowed)
        assert read.status_code == 200, allowed
        assert read.json()["result"][-1]["message"]["text"] == "/new my hand"


async def test_the_page_answers_only_its_own_origin(served: Served) -> None:
    client, world = served.client, served.world
    anna = next(iter(world.api.users.values()))
    sent = await client.post(
        "/sandbox/api/send",
        json={"user_id": anna.id, "chat_id": world.group.id, "text": "from the page"},
        headers=the_page(served),
    )
    assert sent.status_code == 200
    localhost = served.server.url.replace("127.0.0.1", "localhost")
    for foreign in (
        {"Origin": "http://evil.example"},
        {"Origin": "null"},
        {"Origin": localhost, "Sec-Fetch-Site": "same-site"},
        {"Sec-Fetch-Site": "cross-site"},
    ):
        refused = await client.post(
            "/sandbox/api/send",
            json={"user_id": anna.id, "chat_id": world.group.id, "text": "from elsewhere"},
            # Even with the page's header (which a foreign page could not send without a
            # preflight), the origin alone is refused.
            headers={**foreign, **AS_THE_PAGE},
        )
        assert refused.status_code == 403, foreign
        assert "another" in refused.json()["error"]
    assert [message.text for message in world.api.messages(world.group)] == ["from the page"]

    cross_site = {"Sec-Fetch-Site": "cross-site"}
    for path in ("/", "/static/sandbox.js", "/sandbox/api/state"):
        assert (await client.get(path, headers=cross_site)).status_code == 403, path
        own = await client.get(path, headers={"Sec-Fetch-Site": "same-origin"})
        assert own.status_code == 200, path
    assert (await client.get("/", headers={"Sec-Fetch-Site": "none"})).status_code == 200


async def test_a_form_on_another_site_cannot_press_a_button(served: Served) -> None:
    client, world = served.client, served.world
    anna = next(iter(world.api.users.values()))
    markup = InlineKeyboardMarkup([[InlineKeyboardButton("Fold", callback_data="fold")]])
    async with bot_for(served) as bot:
        message = await bot.send_message(world.group.id, "Your turn", reply_markup=markup)
    press = {
        "user_id": str(anna.id),
        "chat_id": str(world.group.id),
        "message_id": str(message.message_id),
        "data": "fold",
    }
    browser_form = {"Origin": "http://evil.example", "Sec-Fetch-Site": "cross-site"}
    foreign = await client.post("/sandbox/api/press", data=press, headers=browser_form)
    assert foreign.status_code == 403
    # Even from the page's own origin a form body is refused: the page posts JSON only.
    form = await client.post("/sandbox/api/press", data=press, headers=the_page(served))
    assert form.status_code == 415
    assert world.api.callbacks == {}


async def test_actions_are_json_posts(served: Served) -> None:
    anna = next(iter(served.world.api.users.values()))
    form = await served.client.post(
        "/sandbox/api/send",
        data={"user_id": str(anna.id), "chat_id": "1", "text": "hi"},
        headers=AS_THE_PAGE,
    )
    assert form.status_code == 415
    assert served.world.api.messages(served.world.group) == []
    bad = await served.client.post("/sandbox/api/send", json={"user_id": "x"}, headers=AS_THE_PAGE)
    assert bad.status_code == 400 and "user_id" in bad.json()["error"]


async def test_a_user_is_added_writes_and_the_state_shows_it(served: Served) -> None:
    client, world = served.client, served.world
    added = await client.post(
        "/sandbox/api/users", json={"name": "Carla", "language": "uk"}, headers=AS_THE_PAGE
    )
    assert added.status_code == 200
    carla = added.json()
    refused = await client.post(
        "/sandbox/api/users", json={"name": " ", "language": "en"}, headers=AS_THE_PAGE
    )
    assert refused.status_code == 400 and refused.json()["error"] == "A user needs a name."

    sent = await client.post(
        "/sandbox/api/send",
        json={"user_id": carla["id"], "chat_id": world.group.id, "text": "/new rank"},
        headers=AS_THE_PAGE,
    )
    assert sent.status_code == 200
    anna = next(iter(world.api.users.values()))
    foreign = await client.post(
        "/sandbox/api/send",
        json={"user_id": carla["id"], "chat_id": anna.id, "text": "x"},
        headers=AS_THE_PAGE,
    )
    assert foreign.status_code == 400 and "cannot write" in foreign.json()["error"]

    state = (await client.get("/sandbox/api/state")).json()
    users = {user["name"]: user for user in state["users"]}
    assert users["Carla"]["language"] == "uk" and not users["Carla"]["started"]
    group = next(chat for chat in state["chats"] if chat["id"] == state["group_id"])
    assert group["messages"][-1]["text"] == "/new rank"
    assert group["messages"][-1]["from"]["name"] == "Carla"
    assert group["members"] == 4, "three users and the bot"


async def test_the_state_waits_for_a_change_when_asked(served: Served) -> None:
    client, world = served.client, served.world
    revision = (await client.get("/sandbox/api/state")).json()["revision"]
    waiting = asyncio.create_task(client.get(f"/sandbox/api/state?since={revision}"))
    await asyncio.sleep(0.3)
    assert not waiting.done(), "nothing changed yet"
    anna = next(iter(world.api.users.values()))
    await client.post(
        "/sandbox/api/send",
        json={"user_id": anna.id, "chat_id": anna.id, "text": "/start"},
        headers=AS_THE_PAGE,
    )
    changed = (await asyncio.wait_for(waiting, 5)).json()
    assert changed["revision"] > revision
    assert changed["chats"][1]["messages"][-1]["text"] == "/start"


async def test_a_deep_link_is_opened_for_a_user(served: Served) -> None:
    client, world = served.client, served.world
    anna = next(iter(world.api.users.values()))
    opened = await client.post(
        "/sandbox/api/open",
        json={"user_id": anna.id, "url": "https://t.me/cardroom_bot?start=tok_1"},
        headers=AS_THE_PAGE,
    )
    assert opened.json()["chat_id"] == anna.id
    assert world.api.last_message(anna).text == "/start tok_1"
    elsewhere = await client.post(
        "/sandbox/api/open",
        json={"user_id": anna.id, "url": "https://example.org/"},
        headers=AS_THE_PAGE,
    )
    assert elsewhere.status_code == 400


async def test_a_photo_the_bot_sent_is_served_to_the_page_as_an_image_only(
    served: Served,
) -> None:
    client, world = served.client, served.world
    chart = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + (64).to_bytes(4, "big") * 2 + b"a chart"
    page = b"<html><script>alert(document.cookie)</script></html>"
    async with bot_for(served) as bot:
        await bot.send_photo(world.group.id, chart, caption="Anna's rating")
        await bot.send_photo(world.group.id, page)  # no image: never served to the browser
    state = (await client.get("/sandbox/api/state", headers=own_origin(served))).json()
    group = next(chat for chat in state["chats"] if chat["id"] == world.group.id)
    shown, hidden = (message["photo"] for message in group["messages"])
    assert hidden["url"] is None

    image = await client.get(shown["url"], headers={"Sec-Fetch-Site": "same-origin"})
    assert image.status_code == 200 and image.content == chart
    assert image.headers["content-type"] == "image/png"
    assert image.headers["x-content-type-options"] == "nosniff"
    assert "sandbox" in image.headers["content-security-policy"]
    for foreign in (
        {"Sec-Fetch-Site": "cross-site"},
        {"Sec-Fetch-Site": "same-site"},
        {"Host": "evil.example"},
    ):
        refused = await client.get(shown["url"], headers=foreign)
        assert refused.status_code == 403 and b"a chart" not in refused.content, foreign
    (uploaded,) = [f for f in world.api.files.values() if f.data == page]
    for path in (f"/sandbox/api/files/{uploaded.file_unique_id}", "/sandbox/api/files/AQAD0"):
        missing = await client.get(path)
        assert missing.status_code == 404 and b"<script>" not in missing.content, path
