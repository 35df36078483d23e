"""`tvm.contrib.thrust`: whether NVIDIA's thrust library can run a sort or scan. tvmlite links
no thrust, so never; sorting and scans are compiled from TIR instead."""

from __future__ import annotations

from typing import Any


def can_use_thrust(target: Any, func_name: str) -> bool:
    return False


def maybe_warn(target: Any, func_name: str) -> None:
    """TVM warns when thrust would apply but is not built in; here it never applies."""
