"""The fake Bot API behaves like Telegram, as seen through a real python-telegram-bot ``Bot``."""

from __future__ import annotations

import asyncio
import datetime as dtm
import json
import warnings
from collections.abc import AsyncIterator

import httpx
import pytest
from telegram import (
    Bot,
    InlineKeyboardButton,
    InlineKeyboardMarkup,
    Message,
    ReplyParameters,
    Update,
)
from telegram.error import (
    BadRequest,
    ChatMigrated,
    Conflict,
    Forbidden,
    InvalidToken,
    NetworkError,
    RetryAfter,
    TimedOut,
)
from telegram.ext import (
    Application,
    CallbackQueryHandler,
    CommandHandler,
    ContextTypes,
    MessageHandler,
    filters,
)

from tests.fakes import (
    EntityParseError,
    FakeBotApi,
    FakeBotApiServer,
    FakeRequest,
    ManualClock,
    format_text,
    render_all,
    render_chat,
)

# Constructing telegram.error.RetryAfter warns about its int/timedelta transition.
pytestmark = pytest.mark.filterwarnings("ignore::telegram.warnings.PTBDeprecationWarning")


def keyboard(*rows: list[tuple[str, str]]) -> InlineKeyboardMarkup:
    return InlineKeyboardMarkup(
        [[InlineKeyboardButton(text, callback_data=data) for text, data in row] for row in rows]
    )


def seconds(retry_after: int | dtm.timedelta) -> float:
    return retry_after.total_seconds() if isinstance(retry_after, dtm.timedelta) else retry_after


def retry_after_of(error: RetryAfter) -> float:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return seconds(error.retry_after)


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock()


@pytest.fixture
def api(clock: ManualClock) -> FakeBotApi:
    """The fake on a manual clock; its flood limits only where a test turns them on (many
    messages to one chat at one instant are what most tests here send)."""
    return FakeBotApi(clock=clock, flood_limits=False)


@pytest.fixture
async def bot(api: FakeBotApi) -> AsyncIterator[Bot]:
    async with Bot(
        api.token, request=FakeRequest(api), get_updates_request=FakeRequest(api)
    ) as bot:
        yield bot


# ------------------------------------------------------------------------------------------
# Identity and messages


async def test_get_me_returns_the_bot_user(bot: Bot, api: FakeBotApi) -> None:
    me = await bot.get_me()
    assert me.id == api.bot.id == 123456789
    assert me.is_bot and me.username == "cardroom_bot"
    assert me.can_join_groups and not me.can_read_all_group_messages
    assert bot.username == "cardroom_bot"


async def test_send_message_returns_telegram_shaped_message(bot: Bot, api: FakeBotApi) -> None:
    alice = api.add_user("Alice")
    group = api.add_group("Table", admins=[alice])
    first = await bot.send_message(group.id, "hello")
    sent = await bot.send_message(
        group.id,
        "<b>Lobby</b> &amp; <i>friends</i>",
        parse_mode="HTML",
        reply_markup=keyboard([("Join", "g1:0:join")]),
    )
    assert sent.message_id == first.message_id + 1
    assert sent.chat.id == group.id and sent.chat.title == "Table"
    assert sent.from_user is not None and sent.from_user.id == api.bot.id
    assert sent.text == "Lobby & friends"
    assert sent.text_html == "<b>Lobby</b> &amp; <i>friends</i>"
    assert sent.reply_markup == keyboard([("Join", "g1:0:join")])
    stored = api.message(group, sent.message_id)
    assert stored.raw_text == "<b>Lobby</b> &amp; <i>friends</i>"
    assert stored.parse_mode == "HTML"
    assert api.buttons(stored) == [[("Join", "g1:0:join")]]
    assert api.stats.by_method["sendMessage"] == 2
    assert api.stats.by_chat[group.id] == 2
    assert [call.method for call in api.calls] == ["getMe", "sendMessage", "sendMessage"]


async def test_dm_to_user_who_never_started_the_bot_is_forbidden(
    bot: Bot, api: FakeBotApi
) -> None:
    stranger = api.add_user("Stranger", started=False)
    with pytest.raises(Forbidden, match="bot can't initiate conversation with a user"):
        await bot.send_message(stranger.id, "your hand")
    api.start_bot(stranger)
    await bot.send_message(stranger.id, "your hand")
    assert api.last_message(stranger) is not None


