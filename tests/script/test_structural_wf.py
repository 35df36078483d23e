"""Structural equality/hash and the well-formedness checks (relax and TIR)."""

import pytest
import tvmlite as tvm
from tvmlite import relax, tir
from tvmlite.ir import expr as rx
from tvmlite.ir import struct_info as si
from tvmlite.ir.well_formed import WellFormedError, assert_well_formed, check
from tvmlite.script import from_source
from tvmlite.tir import stmt as ts
from tvmlite.tir.verify import TIRWellFormedError, verify_well_formed

SRC = '''
@T.prim_func
def f(A: T.Buffer((8,), "float32"), B: T.Buffer((8,), "float32")):
    for i in range(8):
        with T.block("b"):
            vi = T.axis.remap("S", [i])
            B[vi] = A[vi] + T.float32(1)
'''


def test_equal_up_to_names():
    a = from_source(SRC)
    b = from_source(SRC.replace("vi", "k").replace("A", "X"))
    assert tvm.ir.structural_equal(a, b)
    assert tvm.ir.structural_hash(a) == tvm.ir.structural_hash(b)
    tvm.ir.assert_structural_equal(a, b)


def test_difference_reported_with_path():
    a = from_source(SRC)
    c = from_source(SRC.replace("T.float32(1)", "T.float32(2)"))
    assert not tvm.ir.structural_equal(a, c)
    assert tvm.ir.structural_hash(a) != tvm.ir.structural_hash(c)
    with pytest.raises(ValueError, match=r"\.body\.body\.block\.body\.value\.b\.value"):
        tvm.ir.assert_structural_equal(a, c)


def test_vars_by_position():
    x, y = tir.Var("x", "int32"), tir.Var("y", "int32")
    assert not tvm.ir.structural_equal(x + 1, y + 1)
    assert tvm.ir.structural_equal(x + 1, y + 1, map_free_vars=True)
    assert tvm.ir.structural_equal(x + 1, x + 1)
    assert not tvm.ir.structural_equal(x + y, x + x, map_free_vars=True)
    swapped = from_source(SRC.replace("A[vi] + T.float32(1)", "B[vi] + T.float32(1)"))
    assert not tvm.ir.structural_equal(from_source(SRC), swapped)


def test_module_function_order_ignored():
    text = '''
@I.ir_module
class M:
    @R.function
    def a(x: R.Tensor((2,), "float32")):
        return x

    @R.function
    def b(x: R.Tensor((2,), "float32")):
        return x
'''
    m1 = from_source(text)
    m2 = from_source(text.replace("def a(", "def c(").replace("def b(", "def a(")
                     .replace("def c(", "def b("))
    assert tvm.ir.structural_equal(m1, m2)


def test_well_formed_suite_modules():
    assert verify_well_formed(from_source(SRC))
    assert relax.analysis.well_formed(from_source('''
@I.ir_module
class M:
    @R.function
    def main(x: R.Tensor(("n",), "float32")):
        n = T.int64()
        with R.dataflow():
            y = R.match_cast(x, R.Tensor(("m",), "float32"))
            R.output(y)
        s = R.shape([n])
        return s
'''))


def test_tir_undefined_var_and_loop_var_in_block():
    f = from_source(SRC)
    store = f.body.body.block.body
    loop_var = f.body.loop_var
    bad = ts.BufferStore(store.buffer, store.value, (loop_var,))
    body = f.body.body
    block = body.block.__class__(**{**{k: getattr(body.block, k) for k in
                                      body.block.__dataclass_fields__}, "body": bad})
    g = f.with_body(ts.For(loop_var, f.body.min, f.body.extent, f.body.kind,
                           ts.BlockRealize(body.iter_values, body.predicate, block)))
    with pytest.raises(TIRWellFormedError, match="loop variable outside the block"):
        verify_well_formed(g)
    h = f.with_body(ts.BufferStore(store.buffer, store.value, (tir.Var("z", "int32"),)))
    with pytest.raises(TIRWellFormedError, match="'z' .* undefined variable"):
        verify_well_formed(h)
    other = tir.stmt.make_buffer("C", (8,))
    k = f.with_body(ts.BufferStore(other, store.value, (tir.IntImm("int32", 0),)))
    assert not verify_well_formed(k, assert_mode=False)


def test_relax_use_before_def_and_dataflow_scope():
    t = si.TensorStructInfo((tir.IntImm("int64", 2),), "float32")
    x = rx.Var("x", t)
    d = rx.DataflowVar("d", t)
    y = rx.Var("y", t)
    body = rx.SeqExpr((rx.DataflowBlock((rx.VarBinding(d, x),)),
                       rx.BindingBlock((rx.VarBinding(y, d),))), y)
    f = rx.Function((x,), body, t)
    errors = check(f)
    assert any("'d' is used outside its scope" in e for e in errors)
    g = rx.Function((), rx.SeqExpr((rx.BindingBlock((rx.VarBinding(y, x),)),), y), t)
    with pytest.raises(WellFormedError, match="'x' is used before it is bound"):
        assert_well_formed(g)


def test_a_function_signature_defines_the_dims_of_its_own_parameters():
    m, n = tir.Var("m", "int64"), tir.Var("n", "int64")
    t = si.TensorStructInfo((m, n), "float32")
    x = rx.Var("x", t)
    local = rx.Function((x,), rx.SeqExpr((), x), t)
    f_var = rx.Var("local", local.struct_info)
    outer = rx.Function((), rx.SeqExpr((rx.BindingBlock((rx.VarBinding(f_var, local),)),),
                                       f_var), local.struct_info)
    # R.Callable([R.Tensor((m, n))], ...) binds m and n itself
    assert relax.analysis.well_formed(tvm.IRModule({"outer": outer}))
    # a result whose dims no signature defines is still refused
    leaky = si.FuncStructInfo((), t)
    g_var = rx.Var("leaky", leaky)
    g = rx.Function((), rx.SeqExpr((rx.BindingBlock((rx.VarBinding(
        g_var, rx.Function((), rx.SeqExpr((), rx.Var("y", t)), t)),)),), g_var), leaky)
    with pytest.raises(WellFormedError, match="uses the symbolic variable 'm'"):
        relax.analysis.well_formed(tvm.IRModule({"g": g}))
