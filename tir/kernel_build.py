"""Compile PrimFuncs to one LLVM module plus the kernel signatures the VM checks calls against.

`compile_prim_funcs({name: PrimFunc}, target)` -> `(llvm_ir_text, {name: KernelSignature})`;
the VM wraps the pair in `vm.kernels.KernelLibrary`. The ABI is docs/internals.md section 2.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from llvmlite import ir

from ..vm.builtins import compile_shape_program
from ..vm.kernel_signature import KernelParam, KernelSignature, format_computed_dim
from .codegen_llvm import CodeGenLLVM
from .compile_mode import compiling
from .expr import IntImm, PrimExpr, Var
from .function import PrimFunc, shape_vars
from .lower import lower
from .shape_program import shape_program

_TARGET_KEYS = ("mcpu", "mattr", "mtriple", "num-cores", "opt-level", "fast-math", "keys",
                "host", "libs", "model", "tag")
_KINDS = ("llvm", "c", "cuda")  # "c" is TVM's C host target; CPU code is LLVM either way
# CUDA target options (TVM spells them with "_" or "-"); only `arch` is used (nvcc checks)
_CUDA_KEYS = ("arch", "max-num-threads", "max-threads-per-block", "thread-warp-size",
              "max-shared-memory-per-block", "registers-per-block", "l2-cache-size-bytes")
# `nvidia/<gpu>` tags: the arch of a few well-known boards; any other tag is sm_80
_NVIDIA_ARCH = {"a100": "sm_80", "h100": "sm_90", "h200": "sm_90", "rtx-3090": "sm_86",
                "rtx-4090": "sm_89", "a10": "sm_86", "l4": "sm_89", "t4": "sm_75",
                "v100": "sm_70"}


@dataclass(frozen=True)
class Target:
    """A parsed CPU target: `llvm [-mcpu=...] [-mattr=...] [-num-cores=N] [-opt-level=N]`."""

    kind: str = "llvm"
    mcpu: str = "host"
    mattr: str = "host"
    num_cores: int = 0  # tasks per parallel loop; 0: the pool decides (4 per thread)
    opt_level: int = 3
    fast_math: str = "reduction"  # "none" | "reduction": reassoc/contract on float reductions
    arch: str = ""  # cuda: the compute capability (sm_80), used by nvcc compile checks


def parse_target(target: Any) -> Target:
    """Accepts "llvm", "llvm -mcpu=native", "llvm -num-cores=4", {"kind": "llvm", ...} and
    objects with a `.kind` (a tvm.target.Target); anything else raises ValueError."""
    if isinstance(target, Target):
        return target
    if target is None:
        return Target()
    if isinstance(target, dict):
        opts = {str(k).replace("_", "-"): v for k, v in target.items()}
        kind = str(opts.pop("kind", ""))
    elif isinstance(target, str):
        kind, opts = _parse_target_string(target)
    elif hasattr(target, "kind"):
        return parse_target(str(target))
    else:
        raise ValueError(f"target must be a string like 'llvm' or a dict, got {target!r}")
    if kind.startswith("nvidia/"):  # a TVM target tag names a board: CUDA
        kind, opts = "cuda", {"arch": _tag_arch(kind), **opts}
    if kind == "cuda":
        return _cuda_target(target, opts)
    if kind not in _KINDS:
        raise ValueError(f"unsupported target kind {kind!r} in {target!r}: tvmlite compiles "
                         f"prim_funcs for CPUs with 'llvm' (CUDA goes through the cuda backend)")
    unknown = [k for k in opts if k not in _TARGET_KEYS]
    if unknown:
        raise ValueError(f"unknown target option(s) {', '.join('-' + k for k in unknown)} in "
                         f"{target!r}; known: {', '.join('-' + k for k in _TARGET_KEYS)}")
    return Target(
        kind="llvm",
        mcpu=str(opts.get("mcpu", "host")),
        mattr=str(opts.get("mattr", "host")).lstrip("+") if "mattr" in opts else "host",
        num_cores=int(opts.get("num-cores", 0)),
        opt_level=int(opts.get("opt-level", 3)),
        fast_math=str(opts.get("fast-math", "reduction")),
    )


def _tag_arch(tag: str) -> str:
    board = tag.split("/", 1)[1]
    return next((a for key, a in _NVIDIA_ARCH.items() if board.endswith(key)), "sm_80")


def _cuda_target(target: Any, opts: dict[str, Any]) -> Target:
    opts = {k.replace("_", "-"): v for k, v in opts.items()}
    unknown = [k for k in opts if k not in _CUDA_KEYS + _TARGET_KEYS]
    if unknown:
        raise ValueError(f"unknown cuda target option(s) {', '.join('-' + k for k in unknown)} "
                         f"in {target!r}; known: {', '.join('-' + k for k in _CUDA_KEYS)}")
    return Target(kind="cuda", mcpu="", mattr="", arch=str(opts.get("arch", "sm_80")))


def _parse_target_string(text: str) -> tuple[str, dict[str, Any]]:
    parts = text.split()
    if not parts:
        raise ValueError("empty target string; use 'llvm'")
    opts: dict[str, Any] = {}
    for part in parts[1:]:
        if not part.startswith("-"):
            raise ValueError(f"bad target option {part!r} in {text!r}: expected -key=value")
        key, _, value = part.lstrip("-").partition("=")
        opts[key] = value if value else True
    return parts[0], opts


def compile_prim_funcs(funcs: dict[str, PrimFunc], target: Any = "llvm"
                       ) -> tuple[str, dict[str, KernelSignature]]:
    """Lowers every PrimFunc and emits one LLVM module with one kernel per entry (named by its
    key). Returns the module's text and the kernels' signatures."""
    tgt = parse_target(target)
    if tgt.kind == "cuda":
        raise ValueError("compile_prim_funcs emits LLVM; for target 'cuda' use "
                         "build_kernel_library (tir/codegen_cuda.py)")
    module = ir.Module(name="tvmlite_kernels")
    gen = CodeGenLLVM(module, fast_math=tgt.fast_math, num_cores=tgt.num_cores)
    signatures: dict[str, KernelSignature] = {}
    with compiling():  # the GC paused while the IR is built (tir/compile_mode.py)
        for name, func in funcs.items():
            gen.add_function(name, lower(func))
            signatures[name] = kernel_signature(name, func)
        return str(module), signatures


def kernel_signature(name: str, func: PrimFunc) -> KernelSignature:
    """What the kernel `name` expects, in ABI order (see docs/internals.md section 2)."""
    params = []
    for p in func.params:
        buf = func.buffer_of(p)
        if buf is None:
            params.append(KernelParam(p.name, "scalar", p.dtype))
        else:
            params.append(KernelParam(buf.name, "buffer", buf.dtype,
                                      tuple(_dim(d) for d in buf.shape)))
    extra = tuple(v.name for v in shape_vars(func) if v not in func.params)
    return KernelSignature(name, tuple(params), extra)


def _dim(d: PrimExpr) -> int | str:
    if isinstance(d, IntImm):
        return d.value
    if isinstance(d, Var):
        return d.name
    # A compound dim (n * 2) travels as a postfix program over the shape vars, so callers
    # can compute it and check the memory they pass (see vm/kernel_signature.computed_dim).
    program, operands = shape_program(d, [])
    if program is None:
        raise ValueError(f"buffer dim {d} is not integer arithmetic over shape variables")
    if not operands:  # constant arithmetic the simplifier left unfolded: fold it here
        return compile_shape_program(program)()
    return format_computed_dim(program, [v.name for v in operands])


def build_kernel_library(funcs: dict[str, PrimFunc], target: Any = "llvm") -> Any:
    """The kernel library for `target`: a `vm.kernels.KernelLibrary` (LLVM) or a
    `vm.cuda.CudaKernelLibrary` (CUDA C, see tir/codegen_cuda.py)."""
    tgt = parse_target(target)
    if tgt.kind == "cuda":
        from .codegen_cuda import compile_cuda

        return compile_cuda(funcs, tgt)
    from ..vm.kernels import KernelLibrary
    from .cached_build import cached_kernel_library
    from .kernel_cache import open_cache

    cache = open_cache()  # None: TVMLITE_CACHE=0, or the directory is unsafe
    if cache is not None:
        return cached_kernel_library(funcs, tgt, cache)
    return KernelLibrary(*compile_prim_funcs(funcs, tgt))
