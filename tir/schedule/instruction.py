"""TVM's instruction model of a schedule trace: `InstructionKind` and `Instruction`.

An instruction is one primitive call: its kind (`InstructionKind.get("Split")`), its `inputs`
(random variables and the values TVM passes with them, like a split's factors), its `attrs`
(plain settings: `preserve_unit_iters`), its `outputs` (the handles it made). Each kind knows
the schedule method it calls and the order its arguments print in, so one table below drives
printing as Python, JSON and replay, and matches the split into inputs and attrs that TVM 0.27
shows (checked against `inst.inputs` / `inst.attrs` on apache-tvm).
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import Any

# One row per kind: "Name method flags: params". flags: `pure` (no effect on the module: the
# trace simplifier may drop it when its outputs go unused), `list` (the method returns a list,
# printed `b1, = ...` even for one), `decision` (a sampling instruction). params in print order:
# `i:` an input, `a:` an attr, `*` positional inputs (fuse), `+` an input list spread into
# the inputs after the fixed ones (split's factors), `?` printed only when not empty,
# `=v` the default used when a recording leaves it out.
_TABLE = """
GetSBlock get_sblock pure: a:name a:func_name=main
GetLoops get_loops pure list: i:block
GetChildBlocks get_child_blocks pure list: *i:block_or_loop
GetProducers get_producers pure list: i:block
GetConsumers get_consumers pure list: i:block
GetOutputBlocks get_output_blocks pure list: i:scope_block
Split split list: i:loop +i:factors a:preserve_unit_iters=True a:disable_predication=False
LoopPartition loop_partition list: i:loop +i:factors a:preserve_unit_iters=True
Fuse fuse: *i:loops a:preserve_unit_iters=True
Merge merge: *i:loops
Reorder reorder: *i:ordered_loops
ReorderBlockIterVar reorder_block_iter_var: i:block i:new_order
AddUnitLoop add_unit_loop: i:block_or_loop
Parallel parallel: i:loop
Vectorize vectorize: i:loop
Unroll unroll: i:loop
Bind bind: i:loop a:thread_axis
CacheRead cache_read: i:block a:read_buffer_index a:storage_scope ?i:consumer_blocks=[]
CacheWrite cache_write: i:block a:write_buffer_index a:storage_scope ?i:consumer_blocks=[]
ReindexCacheRead reindex_cache_read: i:block a:read_buffer_index a:storage_scope i:index_map
ReindexCacheWrite reindex_cache_write: i:block a:write_buffer_index a:storage_scope i:index_map
CacheInplace cache_inplace list: i:block a:read_buffer_index a:storage_scope
CacheIndex cache_index list: i:block a:storage_scope a:cse_thresh=0
ReIndex reindex: i:block a:buffer
ReadAt read_at: i:loop i:block a:read_buffer_index a:storage_scope
WriteAt write_at: i:loop i:block a:write_buffer_index a:storage_scope
ComputeAt compute_at: i:block i:loop a:preserve_unit_loops=False a:index=-1
ReverseComputeAt reverse_compute_at: i:block i:loop a:preserve_unit_loops=False a:index=-1
ComputeInline compute_inline: i:block
ReverseComputeInline reverse_compute_inline: i:block
FuseReductionEpilogue fuse_reduction_epilogue: i:reduction_block i:epilogue_block
DecomposeReduction decompose_reduction: i:block i:loop
DecomposePadding decompose_padding: i:block i:loop
PadEinsum pad_einsum: i:block a:padding
RFactor rfactor: i:loop a:factor_axis
StorageAlign storage_align: i:block a:buffer_index a:axis a:factor a:offset
SetScope set_scope: i:block a:buffer_index a:storage_scope
UnsafeSetDType unsafe_set_dtype: i:block a:buffer_index a:dtype
Blockize blockize: i:target a:preserve_unit_iters=True
Tensorize tensorize: i:block_or_loop a:tensor_intrin a:preserve_unit_iters=True
Annotate annotate: i:block_or_loop a:ann_key i:ann_val
Unannotate unannotate: i:block_or_loop a:ann_key
TransformLayout transform_layout: i:block a:buffer i:index_map i:pad_value=None \
a:assume_injective_transform=False
TransformBlockLayout transform_block_layout: i:block a:index_map
AnnotateBufferAccess annotate_buffer_access: i:block a:buffer_index a:buf_type \
a:gen_new_ranges
UnsafeHideBufferAccess unsafe_hide_buffer_access: i:block a:buf_type a:buf_index_array
RollingBuffer rolling_buffer: i:block a:write_buffer_index
SampleCategorical sample_categorical pure decision: a:candidates a:probs
SamplePerfectTile sample_perfect_tile pure list decision: i:loop a:n a:max_innermost_factor=16
SamplePartitionedTile sample_partitioned_tile pure list decision: i:loop a:n \
a:partition_pos=0 a:innerpart_factor=1
SampleComputeLocation sample_compute_location pure decision: i:block
EnterPostproc enter_postproc:
"""


@dataclass(frozen=True)
class Param:
    name: str
    is_input: bool
    positional: bool = False  # `*`: every remaining input, printed without a keyword
    spread: bool = False  # `+`: the remaining inputs, given to the method as one list
    optional: bool = False  # `?`: printed only when it holds something
    default: Any = None
    has_default: bool = False


def _param(token: str) -> Param:
    flags, _, rest = token.partition(":")
    name, eq, default = rest.partition("=")
    value = ast.literal_eval(default) if eq and default != "main" else default
    return Param(name, "i" in flags, "*" in flags, "+" in flags, "?" in flags, value, bool(eq))


class InstructionKind:
    """A kind of instruction: one per schedule primitive, shared (`InstructionKind.get`)."""

    _registry: dict[str, InstructionKind] = {}

    def __init__(self, name: str, method: str, flags: set[str], params: list[Param]) -> None:
        self.name, self.method, self.params = name, method, params
        self.is_pure = "pure" in flags
        self.returns_list = "list" in flags
        self.has_decision = "decision" in flags

    @staticmethod
    def get(name: str) -> InstructionKind:
        kind = InstructionKind._registry.get(name)
        if kind is None:
            raise ValueError(f"InstructionKind {name!r} is not registered; known kinds: "
                             f"{sorted(InstructionKind._registry)}")
        return kind

    @staticmethod
    def by_method(method: str) -> InstructionKind:
        for kind in InstructionKind._registry.values():
            if kind.method == method:
                return kind
        raise ValueError(f"no instruction kind records schedule method {method!r}")

    def same_as(self, other: Any) -> bool:
        return self is other

    def __repr__(self) -> str:
        return f"InstructionKind({self.name})"

    # -- between a method's keyword arguments and (inputs, attrs) -----------------------------

    def split_kwargs(self, kwargs: dict[str, Any]) -> tuple[list[Any], list[Any]]:
        """The inputs and attrs of a call given as the method's keyword arguments."""
        inputs: list[Any] = []
        attrs: list[Any] = []
        for p in self.params:
            if p.positional and "*" in kwargs:
                value = kwargs["*"]
            elif p.name in kwargs:
                value = kwargs[p.name]
            elif p.has_default:
                value = p.default
            else:
                raise ValueError(f"{self.name}: the call gives no {p.name!r}")
            if p.positional or p.spread:
                inputs.extend(value if isinstance(value, (list, tuple)) else [value])
            else:
                (inputs if p.is_input else attrs).append(value)
        return inputs, attrs

    def join_kwargs(self, inputs: list[Any], attrs: list[Any]
                    ) -> tuple[list[Any], dict[str, Any]]:
        """The method's (positional, keyword) arguments for these inputs and attrs."""
        ins, ats = list(inputs), list(attrs)
        fixed = sum(1 for p in self.params if p.is_input and not (p.positional or p.spread))
        variadic = max(len(ins) - fixed, 0)
        positional: list[Any] = []
        named: dict[str, Any] = {}
        for p in self.params:
            if p.positional:
                positional, ins = ins[:variadic], ins[variadic:]
            elif p.spread:
                named[p.name], ins = ins[:variadic], ins[variadic:]
            elif p.is_input:
                named[p.name] = ins.pop(0) if ins else p.default
            else:
                named[p.name] = ats.pop(0) if ats else p.default
        return positional, named


