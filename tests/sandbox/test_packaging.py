"""What an installed Cardroom carries besides its code: package data from folders that exist —
among it the sandbox's page."""

from __future__ import annotations

import tomllib

from tests.sandbox.conftest import ROOT


def package_data() -> dict[str, list[str]]:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    data: dict[str, list[str]] = config["tool"]["setuptools"]["package-data"]
    return data


def test_every_package_data_pattern_looks_in_a_folder_that_exists() -> None:
    for package, patterns in package_data().items():
        root = ROOT / package.replace(".", "/")
        for pattern in patterns:
            folders, _, _files = pattern.rpartition("/")
            # A pattern of the package's own folder ("script.py.mako") has no folder part.
            where = list(root.glob(folders)) if folders else [root]
            assert any(path.is_dir() for path in where), f"{package}: {pattern}"


def test_the_sandbox_page_is_installed_with_the_bot() -> None:
    shipped = {
        path.relative_to(ROOT / "bot").as_posix()
        for pattern in package_data()["bot"]
        for path in (ROOT / "bot").glob(pattern)
    }
    assert {
        "sandbox/static/index.html",
        "sandbox/static/sandbox.css",
        "sandbox/static/sandbox.js",
    } <= shipped
