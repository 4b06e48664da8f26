"""``/nextgame``: a member who missed a lobby asks for a private message when the next one
opens in the group (or its forum topic) — and gets exactly one, with a link to it."""

from __future__ import annotations

from tests.e2e.harness import Harness
from tests.e2e.test_authority import a_finished_duel
from tests.e2e.test_commands import say
from tests.e2e.test_rank_game import press
from tests.e2e.test_trumps_game import table
from tests.fakes import FakeChat, FakeMessage, FakeUser

JOIN_HERE = "🔔 A new game of Rank is open in «Card club» — join here:"
ON_THE_LIST = "🔔 Boris, I will write to you privately when the next game opens here."


def news(h: Harness, user: FakeUser) -> list[FakeMessage]:
    """The messages in his private chat that a new game is open."""
    return [m for m in h.api.bot_messages(user) if "A new game of" in (m.text or "")]


def link_to(group: FakeChat, message: FakeMessage) -> str:
    return f"https://t.me/c/{str(group.id).removeprefix('-100')}/{message.message_id}"


async def started(h: Harness, *people: FakeUser) -> None:
    for user in people:
        await say(h, user, None, "/start")


async def test_who_asked_is_told_once_with_a_link_and_the_opener_not_at_all(
    harness: Harness,
) -> None:
    h, api = harness, harness.api
    anna, boris = api.add_user("Anna"), api.add_user("Boris")
    group = api.add_group("Card club", admins=[anna], members=[boris])
    await started(h, anna, boris)
    assert await say(h, boris, group, "/nextgame") == ON_THE_LIST
    await say(h, anna, group, "/nextgame")
    await say(h, anna, group, "/new rank")
    lobby = h.table(group)
    (told,) = news(h, boris)
    assert told.text == JOIN_HERE
    assert api.buttons(told) == [[("🎴 Go to the game", link_to(group, lobby))]]
    assert news(h, anna) == [], "who opened the game knows of it"

    # The request is used up: the next lobby here tells nobody.
    await say(h, anna, group, "/cancel")
    await say(h, boris, group, "/new rank")
    await h.settle()
    assert len(news(h, boris)) == 1 and news(h, anna) == []


async def test_a_member_who_never_started_the_bot_is_told_to_and_then_hears(
    harness: Harness,
) -> None:
    h, api = harness, harness.api
    anna, carla = api.add_user("Anna"), api.add_user("Carla", started=False)
    group = api.add_group("Card club", admins=[anna], members=[carla])
    said = await say(h, carla, group, "/nextgame")
    assert said.startswith("🔔 Carla, I will tell you when the next game opens here — but I can")
    assert "press Start" in said
    reply = api.bot_messages(group)[-1]
    ((label, url),) = [button for row in api.buttons(reply) for button in row]
    assert (label, url) == ("💬 Open a private chat with me", "https://t.me/cardroom_bot")
    await api.open_link(carla, url)
    await api.wait_until(lambda: len(api.bot_messages(carla)) > 0)
    await h.settle()

    await say(h, anna, group, "/new rank")
    (told,) = news(h, carla)
    assert told.text == "🔔 A new game of Rank is open in «Card club» — join here:"


async def test_a_request_in_a_forum_topic_waits_for_a_game_in_that_topic(
    harness: Harness,
) -> None:
    h, api = harness, harness.api
    anna, boris = api.add_user("Anna"), api.add_user("Boris")
    group = api.add_group("Card club", forum=True, admins=[anna], members=[boris])
    cards, chess = api.add_topic(group, "Cards"), api.add_topic(group, "Chess")
    await started(h, boris)
    await api.send_text(boris, group, "/nextgame", thread_id=cards)
    await api.wait_until(lambda: bool(api.bot_messages(group, cards)))
    await h.settle()
    assert api.bot_messages(group, cards)[-1].text == ON_THE_LIST

    await api.send_text(anna, group, "/new rank", thread_id=chess)
    await api.wait_until(lambda: bool(api.bot_messages(group, chess)))
    await h.settle()
    assert news(h, boris) == [], "a game in another topic is not the one he waits for"

    await api.send_text(anna, group, "/new rank", thread_id=cards)
    await api.wait_until(lambda: len(api.bot_messages(group, cards)) > 1)
    await h.settle()
    (told,) = news(h, boris)
    lobby = api.bot_messages(group, cards)[-1]
    assert lobby.text.startswith("🎴")
    assert api.buttons(told) == [[("🎴 Go to the game", link_to(group, lobby))]]


