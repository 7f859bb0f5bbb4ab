"""A pause that ends early when woken, on the async face (anyio's event, any loop):
what :mod:`dualio_transports.policy.wakeup` says of the blocking face's holds here too."""

from __future__ import annotations

import anyio


class WakeupAsync:
    def __init__(self) -> None:
        self._event: anyio.Event | None = None  # made in a loop, by the first pause

    async def pause(self, seconds: float) -> None:
        """Return after ``seconds``, or as soon as :meth:`wake` is called."""
        if self._event is None:
            self._event = anyio.Event()
        with anyio.move_on_after(seconds):
            await self._event.wait()

    def wake(self) -> None:
        """End every pause under way (later pauses wait their time)."""
        event, self._event = self._event, None
        if event is not None:
            event.set()
