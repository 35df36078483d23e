# ruff: noqa: UP037, F821, F841 - verbatim lecture TVMScript; names resolve in the parser, not Python
"""The three modules of MLC lecture 4 (seed 003), in old and new syntax."""

from __future__ import annotations  # as in the MLC notebooks: `Tensor` is never evaluated

from tvmlite import tir
from tvmlite.ir import IRModule, TensorStructInfo, TupleStructInfo
from tvmlite.ir import expr as rx
from tvmlite.ir.op import CALL_DPS_PACKED, CALL_TIR
from tvmlite.script import ir as I
from tvmlite.script import relax as R
from tvmlite.script import tir as T

import lecture_modules as lecture


# The lecture's modules exactly as written (tests/lecture_modules.py); this file checks the IR
# the parser builds from them.
MyModule = lecture.MyModule
MyModuleWithExternCall = lecture.MyModuleWithExternCall
MyModuleMixture = lecture.MyModuleMixture


@I.ir_module
class NewModule:
    @T.prim_func(s_tir=True)
    def linear0(x: T.handle, w: T.handle, b: T.handle, z: T.handle):
        n = T.int64()
        X = T.match_buffer(x, (n, 784), "float32")
        W = T.match_buffer(w, (128, 784), "float32")
        B = T.match_buffer(b, (128,), "float32")
        Z = T.match_buffer(z, (n, 128), "float32")
        Y = T.alloc_buffer((n, 128), "float32")
        for i, j, k in T.grid(n, 128, 784):
            with T.sblock("Y"):
                vi, vj, vk = T.axis.remap("SSR", [i, j, k])
                with T.init():
                    Y[vi, vj] = T.float32(0)
                Y[vi, vj] = Y[vi, vj] + X[vi, vk] * W[vj, vk]
        for i, j in T.grid(n, 128):
            with T.sblock("Z"):
                vi, vj = T.axis.remap("SS", [i, j])
                Z[vi, vj] = Y[vi, vj] + B[vj]

    @T.prim_func(private=True)
    def relu0(X: T.Buffer((1, 128), "float32"), Y: T.Buffer((1, 128), "float32")):
        for i, j in T.grid(1, 128):
            with T.sblock("Y"):
                vi = T.axis.spatial(1, i)
                vj = T.axis.spatial(128, j)
                T.reads(X[vi, vj])
                T.writes(Y[vi, vj])
                Y[vi, vj] = T.max(X[vi, vj], T.float32(0))

    @R.function
    def main(x: R.Tensor(("n", 784), "float32"), w0: R.Tensor((128, 784), "float32"),
             b0: R.Tensor((128,), "float32")) -> R.Tensor(("n", 128), "float32"):
        n = T.int64()
        cls = NewModule
        with R.dataflow():
            lv0 = R.call_tir(cls.linear0, (x, w0, b0), out_sinfo=R.Tensor((n, 128), "float32"))
            lv1: R.Tensor(("n", 128), "float32") = R.call_dps_packed(
                "env.relu", (lv0,), R.Tensor(("n", 128), "float32"))
            gv = R.call_tir("linear0", (x, w0, b0), out_sinfo=[R.Tensor((n, 128), "float32")])
            R.output(gv)
        return gv


def _bindings(func):
    return [b for blk in func.body.blocks for b in blk.bindings]


def test_my_module_structure():
    mod = MyModule
    assert isinstance(mod, IRModule)
    assert mod.names() == ["relu0", "linear0", "linear1", "main"]
    relu = mod["relu0"]
    assert isinstance(relu, tir.PrimFunc)
    assert [p.dtype for p in relu.params] == ["handle", "handle"]
    x_buf = relu.buffer_of(relu.params[0])
    assert x_buf.name == "X" and x_buf.dtype == "float32"
    assert x_buf.shape == (tir.IntImm("int32", 1), tir.IntImm("int32", 128))
    assert relu.attr_dict == {"global_symbol": "relu0", "tir.noalias": True}
    loop = relu.body
    assert isinstance(loop, tir.For) and loop.extent == tir.IntImm("int32", 1)
    inner = loop.body
    assert isinstance(inner, tir.For) and inner.extent == tir.IntImm("int32", 128)
    realize = inner.body
    assert isinstance(realize, tir.BlockRealize)
    assert realize.iter_values == (loop.loop_var, inner.loop_var)
    block = realize.block
    assert block.name == "Y" and len(block.iter_vars) == 2
    assert block.iter_vars[1].dom.extent == tir.IntImm("int32", 128)
    store = block.body
    assert isinstance(store, tir.BufferStore)
    assert store.buffer is relu.buffer_of(relu.params[1])
    assert store.indices == tuple(iv.var for iv in block.iter_vars)
    mx = store.value
    assert isinstance(mx, tir.BinOp) and mx.op is tir.BinaryOp.MAX
    assert mx.b == tir.FloatImm("float32", 0.0)


