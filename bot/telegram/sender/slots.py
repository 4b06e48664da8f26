"""Slots: every message the sender keeps in step with a game — a group's table, a player's
panel — and what it knows of each: the message's id, what it shows (as a fingerprint), whether
a newer state waits to go, whose turn it waits for.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass, field

from bot.telegram.render import Content
from bot.telegram.sender.budget import Priority, Ticket

#: Renders a slot's message as of a moment, on a panel screen (``None``: the main one).
Render = Callable[[float, str | None], Content]


def fingerprint(content: Content) -> int:
    """What a message shows apart from the passing of time, as one number: equal
    fingerprints need no edit."""
    return hash((content.still_text, content.keyboard))


@dataclass(slots=True)
class Slot:
    """One message kept up to date."""

    game_id: int
    seat: int | None
    chat_id: int
    thread_id: int | None
    private: bool
    message_id: int | None = None
    #: How to draw the latest snapshot; dropped (with the snapshot) once it is delivered.
    render: Render | None = None
    screen: str | None = None
    #: :func:`fingerprint` of the timeless content the message shows now.
    sent: int | None = None
    dirty: bool = False
    #: Not to wait for the chat's next free moment (a screen the player just asked for).
    urgent: bool = False
    final: bool = False
    unreachable: bool = False
    task: asyncio.Task[None] | None = None
    failures: int = 0
    #: The game version of the snapshot the slot was last given.
    version: int = 0
    #: The last change could not be delivered (given up or refused): the message is behind.
    behind: bool = False
    #: Send the message anew (it notifies, where an edit does not) and retire the old one.
    renew: bool = False
    #: Whose message goes first when the budget is short (see :class:`Priority`); it may rise
    #: while the slot waits.
    ticket: Ticket = field(default_factory=lambda: Ticket(Priority.TABLE))
    #: The slot holds its turn in the budget: the next call spends it.
    turn_taken: bool = False
    #: When the change that gave this panel's player the move was published (loop time).
    turn_since: float | None = None
    #: The message's id could not be recorded yet (the database refused to write).
    unremembered: bool = False
    #: The message is pinned in its group (a live table, where the bot may pin).
    pinned: bool = False
    #: When the player's present move came to him (loop time); ``None``: not his move.
    turn_started: float | None = None
    #: The ping that sends the panel anew if the move waits too long for him.
    ping: asyncio.TimerHandle | None = None
    #: When the oldest change the message does not show yet was published (loop time).
    changed_at: float | None = None
    #: A private panel left as it is while its player plays on the Mini App page: brought up
    #: to date when his page closes (:meth:`~bot.telegram.sender.live.Publisher.page_closed`).
    held: bool = False