def _register_table() -> None:
    for line in _TABLE.replace("\\\n", "").strip().splitlines():
        head, _, body = line.partition(":")
        name, method, *flags = head.split()
        params = [_param(tok) for tok in body.split()]
        InstructionKind._registry[name] = InstructionKind(name, method, set(flags), params)


_register_table()


class Instruction:
    """One primitive call of a trace (TVM's `Instruction(kind, inputs, attrs, outputs)`)."""

    def __init__(self, kind: InstructionKind, inputs: list[Any], attrs: list[Any],
                 outputs: list[Any]) -> None:
        if not isinstance(kind, InstructionKind):
            raise TypeError(f"Instruction kind must be an InstructionKind, got "
                            f"{type(kind).__name__}")
        self.kind = kind
        self.inputs, self.attrs, self.outputs = list(inputs), list(attrs), list(outputs)

    @property
    def name(self) -> str:
        """The schedule method this instruction calls (`split`)."""
        return self.kind.method

    @property
    def kwargs(self) -> dict[str, Any]:
        """The call's arguments by parameter name (variadic ones under `*`)."""
        positional, named = self.kind.join_kwargs(self.inputs, self.attrs)
        return {"*": positional, **named} if positional else named

    def same_as(self, other: Any) -> bool:
        return self is other

    def __str__(self) -> str:
        from .trace import python_line  # the printer lives with the trace

        return python_line(self, names=None, decision=None)

    __repr__ = __str__
