"""The group's table opens the Mini App in the sandbox (issue #37): the bot runs with the app's
short name, a group's table carries its direct link (``t.me/<bot>/table?startapp=g<game>``),
and the page follows it as Telegram would — the app's own URL, ``initData`` signed with
``start_param`` — so that the players get their seats, the group's other members watch, and
whoever is not in the group is refused; from the private panels too, for every game."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Callable
from typing import Any
from urllib.parse import parse_qs, parse_qsl, unquote, urlsplit

import httpx
import pytest
from telegram import InlineKeyboardButton, InlineKeyboardMarkup
from tornado.httpclient import HTTPRequest
from tornado.websocket import websocket_connect

from bot.sandbox.run import APP_PATH, SHORT_NAME, direct_link_app, sandbox_settings
from bot.sandbox.webapp import (
    DirectLinkApp,
    direct_link_start,
    launch_url,
    sign_link_init_data,
)
from bot.sandbox.world import SANDBOX_TOKEN, SandboxWorld
from bot.settings import Settings
from bot.telegram.handlers import available_games
from bot.telegram.miniapp.auth import signed_user
from tests.sandbox.conftest import AS_THE_PAGE, SandboxProcess
from tests.sandbox.test_webapp import Served, fields_of, open_app, served, telegram_hash

__all__ = ["served"]  # the fixture, shared with test_webapp

APP = DirectLinkApp("table", "http://127.0.0.1:8181/app/table")
LINK = "https://t.me/cardroom_bot/table?startapp=g42"


# -- the direct link and its signature --------------------------------------------------------


@pytest.mark.parametrize(
    ("url", "start"),
    [
        (LINK, "g42"),
        ("https://t.me/Cardroom_Bot/Table?startapp=g42", "g42"),  # names are case-blind
        ("t.me/cardroom_bot/table?startapp=g42", "g42"),
        ("https://telegram.me/cardroom_bot/table/?startapp=g42&mode=compact", "g42"),
        ("https://t.me/cardroom_bot/table", ""),  # no parameter: the app, as it opens
        ("https://t.me/cardroom_bot/table?startapp=g4%202", ""),  # none Telegram would take
        ("https://t.me/another_bot/table?startapp=g42", None),
        ("https://t.me/cardroom_bot/other?startapp=g42", None),
        ("https://t.me/cardroom_bot?start=g42", None),  # a deep link: /start in the DM
        ("https://cards.example.org/app/table?startapp=g42", None),
    ],
)
def test_a_direct_link_names_the_bots_app_and_its_parameter(url: str, start: str | None) -> None:
    assert direct_link_start(url, "cardroom_bot", APP) == start


def test_a_direct_links_init_data_is_signed_with_its_start_param() -> None:
    world = SandboxWorld.create()
    anna = next(iter(world.api.users.values()))
    now = int(time.time())
    init_data = sign_link_init_data(
        SANDBOX_TOKEN, anna, auth_date=now, start_param="g42", chat=world.group
    )
    fields = fields_of(init_data)
    assert fields["hash"] == telegram_hash(SANDBOX_TOKEN, fields)
    assert fields["start_param"] == "g42"
    # Where the link was followed: the group, by the id its presses carry too.
    assert fields["chat_type"] == "supergroup"
    assert fields["chat_instance"] == world.group.instance
    assert "query_id" not in fields, "no button to answer: Telegram gives no query id"
    signed = signed_user(init_data, SANDBOX_TOKEN, time.time())
    assert (signed.user_id, signed.start_param) == (anna.id, "g42")

    bare = sign_link_init_data(SANDBOX_TOKEN, anna, auth_date=now)
    assert set(fields_of(bare)) == {"user", "auth_date", "hash"}
    assert signed_user(bare, SANDBOX_TOKEN, time.time()).start_param is None


def test_the_app_is_told_the_start_param_in_its_address_too() -> None:
    url = launch_url(APP.url, "a=1", start_param="g42")
    parts = urlsplit(url)
    # As Telegram documents it, a GET parameter; and in the launch parameters, as its
    # clients pass it.
    assert parse_qs(parts.query) == {"tgWebAppStartParam": ["g42"]}
    launch = dict(parse_qsl(parts.fragment))
    assert launch["tgWebAppStartParam"] == "g42" and launch["tgWebAppData"] == "a=1"
    assert "tgWebAppStartParam" not in launch_url(APP.url, "a=1")


def test_the_sandboxs_bot_has_its_apps_short_name() -> None:
    settings = sandbox_settings(
        Settings(_env_file=None),
        "http://127.0.0.1:8080/bot",
        8181,  # type: ignore[call-arg]
    )
    assert settings.webapp_short_name == SHORT_NAME == "table"
    assert direct_link_app(settings) == DirectLinkApp("table", "http://127.0.0.1:8181/app/table")
    assert APP_PATH == "/app/table"
    own = sandbox_settings(
        Settings(_env_file=None, webapp_short_name="cards"),  # type: ignore[call-arg]
        "http://127.0.0.1:8080/bot",
        8181,
    )
    assert own.webapp_short_name == "cards"


# -- the page's route: a user follows the link ------------------------------------------------


async def send_table(served: Served, link: str = LINK) -> None:
    """The bot puts a table with the direct link's button in the group."""
    async with served.bot() as bot:
        markup = InlineKeyboardMarkup([[InlineKeyboardButton("Open the table", url=link)]])
        await bot.send_message(served.world.group.id, "The table", reply_markup=markup)


