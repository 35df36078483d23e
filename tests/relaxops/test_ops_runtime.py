"""The `relax.op.base` operators that run without a kernel (ir/ops/runtime_ops.py): shapes as
values, size, device hints, wrap_param, the packed-call forms; values against numpy, printed
forms against what TVM 0.27 prints, struct-info errors naming the operator."""

import numpy as np
import pytest

import tvmlite as tvm
from tvmlite import relax
from tvmlite.ir import assert_structural_equal
from tvmlite.script import from_source
from tvmlite.script import ir as I
from tvmlite.script import relax as R


@I.ir_module
class Shapes:
    @R.function
    def main(x: R.Tensor(("n", 3), "float32")):
        s = R.shape_of(x)
        t = R.shape_to_tensor(s)
        sz = R.size(x)
        h = R.hint_on_device(x, R.cpu())
        p = R.builtin.stop_lift_params(h)
        w = R.wrap_param(p, "float16")
        u = R.tensor_to_shape(t)
        z = R.null_value()
        return (s, t, sz, w, u, z)


def _run(mod, *args):
    ex = relax.build(relax.transform.LegalizeOps()(mod), target="llvm")
    return relax.VirtualMachine(ex, tvm.cpu())["main"](*args)


def test_shape_values_size_and_casts_against_numpy():
    x = np.arange(15, dtype="float32").reshape(5, 3)
    s, t, sz, w, u, z = _run(Shapes, tvm.nd.array(x))
    assert tuple(s) == x.shape and tuple(u) == x.shape and z is None
    np.testing.assert_array_equal(t.numpy(), np.array(x.shape, "int64"))
    assert sz.numpy().shape == () and int(sz.numpy()) == x.size
    np.testing.assert_array_equal(w.numpy(), x.astype("float16"))
    assert w.numpy().dtype == np.float16


def test_struct_info_of_each_call():
    f = Shapes["main"]
    sinfo = {b.var.name_hint: b.var.struct_info for b in f.body.blocks[0].bindings}
    assert R.Shape(["n", 3]).ndim == sinfo["s"].ndim == 2
    assert sinfo["t"] == R.Tensor((2,), "int64")
    assert sinfo["sz"] == R.Tensor((), "int64")
    assert sinfo["w"].dtype == "float16" and sinfo["u"] == R.Shape(ndim=2)
    assert isinstance(sinfo["z"], type(R.Object()))


PACKED = '''
# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function(pure=False)
    def main(x: R.Tensor((2, 3), dtype="float32")) -> R.Tensor((2, 3), dtype="float32"):
        cls = Module
        y = R.call_inplace_packed("test.rscript.add_one", x, inplace_indices=[0], \
ty_args=(R.Tensor((2, 3), dtype="float32"),))
        c = R.make_closure(cls.g, (x,))
        r = R.invoke_closure(c, (y,), ty_args=(R.Tensor((2, 3), dtype="float32"),))
        d = R.dtype("float32")
        h = R.hint_on_device(y, R.device(device_type=1, index=0), "global")
        return h

    @R.function
    def g(x: R.Tensor((2, 3), dtype="float32"), y: R.Tensor((2, 3), dtype="float32")) \
-> R.Tensor((2, 3), dtype="float32"):
        return x
'''


def test_packed_forms_print_as_tvm_and_parse_back():
    mod = from_source(PACKED)
    text = mod.script(show_all_struct_info=False)
    for line in PACKED.strip().splitlines()[5:]:  # TVM 0.27's printed calls, verbatim
        if "= R." in line:
            assert line.replace("\\", "").strip() in text.replace("\n", " "), line
    assert_structural_equal(from_source(text), mod)


def test_call_inplace_packed_runs_the_registered_function():
    def add_one(x):
        x.copyfrom(x.numpy() + 1)
        return x

    tvm.register_func("test.rscript.add_one", add_one, override=True)

    @I.ir_module
    class Inplace:
        @R.function(pure=False)
        def main(x: R.Tensor((2, 3), "float32")):
            y = R.call_inplace_packed("test.rscript.add_one", x, inplace_indices=0,
                                      sinfo_args=R.Tensor((2, 3), "float32"))
            s = R.shape_of(y)
            return (y, s)

    x = np.arange(6, dtype="float32").reshape(2, 3)
    y, s = _run(Inplace, tvm.nd.array(x))
    np.testing.assert_array_equal(y.numpy(), x + 1)
    assert tuple(s) == (2, 3)


def test_errors_name_the_operator():
    sv = relax.Var("s", R.Shape([2, 3]))
    with pytest.raises(ValueError, match="R.shape_of: the input must be a tensor"):
        relax.op.shape_of(sv)
    t2 = relax.Var("t", R.Tensor((2, 2), "int64"))
    with pytest.raises(ValueError, match="R.tensor_to_shape: the input must be a 1-d tensor"):
        relax.op.tensor_to_shape(t2)
    x = relax.Var("x", R.Tensor((2,), "float32"))
    with pytest.raises(ValueError, match="shape_to_tensor: the input must be a shape"):
        relax.op.shape_to_tensor(x)
    with pytest.raises(ValueError, match=r"inplace_indices \[3\] must name one argument"):
        relax.op.call_inplace_packed("f", x, inplace_indices=[3], sinfo_args=R.Tensor((2,)))


def test_parse_error_is_located():
    src = '''
@R.function
def f(x: R.Tensor((4,), "float32")):
    s = R.tensor_to_shape(x)
    return s
'''
    with pytest.raises(tvm.error.DiagnosticError, match="must hold integers") as info:
        from_source(src)
    assert ":4:9" in str(info.value)  # the line and column of the call


def test_closure_of_the_packed_module_runs():
    """`g` closed over `x` and invoked on `y` returns its first argument: the captured `x`."""
    def add_one(x):
        x.copyfrom(x.numpy() + 1)
        return x

    tvm.register_func("test.rscript.add_one", add_one, override=True)
    mod = from_source(PACKED.replace("        return h\n", "        return r\n", 1))
    vm = relax.VirtualMachine(relax.build(mod, target="llvm"), tvm.cpu())
    x = np.arange(6, dtype="float32").reshape(2, 3)
    out = vm["main"](tvm.runtime.tensor(x.copy()))
    np.testing.assert_array_equal(out.numpy(), x + 1)  # x itself was updated in place


def test_reshape_to_a_shape_computed_at_run_time():
    @I.ir_module
    class ToRuntimeShape:
        @R.function
        def main(data: R.Tensor((24,), "float32"), dims: R.Tensor((2,), "int64")):
            with R.dataflow():
                s: R.Shape(ndim=2) = R.tensor_to_shape(dims)
                gv: R.Tensor(ndim=2, dtype="float32") = R.reshape(data, s)
                R.output(gv)
            return gv

    out_sinfo = ToRuntimeShape["main"].body.blocks[0].bindings[1].value.struct_info
    assert out_sinfo.ndim == 2 and out_sinfo.shape is None  # as TVM infers it
    vm = relax.VirtualMachine(tvm.compile(ToRuntimeShape), tvm.cpu())
    data = np.arange(24, dtype="float32")
    for dims in ([4, 6], [3, 8]):
        out = vm["main"](tvm.runtime.tensor(data), tvm.runtime.tensor(np.array(dims, "int64")))
        np.testing.assert_array_equal(out.numpy(), data.reshape(dims))
