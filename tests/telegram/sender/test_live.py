"""The publisher: coalesced edits, nothing re-sent unchanged, Telegram's errors handled."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Callable, Coroutine
from dataclasses import replace
from typing import Any

import pytest
from telegram.error import BadRequest, Forbidden
from telegram.ext import ExtBot

from bot.games.cards import JOKER, Suit, card, parse_cards
from bot.games.rank import RankState
from bot.services.types import GameSnapshot
from bot.telegram.sender import live as delivery
from bot.telegram.sender.budget import CallBudget, Limits
from bot.telegram.sender.limiter import BudgetRateLimiter
from bot.telegram.sender.live import Publisher
from tests.fakes import FakeBotApi, FakeRequest
from tests.telegram.render.test_render import NOW, seats, snapshot, state


class StubBot:
    """Records sends and edits (the Bot API calls the publisher makes); raises what a test
    queues."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, int, str]] = []
        self.errors: list[Exception] = []
        self.next_id = 100

    async def _post(self, endpoint: str, data: dict[str, Any]) -> dict[str, Any]:
        if self.errors:
            raise self.errors.pop(0)
        if endpoint == "sendMessage":
            self.calls.append(("send", data["chat_id"], data["text"]))
            self.next_id += 1
            return {"message_id": self.next_id}
        assert endpoint == "editMessageText", endpoint
        self.calls.append(("edit", data["chat_id"], data["text"]))
        return {"message_id": data["message_id"]}


class Remembered:
    def __init__(self) -> None:
        self.tables: list[tuple[int, int | None]] = []
        self.panels: list[tuple[int, int, int | None]] = []

    async def table(self, game_id: int, message_id: int | None) -> None:
        self.tables.append((game_id, message_id))

    async def panel(self, game_id: int, seat: int, message_id: int | None) -> None:
        self.panels.append((game_id, seat, message_id))


def publisher(
    bot: Any,
    remembered: Remembered,
    interval: float = 0.0,
    clock: Callable[[], float] = time.time,
) -> Publisher:
    return Publisher(
        bot,
        remembered.table,
        remembered.panel,
        # The stub has no limits: the publisher's own pacing is what is tested here.
        budget=CallBudget(Limits.unlimited()),
        group_interval=interval,
        private_interval=interval,
        wall_clock=clock,
    )


def clocked() -> tuple[StubBot, list[float], Publisher]:
    """A publisher whose wall clock the test moves (``clock[0]``), and its bot."""
    bot, clock = StubBot(), [NOW]
    return bot, clock, publisher(bot, Remembered(), clock=lambda: clock[0])


def lobby(*names: str) -> Any:
    return snapshot(names=names, status="lobby")


async def test_first_publish_sends_and_remembers_the_message() -> None:
    bot, remembered = StubBot(), Remembered()
    pub = publisher(bot, remembered)
    pub.publish(lobby("Anna"))
    await pub.drain()
    assert [c[0] for c in bot.calls] == ["send"]
    assert remembered.tables == [(7, 101)]


async def test_a_burst_of_changes_costs_one_edit_of_the_latest_state() -> None:
    bot, remembered = StubBot(), Remembered()
    pub = publisher(bot, remembered, interval=0.2)
    pub.publish(lobby("Anna"))
    await asyncio.sleep(0.01)
    for names in (("Anna", "Boris"), ("Anna", "Boris", "Clara"), ("Anna", "Boris", "Dora")):
        pub.publish(lobby(*names))
    await pub.drain()
    assert [c[0] for c in bot.calls] == ["send", "edit"]
    assert "Dora" in bot.calls[-1][2] and "Clara" not in bot.calls[-1][2]


async def test_unchanged_content_is_not_sent_again() -> None:
    bot, remembered = StubBot(), Remembered()
    pub = publisher(bot, remembered)
    pub.publish(lobby("Anna"))
    await pub.drain()
    pub.publish(lobby("Anna"))
    await pub.drain()
    assert len(bot.calls) == 1


