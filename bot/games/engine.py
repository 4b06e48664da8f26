"""The contract every game engine implements, and the types shared by all engines.

An engine is pure: data plus functions, standard library only. It never reads the clock
(time arrives as ``now``, seconds since the epoch), never uses the global ``random`` (a
``Random`` seeded from the game row is passed in) and never produces text (it emits events and
views; all words come from the i18n catalogs).
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from random import Random
from typing import Any, Generic, Protocol, TypeVar

from bot.games.cards import Card, parse_card

S = TypeVar("S")
A = TypeVar("A")
T = TypeVar("T")

#: Lobby options as chosen by the players: JSON-compatible values keyed by option name.
Options = Mapping[str, Any]

#: Option present in every game: seconds in one turn window.
TURN_SECONDS = "turn_seconds"
#: Option present in every game: consecutive timeouts before a computer takes a seat over.
AUTOPILOT_AFTER = "autopilot_after"
#: Option present in every game: the seat that deals (``None`` or absent: by lot).
DEALER = "dealer"


class IllegalAction(Exception):
    """An action the rules refuse. ``code`` is also the i18n key of the message shown."""

    def __init__(self, code: str) -> None:
        super().__init__(code)
        self.code = code


@dataclass(frozen=True, slots=True)
class OptionSpec:
    """A lobby option a game offers: the players cycle through ``choices``."""

    key: str
    choices: tuple[Any, ...]
    default: Any


EventArg = int | str | Card | tuple[Card, ...]


@dataclass(frozen=True, slots=True)
class Event:
    """Something that happened, for the table's log and the players' panels.

    ``code`` is the i18n key of its sentence, ``seat`` the player who did it (if any) and
    ``args`` the values the sentence needs. Argument names follow a convention the renderer
    relies on: ``rank`` holds a rank number, ``card`` a ``Card``, ``cards`` a tuple of cards,
    ``pile`` a pile index counted from 0 (shown counted from 1), ``suit`` a suit letter
    (shown as its symbol), ``…seat`` a seat number.
    An event with ``only_seat`` set is private to that seat (e.g. the card you drew).
    """

    code: str
    seat: int | None = None
    args: Mapping[str, EventArg] = field(default_factory=dict)
    only_seat: int | None = None

    def visible_to(self, seat: int | None) -> bool:
        return self.only_seat is None or self.only_seat == seat

    def dump(self) -> dict[str, Any]:
        args: dict[str, Any] = {}
        for name, value in self.args.items():
            if isinstance(value, Card):
                args[name] = {"card": value.code}
            elif isinstance(value, tuple):
                args[name] = {"cards": [c.code for c in value]}
            else:
                args[name] = value
        data: dict[str, Any] = {"code": self.code, "seat": self.seat, "args": args}
        if self.only_seat is not None:
            data["only_seat"] = self.only_seat
        return data

    @classmethod
    def load(cls, data: Mapping[str, Any]) -> Event:
        args: dict[str, EventArg] = {}
        for name, value in data.get("args", {}).items():
            if isinstance(value, dict) and "card" in value:
                args[name] = parse_card(value["card"])
            elif isinstance(value, dict) and "cards" in value:
                args[name] = tuple(parse_card(code) for code in value["cards"])
            else:
                args[name] = value
        return cls(data["code"], data.get("seat"), args, data.get("only_seat"))


@dataclass(frozen=True, slots=True)
class Step(Generic[T]):
    """The result of applying an action: the new state and what happened, in order."""

    state: T
    events: tuple[Event, ...] = ()


@dataclass(frozen=True, slots=True)
class Outcome:
    """How a finished game ended.

    ``places[seat]`` is 1 for the winner; seats that tie share a place (a draw between two
    players is ``(1, 1)``). ``scores`` holds per-seat points where the game keeps a score.
    """

    places: tuple[int, ...]
    scores: tuple[float, ...] | None = None


def places_from_ranking(keys: Sequence[Any]) -> tuple[int, ...]:
    """Competition ranking ("1224") for per-seat sort keys where lower is better."""
    return tuple(1 + sum(1 for other in keys if other < key) for key in keys)


def counted_outcome(outcome: Outcome, abandoned: Collection[int]) -> Outcome:
    """``outcome`` as it counts when the players of the ``abandoned`` seats left before the end.

    Leaving never pays (the rule of every game, see :class:`Rules`): the seats that stayed keep
    their order and their ties among themselves and all rank above every abandoned seat; the
    abandoned seats share the place after the last seat that stayed — tied among themselves,
    so that nobody gains on another leaver by leaving first. Places are a competition ranking,
    as :func:`places_from_ranking` gives them — but for a game that nobody stayed in to the
    end: nobody won it, and they all share the *last* place, a loss for each (not a draw,
    which a shared first place would read as on the table, on the panels and in the
    history). The scores are kept as the game counted them, being what was on the table.
    """
    seats = range(len(outcome.places))
    if not any(seat in abandoned for seat in seats):
        return outcome
    if all(seat in abandoned for seat in seats):
        return Outcome((len(outcome.places),) * len(outcome.places), outcome.scores)
    keys = [
        (1, 0) if seat in abandoned else (0, place) for seat, place in enumerate(outcome.places)
    ]
    return Outcome(places_from_ranking(keys), outcome.scores)


class Rules(Protocol[S, A]):
    """One game. The registry maps each game key to an object implementing this.

    **Leaving never pays.** This is the one place that says what an abandoned seat scores, and
    it says it for every game: none of the five has an exception, so no engine implements it
    or knows who left. A seat is *abandoned* when its player blocked the bot, left the group or
    missed his turns until the computer took the seat over, and did not take it back before the
    game ended — whether it ran to its end or stopped early because every person was away. An
    abandoned seat ranks below every seat that stayed (people and computer players alike) — a
    loss — whatever :meth:`outcome` or :meth:`standings` said: the services pass what those
    say through :func:`counted_outcome` before anything is shown, recorded or rated, and no
    absent player's rating rises from the game. Otherwise a player ahead could bank his lead
    by walking away and letting the computer finish, or stop, the game for him.
    """

    @property
    def key(self) -> str:
        """The game key: ``rank``, ``trumps``…"""
        ...

    @property
    def min_players(self) -> int: ...

    @property
    def max_players(self) -> int: ...

    @property
    def options(self) -> tuple[OptionSpec, ...]:
        """The lobby options the game offers (the turn window is added for every game)."""
        ...

    def new_game(self, seats: int, options: Options, rng: Random, now: float) -> S:
        """A freshly dealt game for ``seats`` players."""
        ...

    def acting_seats(self, state: S) -> tuple[int, ...]:
        """The seats that may act now (one in a turn-based game; none once it is over)."""
        ...

    def legal_actions(self, state: S, seat: int) -> Sequence[A]:
        """Every action ``seat`` may take now; empty when it is not his move."""
        ...

    def apply(self, state: S, seat: int, action: A, rng: Random, now: float) -> Step[S]:
        """Apply one action; raises :class:`IllegalAction` when the rules refuse it."""
        ...

    def next_deadline(self, state: S) -> float | None:
        """When the open window closes; ``None`` when nothing is pending (e.g. game over)."""
        ...

    def on_deadline(self, state: S, rng: Random, now: float) -> Step[S]:
        """The timeout default action for whoever's window has closed."""
        ...

    def view(self, state: S, seat: int | None) -> Any:
        """What ``seat`` may see (``None``: the public table). A frozen dataclass."""
        ...

    def choose(self, state: S, seat: int, rng: Random) -> A:
        """The computer player's action for ``seat`` (which must be able to act)."""
        ...

    def outcome(self, state: S) -> Outcome | None:
        """Places (and scores) once the game is over; ``None`` while it goes on."""
        ...

    def standings(self, state: S) -> Outcome | None:
        """The outcome if the game were stopped now (e.g. every human seat is on autopilot).

        Places (and scores, filled exactly as :meth:`outcome` fills them) from the standing
        a fair referee would use: each game documents its ranking rule, normally the game's
        own backstop ending applied to the current state. ``None`` while the game has barely
        begun: too little has been played for a ranking to mean anything (each game defines
        this, e.g. its first round or deal is not complete); the game should then be
        cancelled rather than scored. For a finished game it equals :meth:`outcome`.
        """
        ...

    def rematch_options(self, state: S, options: Options) -> dict[str, Any]:
        """Options for a rematch of this finished game (who deals next, per the rules)."""
        ...

    def encode_action(self, action: A) -> str:
        """A short ASCII code for the action (≤ 24 characters): callback data, action log."""
        ...

    def decode_action(self, code: str) -> A:
        """The action for a code; raises :class:`IllegalAction` ``bad_action`` on garbage."""
        ...

    def dump(self, state: S) -> dict[str, Any]:
        """A JSON-compatible dict that :meth:`load` turns back into an equal state."""
        ...

    def load(self, data: Mapping[str, Any]) -> S: ...