async def test_a_direct_link_opens_the_app_signed_with_its_start_param(served: Served) -> None:
    served.world.app = APP
    await send_table(served)
    state = (await served.client.get("/sandbox/api/state")).json()
    assert state["app"] == {"short_name": "table"}, "the page knows the links to follow"
    group = next(chat for chat in state["chats"] if chat["id"] == served.world.group.id)
    (button,) = group["messages"][-1]["keyboard"][0]
    assert button == {"text": "Open the table", "kind": "url", "value": LINK}

    before = int(time.time())
    opened = await served.client.post(
        "/sandbox/api/webapp",
        json={"user_id": served.boris.id, "url": LINK, "chat_id": served.world.group.id},
        headers=served.the_page(),
    )
    assert opened.status_code == 200, opened.text
    url = opened.json()["url"]
    assert url.startswith(f"{APP.url}?tgWebAppStartParam=g42#tgWebAppData="), url
    launch = dict(parse_qsl(urlsplit(url).fragment))
    fields = fields_of(launch["tgWebAppData"])
    assert fields["hash"] == telegram_hash(SANDBOX_TOKEN, fields)
    assert json.loads(fields["user"])["id"] == served.boris.id
    assert fields["start_param"] == launch["tgWebAppStartParam"] == "g42"
    assert fields["chat_type"] == "supergroup"
    assert before <= int(fields["auth_date"]) <= int(time.time())

    # Followed from nowhere the page knows (a link passed on): still the app, no chat.
    elsewhere = await open_app(served, served.anna, LINK)
    assert elsewhere.status_code == 200, elsewhere.text
    fields = fields_of(dict(parse_qsl(urlsplit(elsewhere.json()["url"]).fragment))["tgWebAppData"])
    assert fields["start_param"] == "g42" and "chat_type" not in fields
    # Not a chat the user is in: refused, nothing signed.
    foreign = await served.client.post(
        "/sandbox/api/webapp",
        json={"user_id": served.anna.id, "url": LINK, "chat_id": served.boris.id},
        headers=served.the_page(),
    )
    assert foreign.status_code == 400 and "tgWebAppData" not in foreign.text


@pytest.mark.parametrize(
    "url",
    [
        "https://t.me/another_bot/table?startapp=g42",
        "https://t.me/cardroom_bot/other?startapp=g42",
        "https://t.me/cardroom_bot?start=g42",
    ],
)
async def test_other_links_open_no_app(served: Served, url: str) -> None:
    served.world.app = APP
    await send_table(served, url)
    refused = await open_app(served, served.anna, url)
    assert refused.status_code == 400 and "no button" in refused.json()["error"]
    assert "tgWebAppData" not in refused.text


