"""CUDA codegen: PrimFuncs to CUDA C kernels plus the launch plan the runtime follows.

`compile_cuda({name: PrimFunc}, target)` -> `vm.cuda.CudaKernelLibrary`: one CUDA source text,
the kernel signatures (the same ABI as the CPU backend, docs/internals.md section 2) and, per
prim_func, its launches. A prim_func is split at launch boundaries: after lowering, each
top-level statement must be a loop nest bound to `blockIdx.*` / `threadIdx.*` and becomes one
`extern "C" __global__` kernel (`<name>_kernel`, or `<name>_kernel0`, `_kernel1`, ... when
there are several). Every kernel of a prim_func takes the same parameters: the buffers and
scalars in param order, one int64 per shape var, then one pointer per workspace buffer.

- Launch dimensions are the bound loops' extents, as expression trees over shape vars and
  scalar params (`vm.cuda.Dim`), evaluated at every call.
- `alloc_buffer(scope="shared")` -> `__shared__`, `scope="local"` -> a per-thread array; a
  function-level "global" buffer used across kernels is workspace the runtime allocates.
- `T.tvm_storage_sync("shared")` -> `__syncthreads()`; the barriers shared-memory staging
  needs are inserted first (tir.thread_sync, TVM's ThreadSync), so schedules need not write them.
- A prim_func that binds no loop gets `tir.gpu_default_schedule` first (dlight's fallback).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from ..vm.device import kDLCUDA as KDL_CUDA
from ..vm.cuda import CudaFunction, CudaKernelLibrary, Dim, LaunchSpec
from .kernel_build import kernel_signature
from .codegen_c import HELPERS, CEmitter, CodegenError, _is_zero, _strip
from .expr import BinaryOp, BinOp, BufferLoad, Call, Cast, IntImm, PrimExpr, StringImm, Var
from .function import PrimFunc, free_vars, shape_vars
from .functor import Visitor, simplify
from .gpu_default_schedule import default_gpu_schedule, has_thread_binding
from .lower import flat_size, lower
from .stmt import (
    Allocate, BlockRealize, BufferStore, DeclBuffer, For, ForKind, IterType, SeqStmt, Stmt,
)
from .thread_sync import insert_barriers
from .vector_access import lane_base

THREAD_TAGS = ("blockIdx.x", "blockIdx.y", "blockIdx.z", "threadIdx.x", "threadIdx.y",
               "threadIdx.z")
MAX_SHARED_BYTES = 48 * 1024  # the static __shared__ limit of every GPU since Kepler
MAX_LOCAL_BYTES = 16 * 1024  # per thread: beyond this, local arrays spill badly anyway
_DIM_OPS = {BinaryOp.ADD: "+", BinaryOp.SUB: "-", BinaryOp.MUL: "*", BinaryOp.FLOORDIV: "//",
            BinaryOp.DIV: "//", BinaryOp.FLOORMOD: "%", BinaryOp.MOD: "%", BinaryOp.MIN: "min",
            BinaryOp.MAX: "max"}

PREAMBLE = """\
#ifdef __CUDACC_RTC__
typedef signed char int8_t;
typedef short int16_t;
typedef long long int64_t;
typedef unsigned char uint8_t;
typedef unsigned short uint16_t;
typedef unsigned int uint32_t;
typedef unsigned long long uint64_t;
#else
#include <stdint.h>
#endif
"""
# (dtype, lanes) -> the CUDA vector type one aligned load or store moves
VECTOR_TYPES = {("float32", 2): "float2", ("float32", 4): "float4", ("int32", 2): "int2",
                ("int32", 4): "int4"}
_LOWP_INCLUDES = {"float16": "#include <cuda_fp16.h>\n", "bfloat16": "#include <cuda_bf16.h>\n"}


class CUDAEmitter(CEmitter):
    """CEmitter for CUDA: kernels are `__global__`, thread loops read the hardware indices."""

    kernel_prefix = 'extern "C" __global__ void'
    shared_qualifier = "__shared__ __align__(16) "  # NOTE: float4 accesses need 16 bytes
    lowp = {"float16": ("half", "__half2float", "__float2half_rn"),
            "bfloat16": ("__nv_bfloat16", "__bfloat162float", "__float2bfloat16_rn")}
    barriers = {"shared": "__syncthreads();", "warp": "__syncwarp();",
                "global": "__threadfence();"}

    def __init__(self, launch: dict[str, PrimExpr]) -> None:
        super().__init__()
        self.launch = launch  # thread tag -> launch extent, for the guards of shorter loops
        self.vector_buffers: set[Var] = set()  # data vars read or written as float4 & co.

    def visit_For(self, loop: For) -> None:
        if loop.kind is ForKind.VECTORIZED and self.vector_copy(loop):
            return
        super().visit_For(loop)

    def vector_copy(self, loop: For) -> bool:
        """`for v in T.vectorized(4): dst[b + v] = src[c + v]` as one `float4` load and store,
        when b and c are provably multiples of 4 (tir.vector_access); else False."""
        store, lanes = loop.body, simplify(loop.extent)
        if not (isinstance(store, BufferStore) and isinstance(store.value, BufferLoad)
                and isinstance(lanes, IntImm) and _is_zero(loop.min)):
            return False
        load = store.value
        vtype = VECTOR_TYPES.get((store.buffer.dtype, lanes.value))
        if vtype is None or load.buffer.dtype != store.buffer.dtype or "local" in (
                store.buffer.scope, load.buffer.scope):
            return False
        dst = lane_base(store.indices[0], loop.loop_var, lanes.value)
        src = lane_base(load.indices[0], loop.loop_var, lanes.value)
        if dst is None or src is None:
            return False
        self.vector_buffers |= {store.buffer.data, load.buffer.data}
        self.dtypes_used.add(store.buffer.dtype)
        self.line(f"*({vtype}*)({self.visit(store.buffer.data)} + {_strip(self.expr(dst))}) = "
                  f"*({vtype}*)({self.visit(load.buffer.data)} + {_strip(self.expr(src))});")
        return True

    def thread_loop(self, loop: For) -> None:
        tag = loop.thread_tag or ""
        if tag not in THREAD_TAGS:
            raise CodegenError(f"loop {loop.loop_var.name!r} is bound to {tag!r}; the CUDA "
                               f"backend supports {', '.join(THREAD_TAGS)}")
        ty = self.ctype(loop.loop_var.dtype)
        index = f"(({ty}){tag})"
        if not (isinstance(loop.min, IntImm) and loop.min.value == 0):
            index = f"({index} + {self.expr(loop.min)})"
        self.nonneg.add(loop.loop_var) if self.is_nonneg(loop.min) else None
        self.line("{")
        self.indent += 1
        self.line(f"const {ty} {self.bind_name(loop.loop_var)} = {index};")
        if not _same(loop.extent, self.launch[tag]):  # a shorter loop under a wider launch
            self.block(f"if ((({ty}){tag}) < {_strip(self.expr(loop.extent))})",
                       lambda: self.visit(loop.body))
        else:
            self.visit(loop.body)
        self.indent -= 1
        self.line("}")

    def statement_call(self, call: Call) -> bool:
        if call.op not in ("tir.tvm_storage_sync", "tvm_storage_sync"):
            return False
        scope = call.args[0].value if call.args and isinstance(call.args[0], StringImm) else ""
        if scope not in self.barriers:
            raise CodegenError(f"tvm_storage_sync({scope!r}): expected one of "
                               f"{sorted(self.barriers)}")
        self.line(self.barriers[scope])
        return True

    def visit_Allocate(self, s: Allocate) -> None:
        self.line(self.declare(s.buffer) + ";")
        self.visit(s.body)

    def declare(self, buf: Any) -> str:
        """`__shared__ float A_shared[1024]` / `float C_local[16]`, with size limits checked."""
        size = flat_size(buf)
        nbytes = size.value * max(1, _bits(buf.dtype) // 8) if isinstance(size, IntImm) else 0
        limit = MAX_SHARED_BYTES if buf.scope == "shared" else MAX_LOCAL_BYTES
        if nbytes > limit:
            raise CodegenError(
                f"buffer {buf.name!r} ({buf.scope}) needs {nbytes} bytes, over the {limit}-byte "
                f"limit; allocate only the tile each block/thread uses (tvmlite does not "
                f"compact buffers yet)")
        qualifier = self.shared_qualifier if buf.scope == "shared" else ""
        return self.declare_array(buf, qualifier)


def _bits(dtype: str) -> int:
    from .dtype import bits

    return bits(dtype)


def _same(a: PrimExpr, b: PrimExpr) -> bool:
    a, b = simplify(a), simplify(b)
    if isinstance(a, IntImm) and isinstance(b, IntImm):
        return a.value == b.value
    return a is b or a == b


# ---------------------------------------------------------------------------------------------
# Splitting a lowered function into launches


def _peel(body: Stmt) -> tuple[list[Any], list[Stmt]]:
    """Function-level Allocates/DeclBuffers (outermost first) and the statements under them."""
    allocs: list[Any] = []
    while isinstance(body, (Allocate, DeclBuffer)):
        if isinstance(body, Allocate):
            allocs.append(body.buffer)
        body = body.body
    items = list(body.seq) if isinstance(body, SeqStmt) else [body]
    return allocs, items


class _ThreadExtents(Visitor):
    def __init__(self) -> None:
        self.extents: dict[str, list[PrimExpr]] = {}
        self.data: set[Var] = set()

    def visit_For(self, loop: For) -> None:
        if loop.kind is ForKind.THREAD_BINDING:
            self.extents.setdefault(loop.thread_tag or "", []).append(simplify(loop.extent))
        self.generic_visit(loop)

    def visit_Var(self, v: Var) -> None:
        self.data.add(v)

    def visit_buffer(self, buf: Any) -> None:
        if buf.data is not None:  # buffers are leaves of the walk: note whose data is used
            self.data.add(buf.data)


def _launch_extents(where: str, item: Stmt) -> tuple[dict[str, PrimExpr], set[Var]]:
    """Per thread tag, the launch extent: the loops' common extent, or the largest constant."""
    if not (isinstance(item, For) and item.kind is ForKind.THREAD_BINDING):
        name = item.loop_var.name if isinstance(item, For) else type(item).__name__
        raise CodegenError(
            f"{where}: top-level statement {name!r} is not bound to GPU threads. tvmlite's CUDA "
            f"backend launches each top-level loop nest bound to blockIdx.*/threadIdx.* as one "
            f"kernel and does not run host-side loops: bind loop {name!r} with "
            f"T.thread_binding(..., thread=\"blockIdx.x\") (or sch.bind), or move it inside")
    finder = _ThreadExtents()
    finder.visit(item)
    launch: dict[str, PrimExpr] = {}
    for tag, exts in finder.extents.items():
        if all(_same(e, exts[0]) for e in exts):
            launch[tag] = exts[0]
        elif all(isinstance(e, IntImm) for e in exts):
            launch[tag] = max(exts, key=lambda e: e.value)  # type: ignore[attr-defined]
        else:
            raise CodegenError(f"{where}: loops bound to {tag} have different symbolic "
                               f"extents {[str(e) for e in exts]}")
    return launch, finder.data


