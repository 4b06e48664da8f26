"""users.pings

Whether a player's panel is sent anew — which notifies him — when his move has waited for him
a few seconds (an edit notifies nobody). On unless he turns it off with /pings.

On SQLite this rebuilds ``users`` (copy, drop, rename), with foreign keys off (``env.py``).
Before issue 34 was fixed they were on: dropping ``users`` failed, and the upgrade stopped at
0004, leaving the empty copy ``_alembic_tmp_users`` behind — after 0004 had deleted the seats,
actions, results and rating changes of every game. That leftover table, at this revision, is
how such a database is known: it is dropped, and the log says once that those rows are gone.

Revision ID: 0005
Revises: 0004
Create Date: 2026-12-02 01:00:00
"""

import logging
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

# Alembic loads this file under a made-up module name: the logger is named as its path reads.
logger = logging.getLogger("migrations.versions.0005_user_pings")

revision: str = "0005"
down_revision: str | None = "0004"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


#: The copy of ``users`` that the failed rebuild left behind (Alembic's name for it).
LEFTOVER = "_alembic_tmp_users"


def upgrade() -> None:
    bind = op.get_bind()
    if bind.dialect.name == "sqlite" and sa.inspect(bind).has_table(LEFTOVER):
        logger.warning(
            "This database was left at revision 0004 by an earlier upgrade that deleted the "
            "seats, actions, results and rating changes its games had (issue 34): those rows "
            "are gone, only a backup from before that upgrade still holds them; the upgrade "
            "goes on"
        )
        op.drop_table(LEFTOVER)
    with op.batch_alter_table("users", schema=None) as batch_op:
        batch_op.add_column(
            sa.Column("pings", sa.Boolean(), server_default=sa.true(), nullable=False)
        )


def downgrade() -> None:
    with op.batch_alter_table("users", schema=None) as batch_op:
        batch_op.drop_column("pings")
