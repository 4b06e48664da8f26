"""Playing: a press is one transaction; so is each timeout and each computer move.

``act`` is the path of every button press: load, check the player, the game and the version,
apply the rules, then save with the version check in the UPDATE. ``run_due`` is the deadline
poller's use case: it claims games whose ``deadline_at`` has passed and moves them on — a
computer seat's move or the rules' timeout default — through the same saving path. On SQLite
both run as plain statements (:mod:`bot.storage.lean`) unless the step ends the game.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

from sqlalchemy.ext.asyncio import AsyncSession

from bot.games.engine import Event, IllegalAction, Outcome, Step
from bot.games.registry import GAMES, get_rules
from bot.services.authority import ChatRights, Origin, is_person, require_panel
from bot.services.games import (
    GameAtHand,
    GameStore,
    LoadedGame,
    PlainGame,
    advance_each,
    step_rng,
)
from bot.services.held import held_games
from bot.services.locks import GameLocks
from bot.services.snapshots import UNREACHABLE, GameColumns, SeatColumns
from bot.services.types import Actor, GameSnapshot, ServiceError
from bot.storage.database import Database
from bot.storage.models import CANCELLED, FINISHED, PLAYING, SeatRow
from bot.storage.repositories import Games, Seats, Users

logger = logging.getLogger(__name__)

SeatT = TypeVar("SeatT", bound=SeatColumns)


@dataclass(slots=True)
class DueStep:
    """What a due game does (:meth:`PlayService._due_step`)."""

    state: Any
    events: tuple[Event, ...]
    #: The action log's seat, source and action.
    logged: tuple[int | None, str, str | None]
    #: An end the step brings apart from the rules' outcome (everyone away).
    status: str | None = None
    outcome: Outcome | None = None
    #: Seats whose missed turns this step counted: seat → missed turns now.
    timeouts: dict[int, int] = field(default_factory=dict)


#: How many due games one poller pass claims at most.
DUE_BATCH = 50
#: The most a late panel extends a window by, whatever held it up.
MAX_EXTENSION = 30.0
#: Games that keep time their own way (several windows at once): no window is extended.
REALTIME_KEYS = tuple(key for key in GAMES if getattr(get_rules(key), "realtime", False))


class PlayService:
    def __init__(
        self, db: Database, store: GameStore, locks: GameLocks, rights: ChatRights
    ) -> None:
        self.db = db
        self.store = store
        self.locks = locks
        self.rights = rights

    async def act(
        self, game_id: int, user_id: int, version: int | None, code: str, origin: Origin
    ) -> GameSnapshot:
        """Apply a player's action, pressed on his panel (``origin``). ``version`` is the one
        his keyboard showed."""
        async with self.locks.hold(game_id):
            if self.db.is_sqlite:
                snapshot = await self._act_on_sqlite(game_id, user_id, version, code, origin)
                if snapshot is not None:
                    return snapshot
            async with self.db.transaction() as session:
                game = await self.store.load(session, game_id)
                seat, step, now = self._press(
                    game.row, game.seat_of(user_id), version, code, origin
                )
                if seat.timeouts:
                    seat.timeouts = 0
                return await self.store.commit_step(
                    game,
                    step.state,
                    step.events,
                    seat=seat.seat,
                    source="press",
                    action=code,
                    now=now,
                )

    async def _act_on_sqlite(
        self, game_id: int, user_id: int, version: int | None, code: str, origin: Origin
    ) -> GameSnapshot | None:
        """The press as it nearly always is — the game goes on — in plain statements on
        SQLite (:mod:`bot.storage.lean`); ``None``, with nothing written, when this step
        ends the game: the ORM's path then records the results and ratings."""
        async with self.db.sqlite_transaction() as connection:
            game = self.store.load_plain(connection, game_id)
            seat, step, now = self._press(game.row, game.seat_of(user_id), version, code, origin)
            back = {seat.seat: 0} if seat.timeouts else {}
            seat.timeouts = 0
            saved = self.store.commit_plain(
                connection,
                game,
                step,
                now,
                seat=seat.seat,
                source="press",
                action=code,
                timeouts=back,
            )
        return game.snapshot(state=step.state, events=step.events) if saved else None

    def _press(
        self,
        game: GameColumns,
        seat: SeatT | None,
        version: int | None,
        code: str,
        origin: Origin,
    ) -> tuple[SeatT, Step[Any], float]:
        """Check a press (the player, his panel, the game, the version his keyboard showed)
        and apply it by the rules: the player's seat, the step and the time it was made."""
        if seat is None:
            raise ServiceError("play.not_a_player")
        require_panel(seat, origin, game.status)
        if game.status != PLAYING:
            raise ServiceError("play.game_over" if game.state else "play.not_started")
        rules = get_rules(game.game_key)
        if version is not None and version != game.version and not _any_version(rules, code):
            raise ServiceError("play.stale")
        try:
            action = rules.decode_action(code)
            state = rules.load(game.state or {})
            now = self.store.clock()
            step = rules.apply(
                state, seat.seat, action, step_rng(game.seed, game.version + 1), now
            )
        except IllegalAction as refused:
            raise ServiceError(refused.code) from None
        return seat, step, now

    async def snapshot(self, game_id: int) -> GameSnapshot:
        async with self.db.transaction() as session:
            return (await self.store.load(session, game_id)).snapshot()

    async def open_screen(
        self, game_id: int, user_id: int, version: int, origin: Origin
    ) -> tuple[GameSnapshot, int]:
        """A panel's sub-screen (e.g. the joker's rank picker) asked for on the player's own
        panel, as it showed ``version``: the game now and his seat."""
        current = await self.snapshot(game_id)
        seat = current.seat_of(user_id)
        if seat is None:
            raise ServiceError("play.not_a_player")
        require_panel(seat, origin, current.status)
        if current.version != version:
            raise ServiceError("play.stale")
        return current, seat.seat

    async def games_of(self, user_id: int) -> list[GameSnapshot]:
        """The games being played with this person seated."""
        async with self.db.transaction() as session:
            ids = await Games(session).playing_with(user_id)
            return [(await self.store.load(session, game_id)).snapshot() for game_id in ids]

    async def snapshot_in_topic(self, chat_id: int, topic_id: int) -> GameSnapshot | None:
        async with self.db.transaction() as session:
            row = await Games(session).open_in_topic(chat_id, topic_id)
            if row is None:
                return None
            return (await self.store.load_row(session, row)).snapshot()

    async def newer_snapshot(self, game_id: int, version: int) -> GameSnapshot | None:
        """The game as it is now if it has moved past ``version`` (another process moved
        it), else ``None`` — one indexed read when nothing changed."""
        async with self.db.transaction() as session:
            current = await Games(session).version_of(game_id)
            if current is None or current <= version:
                return None
            return (await self.store.load(session, game_id)).snapshot()

    async def unshown_ids(self) -> list[int]:
        """Open lobbies and games whose newest version may not have reached their chats."""
        async with self.db.transaction() as session:
            return await Games(session).unshown_ids()

    async def live_count(self) -> int:
        """Lobbies open and games being played, in every chat."""
        async with self.db.transaction() as session:
            return await Games(session).count_open()

    async def open_ids(self) -> list[tuple[int, bool]]:
        """Open lobbies and games, each with whether its newest version may not have reached
        its chats — those first."""
        async with self.db.transaction() as session:
            return await Games(session).open_ids()

    async def mark_shown(self, versions: dict[int, int]) -> None:
        """The tables and panels of these games (id → version) were all delivered."""
        async with self.db.transaction() as session:
            await Games(session).mark_shown(versions)

    async def extend_window(self, game_id: int, version: int, seconds: float) -> None:
        """The panel that gave a player the move reached him ``seconds`` late (it waited for
        Telegram's limits): his window closes that much later. Nothing happens if the game
        has moved on, or keeps time its own way (a real-time game)."""
        seconds = min(seconds, MAX_EXTENSION)
        async with self.locks.hold(game_id), self.db.transaction() as session:
            extended = await Games(session).extend_deadline(
                game_id, version, seconds, except_keys=REALTIME_KEYS
            )
        if extended:
            logger.info("Game %s: window extended by %.1f s (a late panel)", game_id, seconds)

    async def remember_table(self, game_id: int, message_id: int | None) -> None:
        async with self.db.transaction() as session:
            await Games(session).set_table_message(game_id, message_id)

    async def remember_panel(self, game_id: int, seat: int, message_id: int | None) -> None:
        async with self.db.transaction() as session:
            await Seats(session).set_dm_message(game_id, seat, message_id)

    # -- the deadline poller ---------------------------------------------------------------

    async def run_due(self) -> list[GameSnapshot]:
        """Move on every game whose deadline has passed; one transaction per game."""
        now = self.store.clock()
        async with self.db.transaction() as session:
            due = await Games(session).due(now, DUE_BATCH, skip_locked=not self.db.is_sqlite)
        return await advance_each(due, self._advance)

    async def _advance(self, game_id: int) -> GameSnapshot | None:
        async with self.locks.hold(game_id):
            if self.db.is_sqlite:
                async with self.db.sqlite_transaction() as connection:
                    plain = self.store.load_plain(connection, game_id)
                    now = self.store.clock()
                    due = self._due_step(plain, now)
                    if due is None:
                        return None
                    seat, source, action = due.logged
                    saved = self.store.commit_plain(
                        connection,
                        plain,
                        due,
                        now,
                        seat=seat,
                        source=source,
                        action=action,
                        status=due.status,
                        outcome=due.outcome,
                        timeouts=due.timeouts,
                    )
                if saved:
                    return plain.snapshot(state=due.state, events=due.events)
                # It ends the game: the ORM's path records the results.
            async with self.db.transaction() as session:
                game = await self.store.load(session, game_id, lock=True)
                now = self.store.clock()
                due = self._due_step(game, now)
                if due is None:
                    return None
                seat, source, action = due.logged
                return await self.store.commit_step(
                    game,
                    due.state,
                    due.events,
                    seat=seat,
                    source=source,
                    action=action,
                    now=now,
                    status=due.status,
                    outcome=due.outcome,
                )

    def _due_step(self, game: LoadedGame | PlainGame, now: float) -> DueStep | None:
        """What a game whose deadline has passed does now: a computer seat's move, the
        rules' timeout default, or only its timer set again; ``None`` if nothing is due.
        A seat that timed out counts it on ``game.seats`` (and in ``timeouts``)."""
        row = game.row
        if row.status != PLAYING or row.deadline_at is None or row.deadline_at > now:
            return None
        rules = game.rules
        state = rules.load(row.state or {})
        rng = step_rng(row.seed, row.version + 1)
        # In a real-time game the rules' own windows (stall, idle autopilot, forfeit) come
        # first: a computer seat must not race through them while a person is idle.
        realtime = bool(getattr(rules, "realtime", False))
        window = rules.next_deadline(state)
        window_due = window is not None and window <= now
        computer = self._computer_to_move(game, rules.acting_seats(state))
        if computer is not None and not (realtime and window_due):
            action = rules.choose(state, computer, rng)
            step = rules.apply(state, computer, action, rng, now)
            return DueStep(
                step.state, step.events, (computer, "computer", rules.encode_action(action))
            )
        if not window_due:
            # A stale computer deadline (the seat changed hands): just re-arm the timer.
            return DueStep(state, (), (None, "rearm", None))
        step = rules.on_deadline(state, rng, now)
        events = list(step.events)
        before = game.computer_seats()
        timeouts: dict[int, int] = {}
        for event in step.events:
            # A real-time game has its own autopilot and forfeit for an idle player.
            if event.code.endswith(".timeout") and event.seat is not None and not realtime:
                seat = next(s for s in game.seats if s.seat == event.seat)
                seat.timeouts += 1
                timeouts[seat.seat] = seat.timeouts
        events += [
            Event("seat.autopilot", seat) for seat in sorted(game.computer_seats() - before)
        ]
        status, outcome = self._end_if_everyone_away(game, step.state, events)
        return DueStep(
            step.state, tuple(events), (None, "timeout", None), status, outcome, timeouts
        )

    @staticmethod
    def _computer_to_move(game: GameAtHand, acting: tuple[int, ...]) -> int | None:
        computers = game.computer_seats()
        return next((seat for seat in acting if seat in computers), None)

    @staticmethod
    def _end_if_everyone_away(
        game: GameAtHand, state: Any, events: list[Event]
    ) -> tuple[str | None, Outcome | None]:
        """When every person's seat is played by the computer, nobody is left to play for:
        the game ends with the standings as they are — or is called off if it has barely
        begun (the rules' :meth:`~bot.games.engine.Rules.standings` say when)."""
        if not all(info.played_by_computer for info in game.infos):
            return None, None
        outcome = game.rules.standings(state)
        if outcome is None:
            events.append(Event("seat.all_away"))
            return CANCELLED, None
        events.append(Event("seat.all_away_ended"))
        return FINISHED, outcome

    # -- absent players ------------------------------------------------------------------

    async def take_back(self, game_id: int, user_id: int, origin: Origin) -> GameSnapshot:
        """ "Take my seat back", pressed on his panel: the player plays again from his next
        decision on — if he is still in the game's chat (one who left the group is out)."""
        snapshot = await self.snapshot(game_id)
        seat = snapshot.seat_of(user_id)
        if seat is None:
            raise ServiceError("play.not_a_player")
        require_panel(seat, origin, snapshot.status)
        if snapshot.chat_id < 0 and not await self.rights.is_member(snapshot.chat_id, user_id):
            raise ServiceError("lobby.not_member")
        return await self._set_away(game_id, user_id=user_id, seat_number=None, away=False)

    async def member_left(self, chat_id: int, user_id: int) -> list[GameSnapshot]:
        """A person left the group: the computer plays his seats in its games from now on
        (and, unless he comes back and takes a seat back, he has left them) — all in one
        transaction. The update itself goes to :meth:`LobbyService.member_left
        <bot.services.lobby.LobbyService.member_left>`, which does this with his lobbies."""

        async def playing(session: AsyncSession) -> list[int]:
            return await Games(session).playing_with(user_id, chat_id)

        async with held_games(self.db, self.locks, playing) as (session, ids):
            return await leave_games(self.store, session, ids, user_id)

    async def blocked(self, actor: Actor) -> list[GameSnapshot]:
        """A person blocked the bot: he is known not to be reachable (until he starts it
        again), and the computer takes his seats at once — in one transaction, the whole of
        the update."""

        async def playing(session: AsyncSession) -> list[int]:
            return await Games(session).playing_with(actor.user_id)

        async with held_games(self.db, self.locks, playing) as (session, ids):
            if is_person(actor):
                user = await Users(session).upsert(
                    actor.user_id, actor.first_name, actor.username, actor.language_code
                )
                user.started = False
            return await leave_games(self.store, session, ids, actor.user_id)

    async def unreachable(self, game_id: int, seat_number: int) -> GameSnapshot | None:
        """The player cannot be messaged (he blocked the bot): a computer plays for him."""
        try:
            return await self._set_away(game_id, user_id=None, seat_number=seat_number, away=True)
        except ServiceError as refused:
            logger.info(
                "Seat %s of game %s not handed over: %s", seat_number, game_id, refused.code
            )
            return None

    async def _set_away(
        self, game_id: int, *, user_id: int | None, seat_number: int | None, away: bool
    ) -> GameSnapshot:
        async with self.locks.hold(game_id), self.db.transaction() as session:
            game = await self.store.load(session, game_id)
            seat = (
                game.seat_of(user_id)
                if user_id is not None
                else next((s for s in game.seats if s.seat == seat_number), None)
            )
            if seat is None or seat.user_id is None:
                raise ServiceError("play.not_a_player")
            return await hand_over(self.store, game, seat, away=away)


