"""users.pings

Whether a player's panel is sent anew — which notifies him — when his move has waited for him
a few seconds (an edit notifies nobody). On unless he turns it off with /pings.

Revision ID: 0005
Revises: 0004
Create Date: 2026-12-02 01:00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0005"
down_revision: str | None = "0004"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("users", schema=None) as batch_op:
        batch_op.add_column(
            sa.Column("pings", sa.Boolean(), server_default=sa.true(), nullable=False)
        )


def downgrade() -> None:
    with op.batch_alter_table("users", schema=None) as batch_op:
        batch_op.drop_column("pings")
