"""The KV-cache builtins `nn.KVCache` calls (TVM's names): `attention_kv_cache_create`
makes a cache of reserved rows, `append` adds rows in place (growing the buffer by doubling
when full), `view` reads the first rows as a tensor; `window_override` writes rows into a
sliding window of the last `max_cache_size` rows (a ring), `window_override_with_sinks` keeps
the first `num_sinks` rows and rings over the rest."""

from __future__ import annotations

from typing import Any

import numpy as np

from .ndarray import NDArray, array
from .registry import register_func


class AttentionKVCache:
    """Rows of `unit_shape` in a numpy buffer; `fill_count` of them are in use."""

    def __init__(self, data: np.ndarray, fill_count: int) -> None:
        self.data, self.fill_count = data, fill_count
        self.window_pos = fill_count  # where the sliding window writes next

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


def _rows(cache: AttentionKVCache, value: NDArray, max_rows: int, what: str) -> np.ndarray:
    rows = value.numpy()
    if rows.ndim == cache.data.ndim - 1:
        rows = rows[None]
    if rows.shape[1:] != cache.data.shape[1:]:
        raise ValueError(f"{what}: rows of shape {rows.shape[1:]} do not fit a cache of rows "
                         f"{cache.data.shape[1:]}")
    if cache.data.shape[0] < max_rows:
        grown = np.zeros((max_rows, *cache.data.shape[1:]), cache.data.dtype)
        grown[:cache.data.shape[0]] = cache.data
        cache.data = grown
    return rows


def window_override(cache: AttentionKVCache, value: NDArray, max_cache_size: Any
                    ) -> AttentionKVCache:
    return window_override_with_sinks(cache, value, max_cache_size, 0)


def window_override_with_sinks(cache: AttentionKVCache, value: NDArray, max_cache_size: Any,
                               num_sinks: Any) -> AttentionKVCache:
    size, sinks = int(max_cache_size), int(num_sinks)
    if not 0 <= sinks < size:
        raise ValueError(f"attention_kv_cache_window_override: {sinks} attention sinks do not "
                         f"leave room in a window of {size} rows")
    rows = _rows(cache, value, size, "attention_kv_cache_window_override")
    pos = cache.window_pos
    for row in rows:
        cache.data[pos] = row
        pos += 1
        if pos >= size:  # NOTE: the ring starts after the sinks, which stay as written
            pos = sinks
    cache.window_pos = pos
    cache.fill_count = min(cache.fill_count + rows.shape[0], size)
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
register_func("vm.builtin.attention_kv_cache_window_override", window_override, override=True)
register_func("vm.builtin.attention_kv_cache_window_override_with_sinks",
              window_override_with_sinks, override=True)
