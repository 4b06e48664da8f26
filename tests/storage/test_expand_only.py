"""Every migration only expands the schema, so that a rolling upgrade is safe: while the new
release's first process migrates the database, the previous release's processes run on
against the new schema until each is replaced.

A migration may add tables, columns that are nullable or have a server default (the previous
release's inserts leave them out), and indexes; it may let a column be NULL. It may never drop
or rename a table or a column, change a column's type, make a column NOT NULL (or take its
server default away) where the previous release may leave it out, or put on a table the
previous release writes a unique constraint or a foreign key its writes do not know of — nor
take away a unique constraint its upserts may name. Dropping what the new release no longer
uses ("contract") waits for a later release, once no process of the old one runs.

Checked by climbing an empty SQLite database one revision at a time and comparing the schema
reflected before and after each (SQLAlchemy's ``inspect``). A revision that predates the rule
and breaks it would go in :data:`BEFORE_THE_RULE`; none does. And the previous release's
start-up, which finds a revision it does not know, runs on the database if it holds every
table and column that release uses (:func:`bot.storage.migrate.upgrade`).
"""

from __future__ import annotations

import logging
import shutil
from dataclasses import dataclass
from pathlib import Path

import pytest
from alembic import command
from alembic.config import Config
from alembic.script import ScriptDirectory
from sqlalchemy import create_engine, inspect

from bot.storage.migrate import MigrationError, alembic_config, upgrade

#: Revisions from before the rule that break it, each with why it was let be. Closed: a new
#: revision that cannot expand only is split in two releases (expand now, contract later).
BEFORE_THE_RULE: dict[str, str] = {}
#: The newest revision made before the rule (issue 36): :data:`BEFORE_THE_RULE` names none
#: after it.
BASELINE = "0009"


@dataclass(frozen=True, slots=True)
class ColumnShape:
    type: str
    nullable: bool
    default: str | None


@dataclass(frozen=True, slots=True)
class TableShape:
    columns: dict[str, ColumnShape]
    #: The columns of each unique constraint and unique index.
    unique: frozenset[tuple[str, ...]]
    #: Each foreign key: its columns and the table they point at.
    foreign_keys: frozenset[tuple[tuple[str, ...], str]]


Schema = dict[str, TableShape]


def shape_of(url: str) -> Schema:
    """The schema of the SQLite database at ``url`` (a sync URL), as far as a running release
    depends on it; Alembic's own table aside."""
    engine = create_engine(url)
    try:
        with engine.connect() as connection:
            inspector = inspect(connection)
            schema = {}
            for table in inspector.get_table_names():
                if table == "alembic_version":
                    continue
                unique = {
                    tuple(constraint["column_names"])
                    for constraint in inspector.get_unique_constraints(table)
                } | {
                    tuple(str(name) for name in index["column_names"])
                    for index in inspector.get_indexes(table)
                    if index["unique"]
                }
                schema[table] = TableShape(
                    columns={
                        column["name"]: ColumnShape(
                            str(column["type"]),
                            bool(column["nullable"]),
                            None if column["default"] is None else str(column["default"]),
                        )
                        for column in inspector.get_columns(table)
                    },
                    unique=frozenset(unique),
                    foreign_keys=frozenset(
                        (tuple(key["constrained_columns"]), key["referred_table"])
                        for key in inspector.get_foreign_keys(table)
                    ),
                )
            return schema
    finally:
        engine.dispose()


def contractions(before: Schema, after: Schema) -> list[str]:
    """What of ``after`` a process made for ``before`` may trip over, in words; [] if the
    change only expands the schema."""
    found = []
    for name, old in sorted(before.items()):
        new = after.get(name)
        if new is None:
            found.append(f"drops or renames the table {name}")
            continue
        for column, was in sorted(old.columns.items()):
            now = new.columns.get(column)
            if now is None:
                found.append(f"drops or renames the column {name}.{column}")
                continue
            if now.type != was.type:
                found.append(f"changes the type of {name}.{column} from {was.type} to {now.type}")
            if not now.nullable and now.default is None and (was.nullable or was.default):
                found.append(
                    f"makes {name}.{column} NOT NULL without a server default, where the "
                    "previous release may leave it empty"
                )
        for column in sorted(new.columns.keys() - old.columns.keys()):
            now = new.columns[column]
            if not now.nullable and now.default is None:
                found.append(
                    f"adds the column {name}.{column} NOT NULL without a server default "
                    "(the previous release's inserts leave it out)"
                )
        for columns in sorted(new.unique - old.unique):
            found.append(
                f"adds a unique constraint on {name}({', '.join(columns)}), which the previous "
                "release's writes do not keep"
            )
        for columns in sorted(old.unique - new.unique):
            found.append(
                f"drops the unique constraint on {name}({', '.join(columns)}), which the "
                "previous release's upserts may name"
            )
        for columns, parent in sorted(new.foreign_keys - old.foreign_keys):
            found.append(
                f"adds a foreign key {name}({', '.join(columns)}) -> {parent}, which the "
                "previous release's writes do not keep"
            )
    return found


def revisions(config: Config) -> list[str]:
    """Every revision of ``config``'s scripts, oldest first."""
    scripts = ScriptDirectory.from_config(config)
    return [script.revision for script in reversed(list(scripts.walk_revisions()))]