async def test_dm_to_user_who_blocked_the_bot_is_forbidden(bot: Bot, api: FakeBotApi) -> None:
    bob = api.add_user("Bob")
    sent = await bot.send_message(bob.id, "panel")
    await api.block_bot(bob)
    with pytest.raises(Forbidden, match="bot was blocked by the user"):
        await bot.send_message(bob.id, "again")
    with pytest.raises(Forbidden, match="bot was blocked by the user"):
        await bot.edit_message_text("edited", bob.id, sent.message_id)
    updates = await bot.get_updates(timeout=0)
    member = updates[-1].my_chat_member
    assert member is not None and member.new_chat_member.status == "kicked"


async def test_unknown_chat_is_bad_request(bot: Bot) -> None:
    with pytest.raises(BadRequest, match="Chat not found"):
        await bot.send_message(424242, "hi")


async def test_text_and_markup_validation(bot: Bot, api: FakeBotApi) -> None:
    alice = api.add_user("Alice")
    with pytest.raises(BadRequest, match="Message text is empty"):
        await bot.send_message(alice.id, "   ")
    with pytest.raises(BadRequest, match="Message is too long"):
        await bot.send_message(alice.id, "x" * 4097)
    await bot.send_message(alice.id, "x" * 4096)
    with pytest.raises(BadRequest, match="Button_data_invalid"):
        await bot.send_message(alice.id, "hi", reply_markup=keyboard([("A", "x" * 65)]))
    await bot.send_message(alice.id, "hi", reply_markup=keyboard([("A", "x" * 64)]))
    with pytest.raises(BadRequest, match="Can't parse entities: can't find end tag"):
        await bot.send_message(alice.id, "<b>unclosed", parse_mode="HTML")
    with pytest.raises(BadRequest, match=r'(?i)unsupported start tag "" at byte offset 2'):
        await bot.send_message(alice.id, "5 < 6", parse_mode="HTML")
    with pytest.raises(BadRequest, match=r"(?i)character '\.' is reserved"):
        await bot.send_message(alice.id, "Hi.", parse_mode="MarkdownV2")
    sent = await bot.send_message(alice.id, "Tom & Jerry &lt;3", parse_mode="HTML")
    assert sent.text == "Tom & Jerry <3"


async def test_edits_not_modified_and_keyboard_removal(bot: Bot, api: FakeBotApi) -> None:
    alice = api.add_user("Alice")
    group = api.add_group("Table", admins=[alice])
    markup = keyboard([("Hit", "g:1:h"), ("Stand", "g:1:s")])
    sent = await bot.send_message(group.id, "<b>Table</b>", parse_mode="HTML", reply_markup=markup)
    with pytest.raises(BadRequest, match="not modified"):
        await bot.edit_message_text(
            "<strong>Table</strong>",
            group.id,
            sent.message_id,
            parse_mode="HTML",
            reply_markup=markup,
        )
    edited = await bot.edit_message_text(
        "<b>Table</b>", group.id, sent.message_id, parse_mode="HTML"
    )
    assert isinstance(edited, Message) and edited.edit_date is not None
    assert edited.reply_markup is None  # omitting reply_markup removes the keyboard
    stored = api.message(group, sent.message_id)
    assert stored.edited and stored.keyboard() == []
    assert stored.history[0].reply_markup is not None
    with pytest.raises(BadRequest, match="not modified"):
        await bot.edit_message_reply_markup(group.id, sent.message_id)
    await bot.edit_message_reply_markup(group.id, sent.message_id, reply_markup=markup)
    assert api.buttons(stored) == [[("Hit", "g:1:h"), ("Stand", "g:1:s")]]


async def test_edit_and_delete_missing_messages(bot: Bot, api: FakeBotApi) -> None:
    alice = api.add_user("Alice")
    with pytest.raises(BadRequest, match="Message to edit not found"):
        await bot.edit_message_text("x", alice.id, 99)
    sent = await bot.send_message(alice.id, "bye")
    assert await bot.delete_message(alice.id, sent.message_id)
    with pytest.raises(BadRequest, match="Message to delete not found"):
        await bot.delete_message(alice.id, sent.message_id)
    with pytest.raises(BadRequest, match="Message to edit not found"):
        await bot.edit_message_text("x", alice.id, sent.message_id)
    assert api.messages(alice) == []
    assert api.messages(alice, include_deleted=True)[0].deleted


