"""Executable: bytecode functions, a function table, constants and a kernel library.

`export_library(path)` writes ONE zip file: the assembly text (`as_text()`), the kernels' LLVM
IR, their signatures as JSON, each tensor constant as a `.npy` (allow_pickle=False), and the
functions BYOC codegens compiled (`external.py`: a JSON payload per function plus its .npy
constants). `load_executable(path)` reads it back with the lark grammar of `asm.py` and the
loaders of our backends: nothing is unpickled or eval'd, and a malformed or tampered file gives
an `ExecutableFormatError`.
"""

from __future__ import annotations

import io
import json
import struct
import zipfile
import zlib
from dataclasses import dataclass
from typing import Any

import numpy as np

from .bytecode import ArgKind, Call, Goto, If, Instruction, Ret
from .kernel_signature import KernelParam, KernelSignature
from .kernels import KernelLibrary
from .ndarray import NDArray

FORMAT = "tvmlite-executable/1"
KINDS = ("vm", "packed", "kernel")


class ExecutableFormatError(ValueError):
    """An executable (in memory or in a file) is malformed."""


@dataclass(frozen=True, slots=True)
class FuncEntry:
    kind: str  # "vm" | "packed" | "kernel"
    name: str


@dataclass(frozen=True, slots=True)
class VMFunction:
    """A bytecode function; params occupy registers 0..len(params)-1.

    `param_sinfo[i]` describes param i for checks and messages: `("tensor", shape, dtype)`
    (shape a tuple of int | str (symbolic) or None if the rank is unknown; dtype a str or None)
    or `("any",)`.
    """

    name: str
    params: tuple[str, ...]
    param_sinfo: tuple[tuple[Any, ...], ...]
    num_regs: int
    instructions: tuple[Instruction, ...]


class Executable:
    """What `relax.build` returns and `VirtualMachine` runs."""

    def __init__(self, func_table: list[FuncEntry], functions: dict[str, VMFunction],
                 constants: list[Any], kernels: KernelLibrary | None = None) -> None:
        self.func_table = list(func_table)
        self.functions = dict(functions)
        self.constants = [NDArray(c) if isinstance(c, np.ndarray) else c for c in constants]
        self.kernels = kernels if kernels is not None else KernelLibrary("", {})
        # symbol -> ExternalFunction: a loaded file's BYOC functions, which the VM resolves
        # before the global registry (in the building process they are registered there)
        self.externals: dict[str, Any] = {}
        self.validate()

    def validate(self) -> None:
        """Check every reference in the bytecode, so the VM never indexes out of range."""
        names = [e.name for e in self.func_table]
        if len(set(names)) != len(names):
            raise ExecutableFormatError(f"function table has duplicate names: {names}")
        for i, e in enumerate(self.func_table):
            if e.kind not in KINDS:
                raise ExecutableFormatError(f"f{i}: unknown kind {e.kind!r}")
            if e.kind == "vm" and e.name not in self.functions:
                raise ExecutableFormatError(f"f{i}: no bytecode function {e.name!r}")
            if e.kind == "kernel" and e.name not in self.kernels.signatures:
                raise ExecutableFormatError(f"f{i}: no kernel {e.name!r} in the kernel library")
        for fn in self.functions.values():
            _validate_function(fn, len(self.func_table), len(self.constants))

    def as_text(self) -> str:
        from .asm import print_executable

        return print_executable(self)

    def stats(self) -> str:
        return self.as_text()

    def export_library(self, path: str, fcompile: Any = None, workspace_dir: Any = None,
                       **_: Any) -> None:
        """Write the executable to one file (a zip); load it with `load_executable(path)`.
        The file is the whole artifact, whatever its name (`mlp.so` too); `fcompile` and
        `workspace_dir` (TVM's native-linking options) have nothing to do here.

        Raises `UnexportableFunctionError` (and writes nothing) if the executable calls a
        function a BYOC codegen returned as a plain callable, which could not run after loading.
        """
        from .asm import print_executable
        from .external import serialize

        externals = serialize(self)  # first: a function that cannot be saved stops the export
        with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zf:
            zf.writestr("FORMAT", FORMAT)
            zf.writestr("executable.asm", print_executable(self))
            zf.writestr("kernels.ll", self.kernels.llvm_ir or "")
            zf.writestr("kernels.json", json.dumps(_signatures_to_json(self.kernels)))
            for i, c in enumerate(self.constants):
                if isinstance(c, NDArray):
                    buf = io.BytesIO()
                    np.save(buf, c._arr, allow_pickle=False)
                    zf.writestr(f"constants/c{i}.npy", buf.getvalue())
            for name, data in externals.items():
                zf.writestr(name, data)

    save = export_library

    def __getitem__(self, name: str) -> Any:
        """TVM's module functions by name: `ex["stats"]()`, `ex["as_text"]()`."""
        functions = {"stats": self.stats, "as_text": self.as_text}
        if name not in functions:
            raise AttributeError(f"the executable has no function {name!r}; it has "
                                 f"{sorted(functions)}")
        return functions[name]

    def __repr__(self) -> str:
        return f"Executable(functions={sorted(self.functions)}, kernels={self.kernels})"


