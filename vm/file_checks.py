"""Checks of an exported executable's members before anything in them is parsed or compiled.

Loading native code is trusting it, as loading TVM's `.so` is: these checks do not make a
hostile file safe. They make a *damaged* file (truncated, bit-flipped, members swapped or
edited) fail with an `ExecutableFormatError` instead of a parser's internal message or an abort:
the zip holds the members a file of ours holds, of sane sizes, and `kernels.ll` is IR our
codegen could have written -- it defines (externally) only the kernels kernels.json declares,
declares nothing beyond the runtime's own functions (malloc/free, the parallel pool, libm,
LLVM intrinsics), and has no constructors, destructors, inline assembly, aliases or ifuncs,
which would run code at load time or hide it from these checks.
"""

from __future__ import annotations

import re
import zipfile
from typing import Any

from .executable import ExecutableFormatError

REQUIRED = ("FORMAT", "executable.asm", "kernels.ll", "kernels.json")
# NOTE: generous: a VGG-sized program is ~30 MB of IR; constants may be large
MAX_BYTES = {"FORMAT": 64, "executable.asm": 256 << 20, "kernels.ll": 1 << 30,
             "kernels.json": 64 << 20}
MAX_TOTAL = 16 << 30
_OPTIONAL_PREFIXES = ("constants/", "externals/", "externals.json")

# libm functions the codegen calls (tir/codegen_llvm.py _LIBM; float32 adds an `f` suffix)
_LIBM = ("exp", "exp2", "exp10", "log", "log2", "log10", "log1p", "expm1", "sqrt", "sin", "cos",
         "tan", "asin", "acos", "atan", "atan2", "sinh", "cosh", "tanh", "asinh", "acosh",
         "atanh", "erf", "erfc", "pow", "fmod", "floor", "ceil", "trunc", "round", "nearbyint",
         "fabs", "copysign", "hypot", "cbrt", "lgamma", "tgamma", "fmin", "fmax", "ldexp",
         "nextafter", "logb", "rint", "isnan", "isinf", "isfinite")
LIBM_NAMES = frozenset(set(_LIBM) | {n + "f" for n in _LIBM})
RUNTIME_DECLARATIONS = frozenset({"malloc", "free", "tvmlite_parallel_launch",
                                  "tvmlite_bounds_fail"}
                                 | LIBM_NAMES | {"tvmlite_libm_" + n for n in LIBM_NAMES})
_FORBIDDEN_TEXT = [
    (re.compile(r"^\s*module\s+asm\b", re.M), "module-level inline assembly"),
    (re.compile(r"\basm\s+(sideeffect\s+|alignstack\s+|inteldialect\s+|unwind\s+)*\""),
     "inline assembly"),
    (re.compile(r"^\s*@\S+\s*=.*\b(ifunc|alias)\b", re.M), "an alias or ifunc"),
]


def check_members(zf: zipfile.ZipFile, path: str) -> None:
    """The members of an exported file: the required ones, nothing foreign, sane sizes."""
    infos = zf.infolist()
    names = [i.filename for i in infos]
    if len(set(names)) != len(names):
        raise ExecutableFormatError(f"{path}: a member name appears twice")
    for need in REQUIRED:
        if need not in names:
            raise ExecutableFormatError(f"{path}: member {need!r} is missing")
    total = 0
    for info in infos:
        name = info.filename
        if name not in REQUIRED and not name.startswith(_OPTIONAL_PREFIXES):
            raise ExecutableFormatError(f"{path}: unexpected member {name!r}")
        limit = MAX_BYTES.get(name, MAX_TOTAL)
        if info.file_size > limit:
            raise ExecutableFormatError(f"{path}: member {name!r} claims {info.file_size} "
                                        f"bytes, more than the {limit} a file of ours holds")
        total += info.file_size
    if total > MAX_TOTAL:
        raise ExecutableFormatError(f"{path}: members claim {total} bytes in all")


def check_kernel_ir(llvm_ir: str, kernels: dict[str, Any]) -> None:
    """`kernels.ll` may define and declare only what our codegen writes (see the docstring)."""
    for pattern, what in _FORBIDDEN_TEXT:
        m = pattern.search(llvm_ir)
        if m:
            raise ExecutableFormatError(f"kernels.ll, line {_line_of(llvm_ir, m.start())}: "
                                        f"{what} is not allowed")
    import llvmlite.binding as llvm

    from .kernels import target_machine  # NOTE: initializes LLVM's native target

    target_machine()
    try:
        module = llvm.parse_assembly(llvm_ir)
        module.verify()
    except RuntimeError as err:
        raise ExecutableFormatError(f"kernels.ll: invalid LLVM IR: {str(err).strip()}") from None
    for g in module.global_variables:
        if g.name.startswith("llvm."):  # global_ctors / global_dtors / used ...
            raise ExecutableFormatError(f"kernels.ll: global @{g.name} is not allowed "
                                        "(constructors and destructors would run at load)")
    for f in module.functions:
        _check_function(f, kernels)
    missing = sorted(set(kernels) - {f.name for f in module.functions if not f.is_declaration})
    if missing:
        raise ExecutableFormatError(f"kernels.ll: kernels.json declares {missing}, which "
                                    "kernels.ll does not define")


def _check_function(f: Any, kernels: dict[str, Any]) -> None:
    import llvmlite.binding as llvm

    if f.is_declaration:
        if f.name not in RUNTIME_DECLARATIONS and not f.name.startswith("llvm."):
            raise ExecutableFormatError(f"kernels.ll: declares @{f.name}, which is not one of "
                                        "the runtime's functions")
    elif f.linkage not in (llvm.Linkage.internal, llvm.Linkage.private) and f.name not in kernels:
        raise ExecutableFormatError(f"kernels.ll: defines @{f.name}, which kernels.json does "
                                    "not declare")


def _line_of(text: str, offset: int) -> int:
    return text.count("\n", 0, offset) + 1
