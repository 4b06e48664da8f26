"""games.creator_id may be empty

A lobby opened by an anonymous admin has no creator: Telegram names one shared account as the
sender of every anonymous admin's message, so the chat's admins host such a lobby together.

Revision ID: 0004
Revises: 0003
Create Date: 2026-12-01 10:00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0004"
down_revision: str | None = "0003"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("games", schema=None) as batch_op:
        batch_op.alter_column("creator_id", existing_type=sa.BigInteger(), nullable=True)


def downgrade() -> None:
    with op.batch_alter_table("games", schema=None) as batch_op:
        batch_op.alter_column("creator_id", existing_type=sa.BigInteger(), nullable=False)
