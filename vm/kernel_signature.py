"""Kernel signatures (docs/internals.md section 2): what a compiled kernel's arguments must be."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class KernelParam:
    name: str
    kind: str  # "buffer" | "scalar"
    dtype: str
    shape: tuple[int | str, ...] = ()  # a str is a symbolic shape var


@dataclass(frozen=True, slots=True)
class KernelSignature:
    name: str
    params: tuple[KernelParam, ...]
    shape_vars: tuple[str, ...] = ()
    device_type: int = 1  # DLPack code of the memory the buffers must live in (2: CUDA)
