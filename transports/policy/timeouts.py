"""Timeout arguments, checked the same way by both faces."""

from __future__ import annotations

from enum import Enum
from typing import Final

from dualio_transports.wire.errors import short


class Unset(Enum):
    """Type of :data:`UNSET`: "use the client's default timeout"."""

    UNSET = "UNSET"

    def __repr__(self) -> str:
        return "UNSET"


UNSET: Final = Unset.UNSET
MAX_TIMEOUT: Final = 1_000_000.0
"""The longest timeout (about 11.6 days); longer waits are ``None``."""


def check_timeout(name: str, value: float | None) -> float | None:
    """None (wait forever) or a finite number of seconds > 0."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise TypeError(f"{name} must be a number of seconds or None, not {type(value).__name__}")
    if not 0 < value <= MAX_TIMEOUT:  # also refuses NaN and ints beyond float range
        raise ValueError(
            f"{name} must be in (0, {MAX_TIMEOUT:g}] seconds, or None to wait forever; got {short(value)}"
        )
    return float(value)


def pick_timeout(value: float | Unset | None, default: float | None) -> float | None:
    return default if value is UNSET else check_timeout("timeout", value)
