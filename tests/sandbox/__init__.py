"""Tests of the sandbox: the Bot API emulator in the browser (``python -m bot --sandbox``)."""
