"""What a face needs of a transport, as types that mypy checks every transport against.

:class:`BlockingTransport` is met by the blocking transport; :class:`AsyncTransport`
by the two native transports and by the emulation adapter. This module imports
no event loop library, so the blocking face can use it.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from typing import TYPE_CHECKING, Protocol, TypeVar

from transports.wire import methods

if TYPE_CHECKING:
    from transports.running_loop import LoopHandle

T = TypeVar("T")


class BlockingTransport(Protocol):
    """One connection, used from any thread; every call blocks its caller."""

    def call(self, op: methods.Call[T], timeout: float | None) -> T: ...

    def ping(self, timeout: float | None) -> float: ...

    def stream(self, op: methods.StreamCall[T], timeout: float | None) -> Iterator[T]: ...

    @property
    def closed(self) -> bool: ...

    @property
    def dropped(self) -> int: ...

    def close(self) -> None: ...


class AsyncTransport(Protocol):
    """One connection, used from tasks on the loop that opened it."""

    @property
    def loop(self) -> LoopHandle: ...

    async def call(self, op: methods.Call[T], timeout: float | None) -> T: ...

    async def ping(self, timeout: float | None) -> float: ...

    def stream(self, op: methods.StreamCall[T], timeout: float | None) -> AsyncIterator[T]: ...

    @property
    def closed(self) -> bool: ...

    @property
    def dropped(self) -> int: ...

    async def aclose(self) -> None: ...
