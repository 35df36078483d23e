"""The `ccompiler` backend's runtime: elementwise step programs as C, built by `cc`.

The saved form of a ccompiler function is its step program (program.py) with C-able ops only,
not C source: `load(payload, arrays)` (the loader of kind "ccompiler") checks it and writes the
C again (`c_source`), so a file can only ever produce the loops this module writes -- no
`#include`, no constructors, nothing the file chose. Libraries are cached by source hash for
the life of the process, so loading one model twice compiles once.
"""

from __future__ import annotations

import ctypes
import hashlib
import os
import shutil
import subprocess
import tempfile
from typing import Any

import numpy as np

from ..vm.external import ExternalFunction
from .program import check

C_OPS = {"relax.add": "{0} + {1}", "relax.subtract": "{0} - {1}", "relax.multiply": "{0} * {1}",
         "relax.nn.relu": "({0} > 0.0f ? {0} : 0.0f)"}
C_ARITY = {name: 1 if name == "relax.nn.relu" else 2 for name in C_OPS}
_LIBRARIES: dict[str, ctypes.CDLL] = {}


class CCompilerError(RuntimeError):
    pass


def c_source(name: str, program: dict[str, Any]) -> str:
    """C for one checked program: a loop over elements evaluating its steps in order.

    Nested programs (what MergeCompositeFunctions groups) are inlined.
    """
    # C names are positional (in0, v0, ...): relax names could clash with `out`, `n` or `i`.
    body: list[str] = []
    result = _inline(program, [f"in{k}[i]" for k in range(program["inputs"])], body)
    args = ", ".join([f"const float* in{k}" for k in range(program["inputs"])]
                     + ["float* out", "long n"])
    return (f"void {name}({args}) {{\n  for (long i = 0; i < n; ++i) {{\n"
            + "\n".join(body) + f"\n    out[i] = {result};\n  }}\n}}\n")


def _inline(program: dict[str, Any], inputs: list[str], body: list[str]) -> str:
    values: list[str] = []

    def operand(ref: list[Any]) -> str:
        kind, at = ref
        if kind == "const":
            raise CCompilerError("ccompiler takes no constant operands")
        return inputs[at] if kind == "input" else values[at]

    for step in program["steps"]:
        operands = [operand(r) for r in step["args"]]
        if "call" in step:
            expr = _inline(step["call"], operands, body)
        else:
            expr = C_OPS[step["op"]].format(*operands)
        temp = f"v{len(body)}"
        body.append(f"    float {temp} = {expr};")
        values.append(temp)
    return operand(program["result"])


def compile_library(source: str) -> ctypes.CDLL:
    """The shared library of `source` (compiled once per process)."""
    key = hashlib.sha256(source.encode()).hexdigest()[:16]
    if key in _LIBRARIES:
        return _LIBRARIES[key]
    cc = shutil.which(os.environ.get("CC", "cc")) or shutil.which("gcc")
    if cc is None:
        raise CCompilerError("the ccompiler backend needs a C compiler (cc or gcc) on PATH")
    workdir = tempfile.mkdtemp(prefix="tvmlite_cc_")
    c_path, so_path = os.path.join(workdir, f"{key}.c"), os.path.join(workdir, f"{key}.so")
    with open(c_path, "w") as f:
        f.write(source)
    done = subprocess.run([cc, "-O2", "-shared", "-fPIC", c_path, "-o", so_path],
                          capture_output=True, text=True)
    if done.returncode != 0:
        raise CCompilerError(f"cc failed on the generated source:\n{done.stderr}\n{source}")
    lib = _LIBRARIES[key] = ctypes.CDLL(so_path)
    return lib


def caller(payload: dict[str, Any], cfunc: Any) -> ExternalFunction:
    """The exportable DPS callable of one compiled function."""
    n_inputs = payload["inputs"]

    def dps(*args: Any) -> None:
        arrays = [np.from_dlpack(a) for a in args]
        out = arrays[n_inputs] if len(arrays) == n_inputs + 1 else None
        if out is None or any(a.size != out.size or a.dtype != np.float32
                              or not a.flags.c_contiguous for a in arrays):
            raise ValueError(f"ccompiler kernel: takes {n_inputs} inputs and an output, every "
                             "one float32, contiguous, of one size")  # C memory must fit
        ptrs = [ctypes.c_void_p(a.ctypes.data) for a in arrays]
        cfunc(*ptrs, ctypes.c_long(out.size))

    dps._library = cfunc  # type: ignore[attr-defined]  # keeps the shared library loaded
    return ExternalFunction("ccompiler", payload, dps)


def load(payload: Any, arrays: dict[str, np.ndarray]) -> ExternalFunction:
    """Rebuild a ccompiler function: check its program, write its C, compile (cached)."""
    check(payload, arrays, C_ARITY)
    if arrays:
        raise ValueError("a ccompiler function has no constants")
    source = c_source("tvmlite_cc_function", payload)
    return caller(payload, compile_library(source).tvmlite_cc_function)