async def test_time_passing_alone_is_no_reason_to_edit_but_a_new_deadline_is() -> None:
    bot, clock, pub = clocked()
    game = snapshot(state("7h 9s", "Kd Qc", "8c"))
    pub.publish(game)
    await pub.drain()
    sent = len(bot.calls)
    assert "⏳ 60 s" in bot.calls[0][2]  # the table counts down from the window's start

    clock[0] += 25  # the same game, republished later (a step that changed nothing shown)
    pub.publish(game)
    await pub.drain()
    assert len(bot.calls) == sent

    # A new window (a timeout moved the deadline) is a change: the table and the acting
    # panel show the time left now.
    later = replace(game, deadline_at=NOW + 90, version=4)
    moved = replace(later, public=replace(game.public, deadline=NOW + 90))
    pub.publish(moved)
    await pub.drain()
    assert any("⏳ 65 s" in text for _, _, text in bot.calls[sent:])


async def test_each_message_is_drawn_once_per_delivery(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The content drawn for the edit also says whether an edit is needed: the table and
    each panel are rendered once, not once more "as of no time" to compare."""
    drawn: list[str] = []
    for name in ("table_content", "panel_content"):
        render = getattr(delivery, name)

        def counting(*args: Any, _render: Any = render, _name: str = name, **kw: Any) -> Any:
            drawn.append(_name)
            return _render(*args, **kw)

        monkeypatch.setattr(delivery, name, counting)
    bot, clock, pub = clocked()
    game = snapshot(state("7h 9s", "Kd Qc", "8c"))
    pub.publish(game)
    await pub.drain()
    assert sorted(drawn) == ["panel_content", "panel_content", "table_content"]
    assert len(bot.calls) == 3
    clock[0] += 25
    pub.publish(game)
    await pub.drain()
    assert len(drawn) == 6 and len(bot.calls) == 3, "drawn again, found unchanged, not sent"


async def test_a_delivered_panel_lets_its_snapshot_go_and_asks_for_it_for_a_screen() -> None:
    bot, remembered = StubBot(), Remembered()
    pub = publisher(bot, remembered)
    game = snapshot(state("7h 9s", "Kd Qc", "8c"))
    pub.publish(game)
    await pub.drain()
    # The table and the waiting player's panel let their snapshot go; the panel of the player
    # to move keeps it while his move waits for him (a ping may send it anew).
    kept = {key for key, slot in pub._slots.items() if slot.render is not None}
    assert kept == {(7, 0)}
    # No snapshot at hand: the handler publishes the latest one, then the screen shows.
    assert not pub.show_screen(7, 1, "joker")
    pub.publish(game)
    assert pub.show_screen(7, 1, "joker")
    await pub.drain()
    assert {key for key, slot in pub._slots.items() if slot.render is not None} == kept


async def test_a_screen_asked_for_shows_at_once_though_the_panel_was_just_edited() -> None:
    bot, remembered = StubBot(), Remembered()
    pub = publisher(bot, remembered, interval=30.0)
    game = snapshot(
        RankState(
            hands=((card(3, Suit.HEARTS), JOKER), (card(12, Suit.CLUBS),)),
            stock=parse_cards(["2c"]),
            discard=parse_cards(["8c"]),
            opened=NOW,
        )
    )
    pub.publish(game)
    await pub.drain()
    # The player to move: his panel keeps its snapshot while the move waits for him.
    assert pub.show_screen(7, 0, "joker")
    panel = pub._slots[(7, 0)].task
    assert panel is not None
    await asyncio.wait_for(panel, 1.0)
    assert "Which rank does the joker stand for?" in bot.calls[-1][2]
    await pub.close()


async def test_not_modified_is_success_and_a_vanished_message_is_sent_anew() -> None:
    bot, remembered = StubBot(), Remembered()
    pub = publisher(bot, remembered)
    known = replace(lobby("Anna"), table_message_id=55)
    bot.errors.append(BadRequest("Message is not modified: specified new message content"))
    pub.publish(known)
    await pub.drain()
    assert bot.calls == [] and remembered.tables == []
    bot.errors.append(BadRequest("Message to edit not found"))
    pub.publish(replace(known, seats=seats("Anna", "Boris")))
    await pub.drain()
    assert [c[0] for c in bot.calls] == ["send"]
    assert remembered.tables == [(7, 101)]


async def test_a_user_who_cannot_be_messaged_is_skipped_quietly(caplog: Any) -> None:
    bot, remembered = StubBot(), Remembered()
    pub = publisher(bot, remembered)
    bot.errors.append(Forbidden("Forbidden: bot can't initiate conversation with a user"))
    pub.publish(lobby("Anna"))
    await pub.drain()
    pub.publish(lobby("Anna", "Boris"))
    await pub.drain()
    assert bot.calls == [], "an unreachable chat is not retried on every change"
    assert all(r.levelname in ("WARNING", "INFO", "DEBUG") for r in caplog.records)


async def test_close_cancels_every_pending_delivery_before_waiting_for_any() -> None:
    class SlowToStop(StubBot):
        """A call to chat -1 that, cancelled, takes a while to let go (as a database write
        does); the others are quick."""

        async def _post(self, endpoint: str, data: dict[str, Any]) -> dict[str, Any]:
            if data["chat_id"] == -1:
                try:
                    await asyncio.sleep(10)
                except asyncio.CancelledError:
                    await asyncio.sleep(0.3)
                    raise
            return await super()._post(endpoint, data)

    bot, remembered = SlowToStop(), Remembered()
    pub = publisher(bot, remembered, interval=0.1)
    pub.publish(replace(lobby("Anna"), game_id=1, chat_id=-1))  # hangs in its call
    for chat in range(2, 6):
        pub.publish(replace(lobby("Anna"), game_id=chat, chat_id=-chat))
    await asyncio.sleep(0.02)
    for chat in range(2, 6):  # due at 0.1 s
        pub.publish(replace(lobby("Anna", "Boris"), game_id=chat, chat_id=-chat))
    sent = len(bot.calls)
    await pub.close()
    assert len(bot.calls) == sent, "nothing goes out once closing has begun"
    assert all(slot.task is None or slot.task.done() for slot in pub._slots.values())


# -- through python-telegram-bot: the rate limiter and Telegram's errors ---------------------


class CountingLimiter(BudgetRateLimiter):
    """The bot's limiter (with no limits worth the name), counting the calls through it."""

    def __init__(self) -> None:
        super().__init__(CallBudget(Limits.unlimited()))
        self.endpoints: list[str] = []

    async def process_request(
        self,
        callback: Callable[..., Coroutine[Any, Any, bool | dict[str, Any] | list[Any]]],
        args: Any,
        kwargs: dict[str, Any],
        endpoint: str,
        data: dict[str, Any],
        rate_limit_args: None,
    ) -> bool | dict[str, Any] | list[Any]:
        self.endpoints.append(endpoint)
        return await super().process_request(
            callback, args, kwargs, endpoint, data, rate_limit_args
        )


@pytest.fixture
async def real() -> AsyncIterator[tuple[FakeBotApi, ExtBot[Any], CountingLimiter]]:
    api = FakeBotApi(flood_limits=False)
    limiter = CountingLimiter()
    bot: ExtBot[Any] = ExtBot(
        api.token,
        request=FakeRequest(api),
        get_updates_request=FakeRequest(api),
        rate_limiter=limiter,
    )
    await bot.initialize()
    await limiter.initialize()
    limiter.endpoints.clear()  # getMe
    yield api, bot, limiter
    await limiter.shutdown()
    await bot.shutdown()


def in_chat(game: GameSnapshot, chat_id: int, *user_ids: int | None) -> GameSnapshot:
    people = tuple(
        replace(seat, user_id=user_id) for seat, user_id in zip(game.seats, user_ids, strict=True)
    )
    return replace(game, chat_id=chat_id, seats=people)


async def test_through_ptb_every_call_passes_the_rate_limiter_with_its_keyboard(
    real: tuple[FakeBotApi, ExtBot[Any], CountingLimiter],
) -> None:
    api, bot, limiter = real
    anna, boris = api.add_user("Anna"), api.add_user("Boris")
    group = api.add_group("Card club", members=[anna, boris])
    remembered = Remembered()
    pub = publisher(bot, remembered, clock=lambda: NOW)
    game = in_chat(snapshot(state("7h 9s", "8d Qc", "8c")), group.id, anna.id, boris.id)
    pub.publish(game)
    await pub.drain()
    assert limiter.endpoints == ["sendMessage"] * 3
    panel = api.last_message(anna)
    assert panel is not None and "Your hand: 7♥️ 9♠" in panel.text
    assert [[label for label, _ in row] for row in api.buttons(panel)] == [["7♥️", "9♠"]]
    assert {(7, 0, panel.message_id)} <= set(remembered.panels)

    # Anna played 7♥️: her panel and Boris's are edited in place, the keyboard goes with it.
    after = in_chat(snapshot(state("9s", "8d Qc", "8c 7h", turn=1)), group.id, anna.id, boris.id)
    pub.publish(after)
    await pub.drain()
    assert limiter.endpoints[3:] == ["editMessageText"] * 3
    assert api.buttons(panel) == []
    boris_panel = api.last_message(boris)
    assert boris_panel is not None and "Play a 6 or an 8" in boris_panel.text
    assert not api.stats.errors


async def test_through_ptb_telegrams_refusals_are_handled(
    real: tuple[FakeBotApi, ExtBot[Any], CountingLimiter], monkeypatch: pytest.MonkeyPatch
) -> None:
    api, bot, _ = real
    monkeypatch.setattr(delivery, "RETRY_DELAYS", (0.0, 0.0, 0.0))
    anna = api.add_user("Anna")
    group = api.add_group("Card club", supergroup=False, members=[anna])
    remembered = Remembered()
    pub = publisher(bot, remembered)
    unreachable: list[tuple[int, int]] = []

    async def handed_over(game_id: int, seat: int) -> None:
        unreachable.append((game_id, seat))

    moved: list[tuple[int, int]] = []

    async def chat_moved(old: int, new: int) -> None:
        moved.append((old, new))

    pub.on_unreachable = handed_over
    pub.on_chat_moved = chat_moved
    pub.publish(replace(lobby("Anna"), chat_id=group.id))
    await pub.drain()
    table = api.last_message(group)
    assert table is not None

    # "Not modified" is success; a message that is gone is posted anew.
    api.fail_next("editMessageText", 400, "Bad Request: message is not modified")
    pub.publish(replace(lobby("Anna", "Boris"), chat_id=group.id))
    await pub.drain()
    api.fail_next("editMessageText", 400, "Bad Request: message to edit not found")
    pub.publish(replace(lobby("Anna", "Clara"), chat_id=group.id))
    await pub.drain()
    newer = api.last_message(group)
    assert newer is not None and newer.message_id != table.message_id and "Clara" in newer.text
    assert remembered.tables[-1] == (7, newer.message_id)

    # Flood control (429 → RetryAfter): tried again.
    api.fail_next("editMessageText", 429, "Too Many Requests: retry after 1", retry_after=1)
    pub.publish(replace(lobby("Anna", "Dora"), chat_id=group.id))
    await pub.drain()
    assert "Dora" in newer.text

    # The group became a supergroup (ChatMigrated): the table is posted there.
    supergroup = api.migrate_group(group)
    pub.publish(replace(lobby("Anna", "Emil"), chat_id=group.id))
    await pub.drain()
    assert moved == [(group.id, supergroup.id)]
    moved_table = api.last_message(supergroup)
    assert moved_table is not None and "Emil" in moved_table.text

    # A player who blocked the bot (Forbidden): his seat is handed over, once.
    await api.block_bot(anna)
    game = snapshot(state("7h 9s", "Kd Qc", "8c"), names=("Anna", None))
    pub.publish(in_chat(game, supergroup.id, anna.id, None))
    await pub.drain()
    assert unreachable == [(7, 0)]
    assert set(api.stats.errors) <= {
        ("editMessageText", 400),
        ("editMessageText", 429),
        ("sendMessage", 400),
        ("sendMessage", 403),
    }


class Shown:
    """What the publisher reported as fully shown, report by report."""

    def __init__(self) -> None:
        self.reports: list[dict[int, int]] = []

    async def __call__(self, versions: dict[int, int]) -> None:
        self.reports.append(dict(versions))


async def test_a_game_is_reported_shown_once_its_table_and_every_panel_are() -> None:
    bot, remembered, shown = StubBot(), Remembered(), Shown()
    pub = publisher(bot, remembered)
    pub.on_shown = shown
    game = snapshot(state("7h 9s", "Kd Qc", "8c"))
    pub.publish(game)
    await pub.drain()
    assert {c[1] for c in bot.calls} == {-100, 100, 101}, "the table and both panels"
    assert shown.reports == [{7: 3}]
    pub.publish(replace(game, version=4))
    await pub.drain()
    assert shown.reports[-1] == {7: 4}


async def test_a_game_whose_message_could_not_be_delivered_is_not_reported_shown() -> None:
    bot, remembered, shown = StubBot(), Remembered(), Shown()
    pub = publisher(bot, remembered)
    pub.on_shown = shown
    bot.errors.append(BadRequest("Bad Request: chat not found"))
    pub.publish(lobby("Anna"))
    await pub.drain()
    assert bot.calls == [], "the only message was refused"
    assert shown.reports == []
    pub.publish(lobby("Anna", "Boris"))  # the next change gets through
    await pub.drain()
    assert shown.reports == [{7: 3}]


async def test_shown_is_reported_once_a_second_for_all_games_at_once() -> None:
    bot, remembered, shown = StubBot(), Remembered(), Shown()
    pub = publisher(bot, remembered)
    pub.on_shown = shown
    for game_id in (7, 8, 9):
        pub.publish(replace(lobby("Anna"), game_id=game_id, chat_id=-100 - game_id))
    await asyncio.sleep(0.05)
    assert shown.reports == [], "not at every delivery: batched"
    await asyncio.sleep(delivery.SHOWN_EVERY + 0.1)
    assert shown.reports == [{7: 3, 8: 3, 9: 3}]
    await pub.close()


async def test_an_edit_draws_the_newest_state_another_process_left_in_the_database() -> None:
    bot, remembered = StubBot(), Remembered()
    pub = publisher(bot, remembered)
    moved_on = replace(lobby("Anna", "Boris"), version=5)
    asked: list[tuple[int, int]] = []

    async def newer(game_id: int, version: int) -> GameSnapshot | None:
        asked.append((game_id, version))
        return moved_on if version < moved_on.version else None

    pub.newer = newer
    pub.publish(lobby("Anna"))  # this process saw version 3 only
    await pub.drain()
    assert asked[0] == (7, 3)
    assert len(bot.calls) == 1 and "Boris" in bot.calls[0][2], "version 5 was drawn, once"


async def test_when_the_database_cannot_be_asked_the_state_at_hand_is_drawn(
    caplog: pytest.LogCaptureFixture,
) -> None:
    bot, remembered = StubBot(), Remembered()
    pub = publisher(bot, remembered)

    async def newer(game_id: int, version: int) -> GameSnapshot | None:
        raise ConnectionError("database restarting")

    pub.newer = newer
    pub.publish(lobby("Anna"))
    await pub.drain()
    assert [c[0] for c in bot.calls] == ["send"]
    assert "Could not check game 7 for news" in caplog.text


# -- the budget: who goes first, and a player's window when his panel was late --------------


async def test_a_panel_that_gave_its_player_the_move_late_extends_his_window() -> None:
    """The panel waited for its private chat's budget (another message had just gone there):
    the game is told how late it came, so that the player's window closes that much later."""
    bot, remembered = StubBot(), Remembered()
    budget = CallBudget(Limits(private_calls=1, private_window=1.5))
    pub = Publisher(bot, remembered.table, remembered.panel, budget=budget, group_interval=0)
    late: list[tuple[int, int, float]] = []

    async def told(game_id: int, version: int, seconds: float) -> None:
        late.append((game_id, version, seconds))

    pub.on_late = told
    game = snapshot(state("7h 9s", "Kd Qc", "8c"))  # seat 0 is to move
    mover = game.seats[0].user_id
    assert mover is not None and 0 in game.legal
    await budget.take(mover, delivery.Priority.PANEL)  # his chat just had a message
    pub.publish(game)
    await pub.drain()
    assert [(g, v) for g, v, _ in late] == [(game.game_id, game.version)]
    assert late[0][2] > delivery.LATE_AFTER
    # A panel on time extends nothing.
    late.clear()
    await asyncio.sleep(budget.limits.private_window)
    pub.publish(replace(game, version=game.version + 1))
    await pub.drain()
    assert late == []


async def test_an_old_message_pressed_again_and_again_is_tidied_with_one_call() -> None:
    """A stray copy deleted, a finished game's old message disarmed: each costs its chat one
    call however often it is pressed before the call lands."""

    class TidyBot:
        def __init__(self) -> None:
            self.calls: list[tuple[str, int, int]] = []

        async def _post(self, endpoint: str, data: dict[str, Any]) -> bool:
            self.calls.append((endpoint, data["chat_id"], data["message_id"]))
            return True

    bot = TidyBot()
    pub = publisher(bot, Remembered())
    for _ in range(5):
        assert pub.retire_stray(7, -100, 41)
        pub.disarm(-100, 42)
    pub.disarm(-100, 43)
    await asyncio.sleep(0.05)
    assert sorted(bot.calls) == [
        ("deleteMessage", -100, 41),
        ("editMessageReplyMarkup", -100, 42),
        ("editMessageReplyMarkup", -100, 43),
    ]
    await pub.close()
