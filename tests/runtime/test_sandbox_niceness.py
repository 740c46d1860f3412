"""Worker processes run at a lower CPU priority than the service, when asked to."""

from __future__ import annotations

import os

from services.runtime.sandbox import Sandbox, SandboxSettings


def _niceness() -> int:
    return os.nice(0)


async def test_children_are_niced_by_the_setting_and_not_by_default() -> None:
    parent = os.nice(0)
    async with Sandbox(SandboxSettings(workers=1, niceness=7)) as niced:
        assert await niced.run(_niceness) == min(parent + 7, 19)
    async with Sandbox(SandboxSettings(workers=1)) as plain:
        assert await plain.run(_niceness) == parent