def _validate_function(fn: VMFunction, n_funcs: int, n_consts: int) -> None:
    where = f"function {fn.name!r}"
    if len(fn.params) > fn.num_regs or len(fn.param_sinfo) != len(fn.params):
        raise ExecutableFormatError(f"{where}: {len(fn.params)} params, "
                                    f"{len(fn.param_sinfo)} descriptions, {fn.num_regs} registers")
    n = len(fn.instructions)
    limits = {ArgKind.REGISTER: fn.num_regs, ArgKind.CONST: n_consts, ArgKind.FUNC: n_funcs}
    for pc, ins in enumerate(fn.instructions):
        at = f"{where}, instruction {pc}"
        if isinstance(ins, Call):
            regs = [] if ins.dst is None else [ins.dst]
            if not 0 <= ins.func < n_funcs:
                raise ExecutableFormatError(f"{at}: function index f{ins.func} out of range")
            for a in ins.args:
                if a.kind in limits and not 0 <= a.value < limits[a.kind]:
                    raise ExecutableFormatError(f"{at}: argument {a} out of range")
        elif isinstance(ins, Ret):
            regs = [ins.result]
        elif isinstance(ins, (Goto, If)):
            off = ins.offset if isinstance(ins, Goto) else ins.false_offset
            if not 0 <= pc + off < n or off == 0 and isinstance(ins, Goto):
                raise ExecutableFormatError(f"{at}: jump by {off} leaves the function")
            regs = [ins.cond] if isinstance(ins, If) else []
        else:
            raise ExecutableFormatError(f"{at}: unknown instruction {ins!r}")
        if any(not 0 <= r < fn.num_regs for r in regs):
            raise ExecutableFormatError(f"{at}: register out of range (num_regs={fn.num_regs})")
    if n == 0 or not isinstance(fn.instructions[-1], (Ret, Goto)):
        raise ExecutableFormatError(f"{where}: must end with ret or goto")


def _signatures_to_json(lib: KernelLibrary) -> dict[str, Any]:
    return {name: {"params": [[p.name, p.kind, p.dtype, list(p.shape)] for p in sig.params],
                   "shape_vars": list(sig.shape_vars)}
            for name, sig in lib.signatures.items()}


def _signatures_from_json(text: str) -> dict[str, KernelSignature]:
    try:
        data = json.loads(text)
        sigs = {}
        for name, d in data.items():
            params = []
            for pname, kind, dtype, shape in d["params"]:
                if kind not in ("buffer", "scalar") or not all(
                        isinstance(s, (int, str)) and not isinstance(s, bool) for s in shape):
                    raise ValueError(f"bad parameter {pname!r}")
                params.append(KernelParam(str(pname), kind, str(dtype), tuple(shape)))
            sigs[str(name)] = KernelSignature(str(name), tuple(params),
                                              tuple(str(v) for v in d["shape_vars"]))
        return sigs
    except (ValueError, KeyError, TypeError, AttributeError) as err:
        raise ExecutableFormatError(f"kernels.json is malformed: {err}") from None


def load_executable(path: str) -> Executable:
    """Load a file written by `export_library`; needs only `vm/` (no parser, no compiler) and,
    for BYOC functions, the loaders of our backends (`backend/*_runtime.py`)."""
    from .asm import parse_executable
    from .external import build_externals, read_manifest
    from .file_checks import check_kernel_ir, check_members

    try:
        with zipfile.ZipFile(path) as zf:
            check_members(zf, path)
            if zf.read("FORMAT").decode() != FORMAT:
                raise ExecutableFormatError(f"{path}: not a {FORMAT} file")
            text = zf.read("executable.asm").decode()
            llvm_ir = zf.read("kernels.ll").decode()
            sigs = _signatures_from_json(zf.read("kernels.json").decode())
            arrays = {n: _load_npy(zf, n) for n in zf.namelist() if n.startswith("constants/")}
            manifest, external_arrays = read_manifest(zf)
    except (zipfile.BadZipFile, zipfile.LargeZipFile, KeyError, UnicodeDecodeError, OSError,
            zlib.error, EOFError, NotImplementedError, struct.error) as err:
        if isinstance(err, FileNotFoundError):
            raise
        raise ExecutableFormatError(f"{path}: not a readable tvmlite executable ({err})") from None
    check_kernel_ir(llvm_ir, sigs)  # NOTE: before LLVM compiles (and runs) anything of it
    ex = parse_executable(text, arrays, KernelLibrary(llvm_ir, sigs))
    ex.externals = build_externals(ex, manifest, external_arrays)
    return ex


def _load_npy(zf: zipfile.ZipFile, name: str) -> np.ndarray:
    try:
        return np.load(io.BytesIO(zf.read(name)), allow_pickle=False)
    except ValueError as err:
        raise ExecutableFormatError(f"{name}: not a plain .npy array ({err})") from None