async def test_a_basic_group_gets_the_words_without_a_link(harness: Harness) -> None:
    h, api = harness, harness.api
    anna, boris = api.add_user("Anna"), api.add_user("Boris", language_code="ru")
    group = api.add_group("Card club", supergroup=False, admins=[anna], members=[boris])
    await started(h, boris)
    await say(h, boris, group, "/nextgame")
    await say(h, anna, group, "/new rank")
    # In his own language.
    (told,) = [m for m in api.bot_messages(boris) if "открыта новая игра" in (m.text or "")]
    assert told.text == "🔔 В «Card club» открыта новая игра: Ранг — присоединяйся там."
    assert api.buttons(told) == []


async def test_while_a_lobby_is_open_the_asker_is_pointed_to_it_and_nothing_is_kept(
    harness: Harness,
) -> None:
    h, api = harness, harness.api
    anna, boris = api.add_user("Anna"), api.add_user("Boris")
    group = api.add_group("Card club", admins=[anna], members=[boris])
    await started(h, anna, boris)
    await say(h, anna, group, "/new rank")
    lobby = h.table(group)
    said = await say(h, boris, group, "/nextgame")
    assert said == "A game is open here right now — join it with its button!"
    assert api.bot_messages(group)[-1].reply_to is lobby
    await say(h, anna, group, "/cancel")
    await say(h, anna, group, "/new rank")
    assert news(h, boris) == []
    # In a private chat there is no "next game here" to wait for.
    assert "Send /nextgame in a group" in await say(h, boris, None, "/nextgame")


async def test_a_rematch_lobby_tells_who_waits_for_the_next_game(harness: Harness) -> None:
    h, api = harness, harness.api
    anna, boris, group = await a_finished_duel(h)
    clara = api.add_user("Clara")
    api.join_group(clara, group)
    await started(h, clara)
    await say(h, clara, group, "/nextgame")
    await press(h, anna, table(h, group), "🔄 Rematch")
    (told,) = news(h, clara)
    assert told.text == "🔔 A new game of Your Trumps is open in «Card club» — join here:"
    assert api.buttons(told) == [[("🎴 Go to the game", link_to(group, table(h, group)))]]
    assert news(h, anna) == [] and news(h, boris) == []


async def test_games_are_numbered_in_each_chat(harness: Harness) -> None:
    h, api = harness, harness.api
    anna, boris = api.add_user("Anna"), api.add_user("Boris")
    club = api.add_group("Card club", admins=[anna])
    den = api.add_group("Den", admins=[boris])

    async def deal(user: FakeUser, group: FakeChat) -> str:
        """A game against the computer, dealt: its table's first line."""
        await say(h, user, group, "/new rank")
        await press(h, user, h.table(group), "🤖 Add computer")
        await press(h, user, h.table(group), "▶️ Start")
        return h.table(group).text.splitlines()[0]

    assert await deal(anna, club) == "🎴 Rank · game 1"
    await say(h, anna, club, "/cancel")
    assert await deal(anna, club) == "🎴 Rank · game 2"
    # The bot's third game, the den's first.
    assert await deal(boris, den) == "🎴 Rank · game 1"
    panel = h.panel(boris)
    assert panel is not None and "Rank · game 1" in panel.text


async def test_the_command_is_in_the_groups_menu_in_every_language(harness: Harness) -> None:
    menus = {
        (call["scope"]["type"], call.get("language_code")): {
            c["command"]: c["description"] for c in call["commands"]
        }
        for call in harness.api.calls_of("setMyCommands")
    }
    assert menus["all_group_chats", None]["nextgame"] == "Tell me when the next game opens here"
    assert menus["all_group_chats", "ru"]["nextgame"] == "Сообщить, когда здесь откроется игра"
    assert "nextgame" not in menus["all_private_chats", None], "a private chat has no next game"
