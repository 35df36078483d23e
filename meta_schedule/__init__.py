"""`tvm.meta_schedule`: tuning a prim_func by searching a space of schedules (MLC chapter 4).

    database = ms.tune_tir(mod=MyModule, target="llvm --num-cores=1", max_trials_global=64,
                           num_trials_per_iter=64,
                           space=ms.space_generator.ScheduleFn(stochastic_schedule_mm),
                           work_dir="./tune_tmp", task_name="main")
    sch = ms.tir_integration.compile_tir(database, MyModule, "llvm --num-cores=1")

The space is a stochastic schedule function (one using `sch.sample_perfect_tile` ...) or, by
default, `tir.schedule.auto.default_space` (`default_gpu_space` for a CUDA target, whose trials
run on the GPU). The search is random: each trial samples a
schedule with a fresh seed, distinct traces are built and timed on random inputs, and the
database keeps every (trace, time). `compile_tir` replays the fastest trace on a new schedule.
TVM's cost model and evolutionary search are not reproduced; the trials are few enough that
measuring them all is the search.
"""

from __future__ import annotations

import json
import os
import random
from dataclasses import dataclass, field
from types import SimpleNamespace
from typing import Any, Callable

import numpy as np

from ..ir.module import IRModule
from ..tir.kernel_build import parse_target
from ..tir.expr import IntImm
from ..tir.function import PrimFunc
from ..tir.schedule import Schedule, ScheduleError, Trace
from ..tir.schedule.auto import default_gpu_space, default_space


@dataclass
class TuningRecord:
    trace: Trace
    run_secs: list[float]
    workload: IRModule
    target: str = "llvm"


@dataclass(frozen=True)
class Workload:
    """TVM's `ms.database.Workload`: the module a tuning record was measured on."""

    mod: IRModule


def tuning_record(trace: Trace, workload: Any, run_secs: Any = None, target: Any = None,
                  args_info: Any = None) -> TuningRecord:
    """`ms.database.TuningRecord(trace, workload, run_secs, target)` in TVM's argument order
    (the workload a Workload or the module itself)."""
    mod = workload.mod if isinstance(workload, Workload) else workload
    secs = [float(getattr(t, "value", t)) for t in (run_secs or [])]
    return TuningRecord(trace, secs, mod, str(target) if target is not None else "llvm")


_CURRENT: list[Database] = []


@dataclass
class Database:
    """What tuning measured, per workload (the tuned module). `with db:` makes it the database
    `MetaScheduleApplyDatabase()` applies, as TVM's."""

    records: list[TuningRecord] = field(default_factory=list)

    def commit_tuning_record(self, record: TuningRecord) -> None:
        self.records.append(record)

    def commit_workload(self, mod: Any) -> Workload:
        """TVM registers the workload before its records; here a record carries its own."""
        return Workload(_as_module(mod))

    def __enter__(self) -> Database:
        _CURRENT.append(self)
        return self

    def __exit__(self, *_: Any) -> None:
        _CURRENT.remove(self)

    @staticmethod
    def current() -> Database | None:
        return _CURRENT[-1] if _CURRENT else None

    def get_all_tuning_records(self) -> list[TuningRecord]:
        return list(self.records)

    def query_tuning_record(self, mod: Any, target: Any = None, workload_name: str = "main"
                            ) -> TuningRecord | None:
        from ..ir.structural import structural_equal

        mod = _as_module(mod)  # NOTE: workloads match by structure, as TVM's hash does
        mine = [r for r in self.records if r.workload is mod or structural_equal(r.workload, mod)]
        return min(mine, key=lambda r: r.run_secs[0], default=None)

    def query_schedule(self, mod: Any, target: Any = None, workload_name: str = "main"
                       ) -> Schedule | None:
        record = self.query_tuning_record(mod, target, workload_name)
        if record is None:
            return None
        # NOTE: replayed on the module it was recorded on: the trace names its blocks, which
        # a structurally equal module may name otherwise (block names do not count)
        sch = Schedule(record.workload)
        record.trace.apply_to_schedule(sch, remove_postproc=False)
        return sch

    def query_ir_module(self, mod: Any, target: Any = None, workload_name: str = "main"
                        ) -> IRModule | None:
        sch = self.query_schedule(mod, target, workload_name)
        return None if sch is None else sch.mod

    def __len__(self) -> int:
        return len(self.records)


