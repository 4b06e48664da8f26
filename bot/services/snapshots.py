"""Building a :class:`GameSnapshot` from the rows of one game."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Protocol

from bot.games.engine import AUTOPILOT_AFTER, Event, Outcome, Rules, counted_outcome
from bot.games.registry import get_rules
from bot.i18n import pick_language
from bot.services.types import GameSnapshot, SeatInfo
from bot.storage.models import FINISHED, PLAYING

#: Consecutive timeouts after which a computer plays a person's seat, unless a lobby says.
DEFAULT_AUTOPILOT_AFTER = 2
#: ``timeouts`` of a seat whose player cannot be messaged: on autopilot whatever the option.
UNREACHABLE = 1000


class GameColumns(Protocol):
    """What a snapshot reads of a game: an ORM ``GameRow`` or a plain record
    (:mod:`bot.storage.lean`)."""

    @property
    def id(self) -> int: ...
    @property
    def chat_id(self) -> int: ...
    @property
    def number(self) -> int: ...
    @property
    def topic_id(self) -> int: ...
    @property
    def game_key(self) -> str: ...
    @property
    def status(self) -> str: ...
    @property
    def version(self) -> int: ...
    @property
    def seed(self) -> int: ...
    @property
    def options(self) -> dict[str, Any]: ...
    @property
    def state(self) -> dict[str, Any] | None: ...
    @property
    def recent(self) -> list[Any]: ...
    @property
    def creator_id(self) -> int | None: ...
    @property
    def join_token(self) -> str: ...
    @property
    def table_message_id(self) -> int | None: ...
    @property
    def deadline_at(self) -> float | None: ...


class ChatColumns(Protocol):
    @property
    def kind(self) -> str: ...
    @property
    def language(self) -> str | None: ...


class SeatColumns(Protocol):
    @property
    def seat(self) -> int: ...
    @property
    def user_id(self) -> int | None: ...
    @property
    def name(self) -> str: ...
    @property
    def dm_message_id(self) -> int | None: ...
    @property
    def timeouts(self) -> int: ...


class UserColumns(Protocol):
    @property
    def language(self) -> str | None: ...
    @property
    def language_code(self) -> str | None: ...
    @property
    def pings(self) -> bool: ...


def autopilot_after(options: Mapping[str, Any]) -> int:
    value = options.get(AUTOPILOT_AFTER, DEFAULT_AUTOPILOT_AFTER)
    return value if isinstance(value, int) and value > 0 else DEFAULT_AUTOPILOT_AFTER


def seat_infos(
    seats: Sequence[SeatColumns], users: Mapping[int, UserColumns], options: Mapping[str, Any]
) -> tuple[SeatInfo, ...]:
    limit = autopilot_after(options)
    infos = []
    for row in seats:
        user = users.get(row.user_id) if row.user_id is not None else None
        language = pick_language(user.language, user.language_code) if user else "en"
        infos.append(
            SeatInfo(
                row.seat,
                row.user_id,
                row.name,
                language,
                row.dm_message_id,
                row.timeouts,
                autopilot=row.user_id is not None and row.timeouts >= limit,
                left=row.user_id is not None and row.timeouts >= UNREACHABLE,
                pings=bool(user.pings) if user is not None else False,
            )
        )
    return tuple(infos)


def abandoned_seats(seats: Sequence[SeatInfo]) -> frozenset[int]:
    """The seats whose players have left the game: persons the computer plays for (they
    missed their turns, blocked the bot or left the group) and who have not taken their seat
    back. At the end of a game these are the seats that rank below everyone who stayed
    (:func:`~bot.games.engine.counted_outcome`); a computer player never leaves."""
    return frozenset(info.seat for info in seats if info.autopilot and not info.is_computer)


def outcome_as_counted(outcome: Outcome | None, seats: Sequence[SeatInfo]) -> Outcome | None:
    """A finished game's ``outcome`` (the rules' own, or the standings it stopped with) as it
    counts — for the table and the panels as for the results and the ratings."""
    return None if outcome is None else counted_outcome(outcome, abandoned_seats(seats))


def chat_language(chat: ChatColumns | None) -> str:
    return pick_language(chat.language if chat else None)


def build_snapshot(
    game: GameColumns,
    seats: tuple[SeatInfo, ...],
    chat: ChatColumns | None,
    *,
    state: Any = None,
    events: tuple[Event, ...] = (),
) -> GameSnapshot:
    """The snapshot of ``game``; ``state`` is the loaded engine state when one is at hand."""
    rules: Rules[Any, Any] = get_rules(game.game_key)
    base: dict[str, Any] = {
        "game_id": game.id,
        "chat_id": game.chat_id,
        "number": game.number,
        "topic_id": game.topic_id,
        "chat_kind": chat.kind if chat else "group",
        "chat_language": chat_language(chat),
        "game_key": game.game_key,
        "status": game.status,
        "version": game.version,
        "options": dict(game.options),
        "creator_id": game.creator_id,
        "join_token": game.join_token,
        "seats": seats,
        "table_message_id": game.table_message_id,
        "deadline_at": game.deadline_at,
        "min_players": rules.min_players,
        "max_players": rules.max_players,
        "recent": tuple(Event.load(e) for e in game.recent or ()),
        "events": events,
    }
    if state is None and game.state is not None:
        state = rules.load(game.state)
    if state is None:
        return GameSnapshot(**base)
    playing = game.status == PLAYING
    outcome = rules.outcome(state)
    if outcome is None and game.status == FINISHED:
        # Ended early, everyone having left: the standings it ended with.
        outcome = rules.standings(state)
    # The places as recorded and rated: whoever left ranks below whoever stayed.
    outcome = outcome_as_counted(outcome, seats)
    views = {info.seat: rules.view(state, info.seat) for info in seats if not info.is_computer}
    legal: dict[int, tuple[tuple[str, Any], ...]] = {}
    acting: tuple[int, ...] = ()
    if playing:
        acting = tuple(rules.acting_seats(state))
        # Every seat, not only the acting ones: some moves are open to all (e.g. "Next deal").
        for info in seats:
            actions = rules.legal_actions(state, info.seat)
            if actions:
                legal[info.seat] = tuple((rules.encode_action(a), a) for a in actions)
    return GameSnapshot(
        **base,
        public=rules.view(state, None),
        views=views,
        legal=legal,
        acting=acting,
        outcome=outcome,
    )
