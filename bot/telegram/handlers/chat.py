"""The chat itself: the bot's membership, members leaving and joining, a group's upgrade, the
messages that bury a table, and the one handler of errors."""

from __future__ import annotations

import logging

from telegram import Update
from telegram.constants import ChatMemberStatus, ChatType
from telegram.error import BadRequest, NetworkError
from telegram.ext import ContextTypes

from bot.services.inbox import AlreadyHandled
from bot.services.types import ChatRef, StorageRefused
from bot.telegram.handlers.room import actor_of, cardroom, say, speaker

logger = logging.getLogger(__name__)


async def handle_migration(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """A group became a supergroup: move its games along and post their tables there."""
    message = update.effective_message
    if message is None or message.migrate_to_chat_id is None:
        return
    await cardroom(context).move_chat(message.chat.id, message.migrate_to_chat_id)


async def handle_my_membership(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """The bot's own membership changed.

    In a group: added — speak its adder's language; removed — its games are cancelled.
    In a private chat: the person blocked the bot — the computer takes his seats at once; he
    unblocked it — his panels come back, with "Take my seat back".
    """
    change = update.my_chat_member
    if change is None:
        return
    room = cardroom(context)
    status = change.new_chat_member.status
    if change.chat.type == ChatType.PRIVATE:
        actor = actor_of(change.from_user)
        if status in (ChatMemberStatus.BANNED, ChatMemberStatus.LEFT):
            await room.blocked(actor)
        elif status == ChatMemberStatus.MEMBER:
            await room.lobby.record(actor, started=True)
            await room.reachable_again(actor.user_id, unblocked=True)
        return
    if status in (ChatMemberStatus.MEMBER, ChatMemberStatus.ADMINISTRATOR):
        # Whether it may pin its live tables there, or must bring them back when buried.
        pins = getattr(change.new_chat_member, "can_pin_messages", None)
        room.publisher.may_pin(change.chat.id, bool(pins))
        where = ChatRef(change.chat.id, change.chat.type, change.chat.title)
        await room.languages.adopt(where, actor_of(change.from_user))
    elif status in (ChatMemberStatus.LEFT, ChatMemberStatus.BANNED):
        for snapshot in await room.lobby.bot_removed(change.chat.id):
            room.publisher.publish(snapshot)
        logger.info("Removed from chat %s; its games are cancelled", change.chat.id)


async def handle_member_left(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """Someone left a group (or was removed): his lobby seats go, the computer plays his
    game seats — and leaving never pays (see the services' outcome of an abandoned seat).
    Someone joined: what the bot remembered of his standing there is asked again."""
    room = cardroom(context)
    message = update.effective_message
    if message is not None and message.left_chat_member is not None:
        gone = message.left_chat_member
        if not gone.is_bot:
            await room.member_left(message.chat.id, gone.id)
        return
    change = update.chat_member
    if change is None or change.new_chat_member.user.is_bot:
        return
    user_id = change.new_chat_member.user.id
    if change.new_chat_member.status in (ChatMemberStatus.LEFT, ChatMemberStatus.BANNED):
        await room.member_left(change.chat.id, user_id)
    else:
        room.rights.forget(change.chat.id, user_id)


async def handle_error(update: object, context: ContextTypes.DEFAULT_TYPE) -> None:
    """Log an unexpected error with its traceback: any of these is a bug. A write the
    database refused is no bug: the person who asked hears it in words (the outage itself is
    logged once, where it was noticed). Nor is Telegram out of reach: polling is retried by
    PTB, and a reply lost on the way is the network's (a bad request stays a bug). Nor is an
    update handled before (a new leader's redelivery)."""
    error = context.error
    if isinstance(error, AlreadyHandled):
        # A new leader was given an update its predecessor had applied just before it died.
        logger.info("Update %s was handled before: not applied again", error.update_id)
        return
    if isinstance(error, NetworkError) and not isinstance(error, BadRequest):
        if update is None:
            logger.warning("Polling Telegram failed (%s); trying again", error)
        else:
            logger.warning("Telegram could not be reached while handling an update: %s", error)
        return
    if isinstance(error, StorageRefused) and isinstance(update, Update):
        message = update.effective_message
        if message is not None and update.callback_query is None:
            t = await speaker(context, update)
            await say(context, message, t, "storage", t("error.storage.refused"))
        return
    logger.error("Unhandled error while processing an update", exc_info=error)


async def handle_any_message(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """Any message the bot hears of: how far its tables and panels have scrolled up; and a
    member who joined a group is asked about afresh (he may join its games at once)."""
    message = update.effective_message
    if message is None:
        return
    room = cardroom(context)
    thread = message.message_thread_id if message.is_topic_message else None
    room.publisher.seen(message.chat.id, thread, message.message_id)
    for member in message.new_chat_members or ():
        room.rights.forget(message.chat.id, member.id)
