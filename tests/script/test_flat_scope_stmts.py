# ruff: noqa: F841 (TVMScript bodies name what they define)
"""TVM 0.27's flat scope statements (Bind, AllocBuffer, a DeclBuffer without body): what the
IRBuilder makes of T.bind / T.alloc_buffer / T.decl_buffer, how they print (expected texts are
apache-tvm 0.27's output), and that tir.lower nests them so they compile."""

import numpy as np
import tvmlite as tvm
from tvmlite import tir
from tvmlite.ir.structural import assert_structural_equal, structural_equal
from tvmlite.script import from_source
from tvmlite.script import tir as TS
from tvmlite.script.ir_builder import IRBuilder
from tvmlite.script.ir_builder import tirx as T
from tvmlite.tir.nest_flat import nest_flat

HEADER = "# from tvm.script import tirx as T\n# from tvm.tirx.layout import Axis\n\n"


def _body(build) -> tir.Stmt:
    with IRBuilder() as ib:
        with T.prim_func():
            T.func_name("test")
            build()
    return ib.get().body


def test_bind_emits_a_flat_statement_and_returns_its_var():
    with IRBuilder() as ib:
        v = T.bind(tir.IntImm("int32", 2))
    got = ib.get()
    assert isinstance(got, tir.Bind) and got.var is v and v.dtype == "int32"
    assert structural_equal(got, tir.Bind(tir.Var("x", "int32"), tir.IntImm("int32", 2)),
                            map_free_vars=True)


def test_alloc_and_decl_buffer_are_siblings_of_what_follows():
    body = _body(lambda: (T.alloc_buffer([10], "float32", scope="local"), T.evaluate(1)))
    assert isinstance(body, tir.SeqStmt) and len(body) == 2
    assert isinstance(body[0], tir.AllocBuffer) and body[0].buffer.scope == "local"
    # T.decl_buffer without data is new storage, as in TVM 0.27
    body = _body(lambda: (T.decl_buffer([4, 4], "float32"), T.evaluate(1)))
    assert isinstance(body[0], tir.AllocBuffer)


def test_flat_statements_print_as_tvm_0_27():
    def build():
        buf = T.alloc_buffer([128, 128], "float32")
        same = T.decl_buffer([128, 128], "float32", data=buf.data)
        wide = T.decl_buffer([256, 256], "float32", data=buf.data)
        ints = T.decl_buffer([128, 128], "int32", data=buf.data)
        T.evaluate(buf.data)

    assert _body(build).script() == (
        "buffer = T.alloc_buffer((128, 128))\n"
        "buffer_1 = T.decl_buffer((128, 128), data=buffer.data)\n"
        "buffer_2 = buffer.view(256, 256)\n"
        'buffer_3 = buffer.view("int32")\n'
        "T.evaluate(buffer.data)")


def test_a_pointer_decl_buffer_declares_the_typed_pointer_first():
    body = _body(lambda: (T.decl_buffer((10, 10), data=T.ptr("float32")), T.evaluate(1)))
    assert body.script() == ('v = T.handle("float32", "global")\n'
                             "buffer = T.decl_buffer((10, 10), data=v)\nT.evaluate(1)")


def test_bind_and_let_print_as_t_let():
    with IRBuilder() as ib:
        with T.prim_func(s_tir=True):
            v = T.bind(T.float32(10))
            IRBuilder.name("v", v)
            T.evaluate(1)
    assert ib.get().script() == HEADER + (
        "@T.prim_func(private=True, s_tir=True)\ndef main():\n"
        "    v: T.let[T.float32] = T.float32(10.0)\n    T.evaluate(1)")

    @TS.prim_func
    def f(A: TS.Buffer((4,), "int32")):
        x: TS.int32 = A[1] + 1
        A[0] = x

    assert "    x: T.let[T.int32] = A[1] + 1\n" in f.script()
    assert_structural_equal(from_source(f.script()), f)


def test_nest_flat_wraps_each_flat_statement_around_the_rest():
    x = tir.Var("x", "int32")
    buf = tir.decl_buffer((4,), "int32", name="B")
    flat = tir.SeqStmt([tir.Bind(x, tir.IntImm("int32", 3)), tir.AllocBuffer(buf),
                        tir.BufferStore(buf, x, [0]), tir.Evaluate(0)])
    expected = tir.LetStmt(x, tir.IntImm("int32", 3), tir.Allocate(
        buf, tir.SeqStmt([tir.BufferStore(buf, x, [0]), tir.Evaluate(0)])))
    assert_structural_equal(nest_flat(flat), expected)
    lone = tir.DeclBuffer(buf)
    assert_structural_equal(nest_flat(lone), tir.DeclBuffer(buf, tir.Evaluate(0)))
    unchanged = tir.Evaluate(1)
    assert nest_flat(unchanged) is unchanged


def test_a_function_built_with_flat_statements_compiles():
    with IRBuilder() as ib:
        with T.prim_func():
            T.func_name("main")
            A = T.arg("A", T.Buffer((4,), "int32"))
            k = T.bind(tir.IntImm("int32", 5))
            tmp = T.alloc_buffer((1,), "int32")
            T.buffer_store(tmp, k * 2, [0])
            T.buffer_store(A, tmp[0] + 1, [3])
    lib = tvm.build(ib.get())
    a = tvm.nd.array(np.zeros(4, "int32"))
    lib(a)
    np.testing.assert_array_equal(a.numpy(), [0, 0, 0, 11])


def test_buffer_view_parses_to_a_decl_buffer_over_the_same_memory():
    @TS.prim_func
    def f(A: TS.Buffer((4,), "float32")):
        B = TS.allocate((4,), "float32")
        C = B.view(2, 2)
        D = B.view("int32")
        A[0] = C[1, 1]
        TS.evaluate(D[0])

    text = f.script()
    assert "    C = B.view(2, 2)\n    D = B.view(\"int32\")\n" in text
    view = f.body.body
    assert isinstance(view, tir.DeclBuffer) and view.buffer.data is f.body.buffer.data
    assert [int(d) for d in view.buffer.shape] == [2, 2]
    assert_structural_equal(from_source(text), f)


def test_flat_statements_verify_and_interpret():
    from tvmlite.tir.interpreter import run
    from tvmlite.tir.verify import verify_well_formed

    with IRBuilder() as ib:
        with T.prim_func():
            T.func_name("main")
            A = T.arg("A", T.Buffer((2,), "int32"))
            k = T.bind(tir.IntImm("int32", 4))
            T.buffer_store(A, k + 1, [1])
    func = ib.get()
    assert verify_well_formed(func, assert_mode=False)
    a = np.zeros(2, "int32")
    run(func, a)
    np.testing.assert_array_equal(a, [0, 5])



def test_a_typed_pointer_parameter_is_passed_as_a_plain_handle():
    with IRBuilder() as ib:
        with T.prim_func():
            p = T.arg("p", T.handle("float32", "global"))
            T.evaluate(0)
    assert ib.get().params[0].dtype == "handle" and p.dtype == "handle"
