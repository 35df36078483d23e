"""`tvm.runtime.vm`: the relax VirtualMachine by TVM's runtime path (vm/vm.py)."""

from ..vm.vm import VirtualMachine  # noqa: F401
