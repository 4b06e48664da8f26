"""The sandbox's world: what the chat page is shown, and what a person can do as a user."""

from __future__ import annotations

import asyncio
import json
import struct
from typing import Any

import pytest

from bot.sandbox.bot_api import FakeBotApi
from bot.sandbox.models import FakeMessage, Upload
from bot.sandbox.world import SANDBOX_TOKEN, SandboxError, SandboxWorld


@pytest.fixture
def world() -> SandboxWorld:
    return SandboxWorld.create(languages=("en", "ru"))


async def bot_call(api: FakeBotApi, method: str, **params: Any) -> Any:
    """What the bot would send: one Bot API call, which must succeed."""
    status, body = await api.handle(method, params)
    assert status == 200, body
    return body["result"]


def chat_state(world: SandboxWorld, chat_id: int) -> dict[str, Any]:
    return next(chat for chat in world.state()["chats"] if chat["id"] == chat_id)


async def test_a_new_world_has_a_group_with_two_users_who_started_the_bot(
    world: SandboxWorld,
) -> None:
    state = world.state()
    assert world.api.token == SANDBOX_TOKEN
    assert [user["name"] for user in state["users"]] == ["Anna", "Boris"]
    assert all(user["started"] for user in state["users"])
    anna, boris = world.api.users.values()
    assert world.group.creator_id == anna.id and anna.id in world.group.admin_ids
    assert {anna.id, boris.id} <= world.group.member_ids
    # The group, then one private chat per user, in that order.
    assert [chat["id"] for chat in state["chats"]] == [world.group.id, anna.id, boris.id]
    assert state["languages"] == ["en", "ru"]
    json.dumps(state)  # all of it goes to the page as JSON


async def test_added_users_join_the_group_and_need_a_valid_name_and_language(
    world: SandboxWorld,
) -> None:
    carla = world.add_user("  Carla   Díaz ", "PT_br")
    assert carla.full_name == "Carla Díaz" and carla.language_code == "pt-br"
    assert not carla.started
    assert carla.id in world.group.member_ids
    assert world.add_user("Dan", "").language_code is None
    with pytest.raises(SandboxError, match="name"):
        world.add_user("   ", "en")
    with pytest.raises(SandboxError, match="language code"):
        world.add_user("Eve", "english please")
    with pytest.raises(SandboxError, match="at most"):
        world.add_user("x" * 65, "en")


async def test_the_page_sees_the_bots_messages_as_text_entities_and_keyboards(
    world: SandboxWorld,
) -> None:
    before = world.revision
    sent = await bot_call(
        world.api,
        "sendMessage",
        chat_id=world.group.id,
        text="<b>Lobby</b> &lt;3 <code>x</code>",
        parse_mode="HTML",
        reply_markup=json.dumps(
            {
                "inline_keyboard": [
                    [{"text": "✋ Join", "callback_data": "L:1:join"}],
                    [{"text": "Open", "url": "https://t.me/cardroom_bot?start=abc"}],
                ]
            }
        ),
    )
    assert world.revision > before
    message = chat_state(world, world.group.id)["messages"][-1]
    assert message["id"] == sent["message_id"]
    assert message["from"] == {"id": world.api.bot.id, "name": "Cardroom", "is_bot": True}
    assert message["text"] == "Lobby <3 x"
    assert message["entities"] == [
        {"type": "bold", "offset": 0, "length": 5},
        {"type": "code", "offset": 9, "length": 1},
    ]
    assert message["keyboard"] == [
        [{"text": "✋ Join", "kind": "callback", "value": "L:1:join"}],
        [{"text": "Open", "kind": "url", "value": "https://t.me/cardroom_bot?start=abc"}],
    ]
    assert message["edit_date"] is None

    await bot_call(
        world.api,
        "editMessageText",
        chat_id=world.group.id,
        message_id=sent["message_id"],
        text="Game on",
    )
    edited = chat_state(world, world.group.id)["messages"][-1]
    assert edited["text"] == "Game on" and edited["keyboard"] == []
    assert edited["edit_date"] is not None


async def test_the_page_sees_a_web_app_button_as_the_app_it_opens(world: SandboxWorld) -> None:
    anna = next(iter(world.api.users.values()))
    app = "https://cards.example.org/app?game=7"
    await bot_call(
        world.api,
        "sendMessage",
        chat_id=anna.id,
        text="Your panel",
        reply_markup=json.dumps(
            {
                "inline_keyboard": [
                    [{"text": "Pass", "callback_data": "p"}],
                    [{"text": "Play in the app", "web_app": {"url": app}}],
                ]
            }
        ),
    )
    assert chat_state(world, anna.id)["messages"][-1]["keyboard"] == [
        [{"text": "Pass", "kind": "callback", "value": "p"}],
        [{"text": "Play in the app", "kind": "web_app", "value": app}],
    ]


async def test_users_write_in_the_group_and_in_their_own_private_chat_only(
    world: SandboxWorld,
) -> None:
    anna, boris = world.api.users.values()
    await world.send(anna.id, world.group.id, "/new rank")
    await world.send(boris.id, boris.id, "  hello  ")
    assert chat_state(world, world.group.id)["messages"][-1]["text"] == "/new rank"
    assert chat_state(world, boris.id)["messages"][-1]["text"] == "hello"
    with pytest.raises(SandboxError, match="cannot write"):
        await world.send(anna.id, boris.id, "peek")
    with pytest.raises(SandboxError, match="empty"):
        await world.send(anna.id, world.group.id, "   ")
    with pytest.raises(SandboxError, match="no user"):
        await world.send(12345, world.group.id, "who?")


