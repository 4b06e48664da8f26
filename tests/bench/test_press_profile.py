"""``python -m bench --profile`` still finds every part of a press it times.

The breakdown wraps functions by name (the plain-SQL load and write, the rules, the columns,
the snapshot, the renderers); a part renamed or moved would silently time nothing, or stop
the profile. No time is compared here: only that each part was seen.
"""

from __future__ import annotations

import asyncio

from bench.press_profile import _breakdown

PARTS = ("act", "load", "rules", "columns", "write", "snapshot", "render", "parse", "total")


def test_the_breakdown_times_every_part_of_a_press() -> None:
    spent, presses = asyncio.run(_breakdown(40, publish=True))
    assert presses == 40
    for part in PARTS:
        assert spent.get(part, 0.0) > 0, f"{part} was never timed"
