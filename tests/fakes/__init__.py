"""A fake Telegram Bot API for end-to-end tests with the real python-telegram-bot Application.

* :class:`FakeBotApi` - the world (users, chats, topics, messages, updates) and the Bot API
  methods, with Telegram's errors and flood limits; tests drive users with its simulation
  methods and wait with :meth:`FakeBotApi.settle`.
* :class:`FakeRequest` - a ``telegram.request.BaseRequest`` answering in-process.
* :class:`FakeBotApiServer` - the same over real HTTP (``base_url``).
* :func:`render_chat` / :func:`render_all` - chats as readable transcripts.
"""

from .bot_api import (
    DEFAULT_TOKEN,
    ChatRef,
    FakeBotApi,
    MessageLike,
    MessageRef,
    NetworkFault,
    WebhookConfig,
    coerce_params,
)
from .clock import ManualClock
from .flood import FloodControl, FloodPolicy
from .formatting import EntityParseError, FormattedText, format_text, html_escape, utf16_len
from .models import (
    ApiCall,
    ApiError,
    Button,
    FakeCallback,
    FakeChat,
    FakeFile,
    FakeMessage,
    FakeTopic,
    FakeUser,
    MessageVersion,
    Stats,
    Upload,
)
from .request import FakeRequest
from .server import FakeBotApiServer
from .transcript import render_all, render_chat, render_message

__all__ = [
    "DEFAULT_TOKEN",
    "ApiCall",
    "ApiError",
    "Button",
    "ChatRef",
    "EntityParseError",
    "FakeBotApi",
    "FakeBotApiServer",
    "FakeCallback",
    "FakeChat",
    "FakeFile",
    "FakeMessage",
    "FakeRequest",
    "FakeTopic",
    "FakeUser",
    "FloodControl",
    "FloodPolicy",
    "FormattedText",
    "ManualClock",
    "MessageLike",
    "MessageRef",
    "MessageVersion",
    "NetworkFault",
    "Stats",
    "Upload",
    "WebhookConfig",
    "coerce_params",
    "format_text",
    "html_escape",
    "render_all",
    "render_chat",
    "render_message",
    "utf16_len",
]
