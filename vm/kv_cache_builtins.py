"""The KV-cache builtins `nn.KVCache` calls (TVM's names): `attention_kv_cache_create`
makes a cache of reserved rows, `append` adds rows in place (growing the buffer by doubling
when full), `view` reads the first rows as a tensor."""

from __future__ import annotations

from typing import Any

import numpy as np

from .ndarray import NDArray, array
from .registry import register_func


class AttentionKVCache:
    """Rows of `unit_shape` in a numpy buffer; `fill_count` of them are in use."""

    def __init__(self, data: np.ndarray, fill_count: int) -> None:
        self.data, self.fill_count = data, fill_count

    def __repr__(self) -> str:
        return f"AttentionKVCache({self.fill_count} rows of {self.data.shape[1:]})"


def create(init_data: Any, reserve_shape: Any, init_fill_count: Any) -> AttentionKVCache:
    reserve = tuple(int(d) for d in reserve_shape)
    data = np.zeros(reserve, dtype=init_data.numpy().dtype)
    count = int(getattr(init_fill_count, "value", init_fill_count))
    if count:
        data[:count] = init_data.numpy()[:count]
    return AttentionKVCache(data, count)


def append(cache: AttentionKVCache, value: NDArray) -> AttentionKVCache:
    rows = value.numpy()
    if rows.ndim == cache.data.ndim - 1:  # one row of unit_shape
        rows = rows[None]
    if rows.shape[1:] != cache.data.shape[1:]:
        raise ValueError(f"attention_kv_cache_append: rows of shape {rows.shape[1:]} do not fit "
                         f"a cache of rows {cache.data.shape[1:]}")
    need = cache.fill_count + rows.shape[0]
    if need > cache.data.shape[0]:
        grown = np.zeros((max(need, 2 * cache.data.shape[0]), *cache.data.shape[1:]),
                         cache.data.dtype)
        grown[:cache.fill_count] = cache.data[:cache.fill_count]
        cache.data = grown
    cache.data[cache.fill_count:need] = rows
    cache.fill_count = need
    return cache


def view(cache: AttentionKVCache, shape: Any) -> NDArray:
    dims = tuple(int(d) for d in shape)
    if dims[0] > cache.fill_count or dims[1:] != cache.data.shape[1:]:
        raise ValueError(f"attention_kv_cache_view: {dims} asks for more than the cache holds "
                         f"({cache.fill_count} rows of {cache.data.shape[1:]})")
    return array(np.ascontiguousarray(cache.data[:dims[0]]))


register_func("vm.builtin.attention_kv_cache_create", create, override=True)
register_func("vm.builtin.attention_kv_cache_append", append, override=True)
register_func("vm.builtin.attention_kv_cache_view", view, override=True)