async def test_replies_and_forum_topics(bot: Bot, api: FakeBotApi) -> None:
    alice = api.add_user("Alice")
    forum = api.add_group("Casino", forum=True, admins=[alice])
    poker = api.add_topic(forum, "Poker")
    command = await api.send_text(alice, forum, "/newgame", thread_id=poker)
    updates = await bot.get_updates(timeout=0)
    message = updates[-1].message
    assert message is not None
    assert message.message_thread_id == poker.thread_id and message.is_topic_message
    reply = await message.reply_text("Lobby open")  # PTB keeps the topic
    assert reply.message_thread_id == poker.thread_id
    assert [m.message_id for m in api.messages(forum, poker)] == [
        poker.thread_id,
        command.message_id,
        reply.message_id,
    ]
    with pytest.raises(BadRequest, match="Message thread not found"):
        await bot.send_message(forum.id, "x", message_thread_id=12345)
    with pytest.raises(BadRequest, match="Message to be replied not found"):
        await bot.send_message(forum.id, "x", reply_parameters=ReplyParameters(777))


# ------------------------------------------------------------------------------------------
# Updates and callbacks


async def test_long_polling_returns_a_pressed_callback(bot: Bot, api: FakeBotApi) -> None:
    alice = api.add_user("Alice")
    group = api.add_group("Table", admins=[alice])
    sent = await bot.send_message(group.id, "Lobby", reply_markup=keyboard([("Join", "g:0:j")]))
    poll = asyncio.create_task(bot.get_updates(timeout=5))
    await asyncio.sleep(0.05)
    assert not poll.done()  # waiting, like Telegram's long poll
    callback = await api.press(alice, api.message(group, sent.message_id), "Join")
    updates = await asyncio.wait_for(poll, 1)
    query = updates[0].callback_query
    assert query is not None
    assert query.id == callback.id and query.data == "g:0:j"
    assert query.from_user.id == alice.id
    assert query.message is not None and query.message.message_id == sent.message_id
    # Not confirmed yet: delivered again; confirmed with offset: gone.
    again = await bot.get_updates(timeout=0)
    assert [u.update_id for u in again] == [updates[0].update_id]
    assert await bot.get_updates(offset=updates[0].update_id + 1, timeout=0) == ()


async def test_answering_a_callback_twice_is_bad_request(bot: Bot, api: FakeBotApi) -> None:
    alice = api.add_user("Alice")
    sent = await bot.send_message(alice.id, "Hand", reply_markup=keyboard([("Play 7♠", "p:7s")]))
    callback = await api.press(alice, api.message(alice, sent.message_id), "p:7s")
    assert api.unanswered_callbacks() == [callback]
    assert await bot.answer_callback_query(callback.id, text="Played", show_alert=True)
    assert callback.answered and callback.text == "Played" and callback.show_alert
    with pytest.raises(BadRequest, match="Query is too old"):
        await bot.answer_callback_query(callback.id)
    with pytest.raises(BadRequest, match="Query is too old"):
        await bot.answer_callback_query("no-such-query")
    assert callback.answer_attempts == 2 and api.unanswered_callbacks() == []


async def test_deep_link_answer_and_start(bot: Bot, api: FakeBotApi) -> None:
    alice = api.add_user("Alice")
    newbie = api.add_user("Newbie", started=False)
    group = api.add_group("Table", admins=[alice])
    sent = await bot.send_message(group.id, "Lobby", reply_markup=keyboard([("Join", "g:0:j")]))
    callback = await api.press(newbie, api.message(group, sent.message_id), "Join")
    with pytest.raises(BadRequest, match="Url_invalid"):
        await bot.answer_callback_query(callback.id, url="https://example.com/")
    link = "https://t.me/cardroom_bot?start=join-g1"
    await bot.answer_callback_query(callback.id, url=link)
    assert callback.url == link
    start = await api.open_link(newbie, callback.url)
    assert start.text == "/start join-g1" and newbie.started
    updates = await bot.get_updates(timeout=0)
    message = updates[-1].message
    assert message is not None and message.text == "/start join-g1"
    assert message.entities[0].type == "bot_command" and message.entities[0].length == 6
    assert message.chat.type == "private" and message.chat.id == api.private_chat_id(newbie)


