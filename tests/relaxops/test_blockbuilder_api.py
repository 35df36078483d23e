"""The BlockBuilder and IR conveniences TVM code relies on (found running TVM's
test_blockbuilder_core.py): tuple indexing and unpacking, explicit block scopes, misuse
errors of TVM's class, emit_te's reuse of equal prim_funcs, and structural equality of loop
nests compared on their own."""

import numpy as np
import pytest

import tvmlite as tvm
from tvmlite import relax, te, tir
from tvmlite.script import relax as R


def tensor(*shape, dtype="float32"):
    return relax.TensorStructInfo(shape, dtype)


def test_a_tuple_valued_expression_indexes_and_unpacks() -> None:
    x, y = relax.Var("x", tensor(2, 3)), relax.Var("y", tensor(4))
    pair = relax.Tuple([x, y])
    assert isinstance(pair.struct_info, relax.TupleStructInfo) and pair[1] is y
    t = relax.Var("t", pair.struct_info)
    first, second = t
    assert isinstance(first, relax.TupleGetItem) and first.index == 0
    assert [int(d) for d in second.struct_info.shape] == [4]
    assert t[-1].index == 1
    with pytest.raises(IndexError):
        t[2]
    item = x[0]  # a tensor is not a tuple: TVM builds the node, normalizing it fails
    assert isinstance(item, relax.TupleGetItem) and item.struct_info is None
    with pytest.raises(ValueError, match="not a tuple"):
        relax.BlockBuilder().normalize(item)
    assert list(relax.ShapeExpr([2, 3]))[1].value == 3


def test_explicit_blocks_and_their_kinds() -> None:
    x = relax.Var("x", tensor(4))
    bb = relax.BlockBuilder()
    bb._begin_binding_block()
    a = bb.emit(relax.op.add(x, x))
    bb._begin_dataflow_block()
    b = bb.emit(relax.op.multiply(a, x))
    c = bb.emit_output(relax.op.multiply(b, b))
    inner = bb._end_block()
    outer = bb._end_block()
    assert isinstance(inner, relax.DataflowBlock) and [v.var for v in inner.bindings] == [b, c]
    assert not isinstance(outer, relax.DataflowBlock) and outer.bindings[0].var is a


@pytest.mark.parametrize("misuse", ["nested", "output_twice", "params_twice", "no_params",
                                    "no_output"])
def test_misuse_raises_tvms_runtime_error_and_recovers(misuse) -> None:
    x = relax.Var("x", tensor(4))
    bb = relax.BlockBuilder()
    with pytest.raises(RuntimeError) as info:
        with bb.function("f", None if misuse == "no_params" else [x]):
            gv = bb.emit(relax.op.add(x, x))
            if misuse == "nested":
                with bb.function("g", [x]):
                    pass
            if misuse != "no_output":
                bb.emit_func_output(gv, [x] if misuse == "params_twice" else None)
            if misuse == "output_twice":
                bb.emit_func_output(gv)
    assert isinstance(info.value, ValueError) and isinstance(info.value, tvm.error.TVMError)
    assert relax.BlockBuilder.current() is None
    with bb.function("f", [x]):  # the builder is usable again
        assert relax.BlockBuilder.current() is bb
        bb.emit_func_output(bb.emit(relax.op.add(x, x)))
    a = np.arange(4, dtype="float32")
    vm = relax.VirtualMachine(tvm.compile(bb.get(), target="llvm"), tvm.cpu())
    np.testing.assert_array_equal(vm["f"](a).numpy(), a + a)


def test_emit_te_reuses_equal_prim_funcs_and_takes_dict_arguments() -> None:
    n = tir.Var("n", "int64")
    x, y = relax.Var("x", tensor(n, 4)), relax.Var("y", tensor(n, 4))
    z = relax.Var("z", tensor(8, 4))

    def plus_one(a):
        return te.compute(a.shape, lambda i, j: a[i, j] + 1)

    def scaled(args, named, factor):
        return te.compute(args[0].shape, lambda i, j: args[0][i, j] * named["w"][i, j] * factor)

    bb = relax.BlockBuilder()
    with bb.function("main", [x, y, z]):
        first = bb.emit_te(plus_one, x)
        again = bb.emit_te(plus_one, y)
        other = bb.emit_te(plus_one, z)
        out = bb.emit_te(scaled, [first], {"w": again}, 2.0)
        bb.emit_func_output(relax.Tuple([out, other]))
    mod = bb.get()
    calls = [b.value for b in mod["main"].body.blocks[0].bindings]
    assert calls[0].args[0].name_hint == calls[1].args[0].name_hint != calls[2].args[0].name_hint
    xs, ys, zs = (np.random.rand(*s).astype("float32") for s in ((3, 4), (3, 4), (8, 4)))
    vm = relax.VirtualMachine(tvm.compile(mod, target="llvm"), tvm.cpu())
    got, got_z = vm["main"](xs, ys, zs)
    np.testing.assert_allclose(got.numpy(), (xs + 1) * (ys + 1) * 2, rtol=1e-6)
    np.testing.assert_allclose(got_z.numpy(), zs + 1, rtol=1e-6)


def test_loop_nests_compare_equal_on_their_own() -> None:
    def nest():
        i = tir.Var("i", "int64")
        buf = tir.decl_buffer((8,), "float32", name="A")
        store = tir.BufferStore(buf, tir.const(1.0, "float32"), (i,))
        return tir.For(i, tir.const(0, "int64"), tir.const(8, "int64"), tir.ForKind.SERIAL,
                       store), buf

    (a, buf), (b, _) = nest(), nest()
    assert not tvm.ir.structural_equal(a, b)  # the buffer is free: different ones differ
    b_same_buf = tir.For(b.loop_var, b.min, b.extent, b.kind,
                         tir.BufferStore(buf, b.body.value, b.body.indices))
    assert tvm.ir.structural_equal(a, b_same_buf)  # the loop var is defined by the loop


def test_tir_var_spellings_and_identity() -> None:
    m = tir.Var("m", ty="int64")
    assert m.dtype == "int64" and m.same_as(m) and not m.same_as(tir.Var("m", "int64"))
    assert tir.is_buffer_var(tir.Var("h", "handle")) and not tir.is_buffer_var(m)
    x = relax.Var("x", R.Tensor((2,), "float32"))
    assert x.same_as(x)


def test_block_regions_define_their_buffers_as_tvm() -> None:
    # apache-tvm 0.27: a block's read/write regions define their buffers, so the bodies of two
    # te functions over different placeholders are equal; a bare load of a free buffer is not
    def body(name: str):
        a = te.placeholder((4,), "float32", name=name)
        out = te.compute((4,), lambda i: a[i] + 1.0, name="out")
        return te.create_prim_func([a, out]).body, a

    (x, buf_x), (y, buf_y) = body("x"), body("A")
    assert tvm.ir.structural_equal(x, y)
    assert tvm.ir.structural_hash(x) == tvm.ir.structural_hash(y)
    zero = (tir.const(0, "int32"),)
    assert not tvm.ir.structural_equal(tir.BufferLoad(buf_x, zero), tir.BufferLoad(buf_y, zero))
