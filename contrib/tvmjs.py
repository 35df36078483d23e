"""`tvm.contrib.tvmjs`: write and read weights in TVM's tensor cache format (what MLC LLM and
the web runtime load). The format lives in vm/tensor_cache.py; building the web (wasm)
runtime is not part of tvmlite."""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Iterable, Mapping
from typing import Any

import numpy as np

from ..vm.device import Device, cpu
from ..vm.ndarray import NDArray, array
from ..vm.tensor_cache import CACHE_FILE, bf16_to_f32, f32_to_bf16, read_tensor_cache

_convert_f32_to_bf16 = f32_to_bf16  # TVM's names
_convert_bf16_to_f32 = bf16_to_f32


def _md5(path: str) -> str:
    with open(path, "rb") as f:
        return hashlib.md5(f.read()).hexdigest()


class _Shards:
    """Packs tensors into shard files of at most `cap` bytes (a bigger tensor gets its own)."""

    def __init__(self, folder: str, cap: int, shards: list[dict[str, Any]]) -> None:
        self.folder, self.cap, self.shards = folder, cap, shards
        self.pending: list[dict[str, Any]] = []
        self.data = bytearray()
        self.where = {rec["name"]: (i, rec) for i, s in enumerate(shards) for rec in s["records"]}
        self.rewritten: set[int] = set()

    def add(self, name: str, rec: dict[str, Any], data: bytes, update: bool) -> None:
        if name in self.where:
            if not update:
                raise ValueError(f"dump_tensor_cache: the name {name!r} is given twice")
            self._overwrite(name, rec, data)
            return
        if len(self.data) + len(data) >= self.cap and self.data:
            self.flush()
        rec["byteOffset"] = len(self.data)
        self.pending.append(rec)
        self.data += data
        self.where[name] = (len(self.shards), rec)

    def _overwrite(self, name: str, rec: dict[str, Any], data: bytes) -> None:
        index, old = self.where[name]
        if old["nbytes"] != len(data):
            raise ValueError(f"dump_tensor_cache: cannot update {name!r}: it held "
                             f"{old['nbytes']} bytes, the new value has {len(data)}")
        path = os.path.join(self.folder, self.shards[index]["dataPath"])
        with open(path, "r+b") as f:
            f.seek(old["byteOffset"])
            f.write(data)
        old.update({k: v for k, v in rec.items() if k != "byteOffset"})
        self.rewritten.add(index)

    def flush(self) -> None:
        if not self.pending:
            return
        name = f"params_shard_{len(self.shards)}.bin"
        path = os.path.join(self.folder, name)
        with open(path, "wb") as f:
            f.write(self.data)
        self.shards.append({"dataPath": name, "format": "raw-shard", "nbytes": len(self.data),
                            "records": self.pending, "md5sum": _md5(path)})
        self.pending, self.data = [], bytearray()

    def finish(self) -> list[dict[str, Any]]:
        self.flush()
        for index in self.rewritten:
            path = os.path.join(self.folder, self.shards[index]["dataPath"])
            self.shards[index]["md5sum"] = _md5(path)
        return self.shards


def dump_tensor_cache(params: Mapping[str, Any] | Iterable[tuple[str, Any]], cache_dir: str,
                      encode_format: str = "f32-to-bf16", meta_data: Any = None,
                      shard_cap_mb: int = 32, show_progress: bool = True,
                      update_if_exists: bool = False) -> None:
    """Write `params` (name -> array) as a tensor cache in `cache_dir`: float32 tensors stored
    as bfloat16 with "f32-to-bf16"; `update_if_exists` rewrites the named tensors in place."""
    if encode_format not in ("raw", "f32-to-bf16"):
        raise ValueError(f"encode_format must be 'raw' or 'f32-to-bf16', got {encode_format!r}")
    os.makedirs(cache_dir, exist_ok=True)
    index = os.path.join(cache_dir, CACHE_FILE)
    shards: list[dict[str, Any]] = []
    if update_if_exists and os.path.exists(index):
        with open(index) as f:
            old = json.load(f)
        shards = old["records"]
        meta_data = old.get("metadata") if meta_data is None else meta_data
    packer = _Shards(cache_dir, shard_cap_mb << 20, shards)
    items = params.items() if isinstance(params, Mapping) else params
    for name, value in items:
        v = value.numpy() if isinstance(value, NDArray) else np.asarray(value)
        encode = encode_format if v.dtype == np.float32 else "raw"
        data = (f32_to_bf16(v) if encode == "f32-to-bf16" else np.ascontiguousarray(v)).tobytes()
        rec = {"name": name, "shape": list(v.shape), "dtype": str(v.dtype), "format": encode,
               "nbytes": len(data)}
        packer.add(name, rec, data, update_if_exists)
    records = packer.finish()
    meta = meta_data() if callable(meta_data) else (meta_data or {})
    with open(index, "w") as f:
        json.dump({"metadata": meta, "records": records}, f, indent=4)
    if show_progress:
        print(f"{len(records)} shard(s) written, index in {index}")


def load_tensor_cache(cachepath: str, device: Device | None = None
                      ) -> tuple[dict[str, NDArray], Any]:
    """The tensors of a tensor cache (a directory or its json file) on `device`, and its
    metadata."""
    tensors, meta = read_tensor_cache(cachepath)
    dev = device or cpu()
    return {k: array(v, dev) for k, v in tensors.items()}, meta


def export_runtime(runtime_dir: str) -> None:
    raise NotImplementedError("tvmjs.export_runtime copies TVM's WebAssembly runtime, which "
                              "tvmlite does not build (tvmlite runs on CPUs and CUDA GPUs)")