async def test_group_privacy_mode(bot: Bot, api: FakeBotApi) -> None:
    alice = api.add_user("Alice")
    group = api.add_group("Table", admins=[alice])
    await api.send_text(alice, group, "just chatting")
    await api.send_text(alice, group, "/help@other_bot")
    await api.send_text(alice, group, "/help@cardroom_bot")
    await api.send_text(alice, group, "/top")
    texts = [u.message.text for u in await bot.get_updates(timeout=0) if u.message]
    assert texts == ["/help@cardroom_bot", "/top"]
    assert len(api.messages(group)) == 4


async def test_get_updates_conflicts_with_webhook(bot: Bot, api: FakeBotApi) -> None:
    await bot.set_webhook("https://bot.example.com/hook", secret_token="s3cret")
    info = await bot.get_webhook_info()
    assert info.url == "https://bot.example.com/hook"
    with pytest.raises(Conflict, match="webhook is active"):
        await bot.get_updates(timeout=0)
    with pytest.raises(BadRequest, match=r"(?i)an https url must be provided"):
        await bot.set_webhook("http://bot.example.com/hook")
    assert await bot.delete_webhook()
    assert await bot.get_updates(timeout=0) == ()


async def test_chat_and_member_queries(bot: Bot, api: FakeBotApi) -> None:
    owner, admin, member, outsider = (api.add_user(name) for name in ("O", "A", "M", "X"))
    group = api.add_group("Table", admins=[owner, admin], members=[member], bot_admin=True)
    chat = await bot.get_chat(group.id)
    assert chat.title == "Table" and chat.type == "supergroup"
    statuses = [
        (await bot.get_chat_member(group.id, user.id)).status
        for user in (owner, admin, member, outsider)
    ]
    assert statuses == ["creator", "administrator", "member", "left"]
    admins = await bot.get_chat_administrators(group.id)
    assert [m.user.id for m in admins] == [owner.id, admin.id, api.bot.id]
    await bot.set_my_commands([("newgame", "New game")], language_code="ru")
    assert await bot.get_my_commands() == ()
    assert [c.command for c in await bot.get_my_commands(language_code="ru")] == ["newgame"]


async def test_send_photo_upload(bot: Bot, api: FakeBotApi) -> None:
    alice = api.add_user("Alice")
    png = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + (64).to_bytes(4, "big") * 2 + b"..."
    sent = await bot.send_photo(alice.id, png, caption="<i>table</i>", parse_mode="HTML")
    assert sent.photo[-1].width == 64 and sent.caption == "table"
    again = await bot.send_photo(alice.id, sent.photo[-1].file_id)
    assert again.photo[-1].file_id == sent.photo[-1].file_id
    file = await bot.get_file(sent.photo[-1].file_id)
    assert bytes(await file.download_as_bytearray()) == png


async def test_unknown_method_is_404(api: FakeBotApi) -> None:
    status, body = await api.handle("sendTeleportation", {})
    assert status == 404
    assert body == {"ok": False, "error_code": 404, "description": "Not Found: method not found"}
    status, body = await api.handle("GETME", {})
    assert status == 200 and body["result"]["username"] == "cardroom_bot"


# ------------------------------------------------------------------------------------------
# Limits and faults


async def test_group_flood_limit_and_release(
    bot: Bot, api: FakeBotApi, clock: ManualClock
) -> None:
    api.flood_limits_enabled = True
    group = api.add_group("Table")
    for i in range(20):
        await bot.send_message(group.id, f"message {i}")
        clock.advance(0.5)
    with pytest.raises(RetryAfter) as caught:
        await bot.send_message(group.id, "one too many")
    assert retry_after_of(caught.value) == 50  # sent at t=10; the first send leaves at t=60
    assert api.stats.too_many_requests == 1 and api.stats.flood_limited == 1
    clock.advance(49)
    with pytest.raises(RetryAfter):
        await bot.send_message(group.id, "still too early")
    clock.advance(1)
    await bot.send_message(group.id, "allowed again")
    api.flood_limits_enabled = False
    for _ in range(30):
        await bot.send_message(group.id, "unlimited")


async def test_private_and_global_flood_limits(
    bot: Bot, api: FakeBotApi, clock: ManualClock
) -> None:
    api.flood_limits_enabled = True
    alice = api.add_user("Alice")
    await bot.send_message(alice.id, "first")
    clock.advance(0.5)  # a strict window: no burst, however short
    with pytest.raises(RetryAfter) as caught:
        await bot.send_message(alice.id, "too fast")
    assert retry_after_of(caught.value) == 1
    clock.advance(0.5)
    await bot.send_message(alice.id, "ok")
    users = [api.add_user(f"U{i}") for i in range(31)]
    clock.advance(5)
    for user in users[:29]:  # 29 + "ok" one second ago is outside the window again
        await bot.send_message(user.id, "hi")
    await bot.send_message(users[29].id, "hi")
    with pytest.raises(RetryAfter):
        await bot.send_message(users[30].id, "hi")


