"""Block dependences, as TVM's `s_tir.SBlockDependenceInfo` / `SBlockScope` report them: in each
scope (a block and the blocks directly inside it), an ordered pair of child blocks depends
read-after-write, write-after-write or write-after-read when they touch a common buffer."""

from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum
from typing import Any

from ..function import PrimFunc
from ..functor import Visitor
from ..stmt import Block, BlockRealize
from .analysis import read_buffers, written_buffers
from .extra import StmtSRef


class DepKind(IntEnum):
    RAW = 0
    WAW = 1
    WAR = 2
    OPAQUE = 3


@dataclass(frozen=True, eq=False)
class Dependency:
    """`dst` depends on `src` (which runs first) by `kind`."""

    src: StmtSRef
    dst: StmtSRef
    kind: DepKind


class SBlockScope:
    """The dependences among the blocks directly inside one scope block."""

    def __init__(self, deps: list[Dependency]) -> None:
        self.deps = deps

    def get_deps_by_src(self, block: StmtSRef) -> list[Dependency]:
        return [d for d in self.deps if d.src is block]

    def get_deps_by_dst(self, block: StmtSRef) -> list[Dependency]:
        return [d for d in self.deps if d.dst is block]


class _Blocks(Visitor):
    """Each block's sref, its parent the sref of the enclosing block (the root's, outside)."""

    def __init__(self, root: StmtSRef) -> None:
        self.srefs: dict[int, StmtSRef] = {}
        self.children: dict[int, list[StmtSRef]] = {id(root): []}
        self.stack = [root]

    def visit_BlockRealize(self, s: BlockRealize) -> None:
        sref = StmtSRef(s.block, parent=self.stack[-1])
        self.srefs[id(s.block)] = sref
        self.children[id(self.stack[-1])].append(sref)
        self.children[id(sref)] = []
        self.stack.append(sref)
        self.generic_visit(s.block)
        self.stack.pop()


Accesses = tuple[set[int], set[int]]  # ids of the buffers a block reads, and writes


def _accesses(block: Block) -> Accesses:
    return {id(b) for b in read_buffers(block)}, {id(b) for b in written_buffers(block)}


def _kinds(src: Accesses, dst: Accesses) -> list[DepKind]:
    (src_r, src_w), (dst_r, dst_w) = src, dst
    found = []
    if src_w & dst_r:
        found.append(DepKind.RAW)
    if src_w & dst_w:
        found.append(DepKind.WAW)
    if src_r & dst_w:
        found.append(DepKind.WAR)
    return found


class SBlockDependenceInfo:
    """`SBlockDependenceInfo(func_or_mod)`: the srefs of a function's blocks and the
    dependences inside each scope (`get_sblock_scope(scope_sref)`)."""

    def __init__(self, mod: Any) -> None:
        func = mod if isinstance(mod, PrimFunc) else _only_prim_func(mod)
        body = func.body
        root_block = body.block if isinstance(body, BlockRealize) and \
            not body.iter_values else None
        root = StmtSRef(root_block if root_block is not None else body)
        walker = _Blocks(root)
        if root_block is not None:
            walker.srefs[id(root_block)] = root
            walker.generic_visit(root_block)
        else:
            walker.visit(body)
        self._srefs = walker.srefs
        self._scopes = {key: SBlockScope(_dependences(kids))
                        for key, kids in walker.children.items()}

    def get_sref(self, block: Block) -> StmtSRef | None:
        return self._srefs.get(id(block))

    def get_sblock_scope(self, scope_root: StmtSRef) -> SBlockScope:
        return self._scopes[id(scope_root)]

    get_block_scope = get_sblock_scope


def _dependences(blocks: list[StmtSRef]) -> list[Dependency]:
    acc = [_accesses(b.stmt) for b in blocks]  # once per block, not per pair
    return [Dependency(a, b, kind) for i, a in enumerate(blocks)
            for j, b in enumerate(blocks[i + 1:], i + 1) for kind in _kinds(acc[i], acc[j])]


def _only_prim_func(mod: Any) -> PrimFunc:
    funcs = [f for f in mod.functions.values() if isinstance(f, PrimFunc)]
    if len(funcs) != 1:
        raise ValueError(f"SBlockDependenceInfo takes a PrimFunc or a module of one, got "
                         f"{len(funcs)} prim_funcs")
    return funcs[0]
