"""Mini Apps in the sandbox: ``web_app`` buttons as Telegram takes them, ``initData`` signed
as Telegram signs it, and the page's route that opens a user's app (issue #30)."""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import json
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qsl, quote, unquote, urlsplit

import httpx
import pytest
from telegram import Bot, InlineKeyboardButton, InlineKeyboardMarkup, WebAppInfo
from telegram.error import BadRequest

from bot.sandbox.models import FakeUser
from bot.sandbox.run import sandbox_settings
from bot.sandbox.server import FakeBotApiServer
from bot.sandbox.web import page_routes
from bot.sandbox.webapp import launch_url, sign_init_data
from bot.sandbox.world import SANDBOX_TOKEN, SandboxWorld
from bot.settings import Settings
from bot.telegram.miniapp.auth import Refused, signed_user
from tests.sandbox.conftest import AS_THE_PAGE, SandboxProcess

APP = "http://127.0.0.1:8181/app/davayka?game=7"


def telegram_hash(token: str, fields: dict[str, str]) -> str:
    """Telegram's check, written out from its documentation, apart from the sandbox's code."""
    check = "\n".join(f"{key}={fields[key]}" for key in sorted(fields) if key != "hash")
    secret = hmac.new(b"WebAppData", token.encode(), hashlib.sha256).digest()
    return hmac.new(secret, check.encode(), hashlib.sha256).hexdigest()


def fields_of(init_data: str) -> dict[str, str]:
    pairs = parse_qsl(init_data, keep_blank_values=True, strict_parsing=True)
    fields = dict(pairs)
    assert len(fields) == len(pairs), "no field twice"
    return fields


# -- the signer ------------------------------------------------------------------------------


def test_signed_init_data_verifies_as_telegrams() -> None:
    user = FakeUser(7001, "Anna", last_name="Ivanova & Co", username="anna_k", language_code="uk")
    now = int(time.time())
    init_data = sign_init_data(SANDBOX_TOKEN, user, auth_date=now)
    fields = fields_of(init_data)
    assert set(fields) >= {"query_id", "user", "auth_date", "hash"}
    assert fields["hash"] == telegram_hash(SANDBOX_TOKEN, fields)
    assert fields["auth_date"] == str(now)
    person = json.loads(fields["user"])
    assert person["id"] == 7001 and person["first_name"] == "Anna"
    assert person["last_name"] == "Ivanova & Co"  # an & inside a value stays inside it
    assert person["username"] == "anna_k" and person["language_code"] == "uk"
    # The bot takes it as Telegram's: the same user.
    signed = signed_user(init_data, SANDBOX_TOKEN, time.time())
    assert (signed.user_id, signed.first_name, signed.language_code) == (7001, "Anna", "uk")
    # Signed with the bot's token only: another bot's check fails.
    assert fields["hash"] != telegram_hash("1:another-bot", fields)


@pytest.mark.parametrize("forge", ["user", "auth_date", "query_id", "extra"])
def test_a_forged_field_breaks_the_signature(forge: str) -> None:
    anna = FakeUser(7001, "Anna")
    fields = fields_of(sign_init_data(SANDBOX_TOKEN, anna, auth_date=int(time.time())))
    if forge == "user":
        fields["user"] = fields["user"].replace("7001", "7002")  # Boris, by his id
    elif forge == "auth_date":
        fields["auth_date"] = str(int(fields["auth_date"]) + 3600)  # an old one made young
    elif forge == "query_id":
        fields["query_id"] += "x"
    else:
        fields["start_param"] = "join"
    assert fields["hash"] != telegram_hash(SANDBOX_TOKEN, fields)
    forged = "&".join(f"{key}={quote(value, safe='')}" for key, value in fields.items())
    with pytest.raises(Refused) as refused:
        signed_user(forged, SANDBOX_TOKEN, time.time())
    assert refused.value.code == "forged"


def test_an_apps_own_fragment_keeps_its_place_before_the_launch_parameters() -> None:
    # Telegram's script reads "#<route>?tgWebAppData=…": an app routed by its fragment
    # still finds its route.
    assert launch_url("https://cards.example.org/app#/table/7", "a=1").startswith(
        "https://cards.example.org/app#/table/7?tgWebAppData=a%3D1&tgWebAppVersion=8.0&"
    )
    assert launch_url(APP, "a=1").startswith(f"{APP}#tgWebAppData=a%3D1&")


# -- the emulator: web_app buttons as Telegram takes them -----------------------------------


