"""What every transport reports of its connection, read from its call table."""

from __future__ import annotations

from typing import Generic, TypeVar

from dualio_transports.wire.call_table import CallTable
from dualio_transports.wire.errors import DualioError

W = TypeVar("W")


class ConnectionFacts(Generic[W]):
    """What every transport reports straight from its call table (a mixin: the transport
    sets ``_table``)."""

    __slots__ = ("closed",)
    _table: CallTable[W]
    closed: bool
    """True once the connection is closing or has failed: a flag, not a property, as a face
    asks before every call (kept by :meth:`_follow_end`)."""

    def _follow_end(self) -> None:
        """Keep :attr:`closed` as the table ends; the transport calls it once it made ``_table``."""
        self.closed = False
        self._table.on_end = self._ended

    def _ended(self) -> None:
        self.closed = True

    @property
    def failure(self) -> DualioError | None:
        """What ended the connection, if it has failed."""
        return self._table.failure

    @property
    def in_flight(self) -> int:
        """Request ids in use, those of calls that gave up included."""
        return self._table.in_flight

    @property
    def dropped(self) -> int:
        """Frames that arrived for calls that had already given up."""
        return self._table.dropped

    def check_usable(self) -> None:
        """:meth:`CallTable.check_usable`: ClosedError unless a new call may start."""
        self._table.check_usable()
