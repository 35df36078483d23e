"""How one kernel module becomes object code: the target machine, the -O3 pipeline, the object
emission. Shared by the in-process LLVM thread (vm/kernels.py) and the helper processes of
vm/llvm_helpers.py, so a kernel's machine code is the same whoever compiled it.

Imports nothing of tvmlite: run as a script (`python -I llvm_pipeline.py`) it is a helper
process. It reads requests from stdin (`<I name length> name <Q IR length> IR`, UTF-8) and
answers each on stdout with `<B status> <Q length> payload`: status 0 and the object code, or
status 1 and the error text. It exits at the end of its input (its parent closed the pipe or
died).
"""

from __future__ import annotations

import struct
import sys
from typing import Any

import llvmlite.binding as llvm

_PASS_TM: Any = None


def new_target_machine() -> Any:
    """A target machine for the host CPU (its name and features, so vector units are used)."""
    llvm.initialize_native_target()
    llvm.initialize_native_asmprinter()
    target = llvm.Target.from_triple(llvm.get_process_triple())
    return target.create_target_machine(
        cpu=llvm.get_host_cpu_name(), features=llvm.get_host_cpu_features().flatten(),
        opt=3, codemodel="jitdefault")


def pass_target_machine() -> Any:
    """The target machine passes and data layouts use (one per process, never given away)."""
    global _PASS_TM
    if _PASS_TM is None:
        _PASS_TM = new_target_machine()
    return _PASS_TM


def parse(llvm_ir: str) -> Any:
    """The verified module of `llvm_ir`, for the host's triple and data layout (RuntimeError
    when the text is not valid IR)."""
    module = llvm.parse_assembly(llvm_ir)
    module.verify()
    tm = pass_target_machine()
    module.triple = tm.triple
    module.data_layout = str(tm.target_data)
    return module


def optimize(module: Any, speed_level: int = 3) -> None:
    """The -O3 pipeline with the loop and SLP vectorizers (or a lighter one: `speed_level`)."""
    pto = llvm.create_pipeline_tuning_options(speed_level=speed_level)
    pto.loop_vectorization = speed_level >= 2
    pto.slp_vectorization = speed_level >= 2
    pb = llvm.create_pass_builder(pass_target_machine(), pto)
    pb.getModulePassManager().run(module, pb)


def internalize_helpers(module: Any, kernel: str) -> None:
    """Gives every definition but the kernel internal linkage: each kernel is its own object
    file in one engine, where two helpers (or constants) of the same name would clash."""
    for value in [*module.functions, *module.global_variables]:
        if (not value.is_declaration and value.name != kernel
                and value.linkage == llvm.Linkage.external):
            value.linkage = llvm.Linkage.internal


def kernel_object(llvm_ir: str, kernel: str, object_tm: Any) -> bytes:
    """Object code of the module `llvm_ir` holding kernel `kernel` (RuntimeError if invalid)."""
    module = parse(llvm_ir)
    internalize_helpers(module, kernel)
    optimize(module)
    return bytes(object_tm.emit_object(module))


def _read(stream: Any, n: int) -> bytes | None:
    data = stream.read(n)
    return data if len(data) == n else None


def _request(stdin: Any) -> tuple[str, str] | None:
    """(kernel name, IR text) of the next request; None at the end of the input."""
    fields = []
    for fmt in ("<I", "<Q"):
        head = _read(stdin, struct.calcsize(fmt))
        body = head and _read(stdin, struct.unpack(fmt, head)[0])
        if body is None or head is None:
            return None
        fields.append(body.decode())
    return fields[0], fields[1]


def serve(stdin: Any, stdout: Any) -> None:
    """Answers compile requests until the input ends (see the module docstring)."""
    object_tm = new_target_machine()
    while (request := _request(stdin)) is not None:
        name, text = request
        try:
            status, payload = 0, kernel_object(text, name, object_tm)
        except Exception as err:  # noqa: BLE001 - reported to the parent, which recompiles
            status, payload = 1, str(err).encode()
        stdout.write(struct.pack("<BQ", status, len(payload)) + payload)
        stdout.flush()


if __name__ == "__main__":
    serve(sys.stdin.buffer, sys.stdout.buffer)
