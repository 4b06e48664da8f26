"""Two quick players at Davay-ka! (issue #19), on simulated time (:mod:`bench.warp`).

The engine, the services, the Application and the real publisher with its production budget
run against the strict-window fake, as in :mod:`bench.flood`. Two simulated people play as
attentive players do: about 0.5 s from seeing to tapping, an edit reaching the phone 0.15–0.35 s
after the bot made it, a press reaching the bot 0.1–0.25 s after the tap (and its answer as
long coming back). Each decides on what his phone shows — his panel, and what the answers to
his own presses said since (his piles change only by his own moves) — and taps the place of
the pile he chose on the keyboard his phone shows *when he taps*, as a finger does.

- ``davayka_accepted_share``: moves accepted / move presses (target ≥ 0.85).
- ``davayka_panel_lag_p50_s``: from a change of the game to a player's phone showing it.
- ``davayka_mistaps``: presses that played another card than the one the player meant when
  he decided (target 0).
- ``davayka_accepted_share_ceiling``: the share if every refused press decided on a centre
  that had already changed unseen were accepted — what the quickest possible delivery could
  reach. The other refusals are races the rules decide: the other player's move reached the
  bot in the moment between deciding and arriving (about 0.6–0.9 s), and "moves are applied
  in the order they reach the server".
"""

from __future__ import annotations

import asyncio
import re
from dataclasses import dataclass, field
from pathlib import Path
from random import Random

from bench.flood import feed, on_simulated_time, strict_world
from bench.report import Figure, percentile
from bench.world import BenchGame, World
from bot.games.cards import Card, standard_deck
from bot.games.davayka import DavaykaView, fits
from bot.i18n import translator
from bot.services.authority import Origin
from bot.services.types import Actor, ChatRef, GameSnapshot
from bot.telegram.render import Content
from bot.telegram.render.common import card_label
from bot.telegram.sender.live import Slot

T = translator("en")
REACT = (0.4, 0.6)
EDIT_TRANSIT = (0.15, 0.35)
PRESS_TRANSIT = (0.1, 0.25)
#: "7♥ → the left pile. Pile 1 now shows 4♠." — what an accepted move's answer says.
ANSWER = re.compile(r"^(?P<card>\S+) → the (?P<where>left pile|right pile|centre)\.")
NOW_SHOWS = re.compile(r"now shows (?P<top>\S+)\.")
#: "… Centre: 9♣ · 4♦." — the centre as it is now, at the end of a move's or a refusal's answer.
CENTRE = re.compile(r"Centre: (?P<tops>.+)\.$")


@dataclass
class Screen:
    """One state of a player's panel on his phone: from ``at``, this content and version."""

    at: float
    version: int
    content: Content


@dataclass
class Told:
    """What an answer told the player, at ``at``: his pile ``pile`` now shows ``top``
    (None: empty; no pile: a refusal), and the centre piles' tops now."""

    at: float
    #: The game's version the answer speaks of.
    version: int
    pile: int | None
    top: str | None
    centres: list[str]


@dataclass
class Person:
    seat: int
    rng: Random
    #: He reads the answers to his presses (the bot's answers say what happened).
    listens: bool = True
    #: Seconds from seeing to tapping.
    react: tuple[float, float] = REACT
    screens: list[Screen] = field(default_factory=list)
    told: list[Told] = field(default_factory=list)
    presses: int = 0
    accepted: int = 0
    mistaps: int = 0
    #: Refused presses decided on a centre that had already changed (news not yet shown).
    refused_unseen: int = 0

    def screen(self, now: float) -> Screen | None:
        """What his phone shows at ``now``: the newest edit that has reached it (edits can
        arrive out of order; Telegram shows the newest)."""
        shown = [s for s in self.screens if s.at <= now]
        return max(shown, key=lambda s: s.version) if shown else None


@dataclass
class Run:
    people: list[Person]
    lags: list[float]
    seconds: float
    finished: bool


async def play(folder: Path, seconds: float, seed: int, *, by_card: bool = False) -> Run:
    """One seeded game of two quick players, until it ends or ``seconds`` pass. ``by_card``:
    each press names the card and the centre pile the player aimed at, as panels did before
    issue #19, and is accepted only if that card still fits that pile; and the player goes by
    his panel alone, as answers said nothing then (the baseline)."""
    loop = asyncio.get_running_loop()
    world = strict_world(folder, f"quick-{seed}-{by_card}.db")
    await world.start(run_jobs=False)
    people = [Person(seat, Random(seed * 10 + seat), listens=not by_card) for seat in (0, 1)]
    versions: dict[int, GameSnapshot] = {}
    published: dict[int, float] = {}
    lags: list[float] = []
    try:
        _watch(world, people, versions, published, lags)  # the world's one game
        game = await world.create_game("davayka", 2, seed=seed)
        await world.room.publisher.drain()
        until = loop.time() + seconds
        await asyncio.gather(
            *(_player(world, game, person, versions, until, by_card) for person in people)
        )
        finished = world.latest[game.game_id].status == "finished"
        return Run(people, lags, seconds, finished)
    finally:
        await world.abandon_deliveries()
        await world.stop()


