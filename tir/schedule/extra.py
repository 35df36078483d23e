"""More of `tir.Schedule`'s methods: dataflow queries, rfactor, buffer and annotation
primitives, and the bookkeeping calls TVM's traces contain (enter_postproc, fork_seed,
remove_rv). A mixin of `Schedule` (see __init__.py); the primitives live in their modules."""

from __future__ import annotations

from typing import Any

from ..index_map import IndexMap, as_index_map
from . import analysis, blockize, buffer_prims, layout, query, rfactor, structure
from . import epilogue, pad_einsum, padding, read_write_at, reindex, reindex_cache
from . import sample_location, tensorize
from .state import ScheduleError
from .trace import BlockRV, ExprRV, LoopRV


def _tensorize(ctx: Any, target: Any, intrin: str, preserve_unit_iters: bool
               ) -> tuple[Any, None]:
    if isinstance(target, LoopRV):
        func, target = blockize.blockize(ctx, target, preserve_unit_iters)
        ctx = type(ctx)(func, ctx.func_name)
    return tensorize.tensorize(ctx, target, intrin)


class StmtSRef:
    """What `sch.get_sref(rv)` gives: a view of the statement a handle points to now. A
    schedule hands out one sref per statement (`same_as` compares them), a copy its own."""

    def __init__(self, stmt: Any, parent: StmtSRef | None = None) -> None:
        self.stmt = stmt
        self.parent = parent  # the enclosing block's sref, where dependence info tracks it

    def same_as(self, other: Any) -> bool:
        return self is other

    def __repr__(self) -> str:
        return f"StmtSRef({type(self.stmt).__name__})"


class ScheduleState:
    """`sch.state` (or `ScheduleState(mod)`): the module being scheduled (TVM's
    ScheduleState, read side)."""

    def __init__(self, mod_or_sch: Any, *, debug_mask: Any = "all",
                 enable_check: bool = True) -> None:
        from .state import _as_module

        self._sch = mod_or_sch if hasattr(mod_or_sch, "trace") else None
        self._mod = None if self._sch is not None else _as_module(mod_or_sch)

    @property
    def mod(self) -> Any:
        return self._sch.mod if self._sch is not None else self._mod

    def get_sref(self, stmt: Any) -> StmtSRef | None:
        """The sref of a block or loop of the scheduled function (None when it is not one)."""
        if self._sch is None:
            return StmtSRef(stmt)
        return self._sch._sref_of(stmt)


