"""Lobby use cases: open, join (also through a deep link), leave, computers, options, start,
cancel, rematch and the lobby's own timers. Each is one transaction.

Every press is authorised against the game it names (:mod:`bot.services.authority`): it must
come from the game's table message in the game's chat; joining asks Telegram whether the
person is in that chat; running the lobby (computers, options, start, cancel) is for its
creator or the chat's admins.

A lobby does not wait for ever: after :data:`LOBBY_IDLE_SECONDS` without a press it closes
and frees its chat (or forum topic). A rematch is a lobby too — for the same seats, each person
confirming with Join; it is dealt as soon as the last of them confirms, and the invitations of
those who did not lapse after :data:`REMATCH_SECONDS`.
"""

from __future__ import annotations

import contextlib
import logging
import secrets
from collections.abc import Mapping, Sequence
from typing import Any

from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession

from bot.games.engine import AUTOPILOT_AFTER, DEALER, TURN_SECONDS, Event, Outcome, Rules
from bot.games.registry import GAMES, get_rules
from bot.services.authority import ChatRights, Origin, is_person, require_table
from bot.services.games import GameStore, LoadedGame, advance_each, step_rng
from bot.services.held import held_games
from bot.services.locks import GameLocks
from bot.services.play import leave_game
from bot.services.snapshots import DEFAULT_AUTOPILOT_AFTER
from bot.services.types import (
    INVITED,
    PREVIOUS,
    REMATCH_OF,
    REMATCHED,
    SERIES,
    Actor,
    ChatRef,
    GameSnapshot,
    JoinResult,
    ServiceError,
)
from bot.services.waitlist import claim_waiting
from bot.storage.database import Database
from bot.storage.models import CANCELLED, FINISHED, LOBBY, PLAYING, GameRow, SeatRow
from bot.storage.repositories import ChatMoves, Chats, Games, Seats, Users

logger = logging.getLogger(__name__)

#: How many missed turns in a row hand a seat to the computer.
AUTOPILOT_CHOICES = (1, 2, 3, 5)
#: Turn windows a lobby can choose, in seconds (the configured default is added if missing).
TURN_CHOICES = (30, 60, 90, 120, 300)
#: A lobby nobody has pressed anything in for this long closes and frees its chat.
LOBBY_IDLE_SECONDS = 30 * 60
#: How long the players of a finished game have to confirm its rematch.
REMATCH_SECONDS = 60
#: Lobbies whose timer has run out that one poller pass handles at most.
DUE_BATCH = 50
#: A game against the computer in a private chat is one person's sitting, not a group's
#: evening: it starts at the shortest of the choices its lobby offers (Rank's round limit,
#: Progression's target score); the private lobby offers the rest before the deal.
SOLO_OPTIONS: Mapping[str, Mapping[str, Any]] = {
    "rank": {"round_limit": 25},
    "progression": {"target": 100},
}


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


def invited_ids(options: Mapping[str, Any]) -> list[int]:
    """The people invited to a rematch who have not confirmed yet."""
    return [int(entry[0]) for entry in options.get(INVITED) or ()]


