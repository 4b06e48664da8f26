"""Self-tests of the fake Telegram Bot API in tests/fakes, driven by a real PTB Bot."""
