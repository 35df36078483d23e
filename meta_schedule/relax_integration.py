"""Whole-model tuning (`tune_relax`, `MetaScheduleTuneIRMod`, `MetaScheduleApplyDatabase`).

The tasks are the matmuls the default pipeline builds (topi/matmul_schedule.py); the knobs are
their register tile (rows, lanes) and k block. An evolutionary search seeded by the default
rule proposes candidates, a ridge regression on log-knob features ranks them, and the best
predicted are built and measured in a `concurrent.futures.Executor` (a process pool, or a
dask `Client.get_executor()`). Records are JSON in `work_dir/database_tuning_record.json`.
"""

from __future__ import annotations

import concurrent.futures as cf
import json
import os
import random
import time
from typing import Any

import numpy as np

DB_FILE = "database_tuning_record.json"
KNOBS = ("rows", "lanes", "kc")


class DatabaseError(ValueError):
    """A tuning record in the database is malformed."""


def _divisors(n: int) -> list[int]:
    return [d for d in range(1, n + 1) if n % d == 0]


def _valid(dims: tuple, knobs: dict) -> bool:
    m, n, k = dims[-3:]
    return (knobs["rows"] in _divisors(m) and knobs["rows"] <= 16
            and knobs["lanes"] in _divisors(n) and knobs["lanes"] >= 4
            and knobs["kc"] in _divisors(k))


def load_database(work_dir: str) -> dict[tuple, dict]:
    """The best knobs per workload; a malformed entry raises DatabaseError naming it."""
    path = os.path.join(work_dir, DB_FILE)
    if not os.path.exists(path):
        return {}
    try:
        raw = json.load(open(path))
    except json.JSONDecodeError as err:
        raise DatabaseError(f"{path}: not JSON ({err})") from None
    if not isinstance(raw, list):
        raise DatabaseError(f"{path}: expected a list of records")
    best: dict[tuple, dict] = {}
    for i, rec in enumerate(raw):
        _check_record(path, i, rec)
        dims = tuple(rec["workload"])
        if dims not in best or rec["latency_s"] < best[dims]["latency_s"]:
            best[dims] = rec
    return {dims: rec["knobs"] for dims, rec in best.items()}


def _check_record(path: str, i: int, rec: Any) -> None:
    ok = (isinstance(rec, dict) and isinstance(rec.get("workload"), list)
          and len(rec["workload"]) >= 3
          and all(isinstance(d, int) and d > 0 for d in rec["workload"])
          and isinstance(rec.get("knobs"), dict)
          and all(isinstance(rec["knobs"].get(n), int) for n in KNOBS)
          and isinstance(rec.get("latency_s"), (int, float)) and rec["latency_s"] > 0)
    if not ok or not _valid(tuple(rec["workload"]), rec["knobs"]):
        raise DatabaseError(f"{path}: record {i} is malformed or its knobs do not tile "
                            f"its workload: {rec!r}")


def _save(work_dir: str, records: list[dict]) -> None:
    os.makedirs(work_dir, exist_ok=True)
    path = os.path.join(work_dir, DB_FILE)
    old = json.load(open(path)) if os.path.exists(path) else []
    with open(path, "w") as f:
        json.dump(old + records, f, indent=1)


def extract_tasks(mod: Any) -> list[tuple]:
    """The matmul workloads (dims) the default legalization of `mod` builds."""
    from ..topi.matmul_schedule import matmul_knobs
    from ..transforms.pipeline import default_build_pipeline
    seen: list = []
    with matmul_knobs({}, seen):  # the same passes as the build, so the same kernels
        default_build_pipeline()(mod)
    return list(dict.fromkeys(seen))


def measure(dims: tuple, knobs: dict, repeat: int = 3) -> float:
    """Builds the matmul of `dims` with `knobs` and returns its best time (s); runs in a worker.
    It also checks the result against numpy, so a wrong schedule is never recorded."""
    import tvmlite as tvm
    from tvmlite import te, topi
    from tvmlite.topi.matmul_schedule import matmul_knobs
    from tvmlite.topi.schedule_mode import default_schedules
    *batch, m, n, k = dims
    a = te.placeholder((*batch, m, k), name="A")
    b = te.placeholder((*batch, k, n), name="B")
    with matmul_knobs({tuple(dims): knobs}), default_schedules():  # the build's kernel form
        c = topi.nn.matmul(a, b)
    lib = tvm.build(te.create_prim_func([a, b, c]), target="llvm")
    rng = np.random.default_rng(0)
    an = rng.standard_normal((*batch, m, k), "float32")
    bn = rng.standard_normal((*batch, k, n), "float32")
    args = [tvm.nd.array(an), tvm.nd.array(bn), tvm.nd.array(np.zeros((*batch, m, n), "float32"))]
    lib(*args)
    np.testing.assert_allclose(args[2].numpy(), an @ bn, rtol=1e-3, atol=1e-3)
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        lib(*args)
        times.append(time.perf_counter() - t0)
    return min(times)


def _features(knobs: dict) -> np.ndarray:
    lr, ll, lk = (np.log2(knobs[n]) for n in KNOBS)
    return np.array([1.0, lr, ll, lk, lr * ll, lr * lr, ll * ll, lk * lk])


