"""A pause that ends early when woken, on the blocking face: threads pause on one
:class:`Wakeup` (each for its own seconds), and :meth:`Wakeup.wake` ends every pause then
under way (the async face's is :mod:`dualio_transports.policy.wakeup_async`). What wakes
them is news they wait for (a cluster's failed node replaced): the pause is a retry's
poll (:meth:`~dualio_transports.policy.retry.Series.next_poll`), cut short."""

from __future__ import annotations

import threading


class Wakeup:
    def __init__(self) -> None:
        self._event = threading.Event()

    def pause(self, seconds: float) -> None:
        """Return after ``seconds``, or as soon as :meth:`wake` is called."""
        self._event.wait(seconds)

    def wake(self) -> None:
        """End every pause under way (later pauses wait their time)."""
        event, self._event = self._event, threading.Event()
        event.set()
