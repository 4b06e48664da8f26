"""Cardroom's version (``python -m bot --version``): the one in ``pyproject.toml``, which moves
with each release (see CHANGELOG.md)."""

from __future__ import annotations

import tomllib
from importlib.metadata import PackageNotFoundError
from importlib.metadata import version as installed_version
from pathlib import Path

#: The distribution's name, as ``pyproject.toml`` gives it.
DISTRIBUTION = "cardroom"
#: ``pyproject.toml`` of a source tree the package runs from (absent once installed).
SOURCE_PYPROJECT = Path(__file__).resolve().parent.parent / "pyproject.toml"


def version() -> str:
    """The running code's version: from the source tree's ``pyproject.toml`` when it runs from
    one (an editable install's metadata keeps the version it was installed at), else the
    installed package's metadata; ``"unknown"`` if neither says."""
    try:
        project = tomllib.loads(SOURCE_PYPROJECT.read_text(encoding="utf-8"))["project"]
        if project.get("name") == DISTRIBUTION:
            return str(project["version"])
    except (OSError, KeyError, tomllib.TOMLDecodeError):
        pass  # installed: no source tree beside the package
    try:
        return installed_version(DISTRIBUTION)
    except PackageNotFoundError:
        return "unknown"
