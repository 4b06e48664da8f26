"""Simulated people for chaos runs: they open games, press whatever they see and forge data.

A :class:`Crowd` lives in the fake Bot API (:mod:`bot.sandbox`): a few people, one of whom never
started the bot, in a few groups. :meth:`Crowd.act` makes one person do one random thing —
open a game of any kind (in a group, or against the computer in his own chat), send a
command, press a button of a message he can see (the groups' and his own chat's), or press
forged data: garbage, made-up game ids and versions, or another player's move pressed by
someone who is not that player. The in-process chaos test and ``python -m bench.chaos`` both
drive one.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from random import Random

from bot.sandbox.bot_api import FakeBotApi
from bot.sandbox.models import FakeCallback, FakeChat, FakeMessage, FakeUser

GAMES = ("rank", "trumps", "advantage", "progression", "davayka")
NAMES = ("Anna", "Boris", "Clara", "Denis", "Elena", "Farid", "Galina", "Hugo")
LANGUAGES = ("en", "ru", "uk", "hr")
GROUP_TITLES = ("Card club", "Night owls", "Lunch break")
#: The person who never started the bot (his Join gets a deep link he never follows).
STRANGER = "Ezra"
FORGERIES = (
    "A:1:1:d",
    "A:999:0:x",
    "L:1:start",
    "U:1:0:joker",
    "R:1",
    "garbage",
    "N:chess",
    "L:1:o.round_limit",
    "A:1:1:" + "p" * 30,
    "B:rank:cb:0",
    "Y:1",
    "G:xx",
)
#: Lobby options people leave alone: they lengthen every window (up to 5 minutes), and a run
#: must see absent players time out within its length.
SLOW_OPTIONS = (":o.turn_seconds", ":o.forfeit_seconds")


@dataclass
class Crowd:
    """People and groups in the fake, and what they have done so far."""

    api: FakeBotApi
    rng: Random
    people: list[FakeUser]
    groups: list[FakeChat]
    #: Group id → the admin who may cancel what is open there.
    admins: dict[int, FakeUser]
    callbacks: list[FakeCallback] = field(default_factory=list)
    #: How many times each kind of thing was done ("press", "forged", "/new", ...).
    done: Counter[str] = field(default_factory=Counter)
    #: People who opened a game against the computer and deal it at their next turn.
    dealing: set[int] = field(default_factory=set)

    @classmethod
    def gather(cls, api: FakeBotApi, rng: Random, *, people: int = 5, groups: int = 2) -> Crowd:
        """``people`` who started the bot plus the stranger; everyone is in every group."""
        if not 2 <= people <= len(NAMES) or not 1 <= groups <= len(GROUP_TITLES):
            raise ValueError(f"2–{len(NAMES)} people and 1–{len(GROUP_TITLES)} groups")
        persons = [
            api.add_user(name, language_code=LANGUAGES[i % len(LANGUAGES)])
            for i, name in enumerate(NAMES[:people])
        ]
        persons.append(api.add_user(STRANGER, started=False))
        chats: list[FakeChat] = []
        admins: dict[int, FakeUser] = {}
        for i, title in enumerate(GROUP_TITLES[:groups]):
            admin = persons[i % people]
            chat = api.add_group(title, admins=[admin], members=persons)
            chats.append(chat)
            admins[chat.id] = admin
        return cls(api, rng, persons, chats, admins)

    def canceller(self, chat_id: int) -> FakeUser | None:
        """Who may /cancel what is open in a chat: the group's admin, or the chat's owner."""
        chat = self.api.chat(chat_id)
        return chat.user if chat.is_private else self.admins.get(chat.id)

    def visible(self, user: FakeUser) -> list[FakeMessage]:
        """The newest bot messages with buttons in each chat ``user`` sees: groups, his DM."""
        seen: list[FakeMessage] = []
        chats: list[FakeChat | FakeUser] = [*self.groups, user]
        for chat in chats:
            seen += [m for m in self.api.bot_messages(chat) if self.api.buttons(m)][-4:]
        return seen

    async def act(self, user: FakeUser) -> None:
        """``user`` does one random thing — or, having opened a game against the computer,
        deals it (most who open one do, soon)."""
        if user.id in self.dealing and await self._deal(user):
            return
        roll = self.rng.random()
        if roll < 0.07:
            await self._say(user, self.rng.choice(self.groups), f"/new {self.rng.choice(GAMES)}")
        elif roll < 0.08:
            await self._say(user, user, f"/new {self.rng.choice(GAMES)}")
            if user.started:
                self.dealing.add(user.id)
        elif roll < 0.10:
            command = self.rng.choice(("/cancel", "/top", "/help", "/rules rank"))
            await self._say(user, self.rng.choice(self.groups), command)
        elif roll < 0.14:
            await self._forge(user)
        else:
            await self._press(user)

    async def _say(self, user: FakeUser, chat: FakeChat | FakeUser, text: str) -> None:
        if chat is user and not user.started:
            return  # writing to the bot would start it
        await self.api.send_text(user, chat, text)
        self.done[text.split()[0]] += 1

    async def _deal(self, user: FakeUser) -> bool:
        """Press Deal on the game against the computer his private chat shows, if it does."""
        self.dealing.discard(user.id)
        for message in reversed(self.api.bot_messages(user)):
            deal = [
                value
                for row in self.api.buttons(message)
                for _, value in row
                if value.startswith("L:") and value.endswith(":start")
            ]
            if deal:
                await self._send(user, message, deal[0], "press")
                return True
        return False

    async def _press(self, user: FakeUser) -> None:
        messages = self.visible(user)
        if not messages:
            return
        message = self.rng.choice(messages)
        data = [
            value
            for row in self.api.buttons(message)
            for _, value in row
            if value and not value.startswith("http") and not value.endswith(SLOW_OPTIONS)
        ]
        if data:
            await self._send(user, message, self.rng.choice(data), "press")

    async def _forge(self, user: FakeUser) -> None:
        """Garbage, or a move from someone else's hand pressed on a group message."""
        messages = self.visible(user)
        if not messages:
            return
        target = self.rng.choice(messages)
        borrowed = [
            value
            for other in self.people
            if other is not user
            for message in self.api.bot_messages(other)[-2:]
            for row in self.api.buttons(message)
            for _, value in row
            if value.startswith("A:")
        ]
        if borrowed and self.rng.random() < 0.5:
            group_messages = [m for m in messages if m.chat.is_group]
            if group_messages:
                await self._send(user, self.rng.choice(group_messages), borrowed[0], "foreign")
                return
        await self._send(user, target, self.rng.choice(FORGERIES), "forged")

    async def _send(self, user: FakeUser, message: FakeMessage, data: str, kind: str) -> None:
        self.callbacks.append(
            await self.api.press_data(user, message.chat, message.message_id, data)
        )
        self.done[kind] += 1
