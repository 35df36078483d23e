"""Shared helpers for the benchmarks in bench/ (never imported by tvmlite itself).

median_us(fn) -> median latency of one call of fn() in microseconds.
load_module_source(src, name) -> a Python module executed from a real temp file, so that
    TVMScript parsers (TVM's and tvmlite's) can find the class source through linecache.
"""
import importlib.util
import os
import sys
import tempfile
import time
import timeit


def median_us(fn, min_sample_s=0.002, repeat=21, globals=None):
    """Median over `repeat` samples of the per-call time of fn(), in microseconds.

    fn is a callable, or a statement string run with `globals` (timeit-style; avoids the
    ~0.03 µs of a lambda call when timing sub-microsecond things).

    Each sample runs fn `number` times back to back, with `number` chosen (doubling from 1,
    after one warm-up call) so that one sample lasts at least `min_sample_s` seconds.
    """
    timer = timeit.Timer(fn, globals=globals)
    timer.timeit(1)  # warm up (lazy init, caches)
    number = 1
    while True:
        t = timer.timeit(number)
        if t >= min_sample_s:
            break
        grow = 10 if t <= 0 else min(10, min_sample_s / t * 1.2)
        number = max(number * 2, int(number * grow))
    samples = sorted(timer.repeat(repeat=repeat, number=number))
    return samples[len(samples) // 2] / number * 1e6


def median_s(fn, reps):
    """Median of `reps` single calls of fn(), in seconds, after one warm-up call: for calls
    long enough (~seconds) that timing each one alone is accurate."""
    fn()
    samples = []
    for _ in range(reps):
        t = time.perf_counter()
        fn()
        samples.append(time.perf_counter() - t)
    return sorted(samples)[len(samples) // 2]


_tmpdir = None


def load_module_source(src, name):
    """Write `src` to a temp file and import it as module `name` (registered in sys.modules)."""
    global _tmpdir
    if _tmpdir is None:
        _tmpdir = tempfile.mkdtemp(prefix="tvmlite_bench_")
    path = os.path.join(_tmpdir, name + ".py")
    with open(path, "w") as f:
        f.write(src)
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod  # TVM's parser looks the defining module up by name
    spec.loader.exec_module(mod)
    return mod


def short_error(exc, limit=70):
    """One line for a table cell: 'ExcType: first line of message' clipped to `limit`."""
    lines = str(exc).strip().splitlines()
    first = next((ln.strip() for ln in lines if ln.strip()), "")
    text = f"{type(exc).__name__}: {first}" if first else type(exc).__name__
    return text if len(text) <= limit else text[: limit - 3] + "..."
