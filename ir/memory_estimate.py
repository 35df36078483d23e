"""`relax.analysis.estimate_memory_usage`: how much memory a module's tensors need, without and
with memory planning, in TVM's report format.

The allocations are the outputs of `call_tir` / `call_dps_packed` with static shapes (what the
VM allocates; tvmlite plans memory when it builds, so the module here is the unplanned one),
or, in a module already given explicit allocations, its `alloc_tensor`s and storages.
Planning is simulated as tvmlite's VM does it: an intermediate tensor reuses the smallest free
storage that fits once the tensor held there is dead, and the function's results get
allocations of their own.
"""

from __future__ import annotations

from typing import Any

from . import expr as rx
from . import struct_info as si
from ..tir import expr as tx
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


_EXPLICIT = ("relax.builtin.alloc_tensor", "relax.memory.alloc_tensor",
             "relax.memory.alloc_storage")


def _shape_bytes(shape_arg: Any, dtype: str) -> int | None:
    dims = getattr(shape_arg, "values", None)
    if dims is None or not all(isinstance(d, tx.IntImm) for d in dims):
        return None
    return _nbytes(si.TensorStructInfo(dims, dtype))


def _explicit_sizes(func: rx.Function) -> tuple[list[int], list[int]] | None:
    """A function already lowered to explicit allocations (as `StaticPlanBlockMemory` leaves
    it): every tensor allocation without planning; storages and unplanned tensors with it."""
    calls = [b.value for blk in func.body.blocks for b in blk.bindings
             if isinstance(b.value, rx.Call) and isinstance(b.value.op, rx.Op) and
             b.value.op.name in _EXPLICIT]
    if not calls:
        return None
    unplanned: list[int] = []
    planned: list[int] = []
    for c in calls:
        name = c.op.name
        if name == "relax.memory.alloc_storage":
            size = _shape_bytes(c.args[0], "uint8")
        else:
            at = 0 if name == "relax.builtin.alloc_tensor" else 2
            size = _shape_bytes(c.args[at], c.args[at + 1].value)
        if size is None:
            continue
        if name != "relax.memory.alloc_storage":
            unplanned.append(size)
        if name != "relax.memory.alloc_tensor":
            planned.append(size)
    return unplanned, planned


def estimate_memory_usage(mod: Any) -> str:
    """A report of each relax function's static allocations, without and with planning."""
    funcs = mod.items() if isinstance(mod, IRModule) else [(None, mod)]
    lines = ["Memory usage estimation:"]
    for gv, f in funcs:
        if not isinstance(f, rx.Function):
            continue
        explicit = _explicit_sizes(f)
        if explicit is not None:
            unplanned, planned = explicit
        else:
            allocs = _allocations(f)
            unplanned, planned = [s for _, s, _ in allocs], _planned(f, allocs)
        plain = sum(unplanned)
        name = gv.name_hint if gv is not None else f.attr_dict.get("global_symbol", "main")
        lines += [f"- Function {name}:",
                  f" * Without memory planning, there are {len(unplanned)} constant-size memory "
                  f"allocation(s) with total size {plain / _GB:.4} GB.",
                  f" * With memory planning, there are {len(planned)} constant-size memory "
                  f"allocation(s) with total size {sum(planned) / _GB:.4} GB."]
        if plain:
            lines.append(f" * Memory planning reduces constant memory size to "
                         f"{100 * sum(planned) / plain:.1f}%.")
    return "\n".join(lines) + "\n"
