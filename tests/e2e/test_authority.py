"""Authority, tried as a hostile member would: a modified client sends any callback data for
any message it can see, and game ids are sequential. Nobody acts outside his chat."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from dataclasses import dataclass

import pytest

from bot.telegram.handlers import Cardroom
from tests.e2e.harness import Harness
from tests.e2e.test_absent_players import two_player_game
from tests.e2e.test_commands import say
from tests.e2e.test_rank_game import press
from tests.e2e.test_trumps_game import action_buttons, panel, play_to_the_end, table
from tests.fakes import FakeBotApi, FakeCallback, FakeChat, FakeMessage, FakeUser

FOREIGN = "This button does not belong here: nothing was changed."
OUTDATED = "This message is out of date — use the newest one."
NOT_MEMBER = "Only members of the group can play in its games: join the group first."
NOT_A_PLAYER = "You are not playing in this game."
BAD_BUTTON = "This button does not work any more."
HOST_ONLY = "Only the player who opened the game or a chat admin can do that."
LOBBY_OPS = ("join", "leave", "bot", "unbot", "start", "cancel", "o.turn_seconds", "back")


def room(h: Harness) -> Cardroom:
    assert h.app is not None
    found: Cardroom = h.app.bot_data["cardroom"]
    return found


async def forge(h: Harness, user: FakeUser, message: FakeMessage, data: str) -> FakeCallback:
    """A press with data of the attacker's choosing, on a message he can see."""
    callback = await h.api.press_data(user, message.chat, message.message_id, data)
    await h.api.wait_until(lambda: callback.answered, timeout=10)
    await h.settle()
    return callback


@dataclass
class TwoGroups:
    anna: FakeUser
    boris: FakeUser
    mallory: FakeUser
    club: FakeChat
    den: FakeChat


async def two_groups(h: Harness, game: str = "rank") -> TwoGroups:
    """Anna's club, where she opens a lobby Boris joins; Mallory's den, where she is admin
    and opens one of her own (her table there carries her forged presses)."""
    api = h.api
    anna, boris, mallory = api.add_user("Anna"), api.add_user("Boris"), api.add_user("Mallory")
    club = api.add_group("Card club", admins=[anna], members=[boris])
    den = api.add_group("Den", admins=[mallory])
    await say(h, anna, club, f"/new {game}")
    await press(h, boris, h.table(club), "✋ Join")
    await say(h, mallory, den, f"/new {game}")
    return TwoGroups(anna, boris, mallory, club, den)


async def game_id_in(h: Harness, chat: FakeChat) -> int:
    snapshot = await room(h).play.snapshot_in_topic(chat.id, 0)
    assert snapshot is not None
    return snapshot.game_id


async def test_an_admin_of_another_group_cannot_touch_a_lobby(harness: Harness) -> None:
    h = harness
    g = await two_groups(h)
    target = await game_id_in(h, g.club)
    lobby = h.table(g.club)
    before = (lobby.text, len(lobby.history), h.api.buttons(lobby))
    den_table = h.table(g.den)
    for op in LOBBY_OPS:
        answer = await forge(h, g.mallory, den_table, f"L:{target}:{op}")
        # "back" is a panel's button: she has no seat, let alone a panel.
        assert answer.text == (NOT_A_PLAYER if op == "back" else FOREIGN), op
    # Even the club's own admin cannot run it from another chat's message.
    h.api.join_group(g.anna, g.den)
    answer = await forge(h, g.anna, den_table, f"L:{target}:start")
    assert answer.text == FOREIGN
    # Nor from her private chat.
    await say(h, g.mallory, None, "/help")
    answer = await forge(h, g.mallory, h.api.bot_messages(g.mallory)[-1], f"L:{target}:cancel")
    assert answer.text == FOREIGN
    assert (lobby.text, len(lobby.history), h.api.buttons(lobby)) == before
    snapshot = await room(h).play.snapshot(target)
    assert snapshot.is_lobby and [s.name for s in snapshot.seats] == ["Anna", "Boris"]
    assert h.api.unanswered_callbacks() == []


async def test_sequential_ids_reach_no_other_groups_lobby(harness: Harness) -> None:
    h = harness
    g = await two_groups(h)
    target, own = await game_id_in(h, g.club), await game_id_in(h, g.den)
    den_table = h.table(g.den)
    for game_id in range(1, max(target, own) + 3):
        for op in ("join", "cancel", "start"):
            answer = await forge(h, g.mallory, den_table, f"L:{game_id}:{op}")
            if game_id != own:
                assert answer.text in (FOREIGN, "This game no longer exists."), (game_id, op)
    snapshot = await room(h).play.snapshot(target)
    assert snapshot.is_lobby and [s.name for s in snapshot.seats] == ["Anna", "Boris"]


