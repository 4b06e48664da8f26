"""Lobby use cases: open, join (also through a deep link), leave, computers, options, start,
cancel and rematch. Each is one transaction."""

from __future__ import annotations

import logging
import secrets
from collections.abc import Mapping
from typing import Any

from sqlalchemy.exc import IntegrityError

from bot.games.engine import AUTOPILOT_AFTER, DEALER, TURN_SECONDS, Outcome, Rules
from bot.games.registry import GAMES, get_rules
from bot.services.games import GameStore, LoadedGame, step_rng
from bot.services.locks import GameLocks
from bot.services.snapshots import DEFAULT_AUTOPILOT_AFTER
from bot.services.types import (
    SERIES,
    Actor,
    AdminCheck,
    ChatRef,
    GameSnapshot,
    JoinResult,
    ServiceError,
)
from bot.storage.database import Database
from bot.storage.models import CANCELLED, LOBBY, PLAYING, GameRow, SeatRow
from bot.storage.repositories import ChatMoves, Chats, Games, Seats, Users

logger = logging.getLogger(__name__)

#: How many missed turns in a row hand a seat to the computer.
AUTOPILOT_CHOICES = (1, 2, 3, 5)
#: Turn windows a lobby can choose, in seconds (the configured default is added if missing).
TURN_CHOICES = (30, 60, 90, 120, 300)


def turn_choices(default: int) -> tuple[int, ...]:
    return tuple(sorted({*TURN_CHOICES, default}))


def series_after(options: Mapping[str, Any], outcome: Outcome | None, seats: int) -> list[int]:
    """The series score (wins per seat) after a game: a sole winner scores; a draw does not."""
    wins = list(options.get(SERIES) or [0] * seats)
    if len(wins) != seats:
        wins = [0] * seats
    if outcome is not None and outcome.places.count(1) == 1:
        wins[outcome.places.index(1)] += 1
    return wins