class ExtraPrimitives:
    """Schedule methods beyond the loop/compute/cache core (mixed into `Schedule`)."""

    # -- dataflow queries ---------------------------------------------------------------------

    def _query(self, name: str, block: Any, fn: Any) -> list[BlockRV]:
        block = self._block_rv(block)
        ctx = self._ctx()
        out = [ctx.block_rv(br) for br in fn(ctx, ctx.block_path(block))]
        self.trace.record(name, {"block": block}, out)
        return out

    def get_producers(self, block: BlockRV | str) -> list[BlockRV]:
        """The blocks of the same scope that write a buffer `block` reads."""
        return self._query("get_producers", block, query.producers)

    def get_consumers(self, block: BlockRV | str) -> list[BlockRV]:
        """The blocks of the same scope that read a buffer `block` writes."""
        return self._query("get_consumers", block, query.consumers)

    def get_output_blocks(self, scope_block: BlockRV | str) -> list[BlockRV]:
        """The blocks directly inside `scope_block` that write a parameter buffer."""
        scope_block = self._block_rv(scope_block)
        ctx = self._ctx()
        scope = None if ctx.is_implicit_root(scope_block) else ctx.block(scope_block)
        if scope is None or (scope.block.name == "root" and not scope.iter_values):
            found = query.output_blocks(ctx, None)
        else:
            found = query.output_blocks(ctx, scope)
        out = [ctx.block_rv(br) for br in found]
        self.trace.record("get_output_blocks", {"scope_block": scope_block}, out)
        return out

    def _buffer_arg(self, block: Any, buffer: Any, kind: str = "write") -> tuple[str, int]:
        """A block's buffer given as an index (of a `kind` buffer), a name, a Buffer or
        (kind, index), as (kind, index) (TVM's _normalize_buffer_arg)."""
        if isinstance(buffer, tuple) and len(buffer) == 2 and isinstance(buffer[0], str):
            if buffer[0] not in ("read", "write"):
                raise ScheduleError(f"buffer kind must be 'read' or 'write', got {buffer[0]!r}")
            return buffer[0], int(buffer[1])
        if isinstance(buffer, int) or hasattr(buffer, "__index__"):
            return kind, int(buffer)
        node = self._ctx().block(self._block_rv(block)).block
        # a buffer both read and written counts as written, as in TVM
        for k, found in (("write", analysis.written_buffers(node)),
                         ("read", analysis.read_buffers(node))):
            for i, buf in enumerate(found):
                if buf is buffer or (isinstance(buffer, str) and buf.name == buffer):
                    return k, i
        raise ScheduleError(f"block {node.name!r} accesses no buffer {buffer!r}")

    def _buffer_index(self, block: Any, buffer: Any) -> int:
        kind, index = self._buffer_arg(block, buffer)
        if kind != "write":
            raise ScheduleError(f"expected a buffer the block writes, got {buffer!r}")
        return index

    def unsafe_hide_buffer_access(self, block: BlockRV | str, buf_type: str,
                                  buf_index_array: list[int]) -> None:
        """Hides some of the block's read/write regions from dependence analysis."""
        self._apply("unsafe_hide_buffer_access", {
            "block": block, "buf_type": buf_type,
            "buf_index_array": [int(k) for k in buf_index_array]},
            buffer_prims.unsafe_hide_buffer_access, block, buf_type,
            [int(k) for k in buf_index_array])

    # -- layouts ------------------------------------------------------------------------------

    def transform_layout(self, block: BlockRV | str, buffer: Any, index_map: Any,
                         pad_value: Any = None, *,
                         assume_injective_transform: bool = False) -> None:
        """Re-lays a buffer out: every access goes through `index_map` (an IndexMap or a
        function of the indices); a parameter buffer changes in the signature too."""
        block = self._block_rv(block)
        kind, index = self._buffer_arg(block, buffer)
        buf = layout.buffer_of(self._ctx(), block, kind, index, "transform_layout")
        imap = as_index_map(index_map, len(buf.shape))
        if callable(pad_value) and not isinstance(pad_value, IndexMap):
            pad_value = as_index_map(pad_value, len(imap.final_indices))
        self._apply("transform_layout", {"block": block, "buffer": (kind, index),
                                         "index_map": imap, "pad_value": pad_value,
                                         "assume_injective_transform":
                                             assume_injective_transform},
                    layout.transform_layout, block, kind, index, imap, pad_value,
                    bool(assume_injective_transform))

    def transform_block_layout(self, block: BlockRV | str, index_map: Any) -> None:
        """Gives the block a new loop nest iterating its iter vars in `index_map`'s order."""
        block = self._block_rv(block)
        ndim = len(self._ctx().block(block).block.iter_vars)
        imap = as_index_map(index_map, ndim)
        self._apply("transform_block_layout", {"block": block, "index_map": imap},
                    layout.transform_block_layout, block, imap)

    # -- reductions ---------------------------------------------------------------------------

    def rfactor(self, loop: LoopRV, factor_axis: int) -> BlockRV:
        """Factorizes the reduction over `loop` through a new buffer (see rfactor.py)."""
        return self._apply("rfactor", {"loop": loop, "factor_axis": int(factor_axis)},
                           rfactor.rfactor, loop, int(factor_axis))

    def fuse_reduction_epilogue(self, reduction_block: BlockRV | str,
                                epilogue_block: BlockRV | str) -> None:
        """Folds an epilogue adding to a sum into the sum's init (epilogue.py)."""
        self._apply("fuse_reduction_epilogue", {"reduction_block": reduction_block,
                                                "epilogue_block": epilogue_block},
                    epilogue.fuse_reduction_epilogue, reduction_block, epilogue_block)

    # -- buffers and annotations --------------------------------------------------------------

    def set_scope(self, block: BlockRV | str, buffer_index: int, storage_scope: str) -> None:
        buffer_index = self._buffer_index(block, buffer_index)
        self._apply("set_scope", {"block": block, "buffer_index": buffer_index,
                                  "storage_scope": storage_scope},
                    buffer_prims.set_scope, block, buffer_index, storage_scope)

    def unsafe_set_dtype(self, block: BlockRV | str, buffer_index: int, dtype: str) -> None:
        buffer_index = self._buffer_index(block, buffer_index)
        self._apply("unsafe_set_dtype", {"block": block, "buffer_index": buffer_index,
                                         "dtype": dtype},
                    buffer_prims.unsafe_set_dtype, block, buffer_index, dtype)

    def storage_align(self, block: BlockRV | str, buffer_index: int, axis: int, factor: int,
                      offset: int) -> None:
        buffer_index = self._buffer_index(block, buffer_index)
        self._apply("storage_align", {"block": block, "buffer_index": buffer_index,
                                      "axis": int(axis), "factor": int(factor),
                                      "offset": int(offset)},
                    buffer_prims.storage_align, block, buffer_index, int(axis),
                    int(factor), int(offset))

    def unannotate(self, block_or_loop: BlockRV | LoopRV | str, ann_key: str) -> None:
        self._apply("unannotate", {"block_or_loop": block_or_loop, "ann_key": ann_key},
                    buffer_prims.unannotate, block_or_loop, ann_key)

    def add_unit_loop(self, block_or_loop: BlockRV | LoopRV | str) -> LoopRV:
        return self._apply("add_unit_loop", {"block_or_loop": block_or_loop},
                           buffer_prims.add_unit_loop, block_or_loop)

    def annotate_buffer_access(self, block: BlockRV | str, buffer_index: int, buf_type: str,
                               gen_new_ranges: Any) -> None:
        """Declares the region the block reads (writes) of a buffer: `gen_new_ranges` maps
        the block's iter vars to one `(begin, end)` pair (or one point) per dim."""
        block = self._block_rv(block)
        node = self._ctx().block(block).block
        found = (analysis.read_buffers(node) if buf_type == "read"
                 else analysis.written_buffers(node))
        ndim = found[buffer_index].ndim if 0 <= buffer_index < len(found) else 0
        imap = buffer_prims.ranges_map(node, gen_new_ranges, ndim)
        self._apply("annotate_buffer_access", {"block": block, "buffer_index": buffer_index,
                                               "buf_type": buf_type, "gen_new_ranges": imap},
                    buffer_prims.annotate_buffer_access, block, buffer_index, buf_type, imap)

    def reindex(self, block: BlockRV | str, buffer: Any) -> BlockRV:
        """Stages `buffer` through a new one indexed by the block's iter vars (reindex.py)."""
        block = self._block_rv(block)
        kind, index = self._buffer_arg(block, buffer)
        return self._apply("reindex", {"block": block, "buffer": (kind, index)},
                           reindex.reindex, block, kind, index)

    def decompose_padding(self, block: BlockRV | str, loop: LoopRV) -> BlockRV:
        """Splits a padding block into a constant fill and an in-bounds copy (padding.py);
        returns the fill block."""
        return self._apply("decompose_padding", {"block": block, "loop": loop},
                           padding.decompose_padding, block, loop)

    def can_decompose_padding(self, block: BlockRV | str, loop: LoopRV) -> bool:
        """Whether decompose_padding(block, loop) would succeed (nothing is changed)."""
        block = self._block_rv(block)
        try:
            padding.decompose_padding(self._ctx(), block, loop)
        except ScheduleError:
            return False
        return True

    def reindex_cache_read(self, block: BlockRV | str, read_buffer_index: int,
                           storage_scope: str, index_map: Any) -> BlockRV:
        """cache_read into a buffer indexed by `index_map` of the block's iter vars."""
        return self._reindex_cache("read", block, read_buffer_index, storage_scope, index_map)

    def reindex_cache_write(self, block: BlockRV | str, write_buffer_index: int,
                            storage_scope: str, index_map: Any) -> BlockRV:
        """cache_write from a buffer indexed by `index_map` of the block's iter vars."""
        return self._reindex_cache("write", block, write_buffer_index, storage_scope,
                                   index_map)

    def _reindex_cache(self, kind: str, block: Any, index: int, scope: str,
                       index_map: Any) -> BlockRV:
        block = self._block_rv(block)
        ndim = len(self._ctx().block(block).block.iter_vars)
        imap = as_index_map(index_map, ndim)
        return self._apply(f"reindex_cache_{kind}", {
            "block": block, f"{kind}_buffer_index": int(index), "storage_scope": scope,
            "index_map": imap}, reindex_cache.reindex_cache, block, kind, int(index), scope, imap)

    def read_at(self, loop: LoopRV, block: BlockRV | str, read_buffer_index: int,
                storage_scope: str) -> BlockRV:
        """Stages what `block` reads of a buffer during one iteration of `loop` through a
        `storage_scope` cache, copied at the loop body's start (read_write_at.py)."""
        return self._apply("read_at", {"loop": loop, "block": block,
                                       "read_buffer_index": int(read_buffer_index),
                                       "storage_scope": storage_scope},
                           read_write_at.stage_at, loop, block, int(read_buffer_index),
                           storage_scope, True)

    def write_at(self, loop: LoopRV, block: BlockRV | str, write_buffer_index: int,
                 storage_scope: str) -> BlockRV:
        """Stages what `block` writes during one iteration of `loop` through a cache,
        copied back at the loop body's end."""
        return self._apply("write_at", {"loop": loop, "block": block,
                                        "write_buffer_index": int(write_buffer_index),
                                        "storage_scope": storage_scope},
                           read_write_at.stage_at, loop, block, int(write_buffer_index),
                           storage_scope, False)

    def cache_index(self, block: BlockRV | str, storage_scope: str, cse_thresh: int = 0
                    ) -> list[BlockRV]:
        """Precomputes the block's computed load indices into int buffers (reindex.py)."""
        return self._apply("cache_index", {"block": block, "storage_scope": storage_scope,
                                           "cse_thresh": cse_thresh},
                           reindex.cache_index, block, storage_scope)

    def pad_einsum(self, block: BlockRV | str, padding: list[int]) -> None:
        """Rounds an einsum block's iteration space up to multiples of `padding`, padding the
        intermediate buffers it touches with zeros (pad_einsum.py)."""
        self._apply("pad_einsum", {"block": block, "padding": [int(p) for p in padding]},
                    pad_einsum.pad_einsum, block, [int(p) for p in padding])

    # -- regrouping ----------------------------------------------------------------------------

    def reorder_block_iter_var(self, block: BlockRV | str, new_order: list[int]) -> None:
        """The block's iter vars (and their bindings) in the order `new_order` lists them."""
        self._apply("reorder_block_iter_var", {"block": block,
                                               "new_order": [int(k) for k in new_order]},
                    structure.reorder_block_iter_var, block, [int(k) for k in new_order])

    def merge(self, *loops: LoopRV) -> LoopRV:
        """Sibling loop nests of equal extents become one nest (its innermost merged loop)."""
        return self._apply("merge", {"*": list(loops)}, structure.merge, list(loops))

    def loop_partition(self, loop: LoopRV, factors: list[Any],
                       preserve_unit_iters: bool = True) -> list[LoopRV]:
        """The loop's range cut into consecutive loops of the given sizes (one may be None)."""
        return self._apply("loop_partition", {"loop": loop, "factors": list(factors),
                                              "preserve_unit_iters": preserve_unit_iters},
                           structure.loop_partition, loop, list(factors))

    def sample_compute_location(self, block: BlockRV | str, decision: int | None = None
                                ) -> LoopRV:
        """A place `block` may be computed at (sample_location.py: inline, root or a loop
        above its consumer), drawn uniformly unless `decision` (a location index) picks it."""
        block = self._block_rv(block)
        found = sample_location.candidates(self._ctx(), block)
        if decision is None:
            index, out = found[self.rng.randrange(len(found))]
        else:
            index = int(decision)
            picked = [rv for k, rv in found if k == index]
            if not picked:
                raise ScheduleError(f"sample_compute_location: decision {index} is out of range "
                                    f"of the locations of block {block.name!r} (candidates: "
                                    f"{[k for k, _ in found]})")
            out = picked[0]
        self.trace.record("sample_compute_location", {"block": block, "decision": index}, out)
        return out

    # -- tensorization -------------------------------------------------------------------------

    def tensorize(self, block_or_loop: BlockRV | LoopRV | str, tensor_intrin: str,
                  preserve_unit_iters: bool = True) -> None:
        """Replaces the block's computation (a loop is blockized first) by the registered
        intrinsic's implementation (see tensorize.py)."""
        self._apply("tensorize", {"block_or_loop": block_or_loop,
                                  "tensor_intrin": tensor_intrin,
                                  "preserve_unit_iters": preserve_unit_iters},
                    _tensorize, block_or_loop, tensor_intrin, preserve_unit_iters)

    # -- bookkeeping ---------------------------------------------------------------------------

    def enter_postproc(self) -> None:
        """Marks where postprocessing starts in the trace (changes nothing)."""
        self.trace.record("enter_postproc", {}, None)

    def fork_seed(self) -> int:
        """A new seed drawn from this schedule's random state."""
        return self.rng.fork_seed()

    def remove_rv(self, rand_var: BlockRV | LoopRV | ExprRV) -> None:
        """Forgets a handle: using it afterwards is an IndexError (TVM's trace does not
        record the removal)."""
        if not isinstance(rand_var, (BlockRV, LoopRV, ExprRV)):
            raise ScheduleError(f"remove_rv: expected a handle, got {type(rand_var).__name__}")
        self._removed = getattr(self, "_removed", set()) | {id(rand_var)}

    def get_sref(self, rand_var_or_stmt: Any) -> StmtSRef:
        """The sref of a handle's block or loop (of a block or loop statement)."""
        if isinstance(rand_var_or_stmt, (BlockRV, LoopRV, str)):
            return self._sref_of(self.get(self._block_rv(rand_var_or_stmt)))
        return self._sref_of(rand_var_or_stmt)

    def _sref_of(self, stmt: Any) -> StmtSRef:
        srefs = self.__dict__.setdefault("_srefs", {})
        if id(stmt) not in srefs:
            srefs[id(stmt)] = StmtSRef(stmt)  # the sref keeps the statement (and its id) alive
        return srefs[id(stmt)]

    @property
    def state(self) -> ScheduleState:
        return ScheduleState(self)
