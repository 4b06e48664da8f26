"""``/nextgame``: a member of a group asks for a private message when the next game opens
there (in that forum topic, if he asks in one) — and, when a lobby opens, the people who
asked are told, once each.

The command is answered in a short reply (:func:`~bot.telegram.handlers.room.say`); a member
the bot cannot write to yet is told to start it, since the private message is the point. The
messages to the people waiting go through the sender's notes, each in its reader's language,
with a link to the lobby once it is posted.
"""

from __future__ import annotations

import logging

from telegram import Update
from telegram.ext import ContextTypes

from bot.i18n import translator
from bot.services.outbox import PendingLetter
from bot.services.types import GameSnapshot, ServiceError
from bot.telegram.handlers.room import (
    Cardroom,
    actor_of,
    cardroom,
    chat_of,
    refusal,
    say,
    speaker,
    words,
)
from bot.telegram.render.common import esc, game_name, group_title, person_name
from bot.telegram.render.content import Button
from bot.telegram.sender.budget import Priority
from bot.telegram.sender.notes import Note, message_call
from bot.telegram.sender.outbox import Draw

logger = logging.getLogger(__name__)

#: Seconds the messages to the people waiting wait for the lobby to be posted, to link to it;
#: past that they go without the link.
LINK_WAIT = 30.0
#: How a supergroup's id begins (a message there has a link: ``t.me/c/<the rest>/<id>``).
SUPERGROUP_PREFIX = "-100"


async def handle_nextgame(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """``/nextgame`` in a group: a private message when its next game opens here."""
    message, user, chat = update.effective_message, update.effective_user, update.effective_chat
    if message is None or user is None or chat is None:
        return
    room = cardroom(context)
    t = await speaker(context, update)
    try:
        waiting = await room.waitlist.ask(actor_of(user, message), chat_of(chat, message))
    except ServiceError as error:
        lobby = error.args_.get("message_id")
        text = refusal(error)
        await say(context, message, t, f"refused:{error.code}", text, reply_to=lobby)
        return
    name = person_name(user.first_name)
    # Each asker's own answer: another person's just above is not his.
    key = f"nextgame:{user.id}"
    if waiting.reachable:
        added = words("waitlist.added", name=name)
        await say(context, message, t, key, added, reply_to=message.message_id)
        return
    start = Button(t("waitlist.start_button"), url=f"https://t.me/{context.bot.username}")
    await say(
        context,
        message,
        t,
        key,
        words("waitlist.start_first", name=name),
        keyboard=((start,),),
        reply_to=message.message_id,
    )


def opened_draw(room: Cardroom) -> Draw:
    """How a letter telling someone that a lobby opened is drawn: once the lobby is posted (or
    after :data:`LINK_WAIT`), with a link to it where its group has links."""

    async def draw(pending: PendingLetter) -> Note | None:
        letter = pending.letter
        game_id = letter.game_id
        assert game_id is not None

        async def recorded() -> int | None:
            return (await room.play.snapshot(game_id)).table_message_id

        try:
            message_id = await room.tables.wait(game_id, recorded, LINK_WAIT)
        except Exception as error:  # the database is away: the message goes without the link
            logger.warning("No link to game %s for the people waiting: %s", game_id, error)
            message_id = None
        snapshot = await room.play.snapshot(game_id)
        t = translator(str(letter.body.get("language", "en")))
        title = str(letter.body.get("title", ""))
        said = {"game": esc(game_name(t, snapshot.game_key)), "chat": group_title(title)}
        link = lobby_link(snapshot, message_id)
        if link is None:
            call = message_call(letter.chat_id, t("waitlist.opened_elsewhere", **said))
        else:
            button = Button(t("waitlist.join_button"), url=link)
            call = message_call(letter.chat_id, t("waitlist.opened", **said), ((button,),))
        what = f"notice that game {game_id} opened in chat {snapshot.chat_id}"
        return Note(letter.chat_id, call, Priority.REPLY, key=("nextgame", game_id), what=what)

    return draw


def lobby_link(snapshot: GameSnapshot, message_id: int | None) -> str | None:
    """A link to the lobby's message, for the members of its group: only a supergroup's
    messages have one (``t.me/c/<id without -100>/<message id>``)."""
    chat = str(snapshot.chat_id)
    if (
        message_id is None
        or snapshot.chat_kind != "supergroup"
        or not chat.startswith(SUPERGROUP_PREFIX)
    ):
        return None
    return f"https://t.me/c/{chat.removeprefix(SUPERGROUP_PREFIX)}/{message_id}"
