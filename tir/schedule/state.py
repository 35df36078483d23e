"""`tir.Schedule`: TVM's scheduling API over tvmlite's immutable TIR.

A schedule holds an IRModule and the name of the prim_func it works on. Each primitive is a
pure function `PrimFunc -> PrimFunc` (in loops.py, compute.py, cache.py) that checks its
preconditions first and raises `ScheduleError`; only on success does the schedule swap the new
function into its module and append the call to `sch.trace`. So a failed primitive leaves
`sch.mod` exactly as it was. Handles: `BlockRV` names a block, `LoopRV` a loop variable;
a loop handle goes stale when its loop is split or fused away, as in TVM.
"""

from __future__ import annotations

from typing import Any, Callable, Union

from ...ir.module import IRModule
from ..function import PrimFunc
from ..stmt import Block, BlockRealize, For
from . import tree
from .lcg import LinearCongruentialRandom
from .trace import BlockRV, ExprRV, LoopRV, Trace


class ScheduleError(ValueError):
    """A schedule primitive cannot be applied; the message names the block or loop."""


class UnknownHandleError(ScheduleError, IndexError):
    """A handle this schedule cannot resolve: removed (`remove_rv`), made by another schedule
    or pointing to a loop/block that a later step replaced. An IndexError, as in TVM."""


class Ctx:
    """What a primitive sees: the function and handle resolution with good errors."""

    def __init__(self, func: PrimFunc, func_name: str) -> None:
        self.func, self.func_name = func, func_name

    def block_path(self, rv: BlockRV) -> tree.Path:
        if not isinstance(rv, BlockRV):
            raise ScheduleError(f"expected a block handle (BlockRV), got {type(rv).__name__}")
        path = tree.block_path(self.func.body, rv.name)
        if path is None:
            raise UnknownHandleError(f"block {rv.name!r} is not in prim_func {self.func_name!r} "
                                f"(it was inlined or renamed)")
        return path

    def loop_path(self, rv: LoopRV) -> tree.Path:
        if not isinstance(rv, LoopRV):
            raise ScheduleError(f"expected a loop handle (LoopRV), got {type(rv).__name__}")
        path = tree.loop_path(self.func.body, rv.var)
        if path is None:
            raise UnknownHandleError(f"loop {rv.var.name!r} no longer exists in {self.func_name!r} "
                                f"(a split, fuse or compute_at replaced it)")
        return path

    def is_implicit_root(self, rv: Any) -> bool:
        """Whether `rv` is the "root" block TVM puts around a function body, where tvmlite's
        function has none (its body is the root's body)."""
        return (isinstance(rv, BlockRV) and rv.name == "root"
                and tree.block_path(self.func.body, "root") is None)

    def block(self, rv: BlockRV) -> BlockRealize:
        return self.block_path(rv)[-1]  # type: ignore[return-value]

    def loop(self, rv: LoopRV) -> For:
        return self.loop_path(rv)[-1]  # type: ignore[return-value]

    def loop_rv(self, loop: For) -> LoopRV:
        return LoopRV(loop.loop_var, self.func_name)

    def block_rv(self, br: BlockRealize) -> BlockRV:
        return BlockRV(br.block.name, self.func_name)


# the parameters of primitives that name a block (and so may be given a block's name)
_BLOCK_KEYS = frozenset(["block", "block_or_loop", "scope_block", "target", "consumer_block",
                         "reduction_block", "epilogue_block"])


def _as_module(mod: Any) -> IRModule:
    if isinstance(mod, IRModule):
        return mod
    if isinstance(mod, PrimFunc):
        return IRModule.from_dict({"main": mod})
    raise TypeError(f"tir.Schedule takes an IRModule or a PrimFunc, got {type(mod).__name__}")


