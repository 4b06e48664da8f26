"""Scripted Rank players who see only what the fake Bot API shows them, and a watch for the
panels a player should never have: two live ones for one game.

A player's *live panels* are the bot's messages in his private chat that carry armed buttons of
a game (``A:<game>:…`` actions or ``U:<game>:…`` screens); a waiting panel has none. One
process keeps one live panel per player: a ping sends it anew and deletes the old copy right
after. Processes that each keep their own message ids leave two.

A :class:`ScriptedPlayer` looks at his live panels as a person does — the bottom one — and when
it shows a decision he has not pressed on he thinks — a reaction time, now and then a long one
(a slow player, who is pinged) — and presses one of its actions; a panel he pressed that stays
as it was waits for its edit, unless its answer said it is out of date: then he looks at the one
above. Everything he decides comes from his own generator, drawn in the
same order at every decision, so the same seed makes the same decisions on the same game.
"""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from random import Random

from bot.sandbox.bot_api import FakeBotApi
from bot.sandbox.models import FakeCallback, FakeUser

#: Seconds from seeing a decision to pressing, for an attentive player...
REACTION = (0.8, 1.6)
#: ... for a slow one, who waits past the ping (a third of a 30-s turn) but not to its end...
SLOW = (12.0, 15.0)
#: ... and how often a decision is a slow one.
SLOW_SHARE = 0.08
#: Two live panels must be seen this long (seconds) to count: a ping sends the new copy first
#: and deletes the old one in the chat's next turn of its budget (a call in a private chat
#: every 1.1 s), so one process shows two for a second or two.
DUPLICATE_GRACE = 3.0


@dataclass(frozen=True, slots=True)
class Panel:
    """A live panel: a message in the player's private chat with armed buttons of a game."""

    message_id: int
    #: The game version its buttons were drawn for.
    version: int
    #: ``(label, data)`` of its action buttons, and of its screen buttons (the joker's picker).
    actions: tuple[tuple[str, str], ...]
    screens: tuple[tuple[str, str], ...]


def live_panels(api: FakeBotApi, user: FakeUser, game_id: int) -> list[Panel]:
    """The user's live panels for the game, oldest first."""
    act, screen = f"A:{game_id}:", f"U:{game_id}:"
    found = []
    for message in api.bot_messages(user):
        buttons = [(label, data) for row in api.buttons(message) for label, data in row]
        actions = tuple((label, data) for label, data in buttons if data.startswith(act))
        screens = tuple((label, data) for label, data in buttons if data.startswith(screen))
        if actions or screens:
            version = int((actions or screens)[0][1].split(":")[2])
            found.append(Panel(message.message_id, version, actions, screens))
    return found


@dataclass
class Press:
    """One press of a scripted player."""

    callback: FakeCallback
    user: FakeUser
    game_id: int
    #: The version the pressed button was drawn for, and its code (``A:…`` presses only).
    version: int
    code: str | None
    #: When it was pressed (``loop.time()``).
    at: float


@dataclass
class Tempo:
    """Whether players may press now; set to stop a scene's pressing for a while or for good."""

    pressing: asyncio.Event = field(default_factory=asyncio.Event)
    over: bool = False

    def __post_init__(self) -> None:
        self.pressing.set()


@dataclass
class ScriptedPlayer:
    """One seat of a Rank game, played from what the fake shows in his private chat."""

    api: FakeBotApi
    user: FakeUser
    seed: int
    game_id: int = 0
    presses: list[Press] = field(default_factory=list)
    #: Decisions he took his time over (slow ones).
    slow: int = 0
    _rng: Random = field(init=False)
    #: What he pressed, by (message, version): an action, and a screen button.
    _pressed: dict[tuple[int, int], FakeCallback] = field(default_factory=dict)
    _screened: set[tuple[int, int]] = field(default_factory=set)

    def __post_init__(self) -> None:
        self._rng = Random(self.seed)

    def decision(self) -> Panel | None:
        """The panel he acts on: his bottom-most live panel, unless he pressed it as it is —
        then, if the answer refused it (out of date: Rank answers an accepted move
        silently), the next one up; else none (his press's edit is on its way)."""
        for panel in reversed(live_panels(self.api, self.user, self.game_id)):
            seen = (panel.message_id, panel.version)
            pressed = self._pressed.get(seen)
            if pressed is None and (panel.actions or seen not in self._screened):
                return panel
            if pressed is None or not pressed.text:
                return None
        return None

    async def play(self, tempo: Tempo, look_every: float = 0.1) -> None:
        """Look, think, press, until the tempo is over."""
        loop = asyncio.get_running_loop()
        while not tempo.over:
            if self.decision() is None:
                await asyncio.sleep(look_every)
                continue
            slow = self._rng.random() < SLOW_SHARE
            think = self._rng.uniform(*(SLOW if slow else REACTION))
            pick = self._rng.random()
            self.slow += slow
            await asyncio.sleep(think)
            await tempo.pressing.wait()
            # What he sees now: a ping may have sent the panel anew, a timeout moved the game.
            panel = self.decision()
            if panel is None or tempo.over:
                continue
            seen = (panel.message_id, panel.version)
            code: str | None = None
            if panel.actions:
                _label, data = panel.actions[int(pick * len(panel.actions))]
                code = data.split(":", 3)[3]
            else:
                _label, data = panel.screens[0]  # the joker's picker: the ranks come next
                self._screened.add(seen)
            callback = await self.api.press_data(self.user, self.user, panel.message_id, data)
            if code is not None:
                self._pressed[seen] = callback
            self.presses.append(
                Press(callback, self.user, self.game_id, panel.version, code, loop.time())
            )


@dataclass
class PanelWatch:
    """Counts, per player, the times he had two live panels (or more) of one game at once,
    sampled often; a time counts once it has lasted :data:`DUPLICATE_GRACE` seconds."""

    api: FakeBotApi
    grace: float = DUPLICATE_GRACE
    followed: list[tuple[FakeUser, int]] = field(default_factory=list)
    episodes: Counter[int] = field(default_factory=Counter)
    #: The longest time (seconds) any player had two live panels.
    longest: float = 0.0
    #: (user id, game id) → when his present two-panel time began.
    _since: dict[tuple[int, int], float] = field(default_factory=dict)
    _counted: set[tuple[int, int]] = field(default_factory=set)

    def follow(self, players: Sequence[ScriptedPlayer]) -> None:
        self.followed += [(p.user, p.game_id) for p in players]

    def sample(self, now: float) -> None:
        for user, game_id in self.followed:
            key = (user.id, game_id)
            if len(live_panels(self.api, user, game_id)) < 2:
                self._since.pop(key, None)
                self._counted.discard(key)
                continue
            since = self._since.setdefault(key, now)
            lasted = now - since
            if lasted >= self.grace and key not in self._counted:
                self._counted.add(key)
                self.episodes[user.id] += 1
            if key in self._counted:
                self.longest = max(self.longest, lasted)

    @property
    def most(self) -> int:
        """The most times any one player had two live panels at once."""
        return max(self.episodes.values(), default=0)

    async def run(self, every: float = 0.25) -> None:
        loop = asyncio.get_running_loop()
        while True:
            self.sample(loop.time())
            await asyncio.sleep(every)