class LobbyService:
    def __init__(
        self,
        db: Database,
        store: GameStore,
        locks: GameLocks,
        turn_seconds: int,
        rights: ChatRights,
    ) -> None:
        self.db = db
        self.store = store
        self.locks = locks
        self.turn_seconds = turn_seconds
        self.rights = rights

    # -- people and chats ---------------------------------------------------------------

    async def record(
        self, actor: Actor, chat: ChatRef | None = None, *, started: bool | None = None
    ) -> None:
        """Remember a user (and the chat he wrote in). ``started``: he opened our DM (True),
        or blocked the bot (False); ``None`` leaves it as it was."""
        async with self.db.transaction() as session:
            if is_person(actor):
                user = await Users(session).upsert(
                    actor.user_id,
                    actor.first_name,
                    actor.username,
                    actor.language_code,
                    started=bool(started),
                )
                if started is False:
                    user.started = False
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

    async def open(
        self, chat: ChatRef, actor: Actor, game_key: str, *, language: str | None = None
    ) -> GameSnapshot:
        """Open a lobby in this chat topic; the creator joins it if the bot can DM him.

        A lobby opened by an anonymous admin (or in a channel's name) has no creator: the
        chat's admins host it, and nobody is seated for the shared identity. ``language``: a
        group that has none yet speaks it from now on (its opener's), written with the lobby.
        """
        return await self._open(chat, actor, game_key, language=language)

    def solo_options(self, rules: Rules[Any, Any]) -> dict[str, Any]:
        """The options a game against the computer starts with (:data:`SOLO_OPTIONS`)."""
        choices = self.option_choices(rules)
        options = self.default_options(rules)
        for key, value in SOLO_OPTIONS.get(rules.key, {}).items():
            if value in choices.get(key, ()):
                options[key] = value
        return options

    async def quick_start(self, chat: ChatRef, actor: Actor, game_key: str) -> GameSnapshot:
        """In a private chat: a game against the computer, its options offered before the deal.

        The user takes the first seat and computer players fill the rest up to the game's
        minimum, all in the one transaction that opens it: the lobby can be dealt at once
        (its Deal button, :meth:`start`), or first set to his taste — one person's sitting
        starts short (:meth:`solo_options`). Table and panel then share the private chat.
        """
        return await self._open(chat, actor, game_key, solo=True)

    async def _open(
        self,
        chat: ChatRef,
        actor: Actor,
        game_key: str,
        *,
        language: str | None = None,
        solo: bool = False,
    ) -> GameSnapshot:
        """Open a lobby (:meth:`open`); with ``solo``, a private one, filled with computers in
        the same transaction (:meth:`quick_start`)."""
        if game_key not in GAMES:
            raise ServiceError("lobby.unknown_game")
        rules = get_rules(game_key)
        person = is_person(actor)
        try:
            async with self.db.transaction() as session:
                user = None
                if person:
                    user = await Users(session).upsert(
                        actor.user_id,
                        actor.first_name,
                        actor.username,
                        actor.language_code,
                        started=chat.is_private,
                    )
                place = await Chats(session).upsert(chat.chat_id, chat.kind, chat.title)
                if language is not None and not chat.is_private and place.language is None:
                    place.language = language
                games = Games(session)
                existing = await games.open_in_topic(chat.chat_id, chat.topic_id)
                if existing is not None:
                    raise ServiceError(
                        "lobby.exists",
                        message_id=existing.table_message_id,
                        game_key=existing.game_key,
                    )
                number = await games.next_number(chat.chat_id)
                options = self.solo_options(rules) if solo else self.default_options(rules)
                row = self._new_lobby(chat, game_key, options, actor, number)
                games.add(row)
                await games.flush()
                if user is not None and user.started:
                    self._add_seat(session, row.id, 0, actor.user_id, actor.first_name)
                    await session.flush()
                game = await self.store.load_row(session, row)
                if not solo:
                    if not chat.is_private:
                        await claim_waiting(
                            session,
                            chat.chat_id,
                            chat.topic_id,
                            actor.user_id,
                            game_id=row.id,
                            title=chat.title or "",
                            now=self.store.clock(),
                        )
                    return game.snapshot()
                for seat in range(len(game.seats), rules.min_players):
                    self._add_seat(session, row.id, seat, None, "")
                await session.flush()
                return (await self.store.load(session, row.id)).snapshot()
        except IntegrityError:
            # Two /new raced for the same topic: the other one won.
            raise ServiceError("lobby.exists") from None

    def _new_lobby(
        self, chat: ChatRef, game_key: str, options: dict[str, Any], actor: Actor, number: int
    ) -> GameRow:
        """A lobby's row: the chat's game ``number`` (:meth:`Games.next_number`)."""
        return GameRow(
            chat_id=chat.chat_id,
            number=number,
            topic_id=chat.topic_id,
            game_key=game_key,
            status=LOBBY,
            options=options,
            state=None,
            recent=[],
            seed=secrets.randbits(62),
            version=0,
            creator_id=actor.user_id if is_person(actor) else None,
            join_token=secrets.token_urlsafe(12),
            deadline_at=self.store.clock() + LOBBY_IDLE_SECONDS,
        )

    async def seat_creator(self, game_id: int, actor: Actor) -> GameSnapshot:
        """Seat a lobby's creator, whom the bot has just managed to greet in his DM."""
        async with self.locks.hold(game_id), self.db.transaction() as session:
            game = await self.store.load(session, game_id)
            if game.row.creator_id != actor.user_id:
                raise ServiceError("lobby.host_only")
            if game.seat_of(actor.user_id) is not None:
                return game.snapshot()
            self._require_lobby(game)
            return await self._seat(game, actor.user_id, actor.first_name)

    # -- joining and leaving ------------------------------------------------------------

    async def join(self, game_id: int, actor: Actor, origin: Origin) -> JoinResult:
        """Seat ``actor``, who pressed Join on the lobby; ``lobby.need_start`` if the bot
        cannot DM him yet. He must be in the game's chat."""
        chat_id = await self._check_table(game_id, origin)
        await self._require_member(chat_id, actor)
        return await self._join(game_id, actor)

    async def join_by_token(self, token: str, actor: Actor) -> JoinResult:
        """``/start <token>`` in DM: the user can now be messaged, so seat him — if he is in
        the game's chat (a link passed on to someone outside the group seats nobody)."""
        async with self.db.transaction() as session:
            row = await Games(session).by_token(token)
            found = None if row is None else (row.id, row.chat_id)
        try:
            if found is None:
                raise ServiceError("lobby.link_unknown")
            game_id, chat_id = found
            await self._require_member(chat_id, actor)
        except ServiceError:
            await self.mark_started(actor)  # he opened our DM, joined or not
            raise
        # That he started the bot is written with his seat, in one transaction: the update
        # is applied whole or not at all (see bot.storage.inbox).
        try:
            return await self._join(game_id, actor, started=True)
        except ServiceError:
            await self.mark_started(actor)  # refused, the join wrote nothing: this is all
            raise

    async def _join(self, game_id: int, actor: Actor, *, started: bool = False) -> JoinResult:
        if not is_person(actor):
            raise ServiceError("lobby.not_a_person")
        async with self.locks.hold(game_id), self.db.transaction() as session:
            user = await Users(session).upsert(
                actor.user_id,
                actor.first_name,
                actor.username,
                actor.language_code,
                started=started,
            )
            game = await self.store.load(session, game_id)
            if game.seat_of(actor.user_id) is not None:
                return JoinResult(game.snapshot(), joined=False)
            self._require_lobby(game)
            if not user.started:
                raise ServiceError("lobby.need_start", token=game.row.join_token)
            invited = invited_ids(game.row.options)
            if actor.user_id in invited:
                # A rematch's invitation accepted: the last one deals the game.
                self._uninvite(game, actor.user_id)
                snapshot = await self._seat(game, actor.user_id, actor.first_name)
                if invited == [actor.user_id]:
                    game = await self.store.load(session, game_id, lock=True)
                    if self._can_deal(game):
                        snapshot = await self._deal(game)
                return JoinResult(snapshot, True)
            snapshot = await self._seat(
                game, actor.user_id, actor.first_name, reserved=len(invited)
            )
            return JoinResult(snapshot, True)

    async def leave(self, game_id: int, actor: Actor, origin: Origin) -> GameSnapshot:
        """Leave the lobby — or, invited to a rematch, decline it."""
        await self._check_table(game_id, origin)
        async with self.locks.hold(game_id), self.db.transaction() as session:
            game = await self.store.load(session, game_id)
            self._require_lobby(game)
            seat = game.seat_of(actor.user_id)
            if seat is None:
                if actor.user_id not in invited_ids(game.row.options):
                    raise ServiceError("lobby.not_joined")
                self._uninvite(game, actor.user_id)
                return await self._reload(game)
            await Seats(session).delete(seat)
            await self._renumber(game, [s for s in game.seats if s is not seat])
            return await self._reload(game)

    async def member_left(self, chat_id: int, user_id: int) -> list[GameSnapshot]:
        """A person left the group: his seats and invitations in its lobbies go, and the
        computer plays his seats in its games from now on — all in one transaction. The
        lobbies and games that changed."""

        async def his_games(session: AsyncSession) -> list[int]:
            # Every lobby (he may be invited to one), and the games he is seated in.
            games = Games(session)
            return [
                *await games.open_in_chat(chat_id, status=LOBBY),
                *await games.playing_with(user_id, chat_id),
            ]

        async with held_games(self.db, self.locks, his_games) as (session, ids):
            changed = []
            for game_id in ids:
                game = await self.store.load(session, game_id, lock=True)
                if game.row.status == LOBBY:
                    snapshot = await self._leave_lobby(game, user_id)
                else:
                    snapshot = await leave_game(self.store, game, user_id)
                if snapshot is not None:
                    changed.append(snapshot)
            return changed

    async def _leave_lobby(self, game: LoadedGame, user_id: int) -> GameSnapshot | None:
        """His seat or his invitation in this lobby goes: the lobby, if he had either."""
        seat = game.seat_of(user_id)
        if seat is not None:
            await Seats(game.session).delete(seat)
            await self._renumber(game, [s for s in game.seats if s is not seat])
        elif user_id in invited_ids(game.row.options):
            self._uninvite(game, user_id)
        else:
            return None
        return await self._reload(game)

    # -- running the lobby (its creator or an admin) --------------------------------------

    async def add_computer(self, game_id: int, actor: Actor, origin: Origin) -> GameSnapshot:
        await self._require_host(game_id, actor, origin)
        async with self.locks.hold(game_id), self.db.transaction() as session:
            game = await self.store.load(session, game_id)
            self._require_lobby(game)
            # A computer's name is drawn in each reader's language, so none is stored.
            reserved = len(invited_ids(game.row.options))
            return await self._seat(game, None, "", reserved=reserved)

    async def remove_computer(self, game_id: int, actor: Actor, origin: Origin) -> GameSnapshot:
        await self._require_host(game_id, actor, origin)
        async with self.locks.hold(game_id), self.db.transaction() as session:
            game = await self.store.load(session, game_id)
            self._require_lobby(game)
            computers = [s for s in game.seats if s.is_computer]
            if not computers:
                raise ServiceError("lobby.no_computer")
            await Seats(session).delete(computers[-1])
            await self._renumber(game, [s for s in game.seats if s is not computers[-1]])
            return await self._reload(game)

    async def cycle_option(
        self, game_id: int, actor: Actor, key: str, origin: Origin
    ) -> GameSnapshot:
        """Move a lobby option to its next choice."""
        await self._require_host(game_id, actor, origin)
        async with self.locks.hold(game_id), self.db.transaction() as session:
            game = await self.store.load(session, game_id)
            self._require_lobby(game)
            choices = self.option_choices(game.rules).get(key)
            if choices is None:
                raise ServiceError("lobby.bad_option")
            current = game.row.options.get(key)
            index = choices.index(current) if current in choices else -1
            game.row.options = {**game.row.options, key: choices[(index + 1) % len(choices)]}
            return await self._reload(game)

    def option_choices(self, rules: Rules[Any, Any]) -> dict[str, tuple[Any, ...]]:
        choices = {spec.key: spec.choices for spec in rules.options}
        choices[TURN_SECONDS] = turn_choices(self.turn_seconds)
        choices[AUTOPILOT_AFTER] = AUTOPILOT_CHOICES
        return choices

    # -- starting and ending ------------------------------------------------------------

    async def start(self, game_id: int, actor: Actor, origin: Origin) -> GameSnapshot:
        await self._require_host(game_id, actor, origin)
        async with self.locks.hold(game_id), self.db.transaction() as session:
            game = await self.store.load(session, game_id, lock=True)
            self._require_lobby(game)
            rules = game.rules
            if len(game.seats) < rules.min_players:
                raise ServiceError("lobby.too_few", min=rules.min_players)
            if all(s.is_computer for s in game.seats):
                raise ServiceError("lobby.no_humans")
            return await self._deal(game)

    async def cancel(self, game_id: int, actor: Actor, origin: Origin) -> GameSnapshot:
        """The Cancel button of a lobby or a table."""
        await self._require_host(game_id, actor, origin)
        return await self._cancel(game_id)

    async def cancel_in_topic(self, chat: ChatRef, actor: Actor) -> GameSnapshot:
        """``/cancel``: end the open lobby or game of this chat topic (its host only)."""
        async with self.db.transaction() as session:
            row = await Games(session).open_in_topic(chat.chat_id, chat.topic_id)
            found = None if row is None else (row.id, row.creator_id)
        if found is None:
            raise ServiceError("lobby.nothing_to_cancel")
        game_id, creator = found
        if not await self._is_host(chat.chat_id, creator, actor):
            raise ServiceError("lobby.host_only")
        return await self._cancel(game_id)

    async def _cancel(self, game_id: int, event: Event | None = None) -> GameSnapshot:
        async with self.locks.hold(game_id):
            return await self._cancel_held(game_id, event)

    async def _cancel_held(self, game_id: int, event: Event | None) -> GameSnapshot:
        """End a lobby or game, its lock held; ``event`` says why, on the table."""
        async with self.db.transaction() as session:
            return await self._cancel_loaded(
                await self.store.load(session, game_id, lock=True), event
            )

    async def _cancel_loaded(self, game: LoadedGame, event: Event | None = None) -> GameSnapshot:
        """End a lobby or game, in its transaction, its lock held. Refused, it writes
        nothing."""
        if game.row.status not in (LOBBY, PLAYING):
            raise ServiceError("lobby.already_over")
        now = self.store.clock()
        if game.row.state is None:
            recent = [*(game.row.recent or ()), event.dump()] if event else game.row.recent
            if not await Games(game.session).save_if_version(
                game.row.id, game.row.version, status=CANCELLED, deadline_at=None, recent=recent
            ):
                raise ServiceError("play.stale")
            Games.mirror(
                game.row,
                status=CANCELLED,
                deadline_at=None,
                recent=recent,
                version=game.row.version + 1,
            )
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

    async def rematch(self, game_id: int, actor: Actor, origin: Origin) -> GameSnapshot:
        """A lobby for the same seats: the presser is in, the computers stay, and every other
        person of the finished game is invited to confirm with Join. It deals as soon as the
        last of them confirms; invitations not taken up lapse after :data:`REMATCH_SECONDS`.
        """
        await self._check_table(game_id, origin)
        async with self.locks.hold(game_id), self.db.transaction() as session:
            old = await self.store.load(session, game_id)
            if old.row.status != FINISHED or old.row.state is None:
                raise ServiceError("lobby.rematch_unavailable")
            if old.seat_of(actor.user_id) is None:
                raise ServiceError("play.not_a_player")
            games = Games(session)
            if await games.open_in_topic(old.row.chat_id, old.row.topic_id) is not None:
                raise ServiceError("lobby.exists")
            await self._require_rematch_unused(games, old.row)
            rules = old.rules
            state = rules.load(old.row.state)
            options = rules.rematch_options(state, old.row.options)
            options.pop(REMATCHED, None)
            outcome = old.snapshot(state=state).outcome
            options[SERIES] = series_after(old.row.options, outcome, len(old.seats))
            options[PREVIOUS] = [seat.user_id for seat in old.seats]
            options[REMATCH_OF] = old.row.id
            user = await Users(session).get(actor.user_id)
            # The presser is in — unless the bot cannot message him: then he confirms too.
            presser = actor.user_id if user is not None and user.started else None
            invited = [
                [seat.user_id, seat.name]
                for seat in old.seats
                if seat.user_id is not None and seat.user_id != presser
            ]
            if invited:
                options[INVITED] = invited
            kind = old.chat.kind if old.chat is not None else "group"
            where = ChatRef(old.row.chat_id, kind, topic_id=old.row.topic_id)
            number = await games.next_number(old.row.chat_id)
            row = self._new_lobby(where, old.row.game_key, options, actor, number)
            if invited:
                row.deadline_at = self.store.clock() + REMATCH_SECONDS
            games.add(row)
            await games.flush()
            old.row.options = {**old.row.options, REMATCHED: row.id}
            kept = [s for s in old.seats if s.user_id is None or s.user_id == presser]
            for number, seat in enumerate(kept):
                self._add_seat(session, row.id, number, seat.user_id, seat.name)
            await session.flush()
            lobby = await self.store.load_row(session, row)
            if not invited and self._can_deal(lobby):
                return await self._deal(await self.store.load(session, row.id, lock=True))
            if old.row.chat_id < 0:
                title = old.chat.title if old.chat is not None else None
                await claim_waiting(
                    session,
                    old.row.chat_id,
                    old.row.topic_id,
                    actor.user_id,
                    game_id=row.id,
                    title=title or "",
                    now=self.store.clock(),
                )
            return lobby.snapshot()

    async def join_rematch(self, game_id: int, actor: Actor, origin: Origin) -> JoinResult:
        """An old table's Rematch pressed after its rematch lobby opened: join that lobby
        (``lobby.exists`` if the game open here is another one)."""
        await self._check_table(game_id, origin)
        async with self.db.transaction() as session:
            old = await Games(session).get(game_id)
            previous = None if old is None else old.options.get(REMATCHED)
            lobby = None if previous is None else await Games(session).get(int(previous))
            if lobby is None or lobby.status != LOBBY:
                raise ServiceError("lobby.exists")
            chat_id, lobby_id = lobby.chat_id, lobby.id
        await self._require_member(chat_id, actor)
        return await self._join(lobby_id, actor)

    async def _require_rematch_unused(self, games: Games, old: GameRow) -> None:
        """One rematch per finished game: its Rematch button opens another only if the
        lobby it opened was closed before anything was dealt."""
        previous = old.options.get(REMATCHED)
        if previous is None:
            return
        row = await games.get(int(previous))
        if row is not None and (row.status != CANCELLED or row.state is not None):
            raise ServiceError("lobby.rematch_used")

    # -- the lobby's timers -------------------------------------------------------------------

    async def run_due(self) -> list[GameSnapshot]:
        """Lobbies whose timer ran out: a rematch's invitations lapse; an idle lobby closes."""
        now = self.store.clock()
        async with self.db.transaction() as session:
            due = await Games(session).due(
                now, DUE_BATCH, skip_locked=not self.db.is_sqlite, status=LOBBY
            )
        return await advance_each(due, self._lobby_timer)

    async def _lobby_timer(self, game_id: int) -> GameSnapshot | None:
        now = self.store.clock()
        async with self.locks.hold(game_id):
            async with self.db.transaction() as session:
                game = await self.store.load(session, game_id, lock=True)
                row = game.row
                if row.status != LOBBY or row.deadline_at is None or row.deadline_at > now:
                    return None
                if invited_ids(row.options):
                    # The rematch's invitations lapse; the lobby stays open for anyone.
                    row.options = {k: v for k, v in row.options.items() if k != INVITED}
                    return await self._reload(game)
            minutes = LOBBY_IDLE_SECONDS // 60
            expired = Event("lobby.expired", args={"minutes": minutes})
            return await self._cancel_held(game_id, expired)

    # -- the chat itself changes ------------------------------------------------------------

    async def chat_moved(self, old_chat_id: int, new_chat_id: int) -> list[GameSnapshot]:
        """A group became a supergroup: its lobbies, games, settings and boards move along.

        Someone may have opened a lobby in the new supergroup before the bot heard of the
        move: a topic holds one open game, so of the two the one further on stays — a game
        being played before a lobby, and the older of two alike — and the other is closed,
        its table saying why. Returns what changed: the closed game, and the open games,
        whose tables must be posted again in the new chat. All in one transaction: a game is
        never closed without the rest moving along.
        """

        async def open_games(session: AsyncSession) -> list[int]:
            games = Games(session)
            return [
                *await games.open_in_chat(old_chat_id),
                *await games.open_in_chat(new_chat_id),
            ]

        for _ in range(3):  # another lobby may be opened meanwhile: look again
            try:
                async with held_games(self.db, self.locks, open_games) as (session, _held):
                    closed = []
                    for game_id in await self._clashes(session, old_chat_id, new_chat_id):
                        game = await self.store.load(session, game_id, lock=True)
                        with contextlib.suppress(ServiceError):  # refused, it wrote nothing
                            closed.append(await self._cancel_loaded(game, Event("chat.merged")))
                    open_ids = await ChatMoves(session).move(old_chat_id, new_chat_id)
                    # The games this session read before the move show what it moved.
                    await session.flush()
                    session.expire_all()
                    moved = [
                        (await self.store.load(session, game_id)).snapshot()
                        for game_id in open_ids
                    ]
                    return [*closed, *moved]
            except IntegrityError:
                logger.info("A lobby opened in chat %s as it moved; looking again", new_chat_id)
        raise ServiceError("lobby.exists")

    @staticmethod
    async def _clashes(session: AsyncSession, old_chat_id: int, new_chat_id: int) -> list[int]:
        """Open games that cannot move along: per topic, the one that is not kept."""
        games = Games(session)
        old = [await games.get(i) for i in await games.open_in_chat(old_chat_id)]
        new = [await games.get(i) for i in await games.open_in_chat(new_chat_id)]
        losers = []
        for here in filter(None, old):
            there = next((g for g in new if g is not None and g.topic_id == here.topic_id), None)
            if there is None:
                continue
            # Further on first: playing before a lobby; then the older.
            kept = min(here, there, key=lambda g: (g.status != PLAYING, g.id))
            losers.append(there.id if kept is here else here.id)
        return losers

    async def bot_removed(self, chat_id: int) -> list[GameSnapshot]:
        """The bot left or was removed from a group: its lobbies and games end, cancelled —
        all in one transaction."""

        async def open_games(session: AsyncSession) -> list[int]:
            return await Games(session).open_in_chat(chat_id)

        async with held_games(self.db, self.locks, open_games) as (session, ids):
            cancelled = []
            for game_id in ids:
                game = await self.store.load(session, game_id, lock=True)
                try:
                    cancelled.append(await self._cancel_loaded(game))
                except ServiceError as refused:
                    logger.info("Game %s not cancelled: %s", game_id, refused.code)
            return cancelled

    # -- helpers ------------------------------------------------------------------------

    async def _deal(self, game: LoadedGame) -> GameSnapshot:
        rules, row = game.rules, game.row
        now = self.store.clock()
        options = dict(row.options)
        options.pop(INVITED, None)
        if PREVIOUS in options:
            await self._seat_as_before(game, options)
        options.setdefault(DEALER, None)
        row.options = options
        state = rules.new_game(len(game.seats), options, step_rng(row.seed, 0), now)
        return await self.store.commit_step(
            game, state, (), seat=None, source="start", action=None, now=now, status=PLAYING
        )

    async def _seat_as_before(self, game: LoadedGame, options: dict[str, Any]) -> None:
        """A rematch dealt to exactly the people (and computers) of the previous game sits
        them as they sat, and the series and the dealer's turn go on; any other table starts
        a new series, with the dealer by lot."""
        previous: list[int | None] = list(options.pop(PREVIOUS))
        seated = [seat.user_id for seat in game.seats]
        if sorted(seated, key=_order) != sorted(previous, key=_order):
            options.pop(SERIES, None)
            options[DEALER] = None
            return
        computers = iter(s for s in game.seats if s.user_id is None)
        by_user = {s.user_id: s for s in game.seats if s.user_id is not None}
        order = [next(computers) if user is None else by_user[user] for user in previous]
        await self._reorder(game, order)

    def _can_deal(self, game: LoadedGame) -> bool:
        return len(game.seats) >= game.rules.min_players and any(
            not s.is_computer for s in game.seats
        )

    @staticmethod
    def _uninvite(game: LoadedGame, user_id: int) -> None:
        options = dict(game.row.options)
        remaining = [entry for entry in options.get(INVITED) or () if entry[0] != user_id]
        if remaining:
            options[INVITED] = remaining
        else:
            options.pop(INVITED, None)
        game.row.options = options

    @staticmethod
    def _require_lobby(game: LoadedGame) -> None:
        if game.row.status != LOBBY:
            raise ServiceError(
                "lobby.already_started" if game.row.status == PLAYING else "lobby.already_over"
            )

    async def _check_table(self, game_id: int, origin: Origin) -> int:
        """The press came from the game's table message: the game's chat id."""
        async with self.db.transaction() as session:
            row = await Games(session).get(game_id)
            if row is None:
                raise ServiceError("game.not_found")
            require_table(row, origin)
            return row.chat_id

    async def _require_member(self, chat_id: int, actor: Actor) -> None:
        if chat_id < 0 and not await self.rights.is_member(chat_id, actor.user_id):
            raise ServiceError("lobby.not_member")

    async def _require_host(self, game_id: int, actor: Actor, origin: Origin) -> None:
        """The press came from the game's table and ``actor`` may run the lobby.

        Telegram is asked about an admin before the game's lock and transaction are taken:
        that is a network round trip, and nothing may wait on it holding the database
        (SQLite's one connection serves every chat). Who created a game never changes, and
        an admin's rights a moment old are as good as fresh.
        """
        async with self.db.transaction() as session:
            row = await Games(session).get(game_id)
            if row is None:
                raise ServiceError("game.not_found")
            require_table(row, origin)
            chat_id, creator = row.chat_id, row.creator_id
        if not await self._is_host(chat_id, creator, actor):
            raise ServiceError("lobby.host_only")

    async def _is_host(self, chat_id: int, creator: int | None, actor: Actor) -> bool:
        """Its creator, an anonymous admin writing as the group, or an admin of the chat."""
        if actor.as_chat is not None:
            return actor.as_chat == chat_id
        if creator is not None and actor.user_id == creator:
            return True
        return await self.rights.is_admin(chat_id, actor.user_id)

    @staticmethod
    def _add_seat(session: Any, game_id: int, number: int, user_id: int | None, name: str) -> None:
        Seats(session).add(
            SeatRow(game_id=game_id, seat=number, user_id=user_id, name=name, timeouts=0)
        )

    async def _seat(
        self, game: LoadedGame, user_id: int | None, name: str, *, reserved: int = 0
    ) -> GameSnapshot:
        """Seat a person or a computer; ``reserved`` seats are kept for invited people."""
        if len(game.seats) + reserved >= game.rules.max_players:
            raise ServiceError("lobby.full", max=game.rules.max_players)
        self._add_seat(game.session, game.row.id, len(game.seats), user_id, name)
        return await self._reload(game)

    async def _renumber(self, game: LoadedGame, remaining: list[SeatRow]) -> None:
        """Close the gap a leaver left: seats stay numbered 0..n-1 in joining order."""
        await game.session.flush()
        for number, seat in enumerate(sorted(remaining, key=lambda s: s.seat)):
            if seat.seat != number:
                seat.seat = number
                await game.session.flush()

    async def _reorder(self, game: LoadedGame, order: Sequence[SeatRow]) -> None:
        """Number the seats 0..n-1 in ``order`` (out of the way first: seat numbers are
        unique within a game)."""
        for seat in order:
            seat.seat += 1000
        await game.session.flush()
        for number, seat in enumerate(order):
            seat.seat = number
        await game.session.flush()
        game.seats = sorted(game.seats, key=lambda s: s.seat)

    async def _reload(self, game: LoadedGame) -> GameSnapshot:
        """After a change of the lobby: a new version, and its idle timer starts again."""
        await game.session.flush()
        game.row.version += 1
        if game.row.status == LOBBY:
            game.row.deadline_at = self._lobby_deadline(game.row)
        await game.session.flush()
        reloaded = await self.store.load_row(game.session, game.row)
        return reloaded.snapshot()

    def _lobby_deadline(self, row: GameRow) -> float:
        now = self.store.clock()
        idle = now + LOBBY_IDLE_SECONDS
        if invited_ids(row.options) and row.deadline_at is not None:
            return min(row.deadline_at, idle)
        return idle


def _order(user_id: int | None) -> int:
    """Sorts a seat list with computers (``None``) first."""
    return -1 if user_id is None else user_id
