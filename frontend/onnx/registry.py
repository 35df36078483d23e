"""The converter table: ONNX op type -> function(node, inputs, attrs, importer) -> relax expr."""

from __future__ import annotations

from typing import Any, Callable

Converter = Callable[[Any, list, dict, Any], Any]
CONVERTERS: dict[str, Converter] = {}


def converts(*op_types: str) -> Callable[[Converter], Converter]:
    def register(fn: Converter) -> Converter:
        for name in op_types:
            CONVERTERS[name] = fn
        return fn
    return register
