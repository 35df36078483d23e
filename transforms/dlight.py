"""`tvm.s_tir.dlight` (older: `tvm.dlight`): default GPU schedules for a whole module.

    with tvm.target.Target("cuda"):
        gpu_mod = dl.ApplyDefaultSchedule(dl.gpu.Matmul(), dl.gpu.Fallback())(mod)

Every prim_func that binds no loop to a GPU thread gets a schedule; functions already scheduled
are left alone, as in TVM. tvmlite has one rule today, the fallback (`tir.gpu_default_schedule`:
spatial loops fused over blocks and threads, reductions inside each thread), so every rule
name is accepted and all of them schedule with it: `Matmul`, `GEMV`, `Reduction`, ... build
correct kernels, not TVM's tuned ones. For a fast GPU matmul, schedule it by hand (shared-memory
tiles, see tutorials/03) or tune it.
"""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from ..ir.module import IRModule
from ..tir.function import PrimFunc
from ..tir.gpu_default_schedule import default_gpu_schedule, has_thread_binding
from .pass_infra import Pass, PassContext


class ScheduleRule:
    """A dlight rule: which functions it takes. Here every rule takes every unbound one."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self.args, self.kwargs = args, kwargs

    def __repr__(self) -> str:
        return f"dlight.{type(self).__name__}()"


def _rules(*names: str) -> SimpleNamespace:
    return SimpleNamespace(**{n: type(n, (ScheduleRule,), {}) for n in names})


gpu = _rules("Matmul", "GEMV", "Reduction", "GeneralReduction", "Transpose", "RMSNorm",
             "LowBatchGEMV", "Fallback")
cpu = _rules("GEMV")


def ApplyDefaultSchedule(*rules: ScheduleRule) -> Pass:  # noqa: N802 (TVM's name)
    """Schedules every unbound prim_func for the GPU target of the enclosing `with Target`."""

    def run(mod: IRModule, ctx: PassContext) -> IRModule:
        from ..target import Target  # NOTE: the facade's target stack, read when the pass runs

        target = Target.current()
        if target is None:
            raise ValueError("dlight.ApplyDefaultSchedule needs a target: call it inside "
                             "`with tvm.target.Target(\"cuda\"):`")
        if "gpu" not in target.keys:
            return mod  # NOTE: CPU kernels need no thread binding
        out = mod
        for gv, func in mod.items():
            if isinstance(func, PrimFunc) and not has_thread_binding(func):
                out = out.with_function(gv, default_gpu_schedule(func))
        return out

    return Pass(run, "ApplyDefaultSchedule")


__all__ = ["ApplyDefaultSchedule", "ScheduleRule", "cpu", "gpu"]
