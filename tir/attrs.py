"""`Attrs`: the attribute pairs of a node, readable the ways TVM users read them.

IR nodes store attributes as a tuple of `(key, value)` pairs (hashable, ordered, immutable).
`Attrs` is that tuple, also answering `attrs["Composite"]`, `"Composite" in attrs`,
`attrs.get(k)`, `attrs.keys()` and `call.attrs.padding`, as TVM's attribute maps do.
"""

from __future__ import annotations

from typing import Any, Iterator


class Attrs(tuple):
    __slots__ = ()

    def __new__(cls, pairs: Any = ()) -> Attrs:
        if isinstance(pairs, dict):
            pairs = pairs.items()
        return super().__new__(cls, (tuple(p) for p in pairs))

    def __getitem__(self, key: Any) -> Any:  # type: ignore[override]
        if isinstance(key, str):
            for k, v in tuple.__iter__(self):
                if k == key:
                    return v
            raise KeyError(key)
        return tuple.__getitem__(self, key)

    def __contains__(self, key: Any) -> bool:  # type: ignore[override]
        if isinstance(key, str):
            return any(k == key for k, _ in tuple.__iter__(self))
        return tuple.__contains__(self, key)

    def __getattr__(self, key: str) -> Any:
        try:
            return self[key]
        except KeyError:
            raise AttributeError(f"no attribute {key!r}; have {list(self.keys())}") from None

    def get(self, key: str, default: Any = None) -> Any:
        return self[key] if key in self else default

    def keys(self) -> Iterator[str]:
        return (k for k, _ in tuple.__iter__(self))

    def values(self) -> Iterator[Any]:
        return (v for _, v in tuple.__iter__(self))

    def items(self) -> Iterator[tuple[str, Any]]:
        return tuple.__iter__(self)
