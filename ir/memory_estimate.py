"""`relax.analysis.estimate_memory_usage`: how much memory a module's tensors need, without and
with memory planning, in TVM's report format.

The allocations are the outputs of `call_tir` / `call_dps_packed` with static shapes (what the
VM allocates; tvmlite plans memory when it builds, so the module here is the unplanned one).
Planning is simulated as tvmlite's VM does it: an intermediate tensor reuses the smallest free
storage that fits once the tensor held there is dead, and the function's results get
allocations of their own.
"""

from __future__ import annotations

from typing import Any

from . import expr as rx
from . import struct_info as si
from .functor import var_use_counts
from .module import IRModule
from .op import CALL_DPS_PACKED, CALL_TIR

_GB = 1024 ** 3


def _nbytes(sinfo: Any) -> int | None:
    if not isinstance(sinfo, si.TensorStructInfo) or sinfo.static_shape is None or \
            not sinfo.dtype:
        return None
    count = 1
    for d in sinfo.static_shape:
        count *= d
    bits = 8 if sinfo.dtype == "bool" else int("".join(c for c in sinfo.dtype if c.isdigit()))
    return count * max(1, bits // 8)


def _allocations(func: rx.Function) -> list[tuple[rx.Var, int, int]]:
    """(var, bytes, binding index) of each static allocation, in order."""
    found = []
    bindings = [b for blk in func.body.blocks for b in blk.bindings]
    for i, b in enumerate(bindings):
        v = b.value
        if isinstance(v, rx.Call) and v.op in (CALL_TIR, CALL_DPS_PACKED):
            size = _nbytes(v.struct_info)
            if size is not None:
                found.append((b.var, size, i))
    return found


def _planned(func: rx.Function, allocs: list[tuple[rx.Var, int, int]]) -> list[int]:
    """The sizes of the allocations a first-fit planner makes."""
    bindings = [b for blk in func.body.blocks for b in blk.bindings]
    results = set(var_use_counts(func.body.body))
    last = {}
    for i, b in enumerate(bindings):
        for v in var_use_counts(b.value):
            last[v] = i
    storages: list[int] = []
    free: list[int] = []  # indices into storages
    live: list[tuple[int, rx.Var]] = []  # (storage, var)
    outputs: list[int] = []
    for var, size, i in allocs:
        for s, held in list(live):
            if last.get(held, -1) < i:
                live.remove((s, held))
                free.append(s)
        if var in results:
            outputs.append(size)
            continue
        fits = sorted((storages[s], s) for s in free if storages[s] >= size)
        if fits:
            s = fits[0][1]
            free.remove(s)
        else:
            storages.append(size)
            s = len(storages) - 1
        live.append((s, var))
    return storages + outputs


def estimate_memory_usage(mod: Any) -> str:
    """A report of each relax function's static allocations, without and with planning."""
    funcs = mod.items() if isinstance(mod, IRModule) else [(None, mod)]
    lines = ["Memory usage estimation:"]
    for gv, f in funcs:
        if not isinstance(f, rx.Function):
            continue
        allocs = _allocations(f)
        plain = sum(s for _, s, _ in allocs)
        planned = _planned(f, allocs)
        name = gv.name_hint if gv is not None else f.attr_dict.get("global_symbol", "main")
        lines += [f"- Function {name}:",
                  f" * Without memory planning, there are {len(allocs)} constant-size memory "
                  f"allocation(s) with total size {plain / _GB:.4} GB.",
                  f" * With memory planning, there are {len(planned)} constant-size memory "
                  f"allocation(s) with total size {sum(planned) / _GB:.4} GB."]
        if plain:
            lines.append(f" * Memory planning reduces constant memory size to "
                         f"{100 * sum(planned) / plain:.1f}%.")
    return "\n".join(lines) + "\n"