def _watch(
    world: World,
    people: list[Person],
    versions: dict[int, GameSnapshot],
    published: dict[int, float],
    lags: list[float],
) -> None:
    """Record every snapshot published, and each panel as it reaches its player's phone."""
    loop = asyncio.get_running_loop()
    publisher = world.room.publisher
    publish = publisher.publish

    def recording(snapshot: GameSnapshot) -> None:
        versions[snapshot.version] = snapshot
        published.setdefault(snapshot.version, loop.time())
        publish(snapshot)

    publisher.publish = recording  # type: ignore[method-assign]
    deliver = publisher._deliver

    async def delivered(slot: Slot, content: Content) -> None:
        await deliver(slot, content)
        if slot.seat is None:
            return
        person = people[slot.seat]
        arrives = loop.time() + person.rng.uniform(*EDIT_TRANSIT)
        newest = max((s.version for s in person.screens), default=0)
        person.screens.append(Screen(arrives, slot.version, content))
        for version in range(newest + 1, slot.version + 1):
            if version in published:
                lags.append(arrives - published[version])

    publisher._deliver = delivered  # type: ignore[method-assign]


def _belief(
    person: Person, screen: Screen, view: DavaykaView, now: float
) -> tuple[list[str | None], list[str | None]]:
    """His piles' tops and the centre tops, as he believes them now: the panel his phone
    shows, and what answers told him since it was drawn."""
    piles = [
        None if p.top is None else card_label(T, p.top) for p in view.seats[person.seat].piles
    ]
    centres: list[str | None] = [
        None if c.top is None else card_label(T, c.top) for c in view.centres
    ]
    for told in sorted(person.told, key=lambda told: told.version) if person.listens else ():
        if told.at <= now and told.version > screen.version:
            if told.pile is not None:
                piles[told.pile] = told.top
            if len(told.centres) == len(centres):
                centres = list(told.centres)
    return piles, centres


def _fit(card: str, onto: str) -> bool:
    return fits(_card(card), _card(onto))


#: Each card by the label the players read on it.
_BY_LABEL: dict[str, Card] = {card_label(T, c): c for c in standard_deck()}


def _card(label: str) -> Card:
    return _BY_LABEL[label]


async def _player(
    world: World,
    game: BenchGame,
    person: Person,
    versions: dict[int, GameSnapshot],
    until: float,
    by_card: bool,
) -> None:
    loop = asyncio.get_running_loop()
    user = game.players[person.seat]
    rng = person.rng
    while loop.time() < until and world.latest[game.game_id].status == "playing":
        screen = person.screen(loop.time())
        if screen is None:
            await asyncio.sleep(0.05)
            continue
        view: DavaykaView = versions[screen.version].views[person.seat]
        wanted: tuple[int, int] | None = None  # (row, column) of the place to tap
        meant: str | None = None
        aim = 0
        unseen = False  # the centre had changed before he decided, and he did not know
        if view.phase in ("ready", "stall"):
            second = screen.content.keyboard[1] if len(screen.content.keyboard) > 1 else ()
            if len(second) == 1 and second[0].data != "-":
                wanted = (1, 0)
        elif view.phase == "play":
            piles, centres = _belief(person, screen, view, loop.time())
            now = world.latest[game.game_id].public.centres
            unseen = centres != [None if c.top is None else card_label(T, c.top) for c in now]
            for index, top in enumerate(piles):
                where = [j for j, c in enumerate(centres) if top and c and _fit(top, c)]
                if top is not None and where:
                    # Onto the left when it fits both (the first place of its column).
                    wanted, meant, aim = (0, index), top, where[0]
                    break
        if wanted is None:
            await asyncio.sleep(0.1)  # watching for a change
            continue
        await asyncio.sleep(rng.uniform(*person.react))
        tapped = person.screen(loop.time())
        assert tapped is not None
        keyboard = tapped.content.keyboard
        row, column = wanted
        if row >= len(keyboard) or column >= len(keyboard[row]):
            continue  # the place is not there any more (the panel changed its shape)
        data = keyboard[row][column].data
        if not data or data == "-":
            continue  # nothing to press there now
        if by_card and meant is not None:
            data = f"A:{game.game_id}:0:m{column}{_card(meant).code}{aim}"
        await asyncio.sleep(rng.uniform(*PRESS_TRANSIT))
        panel = world.api.last_message(user)
        if panel is None:
            continue
        callback = await world.api.press_data(user, user, panel.message_id, data)
        await feed(world, world.api.update_log[-1])
        back = loop.time() + rng.uniform(*PRESS_TRANSIT)
        version = world.latest[game.game_id].version
        text = callback.text or ""
        centre = CENTRE.search(text)
        centres = centre.group("tops").split(" · ") if centre else []
        if meant is None:  # Ready or «Давай-ка!»: its answer may say what was turned up
            person.told.append(Told(back, version, None, None, centres))
            await asyncio.sleep(back - loop.time())
            continue
        person.presses += 1
        played = ANSWER.match(text)
        if played is not None:
            person.accepted += 1
            if played.group("card") != meant:
                person.mistaps += 1
            shows = NOW_SHOWS.search(text)
            top = shows.group("top") if shows else None
            person.told.append(Told(back, version, column, top, centres))
        else:
            person.told.append(Told(back, version, None, None, centres))
            person.refused_unseen += int(unseen)
        await asyncio.sleep(max(0.0, back - loop.time()))


