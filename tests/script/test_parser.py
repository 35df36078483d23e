"""Parser behaviour beyond the lecture: scopes, source lookup, from_source, more syntax."""

import numpy as np
import pytest
from tvmlite import tir
from tvmlite.ir import IRModule, ObjectStructInfo, TensorStructInfo, TupleStructInfo
from tvmlite.ir import expr as rx
from tvmlite.ir.op import CALL_PURE_PACKED, CALL_TIR
from tvmlite.script import from_source
from tvmlite.script import ir as I
from tvmlite.script import relax as R
from tvmlite.script import tir as T

SIZE = 8


def make_module(n: int, scale: float) -> IRModule:
    @I.ir_module
    class Closure:
        @T.prim_func
        def scale_fn(A: T.Buffer((n,), "float32"), B: T.Buffer((n,), "float32")):
            for i in range(n):
                with T.block("B"):
                    vi = T.axis.spatial(n, i)
                    B[vi] = A[vi] * scale

        @R.function
        def main(x: R.Tensor((n,), "float32")):
            cls = Closure
            y = R.call_tir(cls.scale_fn, (x,), R.Tensor((n,), "float32"))
            return y

    return Closure


def test_closure_locals():
    mod = make_module(4, 2.5)
    buf = mod["scale_fn"].buffer_of(mod["scale_fn"].params[0])
    assert buf.shape == (tir.IntImm("int32", 4),)
    store = mod["scale_fn"].body.body.block.body
    assert store.value.b == tir.FloatImm("float32", 2.5)
    assert make_module(6, 1.0)["main"].params[0].struct_info.static_shape == (6,)


@I.ir_module
class Dup:
    @T.prim_func
    def f(A: T.Buffer((SIZE,), "float32")):
        A[0] = T.float32(1)


DupFirst = Dup


@I.ir_module
class Dup:
    @T.prim_func
    def g(A: T.Buffer((3,), "int32")):
        A[0] = 1


def test_two_classes_same_name():
    assert DupFirst.names() == ["f"] and Dup.names() == ["g"]
    assert Dup["g"].buffer_of(Dup["g"].params[0]).dtype == "int32"


def test_standalone_functions():
    @T.prim_func
    def add(a: T.handle, b: T.handle, c: T.handle):
        n = T.int32()
        A = T.match_buffer(a, (n,), "float32")
        B = T.match_buffer(b, (n,), "float32")
        C = T.match_buffer(c, (n,), "float32")
        for i in T.serial(n):
            C[i] = A[i] + B[i]

    assert isinstance(add, tir.PrimFunc)
    n = add.buffer_of(add.params[0]).shape[0]
    assert n.dtype == "int32" and add.buffer_of(add.params[2]).shape[0] is n
    assert add.attr_dict["global_symbol"] == "add"

    @R.function(private=True)
    def ident(x: R.Tensor(ndim=2, dtype="float32")) -> R.Tensor(ndim=2, dtype="float32"):
        return x

    assert isinstance(ident, rx.Function) and "global_symbol" not in ident.attr_dict
    assert ident.params[0].struct_info == TensorStructInfo(None, "float32", 2)


def test_deferred_outside_module():
    class NotAModule:
        @T.prim_func
        def f(A: T.Buffer((1,), "float32")):
            A[0] = T.float32(0)

    with pytest.raises(TypeError, match="not decorated with @I.ir_module"):
        NotAModule.f()


def test_from_source_module_and_function():
    mod = from_source('''
from tvm.script import ir as I
from tvm.script import tir as T
from tvm.script import relax as R

@I.ir_module
class Module:
    @T.prim_func
    def relu(X: T.Buffer((1, 4), "float32"), Y: T.Buffer((1, 4), "float32")):
        for i, j in T.grid(1, 4):
            with T.block("Y"):
                vi, vj = T.axis.remap("SS", [i, j])
                Y[vi, vj] = T.max(X[vi, vj], T.float32(0))

    @R.function
    def main(x: R.Tensor((1, 4), "float32")) -> R.Tensor((1, 4), "float32"):
        cls = Module
        with R.dataflow():
            y = R.call_tir(cls.relu, (x,), out_sinfo=R.Tensor((1, 4), "float32"))
            R.output(y)
        return y
''')
    assert isinstance(mod, IRModule) and mod.names() == ["relu", "main"]
    call = mod["main"].body.blocks[0].bindings[0].value
    assert call.op == CALL_TIR and call.args[0].gvar is mod.get_global_var("relu")
    func = from_source('''
@T.prim_func
def f(A: T.Buffer((2,), "int64")):
    A[1] = T.int64(3)
''')
    assert isinstance(func, tir.PrimFunc)
    assert func.body.value == tir.IntImm("int64", 3)


