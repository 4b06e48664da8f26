"""outbox

What the bot decided to say — replies, a game's result, notices, greetings, tidy calls — written
in the transaction that decides it and delivered from here by the leader's sender, so that a
stop, a kill or a failover loses none of it.

Revision ID: 0009
Revises: 0008
Create Date: 2026-12-05 20:00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0009"
down_revision: str | None = "0008"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "outbox",
        sa.Column(
            "id",
            sa.BigInteger().with_variant(sa.Integer(), "sqlite"),
            autoincrement=True,
            nullable=False,
        ),
        sa.Column("chat_id", sa.BigInteger(), nullable=False),
        sa.Column("kind", sa.String(length=16), nullable=False),
        sa.Column("game_id", sa.Integer(), nullable=True),
        sa.Column("body", sa.JSON(), nullable=False),
        sa.Column("created_at", sa.Float(), nullable=False),
        sa.Column("delivered_at", sa.Float(), nullable=True),
        sa.Column("outcome", sa.String(length=16), nullable=True),
        sa.Column("message_id", sa.BigInteger(), nullable=True),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_outbox")),
    )
    op.create_index(op.f("ix_outbox_delivered_at"), "outbox", ["delivered_at"], unique=False)
    op.create_index(
        "ix_outbox_undelivered",
        "outbox",
        ["id"],
        unique=False,
        sqlite_where=sa.text("delivered_at IS NULL"),
        postgresql_where=sa.text("delivered_at IS NULL"),
    )

    # Games that ended before now were shown as far as anyone will know: the start after this
    # upgrade must not post their final tables again (from now on, a game that ends unshown
    # is shown by the next start).
    op.execute(
        "UPDATE games SET shown_version = version "
        "WHERE status IN ('finished', 'cancelled') AND shown_version < version"
    )


def downgrade() -> None:
    op.drop_index("ix_outbox_undelivered", table_name="outbox")
    op.drop_index(op.f("ix_outbox_delivered_at"), table_name="outbox")
    op.drop_table("outbox")
