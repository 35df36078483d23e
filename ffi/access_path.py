"""`tvm_ffi.access_path.AccessPath`: a path from an IR node to one of its parts
(`AccessPath.root().attr("params").array_item(0)`), as TVM's printer and structural-equality
errors name them. The doc printer underlines the docs whose source paths match one
(`tvmlite.script.printer.doc_printer`); it prints as TVM writes it, `<root>.params[0]`."""

from __future__ import annotations

import json
from typing import Any

Step = tuple[str, Any]


def _key_text(key: Any) -> str:
    if isinstance(key, str):
        return json.dumps(key)
    if type(key).__name__ == "GlobalVar":  # NOTE: by name, so ffi stays below the IR layers
        return f'I.GlobalVar("{key.name_hint}")'
    return str(key)


class AccessPath:
    """An immutable sequence of steps: `("attr", name)`, `("array_item", index)`,
    `("map_item", key)` and their `_missing` forms (a part that only one side has)."""

    def __init__(self, steps: tuple[Step, ...] = ()) -> None:
        self.steps = steps

    @staticmethod
    def root() -> AccessPath:
        return AccessPath()

    def _extend(self, kind: str, value: Any) -> AccessPath:
        return AccessPath(self.steps + ((kind, value),))

    def attr(self, name: str) -> AccessPath:
        return self._extend("attr", name)

    def array_item(self, index: int) -> AccessPath:
        return self._extend("array_item", index)

    def map_item(self, key: Any) -> AccessPath:
        return self._extend("map_item", key)

    def attr_missing(self, name: str) -> AccessPath:
        return self._extend("attr_missing", name)

    def array_item_missing(self, index: int) -> AccessPath:
        return self._extend("array_item_missing", index)

    def map_item_missing(self, key: Any) -> AccessPath:
        return self._extend("map_item_missing", key)

    @property
    def depth(self) -> int:
        return len(self.steps)

    @property
    def parent(self) -> AccessPath | None:
        return AccessPath(self.steps[:-1]) if self.steps else None

    def is_prefix_of(self, other: AccessPath) -> bool:
        """True when `other` starts with every step of this path (a path is its own prefix)."""
        n = len(self.steps)
        return n <= len(other.steps) and all(
            _step_equal(a, b) for a, b in zip(self.steps, other.steps[:n]))

    def to_steps(self) -> list[Step]:
        return list(self.steps)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, AccessPath) and len(other.steps) == len(self.steps) and all(
            _step_equal(a, b) for a, b in zip(self.steps, other.steps))

    def __hash__(self) -> int:
        return hash(tuple(kind for kind, _ in self.steps))

    def __str__(self) -> str:
        parts = []
        for kind, value in self.steps:
            if kind.startswith("attr"):
                parts.append(f".{value}")
            else:
                parts.append(f"[{_key_text(value)}]")
            if kind.endswith("_missing"):
                parts.append("(missing)")
        return "<root>" + "".join(parts)

    __repr__ = __str__


def _step_equal(a: Step, b: Step) -> bool:
    """Names and indices compare by value, other map keys (GlobalVars, IR nodes whose `==`
    builds an expression) by identity, as TVM compares object keys."""
    if a[0] != b[0]:
        return False
    x, y = a[1], b[1]
    return x is y or (isinstance(x, (str, int)) and type(x) is type(y) and x == y)
