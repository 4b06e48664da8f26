"""Cardroom without Telegram: a Telegram-compatible Bot API emulator and a chat page.

``python -m bot --sandbox`` (:mod:`bot.sandbox.run`) serves the emulator on 127.0.0.1 and
runs the real bot against it through ``TELEGRAM_API_BASE_URL``; the page lets one person play
as several simulated users. The end-to-end tests drive the same emulator (``tests.fakes``
re-exports it).

* :mod:`~bot.sandbox.bot_api` - :class:`FakeBotApi`, the world (users, chats, messages,
  updates) and the Bot API methods, with Telegram's errors and flood limits; with
  :mod:`~bot.sandbox.models`, :mod:`~bot.sandbox.formatting` (parse modes and entities),
  :mod:`~bot.sandbox.flood` and :mod:`~bot.sandbox.clock`.
* :mod:`~bot.sandbox.server` - the emulator over HTTP (tornado);
  :mod:`~bot.sandbox.request` - in-process, as a python-telegram-bot ``BaseRequest``.
* :mod:`~bot.sandbox.world` and :mod:`~bot.sandbox.web` - the page's world and its HTTP side;
  ``static/`` - the page itself (plain HTML, CSS and JavaScript).
* :mod:`~bot.sandbox.transcript` - chats as readable text, for tests.

Nothing here imports the bot's own layers, except the runner, which builds the bot.
"""
