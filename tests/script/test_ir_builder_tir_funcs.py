"""The IRBuilder's function-level TIR frames (parameters, buffers, thread launches, meta
values, source spans), each checked against the same function parsed from TVMScript, and TVM's
constructor forms of the TIR nodes they build (IterVar, For, BufferStore, AttrStmt, ir.Span)."""

from tvmlite import ir, tir
from tvmlite.ir.structural import structural_equal
from tvmlite.script import tir as TS
from tvmlite.script.ir_builder import IRBuilder
from tvmlite.script.ir_builder import tirx as T


def test_parameters_buffers_and_return_type() -> None:
    with IRBuilder() as ib:
        with T.prim_func():
            T.func_name("main")
            T.arg("n", T.int32())
            a = T.arg("A", T.Buffer((8,), "float32"))
            h = T.arg("B", T.handle())
            b = T.match_buffer(h, (8,), "float32")
            T.func_ret(ir.PrimType("int32"))
            T.buffer_store(b, a[0] + 1.0, [0])
    got = ib.get()

    @TS.prim_func
    def main(n: TS.int32, A: TS.Buffer((8,), "float32"), B: TS.handle) -> TS.int32:
        Bb = TS.match_buffer(B, (8,), "float32")
        Bb[0] = A[0] + TS.float32(1.0)

    assert structural_equal(got, main)
    assert [p.name for p in got.params] == ["n", "A", "B"] and got.ret_dtype == "int32"


def test_thread_binding_loop() -> None:
    with IRBuilder() as ib:
        with T.prim_func():
            a = T.arg("A", T.Buffer((64,), "float32"))
            with T.thread_binding(64, thread="threadIdx.x") as tx:
                T.buffer_store(a, 0.0, [tx])

    @TS.prim_func(private=True)
    def expected(A: TS.Buffer((64,), "float32")):
        for tx in TS.thread_binding(64, thread="threadIdx.x"):
            A[tx] = TS.float32(0)

    assert structural_equal(ib.get(), expected)


def test_launch_thread_of_an_env_thread() -> None:
    with IRBuilder() as ib:
        with T.prim_func():
            a = T.arg("A", T.Buffer((4,), "float32"))
            bx = T.env_thread("blockIdx.x")
            with T.launch_thread(bx, 4) as v:
                T.buffer_store(a, 1.0, [v])
    attr = ib.get().body
    assert isinstance(attr, tir.AttrStmt) and attr.attr_key == "thread_extent"
    assert attr.node.thread_tag == "blockIdx.x" and attr.node.var is bx.var
    assert int(attr.value) == 4 and int(attr.node.dom.extent) == 4
    assert attr.body.indices[0] is bx.var


def test_meta_var_carries_python_values() -> None:
    with IRBuilder() as ib:
        m = T.meta_var(5)
        a, b = T.meta_var([1, 2])
        T.evaluate(m.value * 10 + a.value + b.value)
    assert int(ib.get().value) == 53


def test_source_span_scope_locates_statements() -> None:
    span = ir.Span(ir.SourceName("f.py"), 3, 4, 1, 9)  # TVM's order: line, end_line, col, ...
    with IRBuilder() as ib:
        with T.prim_func():
            with ib.with_source_span(span):
                T.evaluate(1)
            T.evaluate(2)
    first, second = ib.get().body.seq
    assert (first.span.line, first.span.end_line, first.span.column, first.span.end_column) \
        == (3, 4, 1, 9)
    assert second.span is None and isinstance(span, ir.Span)


def test_tvm_constructor_forms() -> None:
    v = tir.Var("v", "int32")
    iv = tir.IterVar((2, 10), v, tir.IterVar.DataPar)
    assert iv.var is v and int(iv.dom.min) == 2 and int(iv.dom.extent) == 8
    assert iv.iter_type is tir.IterType.SPATIAL
    named = tir.IterVar(None, "t", tir.IterVar.ThreadIndex, "threadIdx.x")
    assert named.var.name == "t" and named.iter_type is tir.IterType.THREAD
    loop = tir.For(v, 0, 16, tir.ForKind.THREAD_BINDING, tir.Evaluate(0), thread_binding=named)
    assert loop.thread_tag == "threadIdx.x" and loop.min.dtype == "int32"
    buf = tir.decl_buffer((4,), "float16", name="B")
    store = tir.BufferStore(buf, 0.5, [1])
    assert store.value.dtype == "float16" and store.indices == (tir.const(1),)
    assert int(tir.AttrStmt(named, "thread_extent", 4, tir.Evaluate(0)).value) == 4
    assert tir.Var("h", ir.PointerType(ir.PrimType("void"))).dtype == "handle"
