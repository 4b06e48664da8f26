"""The sender: the only code that sends, edits or deletes messages.

Handlers decide and answer; whatever a chat should see they hand over here, with a priority,
and return at once. The sender's parts:

- :mod:`~bot.telegram.sender.budget` — Telegram's limits as strict sliding windows (20 calls in
  any 60 s a group, about one a second a private chat, about 30 a second in all), served by
  priority and by fair shares (each forum topic and each game of a group gets its turn);
- :mod:`~bot.telegram.sender.limiter` — python-telegram-bot's rate limiter on that budget;
- :mod:`~bot.telegram.sender.outbox` — what the bot decided to say (replies, results,
  notices, greetings, tidy calls), written with the decision and delivered from the database,
  so that no stop, kill or failover loses it;
- :mod:`~bot.telegram.sender.live` — the live messages, tables and panels, each kept in step
  with its game (coalesced to the newest state); its parts: :mod:`~bot.telegram.sender.slots`
  (each message kept), :mod:`~bot.telegram.sender.pings` (a move that waits for its player
  sends his panel anew), :mod:`~bot.telegram.sender.pins` (live tables pinned) and
  :mod:`~bot.telegram.sender.sight` (buried tables brought back);
- :mod:`~bot.telegram.sender.notes` — one-off messages on their way: replies, board pages,
  rules, results, greetings, tidy calls (coalesced, bounded per chat, sent to the asker's
  private chat when a busy group cannot take them in time, dropped when nowhere can);
- :mod:`~bot.telegram.sender.menus` — boards and pickers, which age: a newer one or ten minutes
  take an old one's buttons away;
- :mod:`~bot.telegram.sender.replies` — how many informational replies a person and a group
  get in a minute.
"""