async def test_a_running_game_is_played_and_ended_only_from_its_own_messages(
    harness: Harness,
) -> None:
    h = harness
    g = await two_groups(h, "trumps")
    await press(h, g.anna, h.table(g.club), "▶️ Start")
    target = await game_id_in(h, g.club)
    version = (await room(h).play.snapshot(target)).version
    den_table = h.table(g.den)
    for data in (f"L:{target}:cancel", f"R:{target}"):
        assert (await forge(h, g.mallory, den_table, data)).text == FOREIGN, data
    assert (await forge(h, g.mallory, den_table, f"L:{target}:back")).text == NOT_A_PLAYER
    # A player's move, from any message but his own panel, is refused too.
    mover = g.anna if action_buttons(h, g.anna) else g.boris
    mine = panel(h, mover)
    assert mine is not None
    label, data = next(b for row in h.api.buttons(mine) for b in row if b[1].startswith("A:"))
    h.api.join_group(mover, g.den)
    assert (await forge(h, mover, den_table, data)).text == FOREIGN
    assert (await forge(h, mover, h.table(g.club), data)).text == FOREIGN
    assert (await room(h).play.snapshot(target)).version == version
    # The same data on his own panel is the move.
    await press(h, mover, mine, label)
    assert (await room(h).play.snapshot(target)).version == version + 1


async def test_an_old_message_cannot_name_a_newer_game(harness: Harness) -> None:
    h, api = harness, harness.api
    anna, boris = api.add_user("Anna"), api.add_user("Boris")
    group = api.add_group("Card club", admins=[anna], members=[boris])
    await say(h, anna, group, "/new rank")
    first = h.table(group)
    await say(h, anna, group, "/cancel")
    await say(h, anna, group, "/new rank")
    second = await game_id_in(h, group)
    assert h.table(group).message_id != first.message_id
    for op in ("start", "cancel", "bot"):
        assert (await forge(h, anna, first, f"L:{second}:{op}")).text == OUTDATED
    snapshot = await room(h).play.snapshot(second)
    assert snapshot.is_lobby and [s.name for s in snapshot.seats] == ["Anna"]


async def test_only_members_join_even_in_a_public_group_or_with_a_passed_on_link(
    harness: Harness,
) -> None:
    h, api = harness, harness.api
    anna, carla = api.add_user("Anna"), api.add_user("Carla", started=False)
    eve = api.add_user("Eve", started=False)
    # A public group: anyone may look at it and press its buttons without joining.
    group = api.add_group("Open club", admins=[anna], members=[carla], username="openclub")
    await say(h, anna, group, "/new rank")
    lobby = h.table(group)
    assert (await press(h, eve, lobby, "✋ Join")).text == NOT_MEMBER
    link = (await press(h, carla, lobby, "✋ Join")).url
    assert link is not None
    # Carla's link, followed by Eve, seats nobody.
    await api.open_link(eve, link)
    await api.wait_until(lambda: NOT_MEMBER in (api.last_message(eve).text or ""))
    await h.settle()
    assert "Eve" not in h.table(group).text
    await api.open_link(carla, link)
    await api.wait_until(lambda: "2. Carla" in h.table(group).text)


async def a_finished_duel(h: Harness) -> tuple[FakeUser, FakeUser, FakeChat]:
    """Anna and Boris have played a game of Your Trumps to its end."""
    anna, boris = h.api.add_user("Anna"), h.api.add_user("Boris")
    group = h.api.add_group("Card club", admins=[anna], members=[boris])
    await say(h, anna, group, "/new trumps")
    await press(h, boris, table(h, group), "✋ Join")
    await press(h, anna, table(h, group), "▶️ Start")
    await play_to_the_end(h, group, [anna, boris])
    return anna, boris, group


ALREADY_IN, STARTED = "You are already in this game.", "The game is on!"


async def test_a_rematch_deals_in_only_those_who_confirm(harness: Harness) -> None:
    h, api = harness, harness.api
    anna, boris, group = await a_finished_duel(h)
    final = table(h, group)
    boris_messages = len(api.bot_messages(boris))
    (rematch,) = [data for row in api.buttons(final) for text, data in row if "Rematch" in text]

    async def press_old_rematch(user: FakeUser) -> FakeCallback:
        """The Rematch button as a client that still shows it sends it."""
        callback = await api.press_data(user, group, final.message_id, rematch)
        await api.wait_until(lambda: callback.answered)
        await h.settle()
        return callback

    answer = await press(h, anna, final, "🔄 Rematch")
    assert answer.text == "Rematch! The others confirm with ✋ Join."
    lobby = table(h, group)
    assert lobby.message_id != final.message_id
    assert "rematch" in lobby.text and "1. Anna" in lobby.text
    assert "Waiting for Boris to confirm" in lobby.text
    assert len(api.bot_messages(boris)) == boris_messages, "no hand dealt to Boris unasked"
    assert api.buttons(final) == [], "the old table's Rematch button has done its work"
    # Pressing Rematch again (a client still showing it) deals nobody either: she is in.
    again = await press_old_rematch(anna)
    assert again.text == ALREADY_IN

    # Boris presses the old Rematch, not the lobby's Join: it does what he means.
    confirmed = await press_old_rematch(boris)
    assert confirmed.text == STARTED
    dealt = table(h, group)
    assert "deals and chooses" in dealt.text, "the last confirmation deals"
    assert "Series:" in dealt.text
    await say(h, anna, group, "/cancel")
    # The finished game's Rematch button has done its work.
    used = await press_old_rematch(boris)
    assert used.text == "This game has had its rematch — use the newest table."


