"""`tvm_ffi.access_path.AccessPath`: a path from an IR node to one of its parts
(`AccessPath.root().attr("params").array_item(0)`), as TVM's printer and structural-equality
errors name them. tvmlite's printer accepts such paths (to underline) and ignores them."""

from __future__ import annotations

from typing import Any


class AccessPath:
    def __init__(self, steps: tuple[tuple[str, Any], ...] = ()) -> None:
        self.steps = steps

    @staticmethod
    def root() -> AccessPath:
        return AccessPath()

    def attr(self, name: str) -> AccessPath:
        return AccessPath(self.steps + (("attr", name),))

    def array_item(self, index: int) -> AccessPath:
        return AccessPath(self.steps + (("array_item", index),))

    def map_item(self, key: Any) -> AccessPath:
        return AccessPath(self.steps + (("map_item", key),))

    def __eq__(self, other: object) -> bool:
        return isinstance(other, AccessPath) and other.steps == self.steps

    def __hash__(self) -> int:
        return hash(self.steps)

    def __repr__(self) -> str:
        parts = "".join(f".{v}" if k == "attr" else f"[{v!r}]" for k, v in self.steps)
        return f"<root>{parts}"
