"""`T` dtype names (short forms, vector types, narrow floats) and TIR node classes (`T.Add`,
`T.Ramp`, `T.IterVar`, ...): parsed, printed as TVM 0.27 prints them, read back equal."""

from __future__ import annotations

import pytest

import tvmlite as tvm
from tvmlite.script import from_source
from tvmlite.script import tir as T
from tvmlite.script.tir_dtypes import NAMES
from tvmlite.tir import expr as tx
from tvmlite.tir import stmt as ts

SHORT = {"i8": "int8", "i16": "int16", "i32": "int32", "i64": "int64", "u8": "uint8",
         "u16": "uint16", "u32": "uint32", "u64": "uint64", "f16": "float16",
         "f32": "float32", "f64": "float64", "bf16": "bfloat16", "boolean": "bool",
         "void": "void"}


@pytest.mark.parametrize("name", sorted(NAMES))
def test_dtype_name_declares_a_variable_of_that_dtype(name):
    want = SHORT.get(name, name)  # every other name is the dtype string itself
    src = f"@T.prim_func\ndef f(x: T.{name}):\n    T.evaluate(0)\n"
    func = from_source(src)
    assert func.params[0].dtype == want
    assert f"def f(x: T.{want}):" in func.script()
    tvm.ir.assert_structural_equal(func, from_source(func.script()))
    assert T.DtypeConstructor is type(getattr(T, name))


def test_vector_literal_broadcasts_as_tvm_prints_it():
    src = ('@T.prim_func\ndef f(A: T.Buffer((4,), "int8")):\n'
           '    T.evaluate(T.int8x4(0) + T.int8x4(1))\n')
    func = from_source(src)
    assert "T.evaluate(T.Broadcast(T.int8(0), 4) + T.Broadcast(T.int8(1), 4))" in func.script()
    assert func.body.value.dtype == "int8x4"


VECTORS = '''@T.prim_func
def f(A: T.Buffer((8,), "float32"), B: T.Buffer((8,), "int32")):
    x: T.float32 = A[0]
    T.evaluate(T.Ramp(0, 1, 4))
    T.evaluate(T.Broadcast(x, 4))
    T.evaluate(T.Shuffle([T.Ramp(0, 1, 4)], [3, 2]))
'''


def test_ramp_broadcast_shuffle():
    func = from_source(VECTORS)
    text = func.script()
    for line in VECTORS.splitlines()[3:]:
        assert line.strip() in text
    tvm.ir.assert_structural_equal(func, from_source(text))
    ramp = func.body.body.seq[0].value
    assert isinstance(ramp, T.Ramp) and ramp.dtype == "int32x4"
    assert isinstance(func.body.body.seq[1].value, T.broadcast)
    shuffle = func.body.body.seq[2].value
    assert isinstance(shuffle, T.Shuffle) and shuffle.dtype == "int32x2"


@pytest.mark.parametrize("cls,text", [
    ("Add", "a + b"), ("Sub", "a - b"), ("Mul", "a * b"), ("Min", "T.min(a, b)"),
    ("Max", "T.max(a, b)"), ("EQ", "a == b"), ("NE", "a != b"), ("LT", "a < b"),
    ("LE", "a <= b"), ("GT", "a > b"), ("GE", "a >= b"), ("FloorDiv", "a // b"),
    ("FloorMod", "a % b"), ("LShift", "a << b"), ("RShift", "a >> b"),
    ("BitwiseAnd", "a & b"), ("BitwiseOr", "a | b"), ("BitwiseXor", "a ^ b"),
])
def test_node_class_builds_its_node(cls, text):
    src = (f"@T.prim_func\ndef f(a: T.int32, b: T.int32):\n"
           f"    T.evaluate(T.{cls}(a, b))\n")
    func = from_source(src)
    assert f"T.evaluate({text})" in func.script()
    node = func.body.value
    view = getattr(T, cls)
    assert isinstance(node, view)
    assert not isinstance(tx.Var("z", "int32"), view)


def test_bitwise_not_and_boolean_node_classes():
    a = tx.Var("a", "int32")
    assert isinstance(T.BitwiseNot(a), T.BitwiseNot)
    assert not isinstance(T.BitwiseNot(a), T.BitwiseAnd)
    p, q = tx.Var("p", "bool"), tx.Var("q", "bool")
    assert isinstance(T.And(p, q), tx.BinOp) and T.And(p, q).op is tx.BinaryOp.AND


def test_immediates_vars_calls_and_loads():
    assert T.IntImm("int64", 3) == tx.IntImm("int64", 3)
    assert T.FloatImm("float32", 0.5).value == 0.5
    assert T.Var("n", "int64").dtype == "int64"
    call = T.Call("float32", "tir.exp", [T.FloatImm("float32", 1.0)])
    assert isinstance(call, T.Call) and call.args == (tx.FloatImm("float32", 1.0),)
    buf = ts.make_buffer("A", (4, 4), "float32")
    load = T.BufferLoad(buf, [1, 2])
    assert isinstance(load, T.BufferLoad) and load.indices == (tx.IntImm("int32", 1),
                                                               tx.IntImm("int32", 2))


