"""Persistence: SQLAlchemy models, the database engine and the repositories."""
