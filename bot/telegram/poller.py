"""The deadline poller: a repeating job that moves on games whose window has closed.

Timers are rows (``games.deadline_at``), not jobs: this job only asks the database what is
due, so a restarted bot simply catches up.
"""

from __future__ import annotations

import asyncio
import logging

from telegram.ext import ContextTypes

from bot.telegram.handlers import cardroom

logger = logging.getLogger(__name__)

POLL_SECONDS = 0.5


async def poll_deadlines(context: ContextTypes.DEFAULT_TYPE) -> None:
    """Claim due games, apply their timeouts or computer moves, publish the results."""
    room = cardroom(context)
    try:
        due = await room.play.run_due()
    except asyncio.CancelledError:
        # The bot is stopping mid-pass: what was committed stands, the rest waits for next start.
        logger.debug("Deadline pass interrupted by shutdown")
        return
    for snapshot in due:
        room.publisher.publish(snapshot)
