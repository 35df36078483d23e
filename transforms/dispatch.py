"""`relax.backend.DispatchSortScan` and `DispatchSampling`: TVM's passes that send sorting,
scans and sampling to their kernels before the rest of legalization. tvmlite has no library
kernels for them (no thrust, no cuRAND), so both lower those operators alone with their
LegalizeOps rules, which is what TVM does on CPU targets."""

from __future__ import annotations

from ..ir.module import IRModule
from .legalize import legalize_module
from .pass_infra import Pass, PassContext

SORT_SCAN_OPS = frozenset({"relax.cumsum", "relax.cumprod", "relax.sort", "relax.argsort",
                           "relax.topk"})
SAMPLING_OPS = frozenset({"relax.multinomial_from_uniform"})


def _dispatch(ops: frozenset[str], name: str) -> Pass:
    def run(mod: IRModule, ctx: PassContext) -> IRModule:
        return legalize_module(mod, only=ops)
    return Pass(run, name)


def DispatchSortScan() -> Pass:  # noqa: N802
    return _dispatch(SORT_SCAN_OPS, "DispatchSortScan")


def DispatchSampling() -> Pass:  # noqa: N802
    return _dispatch(SAMPLING_OPS, "DispatchSampling")
