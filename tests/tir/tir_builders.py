"""Hand-built PrimFuncs for the tir tests (the lecture 4 MLP kernels), without the parser.

`kernel(...)` builds the PrimFunc for a list of buffers and a body, the way the parser would:
one handle param per buffer, a `root` block holding the `alloc_buffer`s.
"""

from __future__ import annotations

from typing import Callable, Sequence

from tvmlite.tir import (
    Block, BlockRealize, Buffer, BufferStore, For, ForKind, IntImm, IterType, IterVar, PrimFunc,
    Range, Stmt, Var, const, make_buffer,
)
from tvmlite.tir.stmt import seq

TRUE = IntImm("bool", 1)


def loops(names: str, extents: Sequence, body: Callable[..., Stmt],
          kind: ForKind = ForKind.SERIAL) -> Stmt:
    """`for a, b in T.grid(...)`: `body(*loop_vars)` is the innermost statement; loop vars are
    int64 when any extent is symbolic int64 (as TVM's parser does), else int32."""
    dtype = "int64" if any(getattr(e, "dtype", "") == "int64" for e in extents) else "int32"
    lvars = [Var(n, dtype) for n in names.split()]
    stmt = body(*lvars)
    for v, ext in reversed(list(zip(lvars, extents))):
        stmt = For(v, const(0, dtype), const(ext, dtype) if isinstance(ext, int) else ext,
                   kind, stmt)
    return stmt


def block(name: str, kinds: str, values: Sequence, extents: Sequence,
          body: Callable[..., Stmt], init: Callable[..., Stmt] | None = None) -> Stmt:
    """`with T.block(name): vi, vj, vk = T.axis.remap(kinds, values)` with an optional T.init."""
    types = {"S": IterType.SPATIAL, "R": IterType.REDUCE}
    ivars = [Var("v" + getattr(v, "name", "x"), v.dtype) for v in values]
    iters = tuple(IterVar(iv, Range(const(0, iv.dtype), const(e, iv.dtype)), types[k])
                  for iv, k, e in zip(ivars, kinds, extents))
    blk = Block(name, iters, body(*ivars), init=init(*ivars) if init else None)
    return BlockRealize(tuple(values), TRUE, blk)


def kernel(buffers: Sequence[Buffer], body: Stmt, allocs: Sequence[Buffer] = (),
           scalars: Sequence[Var] = ()) -> PrimFunc:
    handles = tuple(Var(b.name + "_handle", "handle") for b in buffers)
    root = BlockRealize((), TRUE, Block("root", (), body, alloc_buffers=tuple(allocs)))
    return PrimFunc(handles + tuple(scalars), tuple(zip(handles, buffers)), root)


def relu0(n: int | Var = 1, m: int = 128) -> PrimFunc:
    X, Y = make_buffer("X", (n, m)), make_buffer("Y", (n, m))
    body = loops("i j", (n, m), lambda i, j: block(
        "Y", "SS", (i, j), (n, m),
        lambda vi, vj: BufferStore(Y, _max(X[vi, vj], const(0.0, "float32")), (vi, vj))))
    return kernel((X, Y), body)


def _max(a, b):
    from tvmlite.tir import BinaryOp, BinOp
    return BinOp(BinaryOp.MAX, a, b)


def linear(n: int | Var, k_dim: int, m: int) -> PrimFunc:
    """Lecture 4's linear0 (784 -> 128) / linear1 (128 -> 10): Z = X @ W.T + B via a temp Y."""
    X, W = make_buffer("X", (n, k_dim)), make_buffer("W", (m, k_dim))
    B, Z = make_buffer("B", (m,)), make_buffer("Z", (n, m))
    Y = make_buffer("Y", (n, m))
    reduce = loops("i j k", (n, m, k_dim), lambda i, j, k: block(
        "Y", "SSR", (i, j, k), (n, m, k_dim),
        lambda vi, vj, vk: BufferStore(Y, Y[vi, vj] + X[vi, vk] * W[vj, vk], (vi, vj)),
        init=lambda vi, vj, vk: BufferStore(Y, const(0.0, "float32"), (vi, vj))))
    bias = loops("i j", (n, m), lambda i, j: block(
        "Z", "SS", (i, j), (n, m),
        lambda vi, vj: BufferStore(Z, Y[vi, vj] + B[vj], (vi, vj))))
    return kernel((X, W, B, Z), seq([reduce, bias]), allocs=(Y,))


def linear0(n: int | Var = 1) -> PrimFunc:
    return linear(n, 784, 128)


def linear1(n: int | Var = 1) -> PrimFunc:
    return linear(n, 128, 10)