async def test_without_a_short_name_the_link_opens_nothing(served: Served) -> None:
    await send_table(served)
    refused = await open_app(served, served.anna, LINK)
    assert refused.status_code == 400 and "tgWebAppData" not in refused.text
    assert (await served.client.get("/sandbox/api/state")).json()["app"] is None


# -- getChatMember: the sandbox's people, in the group or not ---------------------------------


async def test_get_chat_member_says_who_is_in_the_group(served: Served) -> None:
    added = await served.client.post(
        "/sandbox/api/users",
        json={"name": "Eve", "language": "en", "started": True, "member": False},
        headers=served.the_page(),
    )
    assert added.status_code == 200, added.text
    eve = served.world.user(added.json()["id"])
    dora = served.world.add_user("Dora", "en", started=True)
    group = served.world.group.id
    async with served.bot() as bot:
        statuses = {
            user.first_name: (await bot.get_chat_member(group, user.id)).status
            for user in (served.anna, served.boris, dora, eve)
        }
    assert statuses == {"Anna": "creator", "Boris": "member", "Dora": "member", "Eve": "left"}
    state = (await served.client.get("/sandbox/api/state")).json()
    assert {user["name"]: user["member"] for user in state["users"]} == {
        "Anna": True,
        "Boris": True,
        "Dora": True,
        "Eve": False,
    }


# -- python -m bot --sandbox: every game, opened from the panels and from the table -----------


class Sandbox:
    """The page's side of a running sandbox, as its JavaScript drives it."""

    def __init__(self, client: httpx.AsyncClient) -> None:
        self.client = client

    async def act(self, path: str, **action: Any) -> dict[str, Any]:
        response = await self.client.post(f"/sandbox/api/{path}", json=action, headers=AS_THE_PAGE)
        assert response.status_code == 200, response.text
        answer: dict[str, Any] = response.json()
        return answer

    async def until(self, test: Callable[[dict[str, Any]], Any], what: str) -> Any:
        """What ``test`` returns of the state, once it is something."""
        for _ in range(400):
            state: dict[str, Any] = (await self.client.get("/sandbox/api/state")).json()
            found = test(state)
            if found:
                return found
            await asyncio.sleep(0.1)
        raise AssertionError(f"{what}: not reached in {json.dumps(state)[-3000:]}")


def chat_of(state: dict[str, Any], chat_id: int) -> dict[str, Any]:
    return next(chat for chat in state["chats"] if chat["id"] == chat_id)


def buttons(message: dict[str, Any]) -> list[dict[str, Any]]:
    return [button for row in message["keyboard"] for button in row]


async def page_hello(url: str, game: int | None) -> dict[str, Any]:
    """What the bot's Mini App answers the page at ``url`` (launch parameters and all) saying
    hello as the shell does: ``game`` from its ``?game=``, else none (a direct link's)."""
    parts = urlsplit(url)
    init_data = unquote(
        dict(part.split("=", 1) for part in parts.fragment.split("&"))["tgWebAppData"]
    )
    origin = f"{parts.scheme}://{parts.netloc}"
    request = HTTPRequest(
        origin.replace("http", "ws", 1) + "/app/socket", headers={"Origin": origin}
    )
    socket = await websocket_connect(request)
    try:
        socket.write_message(json.dumps({"t": "hello", "init_data": init_data, "game": game}))
        frame = await asyncio.wait_for(socket.read_message(), 10)
        assert isinstance(frame, str), frame
        answer: dict[str, Any] = json.loads(frame)
        return answer
    finally:
        socket.close()


#: Who plays each game: as many as it seats (Anna, who opens it, among them); Dora, in the
#: group, watches; Eve, outside it, may not.
SEATS = {"progression": 3}


