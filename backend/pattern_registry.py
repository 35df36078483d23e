"""A backend ships its patterns by name: `register_patterns`, `get_patterns_with_prefix`."""

from __future__ import annotations

from typing import Any

from ..transforms.fuse_by_pattern import FusionPattern, _as_fusion_pattern

_PATTERNS: list[FusionPattern] = []


def register_patterns(patterns: list[Any]) -> None:
    """Add patterns; later registrations take priority over earlier ones, as in TVM."""
    for p in reversed([_as_fusion_pattern(p) for p in patterns]):
        _PATTERNS[:] = [q for q in _PATTERNS if q.name != p.name]
        _PATTERNS.insert(0, p)


def get_patterns_with_prefix(prefix: str) -> list[FusionPattern]:
    return [p for p in _PATTERNS if p.name.startswith(prefix)]


def get_pattern(name: str) -> FusionPattern | None:
    return next((p for p in _PATTERNS if p.name == name), None)
