"""games.creator_id may be empty

A lobby opened by an anonymous admin has no creator: Telegram names one shared account as the
sender of every anonymous admin's message, so the chat's admins host such a lobby together.

On SQLite this rebuilds ``games`` (copy, drop, rename), which is safe only with foreign keys
off: with them on, dropping the old table deleted every seat, action, result and rating change
(issue 34). ``migrations/env.py`` turns them off and checks them before it commits.

The downgrade refuses while a game has no creator: revision 0003 cannot hold one, and the
choice between deleting such games (with their seats and results) and naming a creator for
them is the operator's.

Revision ID: 0004
Revises: 0003
Create Date: 2026-12-01 10:00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

from bot.storage.migrate import MigrationError

revision: str = "0004"
down_revision: str | None = "0003"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("games", schema=None) as batch_op:
        batch_op.alter_column("creator_id", existing_type=sa.BigInteger(), nullable=True)


def downgrade() -> None:
    hosted = (
        op.get_bind()
        .execute(sa.text("SELECT COUNT(*) FROM games WHERE creator_id IS NULL"))
        .scalar()
    )
    if hosted:
        raise MigrationError(
            f"{hosted} games have no creator (lobbies hosted by a chat's admins), which "
            "revision 0003 cannot hold: delete them or give them a creator first"
        )
    with op.batch_alter_table("games", schema=None) as batch_op:
        batch_op.alter_column("creator_id", existing_type=sa.BigInteger(), nullable=False)