async def test_injected_errors_and_retry_after(bot: Bot, api: FakeBotApi) -> None:
    alice = api.add_user("Alice")
    api.fail_next(
        "sendMessage", 429, "Too Many Requests: retry after 7", retry_after=7, chat_id=alice.id
    )
    with pytest.raises(RetryAfter) as caught:
        await bot.send_message(alice.id, "hi")
    assert retry_after_of(caught.value) == 7
    assert api.stats.too_many_requests == 1
    assert api.messages(alice) == []
    await bot.send_message(alice.id, "hi")
    api.fail_next("editMessageText", 400, "Bad Request: message can't be edited", times=2)
    for _ in range(2):
        with pytest.raises(BadRequest, match="Message can't be edited"):
            await bot.edit_message_text("x", alice.id, 1)
    await bot.edit_message_text("x", alice.id, 1)


async def test_network_errors(bot: Bot, api: FakeBotApi) -> None:
    alice = api.add_user("Alice")
    api.network_error_next("sendMessage")
    with pytest.raises(NetworkError):
        await bot.send_message(alice.id, "lost")
    assert api.messages(alice) == []
    api.network_error_next("sendMessage", timeout=True, processed=True)
    with pytest.raises(TimedOut):
        await bot.send_message(alice.id, "sent but the answer was lost")
    assert [m.text for m in api.messages(alice)] == ["sent but the answer was lost"]


async def test_callback_answer_timeout(api: FakeBotApi, clock: ManualClock, bot: Bot) -> None:
    api.callback_answer_timeout = 15
    alice = api.add_user("Alice")
    sent = await bot.send_message(alice.id, "x", reply_markup=keyboard([("A", "a")]))
    callback = await api.press(alice, api.message(alice, sent.message_id), "A")
    clock.advance(16)
    with pytest.raises(BadRequest, match="Query is too old"):
        await bot.answer_callback_query(callback.id)


# ------------------------------------------------------------------------------------------
# Real HTTP


async def test_http_server_round_trip_with_base_url(api: FakeBotApi) -> None:
    alice = api.add_user("Alice")
    async with FakeBotApiServer(api) as server:
        assert server.base_url.startswith("http://127.0.0.1:")
        async with Bot(api.token, base_url=server.base_url) as bot:
            assert bot.username == "cardroom_bot"
            sent = await bot.send_message(
                alice.id, "<b>hand</b>", parse_mode="HTML", reply_markup=keyboard([("A", "a")])
            )
            assert sent.text == "hand" and sent.reply_markup == keyboard([("A", "a")])
            photo = await bot.send_photo(alice.id, b"not-really-a-jpeg", caption="multipart")
            assert photo.caption == "multipart"
            with pytest.raises(BadRequest, match="not modified"):
                await bot.edit_message_text(
                    "<b>hand</b>",
                    alice.id,
                    sent.message_id,
                    parse_mode="HTML",
                    reply_markup=keyboard([("A", "a")]),
                )
            poll = asyncio.create_task(bot.get_updates(timeout=5))
            await asyncio.sleep(0.05)
            callback = await api.press(alice, api.message(alice, sent.message_id), "A")
            updates = await asyncio.wait_for(poll, 2)
            assert updates[0].callback_query is not None
            assert updates[0].callback_query.data == "a"
            await bot.answer_callback_query(callback.id, text="ok")
            assert callback.answered
            api.network_error_next("sendMessage")
            with pytest.raises(NetworkError):
                await bot.send_message(alice.id, "the connection drops")
            assert len(api.messages(alice)) == 2
            # Stopping the server aborts a long poll in progress: the client sees a network error.
            pending = asyncio.create_task(
                bot.get_updates(offset=updates[0].update_id + 1, timeout=5)
            )
            await asyncio.sleep(0.05)
            await asyncio.wait_for(server.stop(), 2)
            with pytest.raises(NetworkError):
                await asyncio.wait_for(pending, 2)