@dataclass
class Served:
    world: SandboxWorld
    server: FakeBotApiServer
    client: httpx.AsyncClient

    @property
    def anna(self) -> FakeUser:
        return self.user("Anna")

    @property
    def boris(self) -> FakeUser:
        return self.user("Boris")

    def user(self, name: str) -> FakeUser:
        return next(u for u in self.world.api.users.values() if u.first_name == name)

    def bot(self) -> Bot:
        """python-telegram-bot over HTTP, as the sandbox's bot talks to the emulator."""
        return Bot(self.world.api.token, self.server.base_url, self.server.base_file_url)

    def the_page(self) -> dict[str, str]:
        """The headers of an action the page posts: Chromium's, and the one its script adds."""
        return {"Origin": self.server.url, "Sec-Fetch-Site": "same-origin", **AS_THE_PAGE}


@pytest.fixture
async def served() -> AsyncIterator[Served]:
    world = SandboxWorld.create()
    world.api.flood_limits_enabled = False  # one chat gets several messages a second here
    server = FakeBotApiServer(world.api, routes=page_routes(world))
    await server.start()
    try:
        async with httpx.AsyncClient(base_url=server.url, timeout=10) as client:
            yield Served(world, server, client)
    finally:
        await server.stop()


def app_button(url: str = APP, text: str = "Open the table") -> InlineKeyboardMarkup:
    return InlineKeyboardMarkup([[InlineKeyboardButton(text, web_app=WebAppInfo(url))]])


async def test_a_web_app_button_is_taken_in_a_private_chat_only(served: Served) -> None:
    api, group = served.world.api, served.world.group
    async with served.bot() as bot:
        sent = await bot.send_message(served.anna.id, "Your panel", reply_markup=app_button())
        assert sent.reply_markup is not None
        assert sent.reply_markup.inline_keyboard[0][0].web_app == WebAppInfo(APP)
        with pytest.raises(BadRequest, match=r"(?i)button_type_invalid"):
            await bot.send_message(group.id, "The table", reply_markup=app_button())
        table = await bot.send_message(group.id, "The table")
        with pytest.raises(BadRequest, match=r"(?i)button_type_invalid"):
            await bot.edit_message_reply_markup(
                group.id, table.message_id, reply_markup=app_button()
            )
    # As the bot sent it: the button in the message, nothing in the group.
    (panel,) = api.bot_messages(served.anna)
    assert panel.reply_markup == {
        "inline_keyboard": [[{"text": "Open the table", "web_app": {"url": APP}}]]
    }
    assert [m.text for m in api.messages(group)] == ["The table"]
    assert api.message(group, table.message_id).reply_markup is None

    refused = await served.client.post(
        f"/bot{api.token}/sendMessage",
        json={"chat_id": group.id, "text": "x", "reply_markup": app_button().to_dict()},
    )
    assert refused.status_code == 400
    assert refused.json()["description"] == "Bad Request: BUTTON_TYPE_INVALID"


@pytest.mark.parametrize(
    ("url", "taken"),
    [
        ("https://cards.example.org/app/davayka?game=1", True),
        ("http://127.0.0.1:8181/app/davayka?game=1", True),
        ("http://localhost:8181/app/davayka", True),
        ("http://cards.example.org/app/davayka", False),
        ("http://192.168.1.20:8181/app/davayka", False),
        ("http://127.0.0.1.example.org:8181/app", False),
        ("http://127.0.0.1/app/davayka", False),  # the sandbox's app has its own port
        ("ftp://127.0.0.1:8181/app", False),
        ("javascript:alert(1)", False),
        ("127.0.0.1:8181/app", False),
    ],
)
async def test_a_web_app_opens_over_https_or_on_this_machine(
    served: Served, url: str, taken: bool
) -> None:
    api = served.world.api
    response = await served.client.post(
        f"/bot{api.token}/sendMessage",
        json={
            "chat_id": served.anna.id,
            "text": "Your panel",
            "reply_markup": {"inline_keyboard": [[{"text": "Open", "web_app": {"url": url}}]]},
        },
    )
    if taken:
        assert response.json()["ok"], response.text
        assert api.bot_messages(served.anna)[-1].reply_markup == {
            "inline_keyboard": [[{"text": "Open", "web_app": {"url": url}}]]
        }
    else:
        assert response.status_code == 400, url
        assert response.json()["description"] == "Bad Request: BUTTON_URL_INVALID"
        assert api.bot_messages(served.anna) == []


