"""Timeout arguments, checked the same way by both faces."""

from __future__ import annotations

import math
from enum import Enum
from typing import Final


class Unset(Enum):
    """Type of :data:`UNSET`: "use the client's default timeout"."""

    UNSET = "UNSET"

    def __repr__(self) -> str:
        return "UNSET"


UNSET: Final = Unset.UNSET


def check_timeout(name: str, value: float | None) -> float | None:
    """None (wait forever) or a finite number of seconds > 0."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise TypeError(f"{name} must be a number of seconds or None, not {type(value).__name__}")
    if not math.isfinite(value) or value <= 0:
        raise ValueError(f"{name} must be > 0 seconds (or None to wait forever), got {value!r}")
    return float(value)


def pick_timeout(value: float | Unset | None, default: float | None) -> float | None:
    return default if value is UNSET else check_timeout("timeout", value)
