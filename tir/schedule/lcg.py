"""The random generator of a schedule, drawing as TVM's does, so a seed gives TVM's choices.

TVM samples with a linear congruential engine (the "minimal standard": state * 48271 mod
2^31 - 1) through the C++ standard library's distributions. The same draws are made here:
a uniform integer by scaling down with rejection, a probability by combining two draws into
a double in [0, 1), a categorical choice by where that double falls in the cumulative
probabilities. Checked against apache-tvm 0.27: the same seed gives the same decisions.
"""

from __future__ import annotations

import bisect
import random
from typing import Any, Sequence

_MODULUS = 2147483647
_MULTIPLIER = 48271


class LinearCongruentialRandom:
    """A seeded random source with TVM's sequence (`Schedule(mod, seed=...)`)."""

    def __init__(self, seed: int | None = None) -> None:
        self.state = 1
        self.seed(seed)

    def seed(self, seed: int | None) -> None:
        if seed is None or seed == -1:  # TVM's -1: a seed from the system
            seed = random.SystemRandom().randrange(1, _MODULUS)
        seed = int(seed) % _MODULUS
        self.state = seed or 1

    def next_int(self) -> int:
        self.state = self.state * _MULTIPLIER % _MODULUS
        return self.state

    def random(self) -> float:
        """A double in [0, 1) from two draws (the standard library's canonical form)."""
        span = float(_MODULUS - 1) + 1.0
        total, scale = 0.0, 1.0
        for _ in range(2):
            total += float(self.next_int()) * scale
            scale *= span
        return min(total / scale, 1.0 - 2.0 ** -53)

    def randrange(self, n: int) -> int:
        """A uniform integer in [0, n), by scaling down with rejection."""
        if n < 1:
            raise ValueError(f"randrange: empty range (n = {n})")
        scaling = (_MODULUS - 1) // n
        past = n * scaling
        while True:
            value = self.next_int()
            if value < past:
                return value // scaling

    def randint(self, low: int, high: int) -> int:
        return low + self.randrange(high - low + 1)

    def choice(self, seq: Sequence[Any]) -> Any:
        return seq[self.randrange(len(seq))]

    def categorical(self, probs: Sequence[float]) -> int:
        """An index drawn with weights `probs`."""
        total = float(sum(probs))
        cumulative, acc = [], 0.0
        for p in probs:
            acc += p / total
            cumulative.append(acc)
        return min(bisect.bisect_left(cumulative, self.random()), len(probs) - 1)

    def fork_seed(self) -> int:
        """A seed for another generator (a schedule's copy), as TVM derives it."""
        return self.next_int() * 32767 % 1999999973