class RidgeCostModel:
    """Predicts log latency from log-knob features: ridge regression, numpy only."""

    def __init__(self, alpha: float = 1e-2) -> None:
        self.alpha, self.w = alpha, None

    def fit(self, knobs: list[dict], latencies: list[float]) -> None:
        x = np.stack([_features(c) for c in knobs])
        y = np.log(np.asarray(latencies))
        self.w = np.linalg.solve(x.T @ x + self.alpha * np.eye(x.shape[1]), x.T @ y)

    def predict(self, knobs: list[dict]) -> np.ndarray:
        if self.w is None:
            return np.zeros(len(knobs))
        return np.stack([_features(c) for c in knobs]) @ self.w


def _mutate(dims: tuple, knobs: dict, rng: random.Random) -> dict:
    m, n, k = dims[-3:]
    choices = {"rows": [d for d in _divisors(m) if d <= 16],
               "lanes": [d for d in _divisors(n) if d >= 4 and d <= 64] or [knobs["lanes"]],
               "kc": [d for d in _divisors(k) if d >= 16] or [k]}
    out = dict(knobs)
    name = rng.choice(KNOBS)
    out[name] = rng.choice(choices[name])
    return out


def _default_knobs(dims: tuple) -> dict | None:
    from ..topi.matmul_schedule import default_tile
    return default_tile(dims, "float32")


def tune_task(dims: tuple, trials: int, executor: cf.Executor, seed: int = 0) -> list[dict]:
    """Evolutionary search for one matmul: returns the measured records."""
    rng, model = random.Random(seed), RidgeCostModel()
    seed_knobs = _default_knobs(dims)
    if seed_knobs is None:
        return []
    measured: dict[str, tuple[dict, float]] = {}
    population, batch = [seed_knobs], max(1, min(4, trials))
    while len(measured) < trials:
        pool = [_mutate(dims, rng.choice(population), rng) for _ in range(32)] + population
        fresh = {json.dumps(c, sort_keys=True): c for c in pool
                 if json.dumps(c, sort_keys=True) not in measured and _valid(dims, c)}
        if not fresh:
            break
        cands = list(fresh.values())
        order = np.argsort(model.predict(cands), kind="stable")
        pick = [cands[i] for i in order[:min(batch, trials - len(measured))]]
        if not measured:  # the default rule is always measured, first: the baseline
            pick = [seed_knobs] + [c for c in pick if c != seed_knobs][:len(pick) - 1]
        futures = [executor.submit(measure, dims, c) for c in pick]
        for c, fut in zip(pick, futures):
            measured[json.dumps(c, sort_keys=True)] = (c, fut.result())
        ranked = sorted(measured.values(), key=lambda r: r[1])
        population = [c for c, _ in ranked[:4]]
        model.fit([c for c, _ in ranked], [t for _, t in ranked])
    return [{"workload": list(dims), "knobs": c, "latency_s": t} for c, t in measured.values()]


def tune_relax(mod: Any, params: Any, target: Any, work_dir: str, max_trials_global: int,
               max_trials_per_task: int | None = None, executor: cf.Executor | None = None,
               seed: int = 0, **_: Any) -> dict[tuple, dict]:
    """Tunes the matmuls of `mod` not yet in `work_dir`'s database; returns the best knobs."""
    done = load_database(work_dir)
    tasks = [d for d in extract_tasks(mod) if d not in done]
    if tasks:
        per_task = max_trials_per_task or max(1, max_trials_global // len(tasks))
        own = executor is None
        executor = executor or cf.ProcessPoolExecutor(max_workers=1)
        try:
            records = [r for d in tasks for r in tune_task(d, per_task, executor, seed)]
        finally:
            if own:
                executor.shutdown()
        _save(work_dir, records)
    return load_database(work_dir)


def MetaScheduleApplyDatabase(work_dir: str, **_: Any) -> Any:  # noqa: N802 (TVM's name)
    """Runs the default build's graph passes and legalization with the database's best knobs
    (no measuring); `tvm.compile` then finds the kernels built."""
    from ..topi.matmul_schedule import matmul_knobs
    from ..transforms.pass_infra import Pass
    from ..transforms.pipeline import default_build_pipeline

    def run(mod: Any, _ctx: Any = None) -> Any:
        with matmul_knobs(load_database(work_dir)):
            return default_build_pipeline()(mod)
    return Pass(run, "MetaScheduleApplyDatabase")


def MetaScheduleTuneIRMod(params: Any, work_dir: str, max_trials_global: int,  # noqa: N802
                          max_trials_per_task: int | None = None, **kwargs: Any) -> Any:
    """Tunes the module's matmuls into `work_dir`, then applies the database."""
    from ..transforms.pass_infra import Pass

    def run(mod: Any, _ctx: Any = None) -> Any:
        tune_relax(mod, params, "llvm", work_dir, max_trials_global, max_trials_per_task,
                   **kwargs)
        return MetaScheduleApplyDatabase(work_dir)(mod)
    return Pass(run, "MetaScheduleTuneIRMod")