async def test_a_press_returns_the_bots_answer_once_it_comes(world: SandboxWorld) -> None:
    anna = next(iter(world.api.users.values()))
    sent = await bot_call(
        world.api,
        "sendMessage",
        chat_id=world.group.id,
        text="Lobby",
        reply_markup=json.dumps({"inline_keyboard": [[{"text": "Go", "callback_data": "go"}]]}),
    )

    async def answer_like_the_bot() -> None:
        await world.api.wait_until(lambda: bool(world.api.callbacks))
        await asyncio.sleep(0.1)
        (callback_id,) = world.api.callbacks
        await bot_call(
            world.api,
            "answerCallbackQuery",
            callback_query_id=callback_id,
            text="You joined",
            show_alert=True,
        )

    answering = asyncio.create_task(answer_like_the_bot())
    answer = await world.press(anna.id, world.group.id, sent["message_id"], "go")
    await answering
    assert answer.answered and answer.text == "You joined" and answer.show_alert
    assert world.api.update_log[-1]["callback_query"]["data"] == "go"

    unanswered = await world.press(anna.id, world.group.id, sent["message_id"], "go", wait=0.2)
    assert not unanswered.answered
    with pytest.raises(SandboxError, match="no such message"):
        await world.press(anna.id, world.group.id, 999, "go")


async def test_a_deep_link_sends_start_with_its_payload_in_the_users_private_chat(
    world: SandboxWorld,
) -> None:
    carla = world.add_user("Carla", "en")
    message = await world.open_link(carla.id, "https://t.me/cardroom_bot?start=join-42")
    assert message.chat_id == carla.id and message.text == "/start join-42"
    assert carla.started, "writing to the bot starts it"
    with pytest.raises(SandboxError, match="not a link"):
        await world.open_link(carla.id, "https://t.me/other_bot?start=x")


async def test_waiting_for_a_change_ends_when_something_happens(world: SandboxWorld) -> None:
    since = world.revision
    assert await world.wait_for_change(since, 0.1) == since, "nothing happened: times out"
    anna = next(iter(world.api.users.values()))
    waiting = asyncio.create_task(world.wait_for_change(since, 5.0))
    await asyncio.sleep(0.1)
    await world.send(anna.id, world.group.id, "hi")
    assert await asyncio.wait_for(waiting, 1.0) > since


def png_header(width: int, height: int) -> bytes:
    """The start of a PNG file: enough for its type and size."""
    return b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + struct.pack(">II", width, height)


async def test_a_photo_is_shown_from_the_sandbox_with_its_size(world: SandboxWorld) -> None:
    group = world.group.id
    chart = png_header(640, 320) + b"the rest of the chart"
    await world.api.handle(
        "sendPhoto",
        {"chat_id": group, "caption": "Rank 1012"},
        {"photo": Upload("rating.png", chart, "image/png")},
    )
    await bot_call(world.api, "sendPhoto", chat_id=group, photo="https://example.org/x.png")
    uploaded, linked = chat_state(world, group)["messages"]
    assert uploaded["text"] == "Rank 1012"
    assert uploaded["photo"]["width"] == 640 and uploaded["photo"]["height"] == 320
    url = uploaded["photo"]["url"]
    assert url.startswith("/sandbox/api/files/")
    image = world.image(url.rsplit("/", 1)[1])
    assert image is not None and image.data == chart and image.mime_type == "image/png"
    assert linked["photo"]["url"] is None, "a photo the bot only linked to is not fetched"
    assert world.image("AQAD999999") is None


async def many_messages(world: SandboxWorld, count: int) -> list[int]:
    """The bot's messages in the group, each with a keyboard, as after a long session."""
    world.api.flood_limits_enabled = False
    keyboard = {
        "inline_keyboard": [[{"text": f"{n}♠", "callback_data": f"A:{n}"}] for n in range(8)]
    }
    sent = []
    for n in range(count):
        text = f"<b>Round {n}</b>\n" + "· Anna played 7♥ → the left pile\n" * 20
        message = await bot_call(
            world.api,
            "sendMessage",
            chat_id=world.group.id,
            text=text,
            parse_mode="HTML",
            reply_markup=json.dumps(keyboard),
        )
        sent.append(message["message_id"])
    return sent


async def test_the_state_is_the_same_as_json_and_costs_what_changed(
    world: SandboxWorld, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The page asks for the whole state after every change, and the bot's calls wait while
    # it is made: a big world must not be drawn again in full each time.
    sent = await many_messages(world, 150)
    anna = next(iter(world.api.users.values()))
    await world.send(anna.id, anna.id, "hello")
    assert json.loads(world.state_json()) == world.state()

    drawn: list[int] = []
    draw = world._message_dict

    def counting(message: FakeMessage) -> dict[str, Any]:
        drawn.append(message.message_id)
        return draw(message)

    monkeypatch.setattr(world, "_message_dict", counting)
    await bot_call(
        world.api, "editMessageText", chat_id=world.group.id, message_id=sent[7], text="Game on"
    )
    state = json.loads(world.state_json())
    assert drawn == [sent[7]], "only the edited message is drawn again"
    group = next(chat for chat in state["chats"] if chat["id"] == world.group.id)
    assert [m["text"] for m in group["messages"] if m["id"] == sent[7]] == ["Game on"]
    drawn.clear()
    json.loads(world.state_json())
    assert drawn == [], "nothing changed: nothing is drawn"
