"""Per-call overhead of vm["main"] chaining 1, 10, 100 tiny kernels (not a pytest test).

Run: .venv/bin/python tests/vm/bench_overhead.py
TVM's C++ VM reference (DESIGN.md): ~1 us for one kernel + ~0.23 us per further call_tir.
"""

from __future__ import annotations

import os
import sys
import timeit

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
import vmtools as V  # noqa: E402

from tvmlite.vm import ndarray as nd  # noqa: E402
from tvmlite.vm.vm import VirtualMachine  # noqa: E402


def median_us(f, x, number: int = 20000, repeat: int = 15) -> float:
    times = timeit.repeat(lambda: f(x), number=number, repeat=repeat)
    return sorted(times)[len(times) // 2] / number * 1e6


def main() -> None:
    x = nd.array(np.zeros(4, np.float32))
    print(f"{'kernels':>8} {'mode':>12} {'us/call':>9} {'TVM ref':>8}")
    for n in (1, 10, 100):
        ex = V.executable(V.chain(n))
        for mode in ("auto", "closure", "interpreter"):
            f = VirtualMachine(ex, mode=mode)["main"]
            number = 20000 if mode == "auto" else max(200, 20000 // (n * 10))
            t = median_us(f, x, number)
            print(f"{n:>8} {mode:>12} {t:9.3f} {1 + 0.23 * (n - 1):8.2f}")
        f = VirtualMachine(ex)["main"]
        print(f"{n:>8} {'auto(numpy)':>12} {median_us(f, x.numpy(), 5000):9.3f}")


if __name__ == "__main__":
    main()