def to_dim(e: PrimExpr, known: dict[Var, str], where: str) -> Dim:
    """A launch extent as a `vm.cuda.Dim` tree over host-known variables."""
    e = simplify(e)
    if isinstance(e, IntImm):
        return e.value
    if isinstance(e, Var):
        if e not in known:
            raise CodegenError(f"{where}: launch extent uses {e.name!r}, which the host does "
                               f"not know (only shape vars and scalar params)")
        return known[e]
    if isinstance(e, Cast):
        return to_dim(e.value, known, where)
    if isinstance(e, BinOp) and e.op in _DIM_OPS:
        return (_DIM_OPS[e.op], to_dim(e.a, known, where), to_dim(e.b, known, where))
    raise CodegenError(f"{where}: cannot compute launch extent {e} on the host")


def _dims(launch: dict[str, PrimExpr], prefix: str, known: dict[Var, str], where: str
          ) -> tuple[Dim, Dim, Dim]:
    return tuple(to_dim(launch.get(f"{prefix}.{a}", IntImm("int64", 1)), known, where)
                 for a in "xyz")  # type: ignore[return-value]


# ---------------------------------------------------------------------------------------------
# Emitting one prim_func


class _Abi:
    """The kernel parameter list of one prim_func (shared by all of its kernels)."""

    def __init__(self, func: PrimFunc, workspace: list[Any]) -> None:
        self.params: list[tuple[str, str, Var]] = []  # (C type, name hint, var)
        self.aliases: list[tuple[Var, Var]] = []  # buffer data var -> its handle param
        self.known: dict[Var, str] = {}  # host-known scalars, by the names the runtime uses
        for p in func.params:
            buf = func.buffer_of(p)
            if buf is None:
                self.params.append(("scalar", p.name, p))
                self.known[p] = p.name
                continue
            self.params.append(("buffer:" + buf.dtype, buf.name, p))
            if buf.data is not None and buf.data is not p:
                self.aliases.append((buf.data, p))
        for v in shape_vars(func):
            if v not in func.params:
                self.params.append(("shape", v.name, v))
                self.known[v] = v.name
        for buf in workspace:
            self.params.append(("buffer:" + buf.dtype, buf.name, buf.data))

    def indices_of(self, data_vars: set[Var]) -> set[int]:
        """Positions (in the kernel's native arguments) of the buffers with these data vars."""
        handles = {p for d, p in self.aliases if d in data_vars} | data_vars
        return {i for i, (kind, _, var) in enumerate(self.params)
                if kind.startswith("buffer:") and var in handles}

    def signature(self, em: CUDAEmitter) -> tuple[str, list[str]]:
        """The C parameter list, and prologue lines narrowing int32 shape vars."""
        decls, prologue = [], []
        for kind, hint, var in self.params:
            if kind.startswith("buffer:"):
                ty = em.ctype(kind[7:])
                decls.append(f"{ty}* {em.restrict} {em.bind_name(var, hint)}")
            elif kind == "scalar":
                decls.append(f"{em.ctype(var.dtype)} {em.bind_name(var, hint)}")
            elif var.dtype == "int64":
                decls.append(f"int64_t {em.bind_name(var, hint)}")
            else:  # NOTE: the ABI passes every shape var as int64 (as the LLVM backend does)
                wide = em.bind_name(Var(hint + "_i64", "int64"))
                decls.append(f"int64_t {wide}")
                prologue.append(f"const {em.ctype(var.dtype)} {em.bind_name(var, hint)} = "
                                f"({em.ctype(var.dtype)}){wide};")
            if kind != "scalar":
                em.nonneg.add(var)
        for data, param in self.aliases:
            em.names[data] = em.names[param]
        return ", ".join(decls), prologue