class ScheduleFn:
    """A design space given as a function `sch -> sch` (or None) that samples decisions."""

    def __init__(self, sch_fn: Callable[[Schedule], Any]) -> None:
        self.sch_fn = sch_fn

    def sample(self, sch: Schedule) -> Schedule:
        out = self.sch_fn(sch)
        return sch if out is None else out


def tune_tir(mod: Any, target: Any, work_dir: str | None = None, max_trials_global: int = 64,
             num_trials_per_iter: int = 64, space: Any = "post-order-apply",
             task_name: str = "main", seed: int | None = None, **_: Any) -> Database:
    """Samples up to `max_trials_global` distinct schedules of `mod` from `space`, times each
    and returns the database of measurements."""
    mod = _as_module(mod)
    tgt = parse_target(target)
    num_cores = tgt.num_cores or os.cpu_count() or 1
    sample = _sampler(space, num_cores, tgt.kind == "cuda")
    rng = random.Random(seed)
    database = Database()
    seen: set[str] = set()
    args = _random_inputs(mod["main"] if "main" in mod else next(iter(_prim_funcs(mod))))
    for _trial in range(4 * max_trials_global):  # NOTE: small spaces run out of traces
        if len(database) >= max_trials_global:
            break
        try:
            sch = sample(Schedule(mod, seed=rng.randrange(1 << 30)))
        except ScheduleError:
            continue  # a sampled decision the program refuses: draw again
        key = str(sch.trace)
        if key in seen:
            continue
        seen.add(key)
        database.commit_tuning_record(TuningRecord(sch.trace, [_measure(sch.mod, target, args)],
                                                   mod, str(target)))
    if work_dir is not None:
        _write_log(database, work_dir)
    return database


def compile_tir(database: Database, mod: Any, target: Any) -> Schedule:
    """The best schedule the database has for `mod` (TVM returns it the same way)."""
    sch = database.query_schedule(mod, target, "main")
    if sch is None:
        raise ValueError("the database has no tuning record for this module; run tune_tir "
                         "on it first")
    return sch


def _sampler(space: Any, num_cores: int, gpu: bool) -> Callable[[Schedule], Schedule]:
    if isinstance(space, ScheduleFn):
        return space.sample
    if callable(space):
        return ScheduleFn(space).sample
    if gpu:
        return default_gpu_space
    return lambda sch: default_space(sch, num_cores)


def _as_module(mod: Any) -> IRModule:
    return IRModule.from_dict({"main": mod}) if isinstance(mod, PrimFunc) else mod


def _prim_funcs(mod: IRModule) -> list[PrimFunc]:
    return [f for _, f in mod.items() if isinstance(f, PrimFunc)]


def _random_inputs(func: PrimFunc) -> list[np.ndarray]:
    rng = np.random.default_rng(0)
    out = []
    for p in func.params:
        buf = func.buffer_of(p)
        if buf is None:
            raise ValueError(f"tune_tir: parameter {p.name!r} is a scalar; tvmlite tunes "
                             f"functions whose parameters are all buffers")
        if not all(isinstance(d, IntImm) for d in buf.shape):
            raise ValueError(f"tune_tir: buffer {buf.name!r} has a symbolic shape "
                             f"{tuple(str(d) for d in buf.shape)}; tune a copy with the sizes "
                             f"you care about bound (tvmlite measures each trial)")
        shape = tuple(int(d) for d in buf.shape)
        data = rng.random(shape) if buf.dtype.startswith("float") else np.zeros(shape)
        out.append(data.astype(buf.dtype))
    return out


def _measure(mod: IRModule, target: Any, args: list[np.ndarray]) -> float:
    from .. import build, nd
    from ..vm.device import cpu, cuda

    lib = build(mod, target=target)
    dev = cuda() if parse_target(target).kind == "cuda" else cpu()
    arrays = [nd.array(a, dev) for a in args]
    timer = lib.time_evaluator("main", dev, number=3, repeat=3)
    return float(min(timer(*arrays).results))


def _write_log(database: Database, work_dir: str) -> None:
    """The measurements as JSON lines (trace text, seconds): for reading, not for reloading."""
    os.makedirs(work_dir, exist_ok=True)
    with open(os.path.join(work_dir, "database_tuning_record.json"), "w") as f:
        for r in database.records:
            f.write(json.dumps({"trace": str(r.trace), "run_secs": r.run_secs,
                                "target": r.target}) + "\n")