async def test_http_server_rejects_a_wrong_token(api: FakeBotApi) -> None:
    async with FakeBotApiServer(api) as server:
        with pytest.raises(InvalidToken):  # Bot.initialize() calls getMe
            async with Bot("123456789:wrong-token", base_url=server.base_url):
                pass


# ------------------------------------------------------------------------------------------
# With the real Application


async def test_real_application_with_settle(api: FakeBotApi) -> None:
    async def start(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        assert update.effective_chat is not None
        await context.bot.send_message(
            update.effective_chat.id,
            "Lobby: <b>1</b> player",
            parse_mode="HTML",
            reply_markup=keyboard([("Join", "lobby:join")]),
        )

    async def join(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        query = update.callback_query
        assert query is not None and query.message is not None
        await query.answer("Joined!")
        await query.edit_message_text(
            "Lobby: <b>2</b> players",
            parse_mode="HTML",
            reply_markup=keyboard([("Join", "lobby:join")]),
        )

    async def echo(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        assert update.effective_message is not None
        await update.effective_message.reply_text(f"echo: {update.effective_message.text}")

    app = (
        Application.builder()
        .token(api.token)
        .request(FakeRequest(api))
        .get_updates_request(FakeRequest(api))
        .build()
    )
    app.add_handler(CommandHandler("newgame", start))
    app.add_handler(CallbackQueryHandler(join, pattern="^lobby:"))
    app.add_handler(MessageHandler(filters.TEXT & ~filters.COMMAND, echo))

    alice, bob = api.add_user("Alice"), api.add_user("Bob")
    group = api.add_group("Table", admins=[alice])
    async with app:
        await app.start()
        assert app.updater is not None
        await app.updater.start_polling(poll_interval=0, timeout=dtm.timedelta(seconds=2))
        await api.send_text(alice, group, "/newgame")
        await api.settle()
        lobby = api.last_message(group)
        assert lobby is not None and lobby.text == "Lobby: 1 player"
        callback = await api.press(bob, lobby, "Join")
        await api.send_text(bob, None, "hi bot")
        await api.settle()
        assert callback.answered and callback.text == "Joined!"
        assert lobby.text == "Lobby: 2 players" and lobby.edited
        answer = api.last_message(bob)
        assert answer is not None and answer.text == "echo: hi bot"
        await app.updater.stop()
        await app.stop()
    assert api.pending_updates == 0
    transcript = render_chat(api, group)
    assert transcript == "\n".join(
        [
            "[1] Alice: /newgame",
            "[2] (edited) Lobby: 2 players",
            "  [Join]",
        ]
    )


# ------------------------------------------------------------------------------------------
# More of Telegram's behaviour


async def test_a_second_poller_terminates_the_first(bot: Bot, api: FakeBotApi) -> None:
    first = asyncio.create_task(bot.get_updates(timeout=5))
    await asyncio.sleep(0.02)
    second = asyncio.create_task(bot.get_updates(timeout=0))
    with pytest.raises(Conflict, match="terminated by other getUpdates request"):
        await asyncio.wait_for(first, 1)
    assert await second == ()


async def test_settle_times_out_when_nobody_fetches_updates(api: FakeBotApi) -> None:
    alice = api.add_user("Alice")
    await api.send_text(alice, None, "/start")
    assert api.pending_updates == 1
    with pytest.raises(TimeoutError, match="1 update"):
        await api.settle(timeout=0.1)


async def test_kicked_and_migrated_groups(bot: Bot, api: FakeBotApi) -> None:
    group = api.add_group("Old", supergroup=False)
    supergroup = api.migrate_group(group)
    with pytest.raises(ChatMigrated) as caught:
        await bot.send_message(group.id, "hi")
    assert caught.value.new_chat_id == supergroup.id
    await bot.send_message(supergroup.id, "hi")
    await api.kick_bot(supergroup)
    with pytest.raises(Forbidden, match="bot was kicked from the supergroup chat"):
        await bot.send_message(supergroup.id, "hi")


async def test_stale_keyboards_and_forged_presses(bot: Bot, api: FakeBotApi) -> None:
    alice = api.add_user("Alice")
    sent = await bot.send_message(alice.id, "Turn", reply_markup=keyboard([("Fold", "g:1:f")]))
    await bot.edit_message_text("Turn over", alice.id, sent.message_id)
    with pytest.raises(LookupError, match="no button 'Fold'"):
        await api.press(alice, sent, "Fold")  # a telegram.Message works as a reference too
    forged = await api.press_data(alice, alice, sent.message_id, "g:1:f")
    update = (await bot.get_updates(timeout=0))[-1]
    assert update.callback_query is not None
    assert update.callback_query.id == forged.id and update.callback_query.data == "g:1:f"


async def test_http_accepts_json_form_and_query_parameters(api: FakeBotApi) -> None:
    alice = api.add_user("Alice")
    async with FakeBotApiServer(api) as server, httpx.AsyncClient() as client:
        url = f"{server.base_url}{api.token}"
        markup = {"inline_keyboard": [[{"text": "A", "callback_data": "a"}]]}
        response = await client.post(
            f"{url}/sendMessage",
            json={"chat_id": alice.id, "text": "json", "reply_markup": markup},
        )
        assert response.status_code == 200
        assert response.json()["result"]["reply_markup"] == markup
        response = await client.post(
            f"{url}/SENDMESSAGE",
            data={"chat_id": str(alice.id), "text": "form", "reply_markup": json.dumps(markup)},
        )
        assert response.json()["result"]["text"] == "form"
        response = await client.get(f"{url}/getChat", params={"chat_id": alice.id})
        assert response.json()["result"]["first_name"] == "Alice"
        response = await client.post(f"{url}/editMessageText", json={"chat_id": alice.id})
        assert response.status_code == 400
        assert response.json() == {
            "ok": False,
            "error_code": 400,
            "description": "Bad Request: message text is empty",
        }
        response = await client.post(f"{url}/noSuchMethod")
        assert response.status_code == 404
        response = await client.post(f"{server.base_url}123:bad/getMe")
        assert response.status_code == 401
        assert response.json()["description"] == "Unauthorized"
    assert [m.text for m in api.messages(alice)] == ["json", "form"]


def test_formatting_follows_telegram() -> None:
    formatted = format_text("  😀 <b>Bold</b> <i>it</i> &lt;tag&gt;  ", "HTML")
    assert formatted.text == "😀 Bold it <tag>"
    assert formatted.entities == (
        {"type": "bold", "offset": 3, "length": 4},  # the emoji counts 2 UTF-16 units
        {"type": "italic", "offset": 8, "length": 2},
    )
    # A bare "&" is text; runs of text with and without emoji keep their UTF-16 offsets.
    mixed = format_text("R&D 🂡 & co <b>Ὀδυσσεύς</b> 🃏x <i>y</i>", "HTML")
    assert mixed.text == "R&D 🂡 & co Ὀδυσσεύς 🃏x y"
    assert mixed.entities == (
        {"type": "bold", "offset": 12, "length": 8},
        {"type": "italic", "offset": 25, "length": 1},
    )
    assert format_text("*b* _i_ \\. `c.d`", "MarkdownV2").text == "b i . c.d"
    with pytest.raises(EntityParseError, match=r"Can't find end of Bold entity at byte offset 0"):
        format_text("*open", "MarkdownV2")
    with pytest.raises(
        EntityParseError, match=r'Unmatched end tag at byte offset 4, expected "</b>"'
    ):
        format_text("<b>x</i>", "HTML")


async def test_transcript_renders_what_players_see(bot: Bot, api: FakeBotApi) -> None:
    alice = api.add_user("Alice", last_name="Smith")
    forum = api.add_group("Casino", forum=True, admins=[alice])
    topic = api.add_topic(forum, "Poker")
    await api.send_text(alice, forum, "/newgame", thread_id=topic)
    sent = await bot.send_message(
        forum.id,
        "<b>Table</b>\nPot: 10 &amp; rising",
        parse_mode="HTML",
        message_thread_id=topic.thread_id,
        reply_markup=keyboard([("Call", "c"), ("Fold", "f")], [("Leave", "l")]),
    )
    gone = await bot.send_message(forum.id, "temporary", message_thread_id=topic.thread_id)
    await bot.delete_message(forum.id, gone.message_id)
    await bot.edit_message_reply_markup(
        forum.id, sent.message_id, reply_markup=keyboard([("Fold", "f")])
    )
    assert render_chat(api, forum, thread_id=topic) == "\n".join(
        [
            "[1] (topic created: Poker)",
            "[2] Alice Smith: /newgame",
            "[3] (edited) Table",
            "    Pot: 10 & rising",
            "  [Fold]",
        ]
    )
    assert render_chat(api, forum).splitlines()[1] == "[2 in Poker] Alice Smith: /newgame"
    assert "== Casino" in render_all(api)