# -- the page's route: a user opens his app -------------------------------------------------


async def open_app(served: Served, user: FakeUser, url: str, **headers: str) -> httpx.Response:
    return await served.client.post(
        "/sandbox/api/webapp",
        json={"user_id": user.id, "url": url},
        headers=headers or served.the_page(),
    )


async def test_the_route_opens_the_app_signed_for_its_user(served: Served) -> None:
    async with served.bot() as bot:
        await bot.send_message(served.anna.id, "Your panel", reply_markup=app_button())
    before = int(time.time())
    opened = await open_app(served, served.anna, APP)
    assert opened.status_code == 200, opened.text
    url = opened.json()["url"]
    assert url.startswith(f"{APP}#tgWebAppData=")
    launch = dict(part.split("=", 1) for part in urlsplit(url).fragment.split("&"))
    assert set(launch) == {
        "tgWebAppData",
        "tgWebAppVersion",
        "tgWebAppPlatform",
        "tgWebAppThemeParams",
    }
    assert launch["tgWebAppVersion"] == "8.0" and launch["tgWebAppPlatform"] == "web"
    theme = json.loads(unquote(launch["tgWebAppThemeParams"]))
    assert theme["bg_color"].startswith("#") and theme["button_color"].startswith("#")

    init_data = unquote(launch["tgWebAppData"])  # as Telegram's script reads it
    fields = fields_of(init_data)
    assert fields["hash"] == telegram_hash(SANDBOX_TOKEN, fields)
    assert json.loads(fields["user"])["id"] == served.anna.id
    assert before <= int(fields["auth_date"]) <= int(time.time())
    assert signed_user(init_data, SANDBOX_TOKEN, time.time()).user_id == served.anna.id


async def test_the_route_opens_only_a_users_own_buttons(served: Served) -> None:
    other = "https://cards.example.org/app/davayka?game=7"
    async with served.bot() as bot:
        panel = await bot.send_message(served.anna.id, "Your panel", reply_markup=app_button())
        link = InlineKeyboardMarkup([[InlineKeyboardButton("Rules", url=other)]])
        await bot.send_message(served.anna.id, "The rules", reply_markup=link)
    assert (await open_app(served, served.anna, APP)).status_code == 200

    for user, url in (
        (served.boris, APP),  # Anna's button: Boris cannot open her app as himself
        (served.anna, APP.replace("game=7", "game=8")),  # no button opens it
        (served.anna, other),  # a url button's address, not an app's
    ):
        refused = await open_app(served, user, url)
        assert refused.status_code == 400, (user, url)
        assert "no button" in refused.json()["error"]
        assert "tgWebAppData" not in refused.text
    missing = await served.client.post(
        "/sandbox/api/webapp", json={"user_id": 999_999, "url": APP}, headers=served.the_page()
    )
    assert missing.status_code == 400 and "no user" in missing.json()["error"]

    # Once the bot takes the button away, its app no longer opens.
    async with served.bot() as bot:
        await bot.edit_message_reply_markup(served.anna.id, panel.message_id, reply_markup=None)
    assert (await open_app(served, served.anna, APP)).status_code == 400


async def test_the_route_answers_only_the_page(served: Served) -> None:
    async with served.bot() as bot:
        await bot.send_message(served.anna.id, "Your panel", reply_markup=app_button())
    own = {"Origin": served.server.url, "Sec-Fetch-Site": "same-origin"}
    for headers in (
        own,  # no page header: a foreign page could not add it
        {**own, "X-Cardroom-Sandbox": "0"},
        {**AS_THE_PAGE, "Origin": "http://evil.example", "Sec-Fetch-Site": "cross-site"},
        {**AS_THE_PAGE, "Origin": "http://127.0.0.1:8181"},  # the Mini App's own origin
        {**AS_THE_PAGE, "Host": "evil.example"},
    ):
        refused = await open_app(served, served.anna, APP, **headers)
        assert refused.status_code == 403, headers
        assert "tgWebAppData" not in refused.text
    assert (await open_app(served, served.anna, APP)).status_code == 200


