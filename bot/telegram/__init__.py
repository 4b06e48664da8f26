"""The Telegram layer: handlers, callback data, rendering, delivery and the deadline poller.

This is the only package that imports python-telegram-bot.
"""
