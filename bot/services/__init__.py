"""Use cases: one user action is one transaction. No Telegram imports here."""