class ScheduleBase:
    """Module bookkeeping, handles and the trace; the primitives are added by `Schedule`."""

    def __init__(self, mod: Any, *, seed: int | None = None, debug_mask: Any = "all",
                 error_render_level: str = "detail", enable_check: bool = True) -> None:
        self._mod = _as_module(mod)
        prims = [gv.name_hint for gv, f in self._mod.items() if isinstance(f, PrimFunc)]
        self._func_name = "main" if "main" in prims else (prims[0] if len(prims) == 1 else None)
        self._trace = Trace()
        if error_render_level not in ("detail", "fast", "none"):
            raise ValueError(f"error_render_level must be 'detail', 'fast' or 'none', "
                             f"got {error_render_level!r}")
        self._render_level = error_render_level
        # NOTE: TVM's seed -1 (or none) means "seed from the system"; a seed draws as TVM's
        self.rng = LinearCongruentialRandom(seed)

    # TVM's type aliases of annotation values, reachable from the class as in TVM
    PrimAnnotationValueT = Union[str, int, float, ExprRV]
    AnnotationValueT = Union[PrimAnnotationValueT, list, dict]

    @property
    def mod(self) -> IRModule:
        return self._mod

    @property
    def trace(self) -> Trace:
        """Every primitive applied so far, printable as Python and replayable."""
        return self._trace

    @trace.setter
    def trace(self, value: Trace) -> None:
        self._trace = value

    @property
    def func_working_on(self) -> Any:
        """The GlobalVar of the prim_func the schedule works on (None when undecided)."""
        return None if self._func_name is None else self._mod.get_global_var(self._func_name)

    def work_on(self, func_name: str) -> None:
        if not isinstance(self._mod[func_name] if func_name in self._mod else None, PrimFunc):
            raise ScheduleError(f"the module has no prim_func named {func_name!r}")
        self._func_name = func_name

    def _ctx(self, func_name: str | None = None) -> Ctx:
        name = func_name or self._func_name
        if name is None:
            raise ScheduleError("the schedule does not know which function to be working on: "
                                "the module has several prim_funcs; call sch.work_on(name) "
                                "or pass func_name=")
        return Ctx(self._mod[name], name)

    def _apply(self, name: str, kwargs: dict[str, Any],
               fn: Callable[..., tuple[PrimFunc, Any]], *args: Any) -> Any:
        """Runs a primitive; on success swaps in its function and records it in the trace.
        A block given by name (TVM accepts `"C"` for a BlockRV) is looked up first."""
        named = {v for k, v in kwargs.items() if k in _BLOCK_KEYS and isinstance(v, str)}
        if named:
            rvs = {v: self.get_block(v) for v in named}
            kwargs = {k: rvs[v] if k in _BLOCK_KEYS and isinstance(v, str) else v
                      for k, v in kwargs.items()}
            args = tuple(rvs.get(a, a) if isinstance(a, str) else a for a in args)
        ctx = self._ctx()
        new_func, outputs = fn(ctx, *args)
        self._mod = self._mod.with_function(ctx.func_name, new_func)
        self.trace.record(name, kwargs, outputs)
        return outputs

    def _block_rv(self, block: Any) -> Any:
        """A block handle for a block given by handle or by name."""
        return self.get_block(block) if isinstance(block, str) else block

    def copy(self) -> Any:
        other = type(self).__new__(type(self))
        other.__dict__.update(self.__dict__)
        other.trace = Trace(self.trace.insts, self.trace.decisions)
        other._srefs = {}  # a copy hands out its own srefs
        other.rng = LinearCongruentialRandom(self.rng.fork_seed())  # its own draws, as TVM
        return other

    def seed(self, seed: int) -> None:
        self.rng.seed(seed)

    def show(self, *args: Any, **kwargs: Any) -> None:
        """Prints the module as TVMScript, then the trace that made it (as TVM 0.27 does)."""
        from ...script.highlight import cprint  # the printer layer sits above tir

        style = kwargs.get("style", args[0] if args else None)
        try:
            cprint(self._mod.script(), style)
        except Exception as err:  # noqa: BLE001 (the printer may not handle every node yet)
            print(f"# (TVMScript printer unavailable: {err})\n{self._mod!r}")
        cprint(str(self.trace), style)

    # -- lookups ----------------------------------------------------------------------------

    def _error(self, detail: str, fast: str) -> ScheduleError:
        """The error rendered at the schedule's `error_render_level`, as TVM renders it."""
        level = getattr(self, "_render_level", "detail")
        if level == "none":
            return ScheduleError("ScheduleError: (not rendered)")
        return ScheduleError(detail if level == "detail" else fast)

    def get_block(self, name: str, func_name: str | None = None) -> BlockRV:
        ctx = self._ctx(func_name)
        if tree.block_path(ctx.func.body, name) is None and name != "root":
            names = [b.block.name for b in tree.blocks_under(ctx.func.body)]
            raise self._error(f"Cannot find a block with the name: {name} in prim_func "
                              f"{ctx.func_name!r}; blocks: {names}",
                              "Cannot find a block with the specified name")
        rv = BlockRV(name, ctx.func_name)
        self.trace.record("get_sblock", {"name": name, "func_name": ctx.func_name}, rv)
        return rv

    get_sblock = get_block

    def get_loops(self, block: BlockRV | str) -> list[LoopRV]:
        block = self._block_rv(block)
        ctx = self._ctx()
        rvs = [ctx.loop_rv(lp) for lp in tree.loops_above(ctx.block_path(block))]
        self.trace.record("get_loops", {"block": block}, rvs)
        return rvs

    def get_child_blocks(self, block_or_loop: BlockRV | LoopRV | str) -> list[BlockRV]:
        block_or_loop = self._block_rv(block_or_loop)
        ctx = self._ctx()
        if ctx.is_implicit_root(block_or_loop):
            node: Any = ctx.func.body
        elif isinstance(block_or_loop, BlockRV):
            node = ctx.block(block_or_loop).block.body
        else:
            node = ctx.loop(block_or_loop).body
        out = [ctx.block_rv(br) for br in _direct_blocks(node)]
        self.trace.record("get_child_blocks", {"block_or_loop": block_or_loop}, out)
        return out

    def get(self, rv: BlockRV | LoopRV | ExprRV) -> Any:
        """The IR node a handle points to now (a Block or a For), or a sample's value (an
        int, as TVM 0.27 returns it)."""
        if id(rv) in getattr(self, "_removed", ()):
            raise UnknownHandleError(f"{rv!r} was removed from the schedule (remove_rv)")
        if isinstance(rv, ExprRV):
            return rv.value
        from .extra import StmtSRef  # NOTE: extra.py builds on this module

        if isinstance(rv, StmtSRef):  # `sch.get(sref)`: the statement it stands for
            return rv.stmt
        ctx = self._ctx()
        if ctx.is_implicit_root(rv):
            return Block("root", (), ctx.func.body)
        return ctx.block(rv).block if isinstance(rv, BlockRV) else ctx.loop(rv)


def _direct_blocks(node: Any) -> list[BlockRealize]:
    """Blocks below `node` that are not nested inside another block."""
    out: list[BlockRealize] = []

    def visit(s: Any) -> None:
        if isinstance(s, BlockRealize):
            out.append(s)
            return
        for c in tree.children(s):
            visit(c)

    visit(node)
    return out
