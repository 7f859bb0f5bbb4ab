"""Calls made at once, their results in the order given: on the blocking face in threads
(:func:`together`), on the async face in tasks of one task group
(:mod:`dualio_transports.policy.together_async`).

At most :data:`AT_ONCE` calls run at a time (the number of calls is a peer's to say: a
cluster's map names its primaries), each taking the next call not yet begun. Every call
runs to its end, each within its own deadline, before either returns: none is left
running behind its caller. A call's error does not stop the others (what they sent may
have run, and their answers keep their connections in step); once all have ended, the
first error, in the order given, is raised. Cancelling the caller cancels every call of
the group (the async face's cancellation; the blocking face has none).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

T = TypeVar("T")

AT_ONCE = 16
"""Calls run at a time, at most: threads on the blocking face, tasks on the async face."""


def together(calls: Sequence[Callable[[], T]]) -> list[T]:
    """Every call of ``calls``, in this thread and up to ``AT_ONCE - 1`` threads of their own
    (joined before this returns); their results in order."""
    if len(calls) <= 1:
        return [call() for call in calls]
    results: list[Any] = [None] * len(calls)
    errors: list[Exception | None] = [None] * len(calls)
    indexes = iter(range(len(calls)))
    taking = threading.Lock()

    def run() -> None:
        while True:
            with taking:
                index = next(indexes, None)
            if index is None:
                return
            try:
                results[index] = calls[index]()
            except Exception as exc:
                errors[index] = exc

    threads = [threading.Thread(target=run, name="dualio-together", daemon=True)
               for _ in range(min(len(calls), AT_ONCE) - 1)]
    for thread in threads:
        thread.start()
    try:
        run()
    finally:
        for thread in threads:
            thread.join()
    return outcome(results, errors)


def outcome(results: list[Any], errors: list[Exception | None]) -> list[Any]:
    """``results``, or the first of ``errors``, raised."""
    for error in errors:
        if error is not None:
            raise error
    return results
