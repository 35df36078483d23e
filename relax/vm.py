"""`tvm.relax.vm`: the MLC course's `relax.vm.build` and `relax.vm.VirtualMachine`."""

from ..vm.vm import VirtualMachine
from .vm_build import build

__all__ = ["VirtualMachine", "build"]