#: A steady person against the computer: about a second from seeing to tapping.
STEADY = (0.8, 1.2)


async def against_computer(folder: Path, seconds: float, seed: int) -> int | None:
    """One seeded game of a steady person (seat 0) against the computer (seat 1), to its
    end or ``seconds``: the winning seat (``None``: a draw or not over)."""
    loop = asyncio.get_running_loop()
    world = strict_world(folder, f"computer-{seed}.db")
    await world.start(run_jobs=False)
    person = Person(0, Random(seed), react=STEADY)
    versions: dict[int, GameSnapshot] = {}
    try:
        _watch(world, [person], versions, {}, [])
        room = world.room
        user = world.api.add_user(f"Steady{seed}", started=True)
        group = world.api.add_group(f"Versus {seed}", members=[user])
        where = ChatRef(group.id, group.type, group.title)
        actor = Actor(user.id, user.first_name, None, "en")
        await room.lobby.record(actor, where, started=True)
        lobby = await room.lobby.open(where, actor, "davayka")
        await world.reseed(lobby.game_id, seed)
        table = Origin(group.id, 0)
        await room.lobby.add_computer(lobby.game_id, actor, table)
        room.publisher.publish(await room.lobby.start(lobby.game_id, actor, table))
        game = BenchGame(lobby.game_id, "davayka", group, [user])
        await room.publisher.drain()
        await _player(world, game, person, versions, loop.time() + seconds, False)
        view: DavaykaView = world.latest[game.game_id].public
        return view.winner if view.finished else None
    finally:
        await world.abandon_deliveries()
        await world.stop()


def measure(folder: Path, quick: bool) -> list[Figure]:
    seconds = 300.0
    seeds = range(1, 5) if quick else range(1, 13)
    runs = [on_simulated_time(lambda seed=seed: play(folder, seconds, seed)) for seed in seeds]
    baseline = [
        on_simulated_time(lambda seed=seed: play(folder, seconds, seed, by_card=True))
        for seed in seeds
    ]
    was = [person for run in baseline for person in run.people]
    was_share = sum(p.accepted for p in was) / max(1, sum(p.presses for p in was))
    versus = [
        on_simulated_time(lambda seed=seed: against_computer(folder, 600.0, seed))
        for seed in seeds
    ]
    people = [person for run in runs for person in run.people]
    presses = sum(p.presses for p in people)
    accepted = sum(p.accepted for p in people)
    unseen = sum(p.refused_unseen for p in people)
    lags = [lag for run in runs for lag in run.lags]
    return [
        Figure(
            "davayka_accepted_share",
            accepted / presses if presses else 0.0,
            "",
            f"moves accepted / move presses, two quick players ({presses} presses in "
            f"{len(runs)} games of up to {seconds:g} s)",
        ),
        Figure(
            "davayka_accepted_share_ceiling",
            (accepted + unseen) / presses if presses else 0.0,
            "",
            f"same games, were every player's news shown at once: of {presses - accepted} "
            f"refused, {unseen} were decided on a centre already changed unseen; the rest "
            "raced the other player's move between deciding and arriving",
        ),
        Figure(
            "davayka_accepted_share_by_card",
            was_share,
            "",
            "baseline, same run: the players press (card, centre pile) as panels did before "
            "issue #19, accepted only where that card still fits that pile, and go by their "
            "panels alone (answers were silent then)",
        ),
        Figure(
            "davayka_panel_lag_p50_s",
            percentile(lags, 0.5) if lags else float("nan"),
            "s",
            "a change of the game → a player's phone showing it (p99 "
            f"{percentile(lags, 0.99) if lags else float('nan'):.2f} s)",
        ),
        Figure(
            "davayka_computer_win_share",
            sum(1 for winner in versus if winner == 1) / len(versus),
            "",
            f"games the computer won against a steady person ({STEADY[0]:g}–{STEADY[1]:g} s "
            f"from seeing to tapping), of {len(versus)}; "
            f"{sum(1 for winner in versus if winner is None)} drawn or unfinished",
        ),
        Figure(
            "davayka_mistaps",
            sum(p.mistaps for p in people),
            "",
            "presses that played another card than the one meant when deciding",
        ),
    ]
