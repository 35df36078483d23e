"""s_tir.SBlockDependenceInfo: the dependences between the blocks of each scope, by kind."""

from tvmlite.s_tir import SBlockDependenceInfo
from tvmlite.s_tir.sblock_scope import DepKind
from tvmlite.script import tir as T
from tvmlite.tir import Block
from tvmlite.tir.functor import post_order_visit


@T.prim_func
def produce_consume(a: T.handle, c: T.handle) -> None:
    A = T.match_buffer(a, (8,), "float32")
    C = T.match_buffer(c, (8,), "float32")
    B = T.alloc_buffer((8,), "float32")
    for i in range(8):
        with T.block("read_c"):
            vi = T.axis.remap("S", [i])
            A[vi] = C[vi]
        with T.block("B"):
            vi = T.axis.remap("S", [i])
            B[vi] = A[vi] * 2.0
    for i in range(8):
        with T.block("C"):
            vi = T.axis.remap("S", [i])
            C[vi] = B[vi] + 1.0


def _blocks(func):
    found = {}
    post_order_visit(func.body, lambda n: found.setdefault(n.name, n) if isinstance(n, Block)
                     else None)
    return found


def test_each_kind_between_the_blocks_of_a_scope():
    info = SBlockDependenceInfo(produce_consume)
    blocks = _blocks(produce_consume)
    read_c, b, c = (info.get_sref(blocks[n]) for n in ("read_c", "B", "C"))
    scope = info.get_sblock_scope(b.parent)
    assert b.parent is c.parent is read_c.parent

    def kinds(src, dst):
        return {d.kind for d in scope.get_deps_by_src(src) if d.dst is dst}

    assert kinds(read_c, b) == {DepKind.RAW}  # A written, then read
    assert kinds(b, c) == {DepKind.RAW}  # B
    assert kinds(read_c, c) == {DepKind.WAR}  # C read, then written
    assert kinds(c, b) == set()  # only forward in program order
    assert [d.src for d in scope.get_deps_by_dst(c)] == [read_c, b]