# -- the relax passes: tune every prim_func of a module, then apply the best schedules ------

_DATABASES: dict[str, Database] = {}  # work_dir -> what MetaScheduleTuneTIR measured there


def MetaScheduleTuneTIR(work_dir: str, max_trials_global: int = 64,  # noqa: N802
                        max_trials_per_task: int | None = None, **_: Any) -> Any:
    """`relax.transform.MetaScheduleTuneTIR`: tunes each static-shape prim_func of the module
    for the target in scope (`with Target(...)`); the module itself is returned unchanged."""
    from ..transforms.pass_infra import Pass

    def run(mod: IRModule, ctx: Any) -> IRModule:
        target = _target_in_scope()
        tasks = [(gv, f) for gv, f in mod.items() if isinstance(f, PrimFunc) and _static(f)]
        per_task = max_trials_per_task or max(1, max_trials_global // max(1, len(tasks)))
        db = _DATABASES.setdefault(os.path.abspath(work_dir), Database())
        for gv, func in tasks:
            found = tune_tir(_task(func), target, max_trials_global=per_task,
                             task_name=gv.name_hint)
            for record in found.records:
                db.commit_tuning_record(record)
        _write_log(db, work_dir)
        return mod

    return Pass(run, "MetaScheduleTuneTIR")


def MetaScheduleApplyDatabase(work_dir: str | None = None, **_: Any) -> Any:  # noqa: N802
    """`relax.transform.MetaScheduleApplyDatabase`: every prim_func tuned in `work_dir` (or in
    the database of the enclosing `with db:`) gets its fastest schedule, marked
    `tir.is_scheduled`; the others are left as they are."""
    from ..transforms.pass_infra import Pass

    def run(mod: IRModule, ctx: Any) -> IRModule:
        if work_dir is None:
            db = Database.current()
            if db is None:
                raise ValueError("MetaScheduleApplyDatabase needs a work_dir or a database: "
                                 "run it inside `with database:`")
            return _apply(db, mod)
        db = _DATABASES.get(os.path.abspath(work_dir))
        if db is None and os.path.exists(os.path.join(work_dir, relax_integration.DB_FILE)):
            # a whole-model database (tune_relax): the build's kernels with the tuned tiles
            return relax_integration.MetaScheduleApplyDatabase(work_dir)(mod)
        if db is None:
            raise ValueError(f"no tuning database for {work_dir!r} in this process; run "
                             f"MetaScheduleTuneTIR(work_dir=...) first")
        return _apply(db, mod)

    return Pass(run, "MetaScheduleApplyDatabase")


def _apply(db: Database, mod: IRModule) -> IRModule:
    out = mod
    for gv, func in mod.items():
        if isinstance(func, PrimFunc):
            sch = db.query_schedule(_task(func))
            if sch is not None:
                out = out.with_function(gv, sch.mod["main"].with_attr(
                    "global_symbol", gv.name_hint).with_attr("tir.is_scheduled", True))
    return out


def _task(func: PrimFunc) -> IRModule:
    return IRModule.from_dict({"main": func.with_attr("global_symbol", "main")})


def _static(func: PrimFunc) -> bool:
    return all(isinstance(d, IntImm) for p in func.params
               for d in getattr(func.buffer_of(p), "shape", ()))


def _target_in_scope() -> Any:
    from ..target import Target

    target = Target.current()
    if target is None:
        raise ValueError("MetaScheduleTuneTIR needs a target: run it inside "
                         "`with tvm.target.Target(...):`")
    return str(target)


space_generator = SimpleNamespace(ScheduleFn=ScheduleFn, PostOrderApply=lambda *a, **k: None)
tir_integration = SimpleNamespace(compile_tir=compile_tir, tune_tir=tune_tir)
database = SimpleNamespace(MemoryDatabase=Database, Database=Database, TuningRecord=tuning_record,
                           Workload=Workload, create=lambda kind="memory", **_: Database())

__all__ = ["Database", "MetaScheduleApplyDatabase", "MetaScheduleTuneTIR", "ScheduleFn",
           "TuningRecord", "compile_tir", "database",
           "space_generator", "tir_integration", "tune_tir"]


# `tvm.meta_schedule.relax_integration.tune_relax` (whole-model tuning)
from . import relax_integration  # noqa: E402

tune_relax = relax_integration.tune_relax
