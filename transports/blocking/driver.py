"""Running a call's procedure (:mod:`dualio_transports.wire.procedure`) from a thread.

GENERATED from transports/async_driver.py by dualio/devtools/unasync.py: do not edit.
Edit the source, then run ``python -m dualio.devtools.unasync``.
"""

from __future__ import annotations

from collections.abc import Callable, Generator
from inspect import GEN_CLOSED, getgeneratorstate
from time import monotonic
from typing import Any, TypeVar

from dualio_transports.wire import procedure
from dualio_transports.wire.procedure import Effect

T = TypeVar("T")
R = TypeVar("R")
Perform = Callable[[Effect], None]
Step = Callable[[Generator[Effect, float, Any], BaseException | None, float | None], Effect]


def step_here(steps: Generator[Effect, float, Any], error: BaseException | None, now: float | None) -> Effect:
    """One step: the procedure started (``now`` None: it was given its time), resumed with
    the time, or thrown the error performing raised."""
    if error is not None:
        return steps.throw(error)
    return steps.send(now)  # type: ignore[arg-type]


def run(steps: Generator[Effect, float, R], perform: Perform, step: Step = step_here) -> R:
    """Run a procedure (just made, given its time) to its end; what it returns."""
    error: BaseException | None = None
    now: float | None = None
    while True:
        try:
            effect = step(steps, error, now)
        except StopIteration as end:
            return end.value  # type: ignore[no-any-return]
        error = None
        try:
            perform(effect)
            now = monotonic()
        except BaseException as exc:
            error = exc


def stream_items(
    steps: Generator[Effect, float, None], perform: Perform, decode: Callable[[bytes], T],
    step: Step = step_here,
) -> Generator[T, None, None]:
    """A stream's procedure (just made, given its time) as its consumer's iterator: each
    ``Item`` decoded and yielded; a consumer leaving early is thrown in as
    :class:`procedure.Left`."""
    error: BaseException | None = None
    now: float | None = None
    while True:
        try:
            effect = step(steps, error, now)
        except StopIteration:
            return
        error = None
        try:
            if type(effect) is procedure.Item:
                yield decode(effect.payload)
            else:
                perform(effect)
            now = monotonic()
        except GeneratorExit:
            if getgeneratorstate(steps) == GEN_CLOSED:  # the collector closed the procedure first
                return
            error = procedure.Left()
        except BaseException as exc:
            error = exc
