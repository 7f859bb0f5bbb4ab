"""Statistics of repeated measurements: the median of K rounds and a spread around it.

The spread is a bootstrap 95% confidence interval of the median when there are at
least ``BOOTSTRAP_MIN_ROUNDS`` values, and the whole range (lowest to highest) below
that, where a bootstrap has too few distinct resamples to mean anything and anything
narrower than the range would claim more than so few rounds can show. The bootstrap uses a
fixed seed, so the same values always give the same interval.
"""

from __future__ import annotations

import math
import random
import statistics
from collections.abc import Sequence
from functools import cache

BOOTSTRAP_MIN_ROUNDS = 5
RESAMPLES = 2000
CONFIDENCE = 0.95
SEED = 20_261_124


def median(values: Sequence[float]) -> float:
    return float(statistics.median(values))


def quantile(ordered: Sequence[float], fraction: float) -> float:
    """Linear interpolation between the closest ranks of sorted ``ordered``."""
    position = fraction * (len(ordered) - 1)
    below = math.floor(position)
    above = min(below + 1, len(ordered) - 1)
    return ordered[below] + (ordered[above] - ordered[below]) * (position - below)


def method(rounds: int) -> str:
    """What :func:`spread` computes for this many values, in words."""
    if rounds >= BOOTSTRAP_MIN_ROUNDS:
        return f"bootstrap {CONFIDENCE:.0%} CI of the median"
    return "range (lowest to highest)"


@cache
def _middle_ranks(count: int) -> tuple[tuple[int, int], ...]:
    """For each bootstrap resample of ``count`` values, the sorted ranks its median sits between.

    A resample's median depends only on which ranks were drawn, so the draws are made
    once per ``count`` (with the fixed seed) and reused for every metric.
    """
    rng = random.Random(SEED + count)
    pairs = []
    for _ in range(RESAMPLES):
        drawn = sorted(rng.randrange(count) for _ in range(count))
        pairs.append((drawn[(count - 1) // 2], drawn[count // 2]))
    return tuple(pairs)


def bootstrap_interval(values: Sequence[float]) -> tuple[float, float]:
    ordered = sorted(values)
    medians = sorted((ordered[low] + ordered[high]) / 2 for low, high in _middle_ranks(len(ordered)))
    tail = (1 - CONFIDENCE) / 2
    return quantile(medians, tail), quantile(medians, 1 - tail)


def spread(values: Sequence[float]) -> tuple[float, float]:
    """(low, high) around the median of ``values``: see the module's docstring."""
    if not values:
        raise ValueError("no values")
    if len(values) >= BOOTSTRAP_MIN_ROUNDS:
        return bootstrap_interval(values)
    return min(values), max(values)


def straddles(interval: tuple[float, float], target: float) -> bool:
    """True when ``target`` lies strictly inside the interval: the data cannot tell which side."""
    low, high = interval
    return low < target < high


def relative_half_width(median_value: float, interval: tuple[float, float]) -> float | None:
    """Half the interval's width as a fraction of the median (None for a zero median)."""
    if median_value == 0:
        return None
    return (interval[1] - interval[0]) / 2 / abs(median_value)