def test_ranges_iter_vars_and_let():
    rng = T.Range(2, 10)
    assert (rng.min.value, rng.extent.value) == (2, 8)
    iv = T.IterVar(T.Range(0, 4), tx.Var("i", "int32"), 0)
    assert isinstance(iv, T.IterVar) and iv.iter_type is ts.IterType.SPATIAL
    assert T.iter_var("k", (0, 16), "CommReduce").iter_type is ts.IterType.REDUCE
    x = tx.Var("x", "int32")
    let = T.Let(x + 1, where={x: 5})
    assert isinstance(let, tx.Let) and let.value == tx.IntImm("int32", 5)


def test_comm_reducer_and_reduce():
    r = T.comm_reducer(lambda x, y: x + y, [T.float32(0)])
    assert isinstance(r, T.CommReducer)
    (out,) = r(T.float32(1), T.float32(2))
    assert out == tx.binop(tx.BinaryOp.ADD, tx.FloatImm("float32", 1.0),
                           tx.FloatImm("float32", 2.0))
    k = T.iter_var("k", (0, 8), "CommReduce")
    red = T.Reduce(r, [T.float32(1)], [k], True, 0)
    assert isinstance(red, T.Reduce) and red.dtype == "float32"


def test_comm_reducer_in_an_attribute_round_trips():
    src = ('@T.prim_func\ndef f(A: T.Buffer((4,), "float32")):\n'
           '    with T.attr(T.comm_reducer(lambda x, y: x + y, [T.float32(0.0)]), '
           '"reduce_scope", 0):\n        A[0] = T.float32(0)\n')
    func = from_source(src)
    text = func.script()
    assert 'with T.attr(T.comm_reducer(lambda x, y: x + y, [T.float32(0.0)]), ' \
           '"reduce_scope", 0):' in text
    tvm.ir.assert_structural_equal(func, from_source(text))


def test_var_type_and_for_kind_codes_as_tvm_code_reads_them():
    src = ('@T.prim_func\ndef f(A: T.Buffer((8,), "float32"), p: T.handle("int64")):\n'
           '    x: T.let[T.handle] = T.tvm_struct_get(p, 0, 2, dtype=T.handle("int64").ty)\n'
           '    y: T.let[T.handle] = T.reinterpret(T.handle("float32").ty, x)\n'
           '    for i in T.thread_binding(8, thread="threadIdx.x"):\n'
           '        A[i] = T.float32(0)\n')
    func = from_source(src)
    assert func.body.value.dtype == "handle"
    assert func.body.body.value is func.body.var  # a handle reinterpreted as a handle
    loop = func.body.body.body
    assert loop.kind == 4 and loop.kind != 0 and loop.kind == ts.ForKind.THREAD_BINDING
    assert tx.Var("n", "int64").ty == "int64"


def test_for_thread_binding_view():
    src = ('@T.prim_func\ndef f(A: T.Buffer((16,), "float32")):\n'
           '    for i in T.thread_binding(16, thread="threadIdx.y"):\n        A[i] = T.float32(0)\n'
           '    for j in range(16):\n        A[j] = T.float32(1)\n')
    func = from_source(src)
    assert func.body[0].thread_binding.thread_tag == "threadIdx.y"
    assert func.body[0].thread_binding.var is func.body[0].loop_var
    assert func.body[1].thread_binding is None


def test_loop_annotations_read_by_key():
    src = ('@T.prim_func\ndef f(A: T.Buffer((16,), "float32")):\n'
           '    for i in T.serial(16, annotations={"attr_key": "attr_value"}):\n'
           '        A[i] = T.float32(0)\n')
    assert from_source(src).body.annotations["attr_key"] == "attr_value"


def test_remaining_node_views_and_aliases():
    a, b = tx.Var("a", "int32"), tx.Var("b", "int32")
    assert isinstance(T.Div(a, b), T.Div) and T.Div(a, b).op is tx.BinaryOp.DIV
    assert isinstance(T.Mod(a, b), T.Mod) and not isinstance(T.Mod(a, b), T.Div)
    p, q = tx.Var("p", "bool"), tx.Var("q", "bool")
    assert isinstance(T.Or(p, q), T.Or) and not isinstance(T.Or(p, q), T.And)
    assert isinstance(T.ramp(0, 2, 4), T.Ramp) and T.ramp(0, 2, 4).stride.value == 2
    assert T.Bind is T.bind


def test_meta_class_and_decl_scalar():
    @T.meta_class
    class Helper:
        width = 4

    assert Helper.width == 4
    src = ('@T.prim_func\ndef f(p: T.handle("float32"), A: T.Buffer((1,), "float32")):\n'
           '    s = T.decl_scalar("float32", p, "global")\n'
           '    A[0] = s[()]\n')
    func = from_source(src)
    decl = func.body
    assert isinstance(decl, ts.DeclBuffer) and decl.buffer.shape == ()
    assert decl.buffer.data is func.params[0]
