"""Weights in TVM's tensor cache format (MLC LLM's): `tensor-cache.json` lists shard files of
raw bytes and, per tensor, its name, shape, dtype, encoding and byte range. Reading it parses
JSON and copies bytes, nothing more (no pickle), and checks every range against its shard.
The VM builtins `vm.builtin.tensor_cache.*` and `param_array_from_cache` serve loaded tensors
by name, as TVM's runtime does for compiled LLMs."""

from __future__ import annotations

import json
import os
import threading
from typing import Any

import numpy as np

from .device import cpu, device
from .ndarray import NDArray, array
from .registry import register_func

CACHE_FILE = "tensor-cache.json"


def f32_to_bf16(value: np.ndarray) -> np.ndarray:
    """float32 -> bfloat16 bits (uint16), rounding to nearest even; values beyond bfloat16's
    largest finite value are truncated instead of rounding up to infinity."""
    bits = np.ascontiguousarray(value, dtype="float32").view("uint32")
    limit = np.array([np.finfo("float32").max], "float32").view("uint32")[0] >> 16 << 16
    finite = np.abs(value) < np.array([limit], "uint32").view("float32")[0]
    bias = np.where(finite, ((bits >> 16) & 1) + 0x7FFF, 0).astype("uint32")
    return ((bits + bias) >> 16).astype("uint16")


def bf16_to_f32(value: np.ndarray) -> np.ndarray:
    return (np.ascontiguousarray(value).view("uint16").astype("uint32") << 16).view("float32")


class TensorCacheError(ValueError):
    """A tensor cache whose index and shards do not agree."""


def read_tensor_cache(path: str) -> tuple[dict[str, np.ndarray], Any]:
    """The tensors (numpy, decoded) and the metadata of the cache at `path` (a directory or
    its json file)."""
    index = path if path.endswith(".json") else os.path.join(path, CACHE_FILE)
    folder = os.path.dirname(index)
    with open(index) as f:
        info = json.load(f)
    out: dict[str, np.ndarray] = {}
    for shard in info.get("records", []):
        if shard.get("format") != "raw-shard":
            raise TensorCacheError(f"{index}: shard format {shard.get('format')!r} is not "
                                   f"'raw-shard'")
        name = os.path.basename(str(shard["dataPath"]))  # NOTE: never outside the folder
        with open(os.path.join(folder, name), "rb") as f:
            raw = f.read()
        if int(shard["nbytes"]) != len(raw):
            raise TensorCacheError(f"{index}: shard {name} has {len(raw)} bytes, the index "
                                   f"says {shard['nbytes']}")
        for rec in shard["records"]:
            out[str(rec["name"])] = _decode(raw, rec, f"{index}: {rec['name']}")
    return out, info.get("metadata", {})


def _decode(raw: bytes, rec: dict[str, Any], where: str) -> np.ndarray:
    shape, dtype = tuple(int(d) for d in rec["shape"]), str(rec["dtype"])
    start, nbytes = int(rec["byteOffset"]), int(rec["nbytes"])
    if start < 0 or start + nbytes > len(raw):
        raise TensorCacheError(f"{where}: bytes {start}..{start + nbytes} lie outside its shard "
                               f"of {len(raw)} bytes")
    stored = "uint16" if rec["format"] == "f32-to-bf16" or dtype == "bfloat16" else dtype
    count = int(np.prod(shape, dtype="int64"))
    if count * np.dtype(stored).itemsize != nbytes:
        raise TensorCacheError(f"{where}: {nbytes} bytes do not hold a {dtype} tensor of shape "
                               f"{shape}")
    data = np.frombuffer(raw, stored, count, start).reshape(shape)
    if rec["format"] == "f32-to-bf16" and dtype == "float32":
        return bf16_to_f32(data)
    return data.copy()


# -- the VM's tensor cache ----------------------------------------------------------------------

_cache: dict[str, NDArray] = {}
_lock = threading.Lock()


@register_func("vm.builtin.tensor_cache.load", override=True)
def load(path: str, device_type: int = 1, device_id: int = 0) -> None:
    tensors, _ = read_tensor_cache(str(path))
    dev = device(int(device_type), int(device_id)) if int(device_type) != 1 else cpu()
    with _lock:
        _cache.update({k: array(v, dev) for k, v in tensors.items()})


@register_func("vm.builtin.tensor_cache.get", override=True)
def get(name: str, fail_if_missing: bool = True) -> NDArray | None:
    value = _cache.get(str(name))
    if value is None and fail_if_missing:
        raise ValueError(f"tensor cache: no tensor named {name!r}")
    return value


@register_func("vm.builtin.tensor_cache.update", override=True)
def update(name: str, value: Any, override: bool = False) -> None:
    with _lock:
        if str(name) in _cache and not override:
            raise ValueError(f"tensor cache: {name!r} is already cached (pass override=True)")
        _cache[str(name)] = value if isinstance(value, NDArray) else array(value)


@register_func("vm.builtin.tensor_cache.remove", override=True)
def remove(name: str) -> None:
    with _lock:
        _cache.pop(str(name), None)


@register_func("vm.builtin.tensor_cache.clear", override=True)
def clear() -> None:
    with _lock:
        _cache.clear()


@register_func("vm.builtin.param_array_from_cache", override=True)
def param_array_from_cache(prefix: str, count: int = -1) -> list[NDArray]:
    """`prefix_0`, `prefix_1`, ...: `count` of them, or (-1) as many as are cached."""
    out: list[NDArray] = []
    while int(count) < 0 or len(out) < int(count):
        value = _cache.get(f"{prefix}_{len(out)}")
        if value is None:
            if int(count) >= 0:
                raise ValueError(f"tensor cache: no tensor named '{prefix}_{len(out)}'")
            break
        out.append(value)
    return out


@register_func("vm.builtin.param_array_from_cache_by_name", override=True)
def param_array_from_cache_by_name(names: Any) -> list[NDArray]:
    return [get(n) for n in names]
