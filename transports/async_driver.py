"""Async only: running a call's procedure (:mod:`dualio_transports.wire.procedure`) from a coroutine.

Each async transport gives ``perform``, a coroutine that performs one effect with its
own primitives; these loops resume the procedure with what came of it (nothing, or
the exception performing raised) until it ends. ``step`` runs one step where the
call table may be used: by default here, on the loop; the emulation passes its
blocking connection's, which takes the connection's lock.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, Awaitable, Callable, Generator
from inspect import GEN_CLOSED, getgeneratorstate
from typing import Any, TypeVar

from dualio_transports.wire import procedure
from dualio_transports.wire.procedure import Effect

T = TypeVar("T")
R = TypeVar("R")
Perform = Callable[[Effect], Awaitable[None]]
Step = Callable[[Generator[Effect, None, Any], BaseException | None], Effect]


def step_here(steps: Generator[Effect, None, Any], error: BaseException | None) -> Effect:
    return steps.send(None) if error is None else steps.throw(error)


async def run(steps: Generator[Effect, None, R], perform: Perform, step: Step = step_here) -> R:
    """Run a procedure to its end; what it returns."""
    error: BaseException | None = None
    while True:
        try:
            effect = step(steps, error)
        except StopIteration as end:
            return end.value  # type: ignore[no-any-return]
        error = None
        try:
            await perform(effect)
        except BaseException as exc:
            error = exc


async def stream_items(
    steps: Generator[Effect, None, None], perform: Perform, decode: Callable[[bytes], T],
    step: Step = step_here,
) -> AsyncGenerator[T, None]:
    """A stream's procedure as its consumer's iterator: each ``Item`` decoded and
    yielded; a consumer leaving early is thrown in as :class:`procedure.Left`."""
    error: BaseException | None = None
    while True:
        try:
            effect = step(steps, error)
        except StopIteration:
            return
        error = None
        try:
            if type(effect) is procedure.Item:
                yield decode(effect.payload)
            else:
                await perform(effect)
        except GeneratorExit:
            if getgeneratorstate(steps) == GEN_CLOSED:  # the collector closed the procedure first
                return
            error = procedure.Left()
        except BaseException as exc:
            error = exc
