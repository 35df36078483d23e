"""Random decisions of stochastic schedules: `sample_perfect_tile`, `sample_categorical`.

A stochastic schedule (the MLC course's `stochastic_schedule_mm`) describes a space of
programs; each call samples one point with the schedule's random generator (`Schedule(mod,
seed=...)`). The decision is recorded in the trace, so replaying it rebuilds the same program
and a tuner can keep the best one.
"""

from __future__ import annotations

import random

from .state import ScheduleError


def divisors(n: int) -> list[int]:
    small = [d for d in range(1, int(n ** 0.5) + 1) if n % d == 0]
    return sorted(set(small + [n // d for d in small]))


def perfect_tile(rng: random.Random, extent: int, n: int, max_innermost_factor: int) -> list[int]:
    """`n` factors multiplying to exactly `extent`, the innermost at most
    `max_innermost_factor` (when positive): innermost first, then the rest outer to inner."""
    if n < 1:
        raise ScheduleError(f"sample_perfect_tile: n must be at least 1, got {n}")
    if n == 1:
        return [extent]
    inner_choices = [d for d in divisors(extent)
                     if max_innermost_factor <= 0 or d <= max_innermost_factor]
    innermost = rng.choice(inner_choices)
    rest, factors = extent // innermost, []
    for _ in range(n - 2):
        f = rng.choice(divisors(rest))
        factors.append(f)
        rest //= f
    return [rest] + factors + [innermost]


def check_tile_decision(decision: list[int], extent: int, n: int) -> list[int]:
    product = 1
    for f in decision:
        product *= int(f)
    if len(decision) != n or product != extent:
        raise ScheduleError(f"sample_perfect_tile: decision {list(decision)} is not {n} "
                            f"factors of {extent}")
    return [int(f) for f in decision]


def categorical(rng: random.Random, probs: list[float]) -> int:
    if not probs or any(p < 0 for p in probs) or sum(probs) <= 0:
        raise ScheduleError(f"sample_categorical: probabilities {probs} must be non-negative "
                            f"and not all zero")
    if hasattr(rng, "categorical"):  # a schedule's generator draws as TVM's does
        return rng.categorical(probs)
    return rng.choices(range(len(probs)), weights=probs)[0]


def partitioned_tile(rng: random.Random, extent: int, n: int, partition_pos: int,
                     innermost_part_factor: int) -> list[int]:
    """`n` factors of `extent` whose product from `partition_pos` on is a multiple of
    `innermost_part_factor` (TVM's sample_partitioned_tile): drawn among all such choices."""
    if not 0 <= partition_pos < n or innermost_part_factor < 1:
        raise ScheduleError(f"sample_partitioned_tile: partition_pos {partition_pos} must be "
                            f"in [0, {n}) and innermost_part_factor positive")
    choices = [f for f in _all_tiles(extent, n) if _inner_ok(f, partition_pos,
                                                              innermost_part_factor)]
    if not choices:
        raise ScheduleError(f"sample_partitioned_tile: no {n} factors of {extent} have an "
                            f"inner part divisible by {innermost_part_factor}")
    return list(rng.choice(choices))


def _inner_ok(factors: tuple[int, ...], pos: int, multiple: int) -> bool:
    product = 1
    for f in factors[pos:]:
        product *= f
    return product % multiple == 0


def _all_tiles(extent: int, n: int) -> list[tuple[int, ...]]:
    if n == 1:
        return [(extent,)]
    return [(d, *rest) for d in divisors(extent) for rest in _all_tiles(extent // d, n - 1)]
