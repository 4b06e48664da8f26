"""The chat page's HTTP side: the page, its files, and the JSON endpoints beside the Bot API."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from dataclasses import dataclass

import httpx
import pytest

from bot.sandbox.server import FakeBotApiServer
from bot.sandbox.web import STATIC_DIR, page_routes
from bot.sandbox.world import SandboxWorld


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


async def test_actions_are_json_posts(served: Served) -> None:
    anna = next(iter(served.world.api.users.values()))
    form = await served.client.post(
        "/sandbox/api/send", data={"user_id": str(anna.id), "chat_id": "1", "text": "hi"}
    )
    assert form.status_code == 415
    assert served.world.api.messages(served.world.group) == []
    bad = await served.client.post("/sandbox/api/send", json={"user_id": "x"})
    assert bad.status_code == 400 and "user_id" in bad.json()["error"]


async def test_a_user_is_added_writes_and_the_state_shows_it(served: Served) -> None:
    client, world = served.client, served.world
    added = await client.post("/sandbox/api/users", json={"name": "Carla", "language": "uk"})
    assert added.status_code == 200
    carla = added.json()
    refused = await client.post("/sandbox/api/users", json={"name": " ", "language": "en"})
    assert refused.status_code == 400 and refused.json()["error"] == "A user needs a name."

    sent = await client.post(
        "/sandbox/api/send",
        json={"user_id": carla["id"], "chat_id": world.group.id, "text": "/new rank"},
    )
    assert sent.status_code == 200
    anna = next(iter(world.api.users.values()))
    foreign = await client.post(
        "/sandbox/api/send", json={"user_id": carla["id"], "chat_id": anna.id, "text": "x"}
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
        "/sandbox/api/send", json={"user_id": anna.id, "chat_id": anna.id, "text": "/start"}
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
    )
    assert opened.json()["chat_id"] == anna.id
    assert world.api.last_message(anna).text == "/start tok_1"
    elsewhere = await client.post(
        "/sandbox/api/open", json={"user_id": anna.id, "url": "https://example.org/"}
    )
    assert elsewhere.status_code == 400