def test_linear_root_block_and_init():
    lin = MyModule["linear0"]
    root = lin.body
    assert isinstance(root, tir.BlockRealize) and root.block.name == "root"
    (y,) = root.block.alloc_buffers
    assert y.name == "Y" and y.shape == (tir.IntImm("int32", 1), tir.IntImm("int32", 128))
    first, second = root.block.body.seq
    block = first.body.body.body.block
    assert [iv.iter_type for iv in block.iter_vars] == [
        tir.IterType.SPATIAL, tir.IterType.SPATIAL, tir.IterType.REDUCE]
    assert isinstance(block.init, tir.BufferStore) and block.init.buffer is y
    assert second.body.body.block.name == "Z"


def test_my_module_main():
    main = MyModule["main"]
    assert isinstance(main, rx.Function)
    assert [p.name_hint for p in main.params] == ["x", "w0", "b0", "w1", "b1"]
    assert main.params[1].struct_info == TensorStructInfo(
        (tir.IntImm("int64", 128), tir.IntImm("int64", 784)), "float32")
    (block,) = main.body.blocks
    assert isinstance(block, rx.DataflowBlock)
    lv0, lv1, out = block.bindings
    assert type(lv0.var) is rx.DataflowVar and type(out.var) is rx.Var
    call = lv0.value
    assert call.op == CALL_TIR
    ref, args = call.args
    assert ref.gvar is MyModule.get_global_var("linear0")
    assert args.fields == main.params[:3]
    assert call.struct_info.static_shape == (1, 128) and call.struct_info.dtype == "float32"
    assert call.sinfo_args == (call.struct_info,)
    assert lv0.var.struct_info == call.struct_info
    assert lv1.value.args[1].fields == (lv0.var,)
    assert main.body.body is out.var
    assert main.ret_struct_info.static_shape == (1, 10)


def test_extern_and_mixture():
    main = MyModuleWithExternCall["main"]
    lv0 = main.body.blocks[0].bindings[0].value
    assert lv0.op == CALL_DPS_PACKED
    assert lv0.args[0] == rx.ExternFunc("env.linear")
    mix = MyModuleMixture["main"]
    b = mix.body.blocks[0].bindings
    assert b[0].value.op == CALL_TIR and b[1].value.op == CALL_DPS_PACKED
    assert b[0].value.args[0].gvar is MyModuleMixture.get_global_var("linear0")


def test_new_syntax_module():
    mod = NewModule
    lin = mod["linear0"]
    n = lin.buffer_of(lin.params[0]).shape[0]
    assert isinstance(n, tir.Var) and n.name == "n" and n.dtype == "int64"
    assert lin.buffer_of(lin.params[3]).shape[0] is n
    assert tir.function.shape_vars(lin) == [n]
    assert "global_symbol" not in mod["relu0"].attr_dict
    relu_block = mod["relu0"].body.body.body.block
    assert len(relu_block.reads) == 1 and relu_block.reads[0].buffer.name == "X"
    main = mod["main"]
    n_rel = main.params[0].struct_info.shape[0]
    assert isinstance(n_rel, tir.Var) and n_rel.name == "n"
    assert main.ret_struct_info.shape[0] is n_rel
    lv0, lv1, gv = main.body.blocks[0].bindings
    assert lv0.value.args[0].gvar is mod.get_global_var("linear0")
    assert lv0.var.struct_info.shape[0] is n_rel
    assert lv1.var.struct_info.shape[0] is n_rel
    assert lv1.value.op == CALL_DPS_PACKED
    assert gv.value.op == CALL_TIR and gv.value.args[0].gvar is mod.get_global_var("linear0")
    assert isinstance(gv.var.struct_info, TensorStructInfo)
    assert not isinstance(gv.var.struct_info, TupleStructInfo)
