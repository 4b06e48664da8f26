"""The boards' handlers' own decisions: ``/top`` arguments, whose ``/stats``."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from telegram import Chat, ForumTopicCreated, Message, User

from bot.telegram.handlers.boards import BadArguments, parse_top, stats_subject
from bot.telegram.render.boards import BoardPress


def test_top_arguments_in_any_order() -> None:
    assert parse_top([]) == BoardPress(None)
    assert parse_top(["Rank"]) == BoardPress("rank")
    assert parse_top(["global", "trumps"]) == BoardPress("trumps", everyone=True)
    assert parse_top(["trumps", "bots"]) == BoardPress("trumps", computers=True)
    assert parse_top(["bots"]) == BoardPress(None, computers=True)
    for bad in (["chess"], ["rank", "trumps"], ["rank", "please"]):
        with pytest.raises(BadArguments):
            parse_top(bad)


def message(chat: Chat, sender: User, **kwargs: object) -> Message:
    return Message(1, datetime.now(UTC), chat, from_user=sender, **kwargs)  # type: ignore[arg-type]


def test_whose_stats() -> None:
    group = Chat(-100, "supergroup", is_forum=True)
    anna = User(1, "Anna", is_bot=False)
    boris = User(2, "Boris", is_bot=False)
    bot = User(99, "Cardroom", is_bot=True)
    assert stats_subject(message(group, anna), anna) is anna
    assert (
        stats_subject(message(group, anna, reply_to_message=message(group, boris)), anna) is boris
    )
    # Replying to the bot's own message, or in a forum topic without a reply: your own.
    assert stats_subject(message(group, anna, reply_to_message=message(group, bot)), anna) is anna
    topic_start = message(group, boris, forum_topic_created=ForumTopicCreated("Cards", 0))
    assert stats_subject(message(group, anna, reply_to_message=topic_start), anna) is anna