async def test_unconfirmed_rematch_invitations_lapse(harness: Harness) -> None:
    h = harness
    anna, _boris, group = await a_finished_duel(h)
    await press(h, anna, table(h, group), "🔄 Rematch")
    lobby = table(h, group)
    # While Boris's invitation stands, his seat is kept for him.
    full = await press(h, anna, lobby, "🤖 Add computer")
    assert full.text == "The game is full (2 players)."
    await h.tick(61)
    assert "Waiting for Boris" not in table(h, group).text
    await press(h, anna, lobby, "🤖 Add computer")
    await press(h, anna, lobby, "▶️ Start")
    text = table(h, group).text
    assert "Anna" in text and "Boris" not in text
    assert "Series:" not in text, "another table starts another series"


async def test_unblocking_brings_the_seat_back_within_reach(harness: Harness) -> None:
    h, api = harness, harness.api
    _anna, boris, group = await two_player_game(h)
    old_panel = h.panel(boris)
    assert old_panel is not None

    await api.block_bot(boris)
    await api.wait_until(lambda: "Boris 🚪" in h.table(group).text)
    await api.send_text(boris, None, "/start")  # he unblocks the bot
    await api.wait_until(lambda: h.panel(boris) is not old_panel)
    await h.settle()
    panel = h.panel(boris)
    assert panel is not None and panel.message_id > old_panel.message_id
    assert [b for b, _ in h.panel_buttons(boris)] == ["🙋 Take my seat back"]
    assert old_panel.deleted, "the old panel is retired"
    answer = await press(h, boris, panel, "🙋 Take my seat back")
    assert answer.text == "Welcome back! You play again from your next move."
    assert "🚪" not in h.table(group).text and "💤" not in h.table(group).text


async def test_an_idle_lobby_closes_and_frees_the_chat(harness: Harness) -> None:
    h, api = harness, harness.api
    anna = api.add_user("Anna")
    group = api.add_group("Card club", admins=[anna])
    await say(h, anna, group, "/new rank")
    lobby = h.table(group)
    assert "The lobby closes after 30 minutes without a press." in lobby.text
    await h.tick(29 * 60)
    await press(h, anna, lobby, "🤖 Add computer")  # a press: the half hour starts again
    await h.tick(29 * 60)
    assert "a new game" in h.table(group).text
    await h.tick(2 * 60)
    assert "Nobody started it for 30 minutes, so the lobby closed." in lobby.text
    assert api.buttons(lobby) == []
    assert "Rank — a new game" in await say(h, anna, group, "/new rank")


async def test_an_anonymous_admins_lobby_is_hosted_by_the_admins(harness: Harness) -> None:
    h, api = harness, harness.api
    anna, vera, boris = api.add_user("Anna"), api.add_user("Vera"), api.add_user("Boris")
    group = api.add_group("Card club", admins=[anna, vera], members=[boris])
    await api.send_as_group(anna, group, "/new rank")
    # (The /new itself is "from a bot": Telegram's anonymous admin.) Wait for the lobby.
    await api.wait_until(lambda: any(m.text.startswith("🎴") for m in api.bot_messages(group)))
    await h.settle()
    lobby = h.table(group)
    assert "Hosted by the chat's admins." in lobby.text and "Nobody yet" in lobby.text
    snapshot = await room(h).play.snapshot(await game_id_in(h, group))
    assert snapshot.creator_id is None, "Telegram's shared account owns nothing"
    await press(h, boris, lobby, "✋ Join")
    assert (await press(h, boris, lobby, "▶️ Start")).text == HOST_ONLY
    await press(h, vera, lobby, "✋ Join")
    await press(h, anna, lobby, "▶️ Start")  # any admin, as himself
    assert "deals" in h.table(group).text or "To move" in h.table(group).text
    # An anonymous admin's /cancel speaks for the admins too.
    await api.send_as_group(vera, group, "/cancel")
    await api.wait_until(lambda: "was cancelled" in h.table(group).text)


