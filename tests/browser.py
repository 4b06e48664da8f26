"""Chromium for the page tests: Debian's (``bash .ci/install-browser``), driven by Playwright.

A test module that imports from here is skipped, with the reason, where either is missing.
"""

from __future__ import annotations

import os
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest

playwright_api = pytest.importorskip(
    "playwright.async_api",
    reason="Playwright for Python is not installed (pip install -e '.[test]'): no browser tests",
)
CHROMIUM = Path(os.environ.get("CARDROOM_CHROMIUM", "/usr/bin/chromium"))
if not CHROMIUM.exists():
    pytest.skip(
        f"no Chromium at {CHROMIUM} (bash .ci/install-browser installs Debian's): "
        "no browser tests",
        allow_module_level=True,
    )

expect = playwright_api.expect
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
#: A phone (an iPhone's 390 × 844 CSS pixels), touch and all.
PHONE: dict[str, Any] = {
    "viewport": {"width": 390, "height": 844},
    "device_scale_factor": 2,
    "is_mobile": True,
    "has_touch": True,
}


@asynccontextmanager
async def chromium() -> AsyncIterator[Any]:
    """Chromium, headless, until the block ends (each page test's ``browser`` fixture)."""
    async with playwright_api.async_playwright() as playwright:
        launched = await playwright.chromium.launch(
            executable_path=str(CHROMIUM), args=CHROMIUM_ARGS
        )
        try:
            yield launched
        finally:
            await launched.close()


def assert_none_overlaps(controls: list[dict[str, Any]]) -> None:
    """No two boxes (``left``, ``right``, ``top``, ``bottom``) share a pixel."""
    for i, one in enumerate(controls):
        for other in controls[i + 1 :]:
            apart = (
                one["right"] <= other["left"]
                or other["right"] <= one["left"]
                or one["bottom"] <= other["top"]
                or other["bottom"] <= one["top"]
            )
            assert apart, f"{one} overlaps {other}"
