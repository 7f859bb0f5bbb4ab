"""Which event loop is running, and how another thread can hand it work.

The emulation adapter runs on asyncio and on trio with one code path; the only
thing that differs between them is how a foreign thread schedules a function
onto the loop: ``loop.call_soon_threadsafe`` or ``TrioToken.run_sync_soon``.
"""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

from transports.wire.errors import UsageError

Backend = Literal["asyncio", "trio"]


@dataclass(frozen=True, slots=True)
class LoopHandle:
    backend: Backend
    loop: object  # the asyncio loop or the TrioToken: identifies "the same loop"
    _schedule: Callable[[Callable[[], object]], object]

    @classmethod
    def current(cls) -> LoopHandle:
        """The running loop; UsageError when called outside asyncio or trio."""
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            pass
        else:
            return cls("asyncio", loop, loop.call_soon_threadsafe)
        trio = sys.modules.get("trio")
        if trio is not None:
            try:
                token = trio.lowlevel.current_trio_token()
            except RuntimeError:
                pass
            else:
                return cls("trio", token, token.run_sync_soon)
        raise UsageError("no event loop is running: await dualio calls from asyncio or trio")

    def call_soon_threadsafe(self, fn: Callable[[], object]) -> bool:
        """Run ``fn`` on the loop soon, from any thread; False if the loop is gone."""
        try:
            self._schedule(fn)
        except RuntimeError:  # asyncio: loop closed; trio: RunFinishedError
            return False
        return True

    def is_current(self) -> bool:
        if self.backend == "asyncio":  # asked on every call: no handle built for it
            try:
                return asyncio.get_running_loop() is self.loop
            except RuntimeError:
                return False
        try:
            return LoopHandle.current().loop is self.loop
        except UsageError:
            return False
