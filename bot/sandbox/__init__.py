"""Cardroom without Telegram: a Telegram-compatible Bot API emulator and a chat page.

``python -m bot --sandbox`` (:mod:`bot.sandbox.run`) serves the emulator on 127.0.0.1 and
runs the real bot against it through ``TELEGRAM_API_BASE_URL``; the page lets one person play
as several simulated users. The end-to-end tests drive the same emulator (``tests.fakes``
re-exports it).

* :mod:`~bot.sandbox.bot_api` - :class:`FakeBotApi`, the world (users, chats, messages,
  updates) and the Bot API methods, with Telegram's errors and flood limits. It is made of one
  part per thing it emulates: :mod:`~bot.sandbox.store` (what it holds),
  :mod:`~bot.sandbox.updates`, :mod:`~bot.sandbox.chats` (and members),
  :mod:`~bot.sandbox.messages`, :mod:`~bot.sandbox.callbacks`, :mod:`~bot.sandbox.files`,
  :mod:`~bot.sandbox.profile` (the bot's own profile and menus) and :mod:`~bot.sandbox.flood`;
  with :mod:`~bot.sandbox.calls` (a call's parameters), :mod:`~bot.sandbox.models`,
  :mod:`~bot.sandbox.formatting` (parse modes and entities) and :mod:`~bot.sandbox.clock`.
* :mod:`~bot.sandbox.server` - the emulator over HTTP (tornado);
  :mod:`~bot.sandbox.request` - in-process, as a python-telegram-bot ``BaseRequest``.
* :mod:`~bot.sandbox.world` and :mod:`~bot.sandbox.web` - the page's world and its HTTP side;
  ``static/`` - the page itself (plain HTML, CSS and JavaScript).
* :mod:`~bot.sandbox.transcript` - chats as readable text, for tests.

Nothing here imports the bot's own layers, except the runner, which builds the bot.
"""
