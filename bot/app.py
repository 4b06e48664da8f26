"""The composition root: settings in, a ready python-telegram-bot Application out.

Only this module wires concrete classes together: the database, the services, the publisher,
the handlers and the deadline poller.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import logging
import time
from collections.abc import Callable
from typing import Any

import orjson
from telegram.ext import Application, ApplicationBuilder
from telegram.request import BaseRequest

from bot.services.games import GameStore
from bot.services.inbox import APP_CHANNEL, InboxService
from bot.services.languages import LanguageService
from bot.services.lobby import LobbyService
from bot.services.locks import GameLocks
from bot.services.outbox import OPENED, RESULT, OutboxService, PendingLetter
from bot.services.people import PeopleService
from bot.services.play import PlayService
from bot.services.stats import StatsService
from bot.services.types import GameSnapshot, ServiceError
from bot.services.waitlist import WaitlistService
from bot.settings import Settings
from bot.storage.database import Database
from bot.telegram import handlers
from bot.telegram.commands import register_commands
from bot.telegram.handlers import Cardroom
from bot.telegram.handlers.buttons import join_when_greeted
from bot.telegram.handlers.commands import JOIN, SEAT_CREATOR, seat_when_greeted
from bot.telegram.handlers.waitlist import opened_draw
from bot.telegram.inbox import InboxReader
from bot.telegram.intake import Intake
from bot.telegram.miniapp.server import MiniApp, SocketCaps
from bot.telegram.poller import POLL_SECONDS, DeadlinePoller
from bot.telegram.rights import TelegramRights
from bot.telegram.sender.budget import CallBudget, Limits
from bot.telegram.sender.limiter import BudgetRateLimiter
from bot.telegram.sender.live import GROUP_INTERVAL, PRIVATE_INTERVAL, Publisher, result_note
from bot.telegram.sender.menus import Menus
from bot.telegram.sender.notes import Note, Notes
from bot.telegram.sender.outbox import Outbox

logger = logging.getLogger(__name__)

App = Application[Any, Any, Any, Any, Any, Any]

#: The updates the bot asks Telegram for: messages (commands, a member leaving a group),
#: button presses, its own membership (added, removed, blocked, unblocked) and other
#: members' (a member leaving a group where the bot is an admin).
ALLOWED_UPDATES = ("message", "callback_query", "my_chat_member", "chat_member")

#: The collector's first-generation threshold once the bot is up (Python's default: 700).
GC_THRESHOLD = 50_000


def file_url_for(base_url: str) -> str:
    """The file URL that goes with a Bot API base URL (``…/bot`` → ``…/file/bot``)."""
    root, _, tail = base_url.rstrip("/").rpartition("/")
    return f"{root}/file/{tail}" if root else base_url


async def catch_up(room: Cardroom, *, retry_after: float = 30.0) -> None:
    """Redraw the games whose newest changes may not have reached their chats (the process —
    or the leader before this one — stopped while they were on their way), the games that
    ended unshown too; take up the open others as the players see them, without a call (their
    messages' ids, who is to be pinged). The letters not delivered (replies, results…) go
    from the outbox meanwhile. If the database cannot be read, it is tried again a little
    later, said once in the log."""
    while True:
        try:
            for game_id, behind in await room.play.open_ids():
                try:
                    snapshot = await room.play.snapshot(game_id)
                except ServiceError:
                    continue
                if behind:
                    room.publisher.publish(snapshot)
                else:
                    room.publisher.adopt(snapshot)
                await asyncio.sleep(0)  # presses and timers go on meanwhile
        except Exception:
            logger.exception("Catching up failed; trying again in %.0f s", retry_after)
            await asyncio.sleep(retry_after)
            continue
        logger.info("Caught up with the games changed while the bot was down")
        return


def miniapp_for(
    settings: Settings,
    play: PlayService,
    publisher: Publisher,
    reader: InboxReader,
    clock: Callable[[], float],
    rights: TelegramRights,
) -> MiniApp:
    """The Mini App: its presses go in through the inbox, every state published goes to its
    pages at once, its button onto the games' panels — and, with the app's short name set,
    a direct link onto the groups' tables, which the group's members open to watch."""
    assert settings.webapp_url is not None
    miniapp = MiniApp(
        settings.require_token(),
        settings.webapp_url,
        settings.webapp_script,
        play.snapshot,
        clock,
        SocketCaps(
            total=settings.webapp_max_sockets,
            per_player=settings.webapp_sockets_per_player,
            unsigned_per_address=settings.webapp_unsigned_sockets_per_address,
        ),
    )

    async def take(press: dict[str, Any]) -> None:
        await reader.take([press], "app")

    miniapp.take = take
    miniapp.member = rights.is_member
    publisher.watchers.append(miniapp.show)
    publisher.app_url = lambda snapshot: miniapp.url(snapshot.game_id)
    publisher.paging = miniapp.paging
    miniapp.left = publisher.page_closed
    short_name = settings.webapp_short_name
    if short_name:
        bot = reader.bot

        def table_link(snapshot: GameSnapshot) -> str | None:
            # The bot's username is known once it has logged in (getMe), before any table.
            try:
                username = bot.username
            except RuntimeError:
                return None
            if not username:
                return None
            return f"https://t.me/{username}/{short_name}?startapp=g{snapshot.game_id}"

        publisher.table_url = table_link
    if reader.inbox.shared:
        # Other processes may hold the pages' sockets: they hear of each state and answer.
        told: set[asyncio.Task[None]] = set()

        def announce(note: dict[str, Any]) -> None:
            task = asyncio.create_task(
                reader.inbox.announce(APP_CHANNEL, orjson.dumps(note).decode())
            )
            told.add(task)
            task.add_done_callback(told.discard)

        miniapp.announce = announce
    return miniapp


def settle() -> None:
    """Tune the garbage collector for a long-running server, once the start-up is done.

    The objects alive now (modules, mappers, catalogues) live as long as the process:
    ``gc.freeze`` takes them out of every future collection, and a larger first-generation
    threshold makes the young collections rarer — together they take the cyclic collector's
    pauses from over a hundred milliseconds to a few.
    """
    gc.collect()
    gc.freeze()
    gc.set_threshold(GC_THRESHOLD, 20, 100)


def build_application(
    settings: Settings,
    *,
    request: BaseRequest | None = None,
    get_updates_request: BaseRequest | None = None,
    limits: Limits | None = None,
    prioritised: bool = True,
    group_interval: float = GROUP_INTERVAL,
    private_interval: float = PRIVATE_INTERVAL,
    poll_seconds: float = POLL_SECONDS,
    clock: Callable[[], float] = time.time,
    settle_memory: bool = False,
) -> App:
    """The bot, ready to ``run_polling`` (or to be driven by tests).

    ``settle_memory`` tunes the garbage collector after the start-up (:func:`settle`): for
    the bot's own process, not for a test run that builds many applications. ``limits`` are
    the flood budget's windows (Telegram's, with headroom, unless a test says otherwise);
    ``prioritised=False`` serves waiting calls first come, first served (a benchmark's
    baseline).
    """
    db = Database.from_url(settings.database_url)
    store = GameStore(settings.computer_delay_seconds, clock)
    locks = GameLocks()
    # Updates are handled side by side (no handler waits for a chat's budget: the sender
    # does). Presses on one game are ordered by the game's lock and its version check, so
    # handling them together is safe.
    intake = Intake()
    builder = ApplicationBuilder().token(settings.require_token()).concurrent_updates(intake)
    # One budget for every call into a chat: the publisher's and the handlers' replies.
    budget = CallBudget(limits, by_priority=prioritised)
    limiter = BudgetRateLimiter(budget)
    builder = builder.rate_limiter(limiter)
    if settings.telegram_api_base_url:
        builder = builder.base_url(settings.telegram_api_base_url).base_file_url(
            file_url_for(settings.telegram_api_base_url)
        )
    if request is not None:
        builder = builder.request(request)
    if get_updates_request is not None:
        builder = builder.get_updates_request(get_updates_request)

    async def post_init(application: App) -> None:
        # Timers first: a game whose window closed while the bot was down moves on now.
        room.poller.start()
        outbox.start()
        room.catching_up = asyncio.create_task(catch_up(room), name="catch-up")
        await register_commands(application.bot)
        if settle_memory:
            settle()
        logger.info("Cardroom is up as @%s", application.bot.username)

    async def post_stop(application: App) -> None:
        await room.poller.stop()

    async def post_shutdown(application: App) -> None:
        await room.poller.stop()
        if room.catching_up is not None:
            room.catching_up.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await room.catching_up
        await room.publisher.close()
        room.menus.close()
        await outbox.close()  # before the notes: what they drop now is the next leader's
        await room.notes.close()
        await room.charts.close()
        await db.close()

    application = (
        builder.post_init(post_init).post_stop(post_stop).post_shutdown(post_shutdown).build()
    )
    rights = TelegramRights(application.bot)
    play = PlayService(db, store, locks, rights)
    lobby = LobbyService(db, store, locks, settings.turn_seconds, rights)
    people = PeopleService(db)
    notes = Notes(application.bot, budget)
    notes.can_write = people.can_write
    notes.on_forbidden = people.cannot_write
    outbox = Outbox(OutboxService(db, clock), notes, clock=clock)
    db.on_letters = outbox.wake
    intake.record = outbox.record

    async def draw_result(pending: PendingLetter) -> Note | None:
        # A finished game's snapshot carries its ratings' changes as they were at its end.
        assert pending.letter.game_id is not None
        return result_note(await play.snapshot(pending.letter.game_id))

    outbox.draws[RESULT] = draw_result

    async def remember_table(game_id: int, message_id: int | None) -> None:
        # Through the room: whoever waits for a lobby's message (to link to it) is told.
        await room.remember_table(game_id, message_id)

    publisher = Publisher(
        application.bot,
        remember_table,
        play.remember_panel,
        budget=budget,
        notes=notes,
        group_interval=group_interval,
        private_interval=private_interval,
        wall_clock=clock,
    )
    room = Cardroom(
        lobby=lobby,
        play=play,
        stats=StatsService(db),
        publisher=publisher,
        notes=notes,
        menus=Menus(outbox, clock),
        languages=LanguageService(db, rights),
        people=people,
        poller=DeadlinePoller(play, lobby, publisher, poll_seconds),
        rights=rights,
        waitlist=WaitlistService(db),
        outbox=outbox,
    )
    outbox.on_menu = room.menus.sent
    outbox.draws[OPENED] = opened_draw(room)
    outbox.follow_ups[SEAT_CREATOR] = seat_when_greeted(room)
    outbox.follow_ups[JOIN] = join_when_greeted(room)
    publisher.outbox = outbox
    application.bot_data["cardroom"] = room
    # Updates stored before Telegram hears they arrived; the leader hands them over.
    reader = InboxReader(InboxService(db, clock), application.bot, application.update_queue)
    reader.attach(intake)
    application.bot_data["inbox"] = reader
    if settings.webapp_url:
        room.miniapp = miniapp_for(settings, play, publisher, reader, clock, rights)
    publisher.on_chat_moved = room.move_chat
    publisher.on_unreachable = room.seat_unreachable
    publisher.on_shown = play.mark_shown
    publisher.on_late = play.extend_window
    limiter.on_sent = publisher.seen
    publisher.can_pin = rights.bot_may_pin
    if not db.is_sqlite:
        # Several processes may share the database: draw the newest state of a game, not
        # only the newest this process has seen.
        publisher.newer = play.newer_snapshot
    handlers.register(application)
    return application