def _emit_kernel(symbol: str, item: Stmt, abi: _Abi, local_allocs: list[Any], where: str
                 ) -> tuple[str, LaunchSpec, set[str], set[int]]:
    launch, used = _launch_extents(where, item)
    item = insert_barriers(item, launch)
    em = CUDAEmitter(launch)
    params, prologue = abi.signature(em)
    for line in prologue:
        em.line(line)
    for buf in local_allocs:
        if buf.data in used:
            em.line(em.declare(buf) + ";")
    em.visit(item)
    threads = launch.get("threadIdx.x"), launch.get("threadIdx.y"), launch.get("threadIdx.z")
    bound = ""
    if all(t is None or isinstance(t, IntImm) for t in threads):
        count = 1
        for t in threads:
            count *= t.value if t is not None else 1  # type: ignore[union-attr]
        bound = f"__launch_bounds__({count}) "
    head = f"{em.kernel_prefix} {bound}{symbol}({params}) {{"
    spec = LaunchSpec(symbol, _dims(launch, "blockIdx", abi.known, where),
                      _dims(launch, "threadIdx", abi.known, where))
    return "\n".join([head] + em.lines + ["}"]), spec, em.dtypes_used, abi.indices_of(
        em.vector_buffers)


def emit_prim_func(name: str, func: PrimFunc) -> tuple[list[str], CudaFunction, set[str]]:
    """The kernels of one prim_func (already lowered), its launch plan and the dtypes used."""
    allocs, items = _peel(func.body)
    workspace = [b for b in allocs if b.scope == "global"]
    local = [b for b in allocs if b.scope != "global"]
    abi = _Abi(func, workspace)
    where = f"prim_func {name!r}"
    texts, specs, dtypes, aligned = [], [], set(), set()
    for i, item in enumerate(items):
        symbol = f"{name}_kernel" if len(items) == 1 else f"{name}_kernel{i}"
        text, spec, used, vector_params = _emit_kernel(symbol, item, abi, local, where)
        texts.append(text)
        specs.append(spec)
        dtypes |= used
        aligned |= vector_params
    ws = tuple((b.name, b.dtype, to_dim(flat_size(b), abi.known, where)) for b in workspace)
    return texts, CudaFunction(name, tuple(specs), ws, tuple(sorted(aligned))), dtypes