def climb_checking(config: Config, path: Path) -> dict[str, list[str]]:
    """Climb an empty SQLite database at ``path`` (``config`` pointing at it) one revision at
    a time; what each revision's upgrade contracts, by revision."""
    url = f"sqlite:///{path}"
    found = {}
    before: Schema = {}
    for revision in revisions(config):
        command.upgrade(config, revision)
        after = shape_of(url)
        found[revision] = contractions(before, after)
        before = after
    return found


def test_every_migration_only_expands_the_schema(tmp_path: Path) -> None:
    path = tmp_path / "climb.db"
    found = climb_checking(alembic_config(f"sqlite+aiosqlite:///{path}"), path)

    broken = {revision: said for revision, said in found.items() if said}
    for revision in BEFORE_THE_RULE:
        assert revision in broken, f"{revision} expands only: take it off BEFORE_THE_RULE"
        assert revision <= BASELINE, f"{revision} came after the rule: split it in two"
        del broken[revision]
    assert broken == {}, (
        "a migration a previous release's processes would trip over during a rolling "
        "upgrade: expand now (add, never drop or rename), contract in a later release"
    )


def _with_revision(tmp_path: Path, body: str) -> tuple[Config, Path]:
    """The project's migrations copied, with one more revision after the newest whose
    ``upgrade()`` is ``body``; its configuration and the database it climbs."""
    scripts = tmp_path / "migrations"
    shutil.copytree(
        Path(alembic_config("sqlite://").get_main_option("script_location") or ""),
        scripts,
        ignore=shutil.ignore_patterns("__pycache__"),
    )
    head = revisions(alembic_config("sqlite://"))[-1]
    (scripts / "versions" / "9999_next.py").write_text(
        f'"""The next release."""\n\nimport sqlalchemy as sa\nfrom alembic import op\n\n'
        f'revision = "9999"\ndown_revision = "{head}"\nbranch_labels = None\n'
        f"depends_on = None\n\n\ndef upgrade() -> None:\n{body}\n\n\n"
        f"def downgrade() -> None:\n    pass\n"
    )
    path = tmp_path / "climb.db"
    config = alembic_config(f"sqlite+aiosqlite:///{path}")
    config.set_main_option("script_location", str(scripts))
    return config, path


@pytest.mark.parametrize(
    ("body", "said"),
    [
        (
            '    with op.batch_alter_table("seats") as batch:\n'
            '        batch.drop_column("timeouts")',
            ["drops or renames the column seats.timeouts"],
        ),
        (
            '    op.rename_table("waitlist", "wishes")',
            ["drops or renames the table waitlist"],
        ),
        (
            '    op.add_column("users", sa.Column("karma", sa.Integer(), nullable=False))',
            ["adds the column users.karma NOT NULL without a server default"],
        ),
        (
            '    with op.batch_alter_table("games") as batch:\n'
            '        batch.alter_column("creator_id", existing_type=sa.BigInteger(), '
            "nullable=False)",
            ["makes games.creator_id NOT NULL without a server default"],
        ),
        (
            '    op.create_index("uq_users_username", "users", ["username"], unique=True)',
            ["adds a unique constraint on users(username)"],
        ),
    ],
    ids=["drop-column", "rename-table", "not-null-column", "make-not-null", "unique"],
)
def test_a_migration_that_contracts_is_caught(tmp_path: Path, body: str, said: list[str]) -> None:
    config, path = _with_revision(tmp_path, body)

    found = climb_checking(config, path)

    assert len(found["9999"]) == len(said)
    for line, start in zip(found["9999"], said, strict=True):
        assert line.startswith(start)


def test_a_migration_that_expands_passes(tmp_path: Path) -> None:
    config, path = _with_revision(
        tmp_path,
        '    op.add_column("users", sa.Column("karma", sa.Integer(), nullable=True))\n'
        '    op.add_column("games", sa.Column("rounds", sa.Integer(), server_default="1", '
        "nullable=False))\n"
        '    op.create_index("ix_seats_name", "seats", ["name"])\n'
        '    op.create_table("notes", sa.Column("id", sa.Integer(), primary_key=True))',
    )

    assert climb_checking(config, path)["9999"] == []


def test_the_previous_release_starts_on_a_database_the_next_one_migrated(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    # Mid-way through a rolling upgrade an old process restarts (or the operator goes back a
    # release): its start-up finds a revision it does not know, and must run, not exit.
    config, path = _with_revision(
        tmp_path, '    op.add_column("users", sa.Column("karma", sa.Integer(), nullable=True))'
    )
    command.upgrade(config, "head")
    caplog.set_level(logging.WARNING)

    upgrade(f"sqlite+aiosqlite:///{path}")

    said = [record.getMessage() for record in caplog.records]
    assert len(said) == 1 and "is at revision 9999, which a newer release made" in said[0]


def test_a_database_that_lacks_what_this_release_uses_is_refused(tmp_path: Path) -> None:
    config, path = _with_revision(
        tmp_path,
        '    with op.batch_alter_table("seats") as batch:\n        batch.drop_column("timeouts")',
    )
    command.upgrade(config, "head")

    with pytest.raises(MigrationError, match=r"lacks what this release uses \(seats.timeouts\)"):
        upgrade(f"sqlite+aiosqlite:///{path}")