async def hand_over(
    store: GameStore, game: LoadedGame, seat: SeatRow, *, away: bool
) -> GameSnapshot:
    """A person's seat to the computer (``away``) or back to him, in the game's transaction;
    the game as it is if the seat is so already. Refused, it writes nothing."""
    if game.row.status != PLAYING:
        raise ServiceError("play.game_over")
    if (seat.seat in game.computer_seats()) == away:
        return game.snapshot()
    before = seat.timeouts
    seat.timeouts = UNREACHABLE if away else 0
    events = [Event("seat.autopilot" if away else "seat.back", seat.seat)]
    state = game.rules.load(game.row.state or {})
    status, outcome = PlayService._end_if_everyone_away(game, state, events)
    try:
        return await store.commit_step(
            game,
            state,
            tuple(events),
            seat=seat.seat,
            source="away" if away else "back",
            action=None,
            now=store.clock(),
            status=status,
            outcome=outcome,
        )
    except ServiceError:
        # The version moved on: the seat stays as it was (the transaction may go on with
        # other games, and must not write it).
        seat.timeouts = before
        raise


async def leave_games(
    store: GameStore, session: AsyncSession, game_ids: Sequence[int], user_id: int
) -> list[GameSnapshot]:
    """The computer takes ``user_id``'s seat in each of these games — he left them — in the
    caller's transaction, their locks held: the games that changed. A game he is not
    playing himself any more (or that is over) stays as it is."""
    changed = []
    for game_id in game_ids:
        snapshot = await leave_game(store, await store.load(session, game_id, lock=True), user_id)
        if snapshot is not None:
            changed.append(snapshot)
    return changed


async def leave_game(store: GameStore, game: LoadedGame, user_id: int) -> GameSnapshot | None:
    """The computer takes ``user_id``'s seat in this game, in its transaction: the game, if
    that changed it."""
    seat = game.seat_of(user_id)
    if seat is None or game.row.status != PLAYING or seat.seat in game.computer_seats():
        return None
    try:
        return await hand_over(store, game, seat, away=True)
    except ServiceError as refused:
        logger.info("Game %s: a leaver's seat not handed over: %s", game.row.id, refused.code)
        return None


def _any_version(rules: Any, code: str) -> bool:
    """Whether a press of ``code`` means the same whatever the game's version: every press of
    a real-time game (judged at arrival), and the codes the rules list as such."""
    return bool(getattr(rules, "realtime", False)) or code in getattr(
        rules, "any_version_codes", ()
    )
