"""`nn.KVCache`: a growing cache of tensors (attention keys or values), an Effect.

Its state is an opaque runtime object threaded through every exported method: made once by
`_initialize_effect` (`vm.builtin.attention_kv_cache_create`), grown in place by `append`,
read by `view(seq_len)` as a tensor of the first seq_len rows. The runtime side is
vm/kv_cache_builtins.py.
"""

from __future__ import annotations

from typing import Any, Sequence

from ...ir import expr as rx
from ...ir import struct_info as si
from ...ir.ops.base import shape_expr
from ...ir.ops.runtime_ops import call_inplace_packed
from ...tir import expr as tx
from .core import Effect, Tensor, get_default_dtype
from .exporter import current


class KVCache(Effect):
    def __init__(self, init_seq_len: int, unit_shape: Sequence[int], dtype: str | None = None
                 ) -> None:
        self.init_seq_len = init_seq_len
        self.unit_shape = [int(d) for d in unit_shape]
        self.dtype = dtype or get_default_dtype()
        self.cache: rx.Var | None = None

    def emit_init(self, name_hint: str, builder: Any) -> list[rx.Var]:
        from ...ir.op import op_attr
        from ...script.relax import call_pure_packed, prim_value

        init_shape = shape_expr([self.init_seq_len, *self.unit_shape])
        zeros = builder.emit(op_attr("relax.zeros", "make")(init_shape, self.dtype))
        create = call_pure_packed("vm.builtin.attention_kv_cache_create", zeros, init_shape,
                                  prim_value(tx.const(0, "int64")),
                                  sinfo_args=si.ObjectStructInfo())
        return [builder.emit(create, name_hint=name_hint)]

    def create(self, name_hint: str) -> list[rx.Var]:
        self.cache = rx.Var(name_hint, si.ObjectStructInfo())
        return [self.cache]

    def set_state(self, state_vars: list[rx.Var]) -> None:
        self.cache = state_vars[0]

    def finalize(self) -> list[rx.Var]:
        state, self.cache = self.cache, None
        return [state]

    def to(self, dtype: str | None = None) -> None:
        if dtype is not None:
            self.dtype = dtype

    def _state(self, what: str) -> rx.Var:
        if self.cache is None:
            raise RuntimeError(f"KVCache.{what}: the cache is used only inside an exported "
                               "method of the module that owns it")
        return self.cache

    def append(self, new_element: Tensor) -> None:
        """Append `new_element` (one row of unit_shape, or rows of it) to the cache."""
        call = call_inplace_packed("vm.builtin.attention_kv_cache_append", self._state("append"),
                                   new_element._expr, inplace_indices=[0],
                                   sinfo_args=[si.ObjectStructInfo()])
        self.cache = current().emit(call, "lv")

    def view(self, seq_len: Any) -> Tensor:
        """The first `seq_len` rows: a (seq_len, *unit_shape) tensor."""
        from ...script.relax import call_pure_packed

        shape = shape_expr([seq_len, *self.unit_shape])
        out = si.TensorStructInfo(shape.values, self.dtype)
        call = call_pure_packed("vm.builtin.attention_kv_cache_view", self._state("view"),
                                shape, sinfo_args=out)
        return Tensor(_expr=current().emit(call, "lv"))
