"""A fake Telegram Bot API for end-to-end tests with the real python-telegram-bot Application.

The fake is the product's Bot API emulator, :mod:`bot.sandbox` (``python -m bot --sandbox``
serves it to a browser); the tests use the very same code. Its modules are also reachable
under their old names (``tests.fakes.bot_api``, ``tests.fakes.models``...): each name is the
``bot.sandbox`` module itself, not a copy.

* :class:`FakeBotApi` - the world (users, chats, topics, messages, updates) and the Bot API
  methods, with Telegram's errors and flood limits; tests drive users with its simulation
  methods and wait with :meth:`FakeBotApi.settle`.
* :class:`FakeRequest` - a ``telegram.request.BaseRequest`` answering in-process.
* :class:`FakeBotApiServer` - the same over real HTTP (``base_url``).
* :func:`render_chat` / :func:`render_all` - chats as readable transcripts.
"""

import sys as _sys

from bot.sandbox import (
    bot_api,
    clock,
    flood,
    formatting,
    models,
    request,
    server,
    transcript,
)
from bot.sandbox.bot_api import (
    DEFAULT_TOKEN,
    ChatRef,
    FakeBotApi,
    MessageLike,
    MessageRef,
    NetworkFault,
    WebhookConfig,
    coerce_params,
)
from bot.sandbox.clock import ManualClock
from bot.sandbox.flood import FloodControl, FloodPolicy
from bot.sandbox.formatting import (
    EntityParseError,
    FormattedText,
    format_text,
    html_escape,
    utf16_len,
)
from bot.sandbox.models import (
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
from bot.sandbox.request import FakeRequest
from bot.sandbox.server import FakeBotApiServer
from bot.sandbox.transcript import render_all, render_chat, render_message

# ``import tests.fakes.models`` (and the like) finds the bot.sandbox module itself.
for _module in (bot_api, clock, flood, formatting, models, request, server, transcript):
    _sys.modules[f"{__name__}.{_module.__name__.rsplit('.', 1)[1]}"] = _module
del _module

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