def test_tir_statements():
    @T.prim_func
    def f(a: T.handle, b: T.Buffer((16,), "float32"), m: T.int32):
        A = T.match_buffer(a, (16,), "float32")
        for i in range(16):
            x = A[i] * 2.0
            if i < 8:
                b[i] = T.exp(x)
            else:
                b[i] = T.if_then_else(x > 0, x, T.Select(x < -1, -x, T.float32(0)))
        for i in T.parallel(4):
            for j in T.vectorized(0, 4):
                b[i * 4 + j] += T.Cast("float32", m) + T.sqrt(T.float32(2))
        for t in T.thread_binding(0, 16, thread="threadIdx.x"):
            with T.block("w"):
                v = T.axis.spatial(16, t)
                T.where(t < 10)
                b[v] = T.float16(1.5).astype("float32")
        for u in T.unroll(2):
            T.evaluate(0)

    assert [p.dtype for p in f.params] == ["handle", "handle", "int32"]
    loop1, loop2, loop3, loop4 = f.body.seq
    let = loop1.body
    assert isinstance(let, tir.LetStmt) and let.var.dtype == "float32"
    branch = let.body
    assert isinstance(branch, tir.IfThenElse)
    assert branch.then_case.value == tir.Call("float32", "tir.exp", (let.var,))
    assert branch.else_case.value.op == "tir.if_then_else"
    assert isinstance(branch.else_case.value.args[2], tir.Select)
    assert loop2.kind is tir.ForKind.PARALLEL and loop2.body.kind is tir.ForKind.VECTORIZED
    aug = loop2.body.body
    assert isinstance(aug.value, tir.BinOp) and isinstance(aug.value.a, tir.BufferLoad)
    assert loop3.kind is tir.ForKind.THREAD_BINDING and loop3.thread_tag == "threadIdx.x"
    assert isinstance(loop3.body.predicate, tir.BinOp)
    assert loop3.body.block.iter_vars[0].dom.extent == tir.IntImm("int32", 16)
    assert loop4.kind is tir.ForKind.UNROLLED and isinstance(loop4.body, tir.Evaluate)


def test_literals_every_dtype():
    for name in ["int8", "int16", "int32", "int64", "uint8", "uint32", "float16", "float32",
                 "float64", "bool"]:
        imm = getattr(T, name)(1)
        assert imm.dtype == name
    assert T.float32("inf").value == float("inf")


def test_relax_values_and_calls():
    @I.ir_module
    class M:
        @T.prim_func
        def fill(n_: T.int64, A: T.Buffer((2, 3), "float32")):
            for i, j in T.grid(2, 3):
                A[i, j] = T.Cast("float32", n_)

        @R.function
        def helper(x: R.Tensor((2, 3), "float32")) -> R.Tensor((2, 3), "float32"):
            return x

        @R.function(pure=False)
        def main(x: R.Tensor((2, 3), "float32"), s: R.Shape([2, 3]), o: R.Object,
                 p: R.Prim("int64"),
                 t: R.Tuple(R.Tensor((2, 3), "float32"), R.Tensor(ndim=2, dtype="float32"))):
            y = helper(x)  # noqa: F821 - a sibling function of the module
            c = R.const(np.ones((2, 3), "float32"))
            tt = (y, c)
            z = tt[0]
            w = R.call_packed("my.func", z, sinfo_args=R.Tensor((2, 3), "float32"))
            q = R.call_pure_packed("my.func", w, sinfo_args=R.Tensor((2, 3), "float32"))
            R.call_packed("side.effect", q, sinfo_args=R.Object())
            f = R.call_tir(fill, (),  # noqa: F821
                           R.Tensor((2, 3), "float32"), tir_vars=[7])
            return (q, t[1], f)

    main = M["main"]
    assert not main.is_pure
    assert isinstance(main.params[2].struct_info, ObjectStructInfo)
    b = {bd.var.name_hint: bd for bd in main.body.blocks[0].bindings}
    assert b["y"].value.op.gvar is M.get_global_var("helper")
    assert b["y"].var.struct_info.static_shape == (2, 3)
    assert isinstance(b["c"].value, rx.Constant)
    assert b["c"].value.struct_info.static_shape == (2, 3)
    assert isinstance(b["tt"].value, rx.Tuple)
    assert b["z"].value == rx.TupleGetItem(b["tt"].var, 0, b["y"].var.struct_info)
    assert b["w"].value.op == rx.ExternFunc("my.func") and b["w"].value.args == (b["z"].var,)
    assert b["q"].value.op == CALL_PURE_PACKED
    assert b["_"].var.struct_info == ObjectStructInfo()
    assert b["f"].value.args[2].values == (tir.IntImm("int64", 7),)
    assert isinstance(main.ret_struct_info, TupleStructInfo)
    assert len(main.ret_struct_info.fields) == 3


def test_notebook_cell_source(tmp_path):
    """IPython registers each cell in linecache under a made-up file name; that must suffice."""
    import linecache

    name = "<ipython-input-7-abcdef>"
    code = '''
@I.ir_module
class Cell:
    @T.prim_func
    def k(A: T.Buffer[(4,), "float32"]):
        for i in T.serial(0, 4):
            A[i] = T.float32(i)

    @R.function
    def main(x: R.Tensor[(4,), "float32"]):
        y = R.call_tir(k, (), out_ty=R.Tensor((4,), "float32"))
        return y
'''
    linecache.cache[name] = (len(code), None, code.splitlines(True), name)
    scope = {"I": I, "T": T, "R": R}
    exec(compile(code, name, "exec"), scope)  # noqa: S102 - what IPython does with a cell
    mod = scope["Cell"]
    assert mod.names() == ["k", "main"]
    store = mod["k"].body.body
    assert store.value == tir.Cast("float32", mod["k"].body.loop_var)


def test_relax_annotation_checked_against_value():
    src = '''@R.function
def main(x: R.Tensor((2,), "float32")):
    y: R.Tensor((3,), "float32") = R.call_packed("f", x, sinfo_args=R.Tensor((2,), "float32"))
    return y
'''
    with pytest.raises(ValueError, match=r"annotation says shape \(3,\)"):
        from_source(src)


def test_symbolic_dims_shared_in_relax():
    @R.function
    def main(x: R.Tensor(("n", "m"), "float32"), y: R.Tensor(("m",), "float32")):
        n = T.int64()
        z = R.call_packed("f", x, sinfo_args=R.Tensor((n, "m"), "float32"))
        return z

    n, m = main.params[0].struct_info.shape
    assert main.params[1].struct_info.shape[0] is m
    zs = main.body.blocks[0].bindings[0].var.struct_info
    assert zs.shape[0] is n and zs.shape[1] is m