def cuda_source(kernels: list[str], dtypes: set[str]) -> str:
    includes = "".join(inc for d, inc in _LOWP_INCLUDES.items() if d in dtypes)
    return "\n".join([PREAMBLE + includes, HELPERS] + [k + "\n" for k in kernels])


def _check_no_cross_thread_reduction(name: str, func: PrimFunc) -> None:
    """A reduction loop bound to threads needs a cross-thread reduction (TVM lowers it to an
    allreduce); tvmlite has none, and plain code would race: say so instead."""
    from .schedule import tree  # the schedule's tree walk (a sibling package)

    for path in tree.walk(func.body):
        br = path[-1]
        if not isinstance(br, BlockRealize):
            continue
        threads = {s.loop_var: s for s in path if isinstance(s, For)
                   and s.kind is ForKind.THREAD_BINDING}
        for iv, value in zip(br.block.iter_vars, br.iter_values):
            bound = [v for v in free_vars(value) if v in threads]
            if iv.iter_type is IterType.REDUCE and bound:
                raise NotImplementedError(
                    f"prim_func {name!r}: block {br.block.name!r} reduces over loop "
                    f"{bound[0].name!r} bound to {threads[bound[0]].thread_tag}; cross-thread "
                    f"reductions are not supported by tvmlite's CUDA backend")


def compile_cuda(funcs: dict[str, PrimFunc], target: Any = None) -> CudaKernelLibrary:
    """Schedules (if unbound), lowers and emits every prim_func; one source for them all."""
    kernels: list[str] = []
    dtypes: set[str] = set()
    functions: dict[str, CudaFunction] = {}
    signatures = {}
    for name, func in funcs.items():
        scheduled = func if has_thread_binding(func) else default_gpu_schedule(func)
        _check_no_cross_thread_reduction(name, scheduled)
        texts, cfunc, used = emit_prim_func(name, lower(scheduled))
        kernels += texts
        dtypes |= used
        functions[name] = cfunc
        signatures[name] = replace(kernel_signature(name, func), device_type=KDL_CUDA)
    arch = getattr(target, "arch", "") or ""
    return CudaKernelLibrary(cuda_source(kernels, dtypes), signatures, functions, arch)