class LobbyService:
    def __init__(
        self, db: Database, store: GameStore, locks: GameLocks, turn_seconds: int
    ) -> None:
        self.db = db
        self.store = store
        self.locks = locks
        self.turn_seconds = turn_seconds

    # -- people and chats ---------------------------------------------------------------

    async def record(
        self, actor: Actor, chat: ChatRef | None = None, *, started: bool = False
    ) -> None:
        """Remember a user (and the chat he wrote in); ``started``: he opened our DM."""
        async with self.db.transaction() as session:
            await Users(session).upsert(
                actor.user_id,
                actor.first_name,
                actor.username,
                actor.language_code,
                started=started,
            )
            if chat is not None:
                await Chats(session).upsert(chat.chat_id, chat.kind, chat.title)

    async def mark_started(self, actor: Actor) -> None:
        """The bot has just managed to message this user: he has opened our DM."""
        await self.record(actor, started=True)

    # -- opening ------------------------------------------------------------------------

    def default_options(self, rules: Rules[Any, Any]) -> dict[str, Any]:
        options: dict[str, Any] = {spec.key: spec.default for spec in rules.options}
        options[TURN_SECONDS] = self.turn_seconds
        options[AUTOPILOT_AFTER] = DEFAULT_AUTOPILOT_AFTER
        return options

    async def open(self, chat: ChatRef, actor: Actor, game_key: str) -> GameSnapshot:
        """Open a lobby in this chat topic; the creator joins it if the bot can DM him."""
        if game_key not in GAMES:
            raise ServiceError("lobby.unknown_game")
        rules = get_rules(game_key)
        try:
            async with self.db.transaction() as session:
                user = await Users(session).upsert(
                    actor.user_id,
                    actor.first_name,
                    actor.username,
                    actor.language_code,
                    started=chat.is_private,
                )
                await Chats(session).upsert(chat.chat_id, chat.kind, chat.title)
                games = Games(session)
                existing = await games.open_in_topic(chat.chat_id, chat.topic_id)
                if existing is not None:
                    raise ServiceError(
                        "lobby.exists",
                        message_id=existing.table_message_id,
                        game_key=existing.game_key,
                    )
                row = GameRow(
                    chat_id=chat.chat_id,
                    topic_id=chat.topic_id,
                    game_key=game_key,
                    status=LOBBY,
                    options=self.default_options(rules),
                    state=None,
                    recent=[],
                    seed=secrets.randbits(62),
                    version=0,
                    creator_id=actor.user_id,
                    join_token=secrets.token_urlsafe(12),
                )
                games.add(row)
                await games.flush()
                if user.started:
                    Seats(session).add(
                        SeatRow(
                            game_id=row.id,
                            seat=0,
                            user_id=actor.user_id,
                            name=actor.first_name,
                            timeouts=0,
                        )
                    )
                    await session.flush()
                game = await self.store.load_row(session, row)
                return game.snapshot()
        except IntegrityError:
            # Two /new raced for the same topic: the other one won.
            raise ServiceError("lobby.exists") from None

    async def quick_start(self, chat: ChatRef, actor: Actor, game_key: str) -> GameSnapshot:
        """In a private chat: a game against the computer, dealt at once.

        The user takes the first seat and computer players fill the rest up to the game's
        minimum; table and panel then share the private chat.
        """
        lobby = await self.open(chat, actor, game_key)
        rules = get_rules(game_key)

        async def host() -> bool:
            return True

        for _ in range(rules.min_players - len(lobby.seats)):
            await self.add_computer(lobby.game_id, actor, host)
        return await self.start(lobby.game_id, actor, host)

    # -- joining and leaving ------------------------------------------------------------

    async def join(self, game_id: int, actor: Actor) -> JoinResult:
        """Seat ``actor``; ``lobby.need_start`` if the bot cannot DM him yet."""
        async with self.locks.hold(game_id), self.db.transaction() as session:
            user = await Users(session).upsert(
                actor.user_id, actor.first_name, actor.username, actor.language_code
            )
            game = await self.store.load(session, game_id)
            if game.seat_of(actor.user_id) is not None:
                return JoinResult(game.snapshot(), joined=False)
            self._require_lobby(game)
            if not user.started:
                raise ServiceError("lobby.need_start", token=game.row.join_token)
            return JoinResult(await self._seat(game, actor.user_id, actor.first_name), True)

    async def join_by_token(self, token: str, actor: Actor) -> JoinResult:
        """``/start <token>`` in DM: the user can now be messaged, so seat him."""
        async with self.db.transaction() as session:
            await Users(session).upsert(
                actor.user_id,
                actor.first_name,
                actor.username,
                actor.language_code,
                started=True,
            )
            row = await Games(session).by_token(token)
        if row is None:
            raise ServiceError("lobby.link_unknown")
        return await self.join(row.id, actor)

    async def leave(self, game_id: int, actor: Actor) -> GameSnapshot:
        async with self.locks.hold(game_id), self.db.transaction() as session:
            game = await self.store.load(session, game_id)
            self._require_lobby(game)
            seat = game.seat_of(actor.user_id)
            if seat is None:
                raise ServiceError("lobby.not_joined")
            await Seats(session).delete(seat)
            await self._renumber(game, [s for s in game.seats if s is not seat])
            return await self._reload(game)

    async def add_computer(self, game_id: int, actor: Actor, admin: AdminCheck) -> GameSnapshot:
        host = await self._is_host(game_id, actor, admin)
        async with self.locks.hold(game_id), self.db.transaction() as session:
            game = await self.store.load(session, game_id)
            self._require_lobby(game)
            self._require_host(host)
            # A computer's name is drawn in each reader's language, so none is stored.
            return await self._seat(game, None, "")

    async def remove_computer(self, game_id: int, actor: Actor, admin: AdminCheck) -> GameSnapshot:
        host = await self._is_host(game_id, actor, admin)
        async with self.locks.hold(game_id), self.db.transaction() as session:
            game = await self.store.load(session, game_id)
            self._require_lobby(game)
            self._require_host(host)
            computers = [s for s in game.seats if s.is_computer]
            if not computers:
                raise ServiceError("lobby.no_computer")
            await Seats(session).delete(computers[-1])
            await self._renumber(game, [s for s in game.seats if s is not computers[-1]])
            return await self._reload(game)

    async def cycle_option(
        self, game_id: int, actor: Actor, key: str, admin: AdminCheck
    ) -> GameSnapshot:
        """Move a lobby option to its next choice."""
        host = await self._is_host(game_id, actor, admin)
        async with self.locks.hold(game_id), self.db.transaction() as session:
            game = await self.store.load(session, game_id)
            self._require_lobby(game)
            self._require_host(host)
            choices = self.option_choices(game.rules).get(key)
            if choices is None:
                raise ServiceError("lobby.bad_option")
            current = game.row.options.get(key)
            index = choices.index(current) if current in choices else -1
            options = {**game.row.options, key: choices[(index + 1) % len(choices)]}
            game.row.options = options
            await session.flush()
            return game.snapshot()

    def option_choices(self, rules: Rules[Any, Any]) -> dict[str, tuple[Any, ...]]:
        choices = {spec.key: spec.choices for spec in rules.options}
        choices[TURN_SECONDS] = turn_choices(self.turn_seconds)
        choices[AUTOPILOT_AFTER] = AUTOPILOT_CHOICES
        return choices

    # -- starting and ending ------------------------------------------------------------

    async def start(self, game_id: int, actor: Actor, admin: AdminCheck) -> GameSnapshot:
        host = await self._is_host(game_id, actor, admin)
        async with self.locks.hold(game_id), self.db.transaction() as session:
            game = await self.store.load(session, game_id, lock=True)
            self._require_lobby(game)
            self._require_host(host)
            rules = game.rules
            if len(game.seats) < rules.min_players:
                raise ServiceError("lobby.too_few", min=rules.min_players)
            if all(s.is_computer for s in game.seats):
                raise ServiceError("lobby.no_humans")
            return await self._deal(game)

    async def cancel(self, game_id: int, actor: Actor, admin: AdminCheck) -> GameSnapshot:
        host = await self._is_host(game_id, actor, admin)
        async with self.locks.hold(game_id), self.db.transaction() as session:
            game = await self.store.load(session, game_id, lock=True)
            if game.row.status not in (LOBBY, PLAYING):
                raise ServiceError("lobby.already_over")
            self._require_host(host)
            now = self.store.clock()
            if game.row.state is None:
                if not await Games(session).save_if_version(
                    game_id, game.row.version, status=CANCELLED, deadline_at=None
                ):
                    raise ServiceError("play.stale")
                Games.mirror(game.row, status=CANCELLED, version=game.row.version + 1)
                return game.snapshot()
            state = game.rules.load(game.row.state)
            return await self.store.commit_step(
                game,
                state,
                (),
                seat=None,
                source="cancel",
                action=None,
                now=now,
                status=CANCELLED,
            )

    async def cancel_in_topic(
        self, chat: ChatRef, actor: Actor, admin: AdminCheck
    ) -> GameSnapshot:
        """``/cancel``: end the open lobby or game of this chat topic."""
        async with self.db.transaction() as session:
            row = await Games(session).open_in_topic(chat.chat_id, chat.topic_id)
        if row is None:
            raise ServiceError("lobby.nothing_to_cancel")
        return await self.cancel(row.id, actor, admin)

    async def rematch(self, game_id: int, actor: Actor) -> GameSnapshot:
        """A new game with the same seats, started at once; the dealer moves on per the rules."""
        async with self.locks.hold(game_id), self.db.transaction() as session:
            old = await self.store.load(session, game_id)
            if old.row.status != "finished" or old.row.state is None:
                raise ServiceError("lobby.rematch_unavailable")
            if old.seat_of(actor.user_id) is None:
                raise ServiceError("play.not_a_player")
            games = Games(session)
            if await games.open_in_topic(old.row.chat_id, old.row.topic_id) is not None:
                raise ServiceError("lobby.exists")
            rules = old.rules
            state = rules.load(old.row.state)
            options = rules.rematch_options(state, old.row.options)
            options[SERIES] = series_after(old.row.options, rules.outcome(state), len(old.seats))
            row = GameRow(
                chat_id=old.row.chat_id,
                topic_id=old.row.topic_id,
                game_key=old.row.game_key,
                status=LOBBY,
                options=options,
                state=None,
                recent=[],
                seed=secrets.randbits(62),
                version=0,
                creator_id=actor.user_id,
                join_token=secrets.token_urlsafe(12),
            )
            games.add(row)
            await games.flush()
            for seat in old.seats:
                Seats(session).add(
                    SeatRow(
                        game_id=row.id,
                        seat=seat.seat,
                        user_id=seat.user_id,
                        name=seat.name,
                        timeouts=0,
                    )
                )
            await session.flush()
            return await self._deal(await self.store.load_row(session, row))

    # -- the chat itself changes ------------------------------------------------------------

    async def chat_moved(self, old_chat_id: int, new_chat_id: int) -> list[GameSnapshot]:
        """A group became a supergroup: its lobbies, games, settings and boards move along.

        Returns the open games, whose tables must be posted again in the new chat.
        """
        async with self.db.transaction() as session:
            open_ids = await ChatMoves(session).move(old_chat_id, new_chat_id)
            return [(await self.store.load(session, game_id)).snapshot() for game_id in open_ids]

    async def bot_removed(self, chat_id: int) -> list[GameSnapshot]:
        """The bot left or was removed from a group: its lobbies and games end, cancelled."""
        async with self.db.transaction() as session:
            open_ids = await Games(session).open_in_chat(chat_id)
        cancelled = []

        async def anyone() -> bool:
            return True

        system = Actor(0, "")
        for game_id in open_ids:
            try:
                cancelled.append(await self.cancel(game_id, system, anyone))
            except ServiceError as refused:
                logger.info("Game %s not cancelled: %s", game_id, refused.code)
        return cancelled

    # -- helpers ------------------------------------------------------------------------

    async def _deal(self, game: LoadedGame) -> GameSnapshot:
        rules, row = game.rules, game.row
        now = self.store.clock()
        options = dict(row.options)
        options.setdefault(DEALER, None)
        state = rules.new_game(len(game.seats), options, step_rng(row.seed, 0), now)
        return await self.store.commit_step(
            game, state, (), seat=None, source="start", action=None, now=now, status=PLAYING
        )

    @staticmethod
    def _require_lobby(game: LoadedGame) -> None:
        if game.row.status != LOBBY:
            raise ServiceError(
                "lobby.already_started" if game.row.status == PLAYING else "lobby.already_over"
            )

    async def _is_host(self, game_id: int, actor: Actor, admin: AdminCheck) -> bool:
        """Whether ``actor`` may run the lobby: its creator, or an admin of the chat.

        Asked before the game's lock and transaction are taken: asking Telegram about an admin
        takes a network round trip, and nothing may wait on it holding the database (SQLite's
        one connection serves every chat). Who created a game never changes, and an admin's
        rights a moment old are as good as fresh.
        """
        async with self.db.transaction() as session:
            creator = await Games(session).creator_of(game_id)
        if creator is None:
            raise ServiceError("game.not_found")
        return actor.user_id == creator or await admin()

    @staticmethod
    def _require_host(host: bool) -> None:
        if not host:
            raise ServiceError("lobby.host_only")

    async def _seat(self, game: LoadedGame, user_id: int | None, name: str) -> GameSnapshot:
        if len(game.seats) >= game.rules.max_players:
            raise ServiceError("lobby.full", max=game.rules.max_players)
        Seats(game.session).add(
            SeatRow(
                game_id=game.row.id, seat=len(game.seats), user_id=user_id, name=name, timeouts=0
            )
        )
        return await self._reload(game)

    async def _renumber(self, game: LoadedGame, remaining: list[SeatRow]) -> None:
        """Close the gap a leaver left: seats stay numbered 0..n-1 in joining order."""
        await game.session.flush()
        for number, seat in enumerate(sorted(remaining, key=lambda s: s.seat)):
            if seat.seat != number:
                seat.seat = number
                await game.session.flush()

    async def _reload(self, game: LoadedGame) -> GameSnapshot:
        await game.session.flush()
        game.row.version += 1
        await game.session.flush()
        reloaded = await self.store.load_row(game.session, game.row)
        return reloaded.snapshot()
