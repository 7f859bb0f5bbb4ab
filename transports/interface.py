"""What a face needs of a transport, as types that mypy checks every transport against.

:class:`BlockingTransport` is met by the blocking transport; :class:`AsyncTransport`
by the two native transports and by the emulation adapter. This module imports
no event loop library, so the blocking face can use it.

Each call takes its deadline, ``until``: a ``time.monotonic()`` instant (``math.inf``
for none), made once by the face where the public call starts
(:mod:`dualio_transports.wire.deadline`); a transport never makes one from a timeout.
A stream takes the deadline of its first item and the timeout of each later one.

Each call takes ``sent``: a list the transport appends the request's id to once
the request is written (or queued to go, whole). The face names the call's id in
its errors and its hooks with it; a call whose request never left adds nothing.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, Generator
from typing import TYPE_CHECKING, Protocol, TypeVar

from dualio_transports.wire.errors import DualioError
from dualio_transports.wire.request import Request, StreamRequest

if TYPE_CHECKING:
    from dualio_transports.running_loop import LoopHandle

T = TypeVar("T")


class BlockingTransport(Protocol):
    """One connection, used from any thread; every call blocks its caller."""

    def call(self, request: Request[T], until: float, sent: list[int] | None = None) -> T: ...

    def stream(
        self, request: StreamRequest[T], until: float, item_timeout: float | None, *,
        sent: list[int] | None = None,
    ) -> Generator[T, None, None]: ...

    @property
    def closed(self) -> bool: ...

    @property
    def dropped(self) -> int: ...

    @property
    def failure(self) -> DualioError | None: ...

    def has_pending_input(self) -> bool:
        """Whether bytes wait unread (asked by a client-side cache, from any thread)."""
        ...

    def close(self) -> None: ...


class AsyncTransport(Protocol):
    """One connection, used from tasks on the loop that opened it."""

    @property
    def loop(self) -> LoopHandle: ...

    async def call(self, request: Request[T], until: float, sent: list[int] | None = None) -> T: ...

    def stream(
        self, request: StreamRequest[T], until: float, item_timeout: float | None, *,
        sent: list[int] | None = None,
    ) -> AsyncGenerator[T, None]: ...

    @property
    def closed(self) -> bool: ...

    @property
    def dropped(self) -> int: ...

    @property
    def failure(self) -> DualioError | None: ...

    def has_pending_input(self) -> bool:
        """Whether bytes wait unread (asked by a client-side cache)."""
        ...

    async def aclose(self) -> None: ...