@pytest.mark.parametrize("game", available_games())
async def test_a_game_opens_from_the_panels_and_the_table_for_players_and_onlookers(
    sandbox: SandboxProcess, game: str
) -> None:
    async with httpx.AsyncClient(base_url=sandbox.url, timeout=30) as client:
        page = Sandbox(client)
        world = await page.until(
            lambda state: state if state["users"][0]["commands"]["group"] else None, "the bot"
        )
        assert world["app"] == {"short_name": "table"}
        group = world["group_id"]
        anna, boris = (user["id"] for user in world["users"])
        users = {"Anna": anna, "Boris": boris}
        for name, member in (("Carla", True), ("Dora", True), ("Eve", False)):
            added = await page.act("users", name=name, language="en", started=True, member=member)
            users[name] = added["id"]
        players = ["Anna", "Boris", "Carla"][: SEATS.get(game, 2)]

        await page.act("send", user_id=anna, chat_id=group, text=f"/new {game}")
        lobby = await page.until(
            lambda state: next(
                (
                    m
                    for m in reversed(chat_of(state, group)["messages"])
                    if any("Join" in b["text"] for b in buttons(m))
                ),
                None,
            ),
            "the lobby",
        )
        for name in [*players[1:], "Anna"]:
            word = "Start" if name == "Anna" else "Join"
            data = next(b["value"] for b in buttons(lobby) if word in b["text"])
            pressed = await page.act(
                "press", user_id=users[name], chat_id=group, message_id=lobby["id"], data=data
            )
            assert pressed["answered"], (name, pressed)

        # The table, in the group: a URL button, the app's direct link to this game.
        link = await page.until(
            lambda state: next(
                (
                    b["value"]
                    for m in chat_of(state, group)["messages"]
                    for b in buttons(m)
                    if b["kind"] == "url" and "/table?startapp=g" in b["value"]
                ),
                None,
            ),
            "the table's link",
        )
        assert link.startswith(f"https://t.me/{world['bot']['username']}/table?startapp=g"), link
        game_id = int(link.rsplit("=g", 1)[1])

        seats = set()
        for name in players:
            # From his private panel: the web_app button, the page of his seat.
            panel_app = await page.until(
                lambda state, name=name: next(
                    (
                        b["value"]
                        for m in chat_of(state, users[name])["messages"]
                        for b in buttons(m)
                        if b["kind"] == "web_app" and b["value"].endswith(f"?game={game_id}")
                    ),
                    None,
                ),
                f"{name}'s panel",
            )
            opened = await page.act("webapp", user_id=users[name], url=panel_app)
            seated = await page_hello(opened["url"], game_id)
            assert seated["t"] == "state", (name, seated)
            seat = seated["view"]["seat"]
            assert seat is not None and seated["view"]["game"] == game_id
            assert name in seated["view"]["names"][seat], seated["view"]["names"]
            seats.add(seat)
            # From the group's table: the same seat, by the link's start_param alone.
            opened = await page.act("webapp", user_id=users[name], url=link, chat_id=group)
            assert "?game=" not in opened["url"]
            by_link = await page_hello(opened["url"], None)
            assert by_link["t"] == "state", (name, by_link)
            assert (by_link["view"]["game"], by_link["view"]["seat"]) == (game_id, seat)
        assert len(seats) == len(players)

        # A member not seated watches: the public table, no seat, no moves.
        opened = await page.act("webapp", user_id=users["Dora"], url=link, chat_id=group)
        watching = await page_hello(opened["url"], None)
        assert watching["t"] == "state", watching
        assert watching["view"]["seat"] is None and watching["view"]["moves"] == []
        assert watching["view"]["game"] == game_id
        # Someone outside the group is refused, and told so.
        opened = await page.act("webapp", user_id=users["Eve"], url=link)
        refused = await page_hello(opened["url"], None)
        assert (refused["t"], refused["code"]) == ("error", "not_seated"), refused
        assert "view" not in refused
