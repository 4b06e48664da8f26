"""inbox and telegram_calls

The inbox: every update taken from Telegram, stored before Telegram hears it arrived, and
marked handled in the transaction that applies it (several processes: one leader handles).
The calls the leader made into chats in the last minutes, for the next leader's budget.

Revision ID: 0008
Revises: 0007
Create Date: 2026-12-03 09:00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0008"
down_revision: str | None = "0007"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "inbox",
        sa.Column("update_id", sa.BigInteger(), autoincrement=False, nullable=False),
        sa.Column("chat_id", sa.BigInteger(), nullable=True),
        sa.Column("payload", sa.JSON(), nullable=False),
        sa.Column("taken_at", sa.Float(), nullable=False),
        sa.Column("handled_at", sa.Float(), nullable=True),
        sa.PrimaryKeyConstraint("update_id", name=op.f("pk_inbox")),
    )
    op.create_index(op.f("ix_inbox_handled_at"), "inbox", ["handled_at"], unique=False)
    op.create_index(
        "ix_inbox_unhandled",
        "inbox",
        ["update_id"],
        unique=False,
        sqlite_where=sa.text("handled_at IS NULL"),
        postgresql_where=sa.text("handled_at IS NULL"),
    )
    op.create_table(
        "telegram_calls",
        sa.Column(
            "id",
            sa.BigInteger().with_variant(sa.Integer(), "sqlite"),
            autoincrement=True,
            nullable=False,
        ),
        sa.Column("chat_id", sa.BigInteger(), nullable=False),
        sa.Column("at", sa.Float(), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_telegram_calls")),
    )
    op.create_index(op.f("ix_telegram_calls_at"), "telegram_calls", ["at"], unique=False)


def downgrade() -> None:
    op.drop_index(op.f("ix_telegram_calls_at"), table_name="telegram_calls")
    op.drop_table("telegram_calls")
    op.drop_index("ix_inbox_unhandled", table_name="inbox")
    op.drop_index(op.f("ix_inbox_handled_at"), table_name="inbox")
    op.drop_table("inbox")
