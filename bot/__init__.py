"""Cardroom: a Telegram bot that hosts card games in group chats."""
