"""Calls made at once on the async face, in tasks of one task group: what
:mod:`dualio_transports.policy.together` says of the blocking face's threads holds here too."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from typing import Any, TypeVar

import anyio

from dualio_transports.policy.together import AT_ONCE, outcome

T = TypeVar("T")


async def together_async(calls: Sequence[Callable[[], Awaitable[T]]]) -> list[T]:
    """Every coroutine ``calls`` make, in up to ``AT_ONCE`` tasks; their results in order."""
    if len(calls) <= 1:
        return [await call() for call in calls]
    results: list[Any] = [None] * len(calls)
    errors: list[Exception | None] = [None] * len(calls)
    indexes = iter(range(len(calls)))  # one loop: no task takes an index another took

    async def run() -> None:
        for index in indexes:
            try:
                results[index] = await calls[index]()
            except Exception as exc:  # the others go on; a cancel goes to the group
                errors[index] = exc

    async with anyio.create_task_group() as tasks:
        for _ in range(min(len(calls), AT_ONCE)):
            tasks.start_soon(run)
    return outcome(results, errors)
