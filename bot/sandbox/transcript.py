"""Render chats of a :class:`FakeBotApi` as plain text, the way a person reads them.

Example output of :func:`render_chat`::

    [1] Alice: /newgame
    [2] (edited) Lobby: Alice, Bob
        Waiting for players...
      [Join] [Start]

Each message is ``[id] text`` (formatting removed, escapes decoded, continuation lines
indented), then its inline keyboard rows as ``  [Button] [Button]``. Messages users sent are
prefixed with the sender's name; edited messages say ``(edited)``.
"""

from __future__ import annotations

from .bot_api import ChatRef, FakeBotApi
from .models import FakeChat, FakeMessage, FakeTopic

__all__ = ["render_all", "render_chat", "render_message"]


def render_message(message: FakeMessage, *, topic: FakeTopic | None = None) -> list[str]:
    """The transcript lines of one message (current version) and its keyboard."""
    label = f"[{message.message_id}]"
    if topic is not None:
        label = f"[{message.message_id} in {topic.name}]"
    markers = ""
    if message.deleted:
        markers += "(deleted) "
    if message.edited:
        markers += "(edited) "
    body = _body(message)
    if not message.from_bot and message.service is None:
        body = f"{message.sender.full_name}: {body}"
    first, *rest = body.split("\n")
    indent = " " * (len(label) + 1)
    lines = [f"{label} {markers}{first}".rstrip()]
    lines += [f"{indent}{line}".rstrip() for line in rest]
    for row in message.keyboard():
        lines.append("  " + " ".join(f"[{text}]" for text, _ in row))
    return lines


def render_chat(
    api: FakeBotApi,
    chat: ChatRef,
    *,
    thread_id: int | FakeTopic | None = None,
    include_deleted: bool = False,
) -> str:
    """Everything in a chat (or one forum topic) as readable text, oldest message first."""
    group = api.chat(chat)
    lines: list[str] = []
    for message in api.messages(group, thread_id, include_deleted=include_deleted):
        topic = None
        if thread_id is None and message.is_topic_message:
            topic = group.topics.get(message.message_thread_id or 0)
        lines += render_message(message, topic=topic)
    return "\n".join(lines)


def render_all(api: FakeBotApi, *, include_deleted: bool = False) -> str:
    """Every chat that has messages, each under a ``== title ==`` header."""
    sections: list[str] = []
    for chat in api.chats.values():
        body = render_chat(api, chat, include_deleted=include_deleted)
        if body:
            sections.append(f"== {_chat_title(chat)} ==\n{body}")
    return "\n\n".join(sections)


def _chat_title(chat: FakeChat) -> str:
    if chat.is_private and chat.user is not None:
        return f"DM with {chat.user.full_name} ({chat.id})"
    return f"{chat.title} ({chat.id})"


def _body(message: FakeMessage) -> str:
    service = message.service or {}
    if "forum_topic_created" in service:
        return f"(topic created: {service['forum_topic_created'].get('name', '')})"
    if "pinned_message" in service:
        return f"(pinned message {service['pinned_message'].get('message_id')})"
    if message.photo is not None:
        return f"[photo] {message.text}" if message.text else "[photo]"
    if message.text is None:
        return "(no text)"
    return message.text
