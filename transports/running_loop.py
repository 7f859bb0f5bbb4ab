"""Which event loop is running, and how another thread can hand it work.

The emulation adapter runs on asyncio and on trio with one code path; the only
thing that differs between them is how a foreign thread schedules a function
onto the loop: ``loop.call_soon_threadsafe`` or ``TrioToken.run_sync_soon``.

Every connection keeps the handle of its loop, so a loop has one handle, shared
while anything holds it.
"""

from __future__ import annotations

import sys
import weakref
from asyncio import _get_running_loop  # asyncio.events.__all__: None outside a loop, no raise
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

from dualio_transports.wire.errors import UsageError

Backend = Literal["asyncio", "trio"]

_handles: weakref.WeakValueDictionary[int, LoopHandle] = weakref.WeakValueDictionary()
"""Each loop's handle by ``id(loop)``, while something holds it; the handle holds its
loop, so a loop whose handle is listed is alive and its id is its own."""


@dataclass(frozen=True, slots=True, weakref_slot=True)
class LoopHandle:
    backend: Backend
    loop: object  # the asyncio loop or the TrioToken: identifies "the same loop"
    _schedule: Callable[[Callable[[], object]], object]

    @classmethod
    def current(cls) -> LoopHandle:
        """The running loop; UsageError when called outside asyncio or trio."""
        loop = _get_running_loop()
        if loop is not None:
            handle = _handles.get(id(loop))
            if handle is None or handle.loop is not loop:
                handle = _handles[id(loop)] = cls("asyncio", loop, loop.call_soon_threadsafe)
            return handle
        trio = sys.modules.get("trio")
        if trio is not None:
            try:
                token = trio.lowlevel.current_trio_token()
            except RuntimeError:
                pass
            else:
                handle = _handles.get(id(token))
                if handle is None or handle.loop is not token:
                    handle = _handles[id(token)] = cls("trio", token, token.run_sync_soon)
                return handle
        raise UsageError("no event loop is running: await dualio calls from asyncio or trio")

    def call_soon_threadsafe(self, fn: Callable[[], object]) -> bool:
        """Run ``fn`` on the loop soon, from any thread; False if the loop is gone."""
        try:
            self._schedule(fn)
        except RuntimeError:  # asyncio: loop closed; trio: RunFinishedError
            return False
        return True

    def is_current(self) -> bool:
        """Whether this handle's loop is the one running this code."""
        running = _get_running_loop()
        if self.backend == "asyncio" or running is not None:  # asyncio's, even inside trio
            return running is self.loop
        return self.is_current_trio()

    def is_current_trio(self) -> bool:
        """:meth:`is_current` of a trio loop's handle where no asyncio loop runs."""
        trio = sys.modules.get("trio")
        try:
            return trio is not None and trio.lowlevel.current_trio_token() is self.loop
        except RuntimeError:
            return False
