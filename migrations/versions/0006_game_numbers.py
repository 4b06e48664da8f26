"""games.number

Each game's number within its chat (1, 2, 3…), which its table and panels show instead of the
bot's global count. Existing games are numbered by chat, in the order they were opened.

The column is added in place, not by copying the table as a batch operation would: on SQLite,
dropping the old ``games`` with foreign keys on would delete every seat, action and result
that cascades from it.

Revision ID: 0006
Revises: 0005
Create Date: 2026-12-03 10:00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0006"
down_revision: str | None = "0005"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column("games", sa.Column("number", sa.Integer(), server_default="0", nullable=False))
    op.execute(
        sa.text(
            "UPDATE games SET number = (SELECT COUNT(*) FROM games AS earlier"
            " WHERE earlier.chat_id = games.chat_id AND earlier.id <= games.id)"
        )
    )


def downgrade() -> None:
    op.drop_column("games", "number")