async def test_telegram_not_answering_about_an_admin_means_try_again(harness: Harness) -> None:
    h, api = harness, harness.api
    anna, vera = api.add_user("Anna"), api.add_user("Vera")
    group = api.add_group("Card club", admins=[anna, vera])
    await say(h, anna, group, "/new rank")
    await press(h, anna, h.table(group), "🤖 Add computer")
    api.fail_next("getChatMember", 502, "Bad Gateway")
    answer = await press(h, vera, h.table(group), "▶️ Start")
    assert answer.text == "Telegram could not tell me who may do that — try again in a moment."
    assert "a new game" in h.table(group).text
    await press(h, vera, h.table(group), "▶️ Start")
    assert "a new game" not in h.table(group).text


async def test_a_member_who_leaves_the_group_leaves_its_games(harness: Harness) -> None:
    h, api = harness, harness.api
    anna, boris, carla = api.add_user("Anna"), api.add_user("Boris"), api.add_user("Carla")
    group = api.add_group("Card club", admins=[anna], members=[boris, carla])
    await say(h, anna, group, "/new rank")
    await press(h, boris, h.table(group), "✋ Join")
    await press(h, carla, h.table(group), "✋ Join")
    await api.leave_group(carla, group)
    await api.wait_until(lambda: "Carla" not in h.table(group).text)
    await press(h, anna, h.table(group), "▶️ Start")
    await api.leave_group(boris, group)
    await api.wait_until(lambda: "Boris 🚪" in h.table(group).text)
    await h.settle()
    panel = h.panel(boris)
    assert panel is not None
    refused = await press(h, boris, panel, "🙋 Take my seat back")
    assert refused.text == NOT_MEMBER
    assert "Boris 🚪" in h.table(group).text


@pytest.fixture
async def any_backend(database_url: str) -> AsyncIterator[Harness]:
    """The bot on the test database: PostgreSQL when ``TEST_DATABASE_URL`` says so."""
    harness = Harness(FakeBotApi(flood_limits=False), database_url)
    await harness.start()
    yield harness
    await harness.stop()


async def test_numbers_past_what_the_storage_holds_are_refused_before_any_query(
    any_backend: Harness,
) -> None:
    h, api = any_backend, any_backend.api
    anna = api.add_user("Anna")
    group = api.add_group("Card club", admins=[anna])
    await say(h, anna, group, "/new rank")
    lobby = h.table(group)
    for data in (
        "L:2147483648:join",
        "L:99999999999:cancel",
        "A:2147483648:1:d",
        "A:1:2147483648:d",
        "U:2147483648:1:joker",
        "R:4294967296",
        "Y:2147483648",
    ):
        assert (await forge(h, anna, lobby, data)).text == BAD_BUTTON, data
    # The largest id the storage holds is a query like any other: no such game.
    answer = await forge(h, anna, lobby, "L:2147483647:join")
    assert answer.text == "This game no longer exists."


GAME_OVER = "This game is over."


async def test_a_keyboard_that_outlived_its_game_says_so_and_loses_its_buttons(
    harness: Harness,
) -> None:
    """A game cancelled while a panel's last edit could not be made: the panel still shows
    moves. Pressed, it answers that the game is over and its buttons go (the message stays);
    the game's data pressed on an older message of the player's says the same."""
    h, api = harness, harness.api
    anna, boris, group = await two_player_game(h)
    mover = anna if action_buttons(h, anna) else boris
    mine = h.panel(mover)
    assert mine is not None
    label, data = next(b for row in api.buttons(mine) for b in row if b[1].startswith("A:"))
    game_id = await game_id_in(h, group)
    api.fail_next(
        "editMessageText", 400, "Bad Request: chat is being moved", times=3, chat_id=mover
    )
    await say(h, anna, group, "/cancel")
    assert api.buttons(api.message(mover, mine.message_id)), "the final edit was lost"
    version = (await room(h).play.snapshot(game_id)).version

    assert (await press(h, mover, api.message(mover, mine.message_id), label)).text == GAME_OVER
    await api.wait_until(lambda: not api.buttons(api.message(mover, mine.message_id)))
    assert api.message(mover, mine.message_id).text == mine.text  # kept, as history
    older = next(m for m in api.bot_messages(mover) if m.message_id < mine.message_id)
    assert (await forge(h, mover, older, data)).text == GAME_OVER
    assert api.message(mover, older.message_id).text == older.text
    assert (await room(h).play.snapshot(game_id)).version == version


async def test_a_first_games_ratings_are_marked_provisional_in_its_result(
    harness: Harness,
) -> None:
    """As on the boards: a rating of fewer than three games is marked "?" in the result."""
    h, api = harness, harness.api
    _anna, _boris, group = await a_finished_duel(h)
    result = api.bot_messages(group)[-1]
    assert "is over" in result.text
    assert len(re.findall(r"rating \d+\? \([+−]\d+\)", result.text)) == 2, result.text