async def test_the_state_tells_the_page_which_buttons_open_apps(served: Served) -> None:
    async with served.bot() as bot:
        markup = InlineKeyboardMarkup(
            [
                [InlineKeyboardButton("Ready", callback_data="r")],
                [
                    InlineKeyboardButton("Pass", callback_data="p"),
                    InlineKeyboardButton("Open the table", web_app=WebAppInfo(APP)),
                ],
            ]
        )
        panel = await bot.send_message(served.anna.id, "Your panel", reply_markup=markup)
    state: dict[str, Any] = (await served.client.get("/sandbox/api/state")).json()
    chat = next(chat for chat in state["chats"] if chat["id"] == served.anna.id)
    (message,) = [message for message in chat["messages"] if message["id"] == panel.message_id]
    assert message["keyboard"] == [
        [{"text": "Ready", "kind": "callback", "value": "r"}],
        [
            {"text": "Pass", "kind": "callback", "value": "p"},
            {"text": "Open the table", "kind": "web_app", "value": APP},
        ],
    ]
    assert "web_apps" not in state, "the button itself says what it opens"


# -- the runner: the bot serves its Mini App beside the sandbox ------------------------------


def test_the_sandboxs_bot_serves_its_mini_app_on_a_loopback_port() -> None:
    settings = sandbox_settings(
        Settings(_env_file=None, webhook_listen="0.0.0.0"),  # type: ignore[call-arg]
        "http://127.0.0.1:8080/bot",
        8181,
    )
    assert settings.webhook_port == 8181 and settings.webhook_listen == "127.0.0.1"
    assert settings.health_port == 0, "no health listener beside the sandbox"
    assert settings.webapp_url == "http://127.0.0.1:8181"
    assert settings.webapp_script == "http://127.0.0.1:8181/app/static/web-app-stand-in.js"
    assert settings.webhook_url is None
    assert settings.require_token() == SANDBOX_TOKEN


async def test_python_m_bot_sandbox_opens_davaykas_mini_app(sandbox: SandboxProcess) -> None:
    # The real bot in the sandbox: a Davay-ka! game puts a web_app button on each player's
    # panel, the page's route signs it, and the bot's own web server serves the app there.
    async with httpx.AsyncClient(base_url=sandbox.url, timeout=30) as client:
        world = (await client.get("/sandbox/api/state")).json()
        anna, boris = (user["id"] for user in world["users"])
        group = world["group_id"]

        async def act(path: str, **action: Any) -> dict[str, Any]:
            response = await client.post(f"/sandbox/api/{path}", json=action, headers=AS_THE_PAGE)
            assert response.status_code == 200, response.text
            answer: dict[str, Any] = response.json()
            return answer

        async def until(test: Any) -> dict[str, Any]:
            for _ in range(300):
                state: dict[str, Any] = (await client.get("/sandbox/api/state")).json()
                if test(state):
                    return state
                await asyncio.sleep(0.1)
            raise AssertionError(f"not reached: {state}")

        def lobby_of(state: dict[str, Any]) -> dict[str, Any]:
            chat = next(chat for chat in state["chats"] if chat["id"] == group)
            return next(m for m in reversed(chat["messages"]) if "Join" in str(m["keyboard"]))

        def apps_of(state: dict[str, Any], user: int) -> list[str]:
            """The URLs of the web_app buttons in ``user``'s private chat."""
            chat = next(chat for chat in state["chats"] if chat["id"] == user)
            return [
                button["value"]
                for message in chat["messages"]
                for row in message["keyboard"]
                for button in row
                if button["kind"] == "web_app"
            ]

        def button(message: dict[str, Any], word: str) -> str:
            return str(
                next(b["value"] for row in message["keyboard"] for b in row if word in b["text"])
            )

        await until(lambda state: bool(state["users"][0]["commands"]["group"]))  # the bot is up
        await act("send", user_id=anna, chat_id=group, text="/new davayka")
        lobby = lobby_of(await until(lambda state: "Join" in json.dumps(state["chats"][0])))
        for user, word in ((boris, "Join"), (anna, "Start")):
            data = button(lobby, word)
            await act("press", user_id=user, chat_id=group, message_id=lobby["id"], data=data)
        state = await until(lambda state: all(apps_of(state, user) for user in (anna, boris)))
        for user in (anna, boris):
            (app,) = apps_of(state, user)
            assert app.startswith("http://127.0.0.1:"), app
            opened = await act("webapp", user_id=user, url=app)
            assert opened["url"].startswith(app + "#tgWebAppData=")
            async with httpx.AsyncClient(timeout=10) as browser:
                page = await browser.get(app)
                assert page.status_code == 200 and "<html" in page.text.lower()
                origin = app.split("/app/", 1)[0]
                script = f"{origin}/app/static/web-app-stand-in.js"
                assert script in page.text, "the stand-in for Telegram's script"
                assert (await browser.get(script)).status_code == 200
