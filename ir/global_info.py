"""Module-level global infos (TVM's `tvm.ir.GlobalInfo`): virtual devices and the dummy info
TVM's tests put in `I.module_global_infos`."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


class GlobalInfo:
    """Information attached to a whole IRModule under a name (`mod.global_infos`)."""

    __slots__ = ()


@dataclass(frozen=True)
class VDevice(GlobalInfo):
    """A virtual device: a target, an id among devices of that kind, and a memory scope."""

    target: Any = None
    vdevice_id: int = 0
    memory_scope: str = "global"

    def script_text(self) -> str:
        """How TVMScript writes it back (`I.vdevice("llvm", 0, "global")`)."""
        return f'I.vdevice("{self.target}", {self.vdevice_id}, "{self.memory_scope}")'


@dataclass(frozen=True)
class DummyGlobalInfo(GlobalInfo):
    """A global info carrying nothing (TVM uses it to test the global-info plumbing)."""

    def script_text(self) -> str:
        return "I.dummy_global_info()"
