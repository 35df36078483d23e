"""call_tir_with_grad: a te kernel whose gradient is a registered te function."""

from __future__ import annotations

import numpy as np
import pytest

import tvmlite as tvm
from tvmlite import relax, te
from tvmlite.relax.training.utils import register_te_gradient
from tvmlite.script import from_source


def _cube(x: te.Tensor) -> te.Tensor:
    return te.compute(x.shape, lambda *i: x[i] * x[i] * x[i], name="cube")


@register_te_gradient("tvmlite_test_cube_grad")
def _cube_grad(g: te.Tensor, x: te.Tensor, scale: object) -> list[te.Tensor]:
    # `scale` arrives from te_grad_kwargs; 3 * x^2 * g is the true gradient when scale is 3
    return [te.compute(x.shape, lambda *i: scale * x[i] * x[i] * g[i], name="cube_grad")]


def _module() -> tvm.IRModule:
    x = relax.Var("x", relax.TensorStructInfo((2, 3), "float32"))
    bb = relax.BlockBuilder()
    with bb.function("main", [x]):
        with bb.dataflow():
            y = bb.emit(bb.call_te_with_grad(_cube, x, te_grad_name="tvmlite_test_cube_grad",
                                             te_grad_kwargs={"scale": tvm.tir.const(3.0,
                                                                                    "float32")},
                                             primfunc_name_hint="cube"))
            out = bb.emit_output(relax.op.sum(y))
        bb.emit_func_output(out)
    return bb.get()


def test_call_tir_with_grad_prints_parses_and_runs_as_call_tir() -> None:
    mod = _module()
    text = mod.script()
    assert 'te_grad_name="tvmlite_test_cube_grad", te_grad_kwargs={"scale": ' in text
    tvm.ir.assert_structural_equal(from_source(text), mod)
    vm = relax.VirtualMachine(relax.build(mod, target="llvm"), tvm.cpu())
    x = np.arange(6, dtype="float32").reshape(2, 3) / 4
    np.testing.assert_allclose(vm["main"](tvm.nd.array(x)).numpy(), np.sum(x ** 3), rtol=1e-6)


def test_gradient_emits_the_registered_te_gradient() -> None:
    after = relax.transform.Gradient("main")(_module())
    assert "tvmlite_test_cube_grad" in after.names()  # the kernel is named after it
    ops = [b.value.op.name for b in after["main_adjoint"].body.blocks[0].bindings
           if isinstance(b.value, relax.Call) and isinstance(b.value.op, tvm.ir.Op)]
    assert "relax.call_tir_with_grad" not in ops and ops.count("relax.call_tir") == 2
    vm = relax.VirtualMachine(relax.build(after, target="llvm"), tvm.cpu())
    x = np.linspace(-1, 1, 6, dtype="float32").reshape(2, 3)
    loss, (gx,) = vm["main_adjoint"](tvm.nd.array(x))
    np.testing.assert_allclose(loss.numpy(), np.sum(x ** 3), rtol=1e-6)
    np.testing.assert_allclose(gx.numpy(), 3 * x ** 2, rtol=1e-6)


def test_plain_call_tir_and_unknown_te_gradients_are_refused() -> None:
    mod = _module()
    plain = relax.transform.LegalizeOps()(mod)  # call_tir_with_grad -> call_tir
    with pytest.raises(RuntimeError, match="call_tir has no gradient"):
        relax.transform.Gradient("main")(plain)
    text = mod.script().replace("tvmlite_test_cube_grad", "tvmlite_test_missing_grad")
    with pytest.raises(RuntimeError, match="tvmlite_test_missing_grad"):
        relax.transform.Gradient("main")(from_source(text))


def test_call_tir_with_grad_attrs_read_like_tvms() -> None:
    call = _module()["main"].body.blocks[0].bindings[0].value
    assert call.attrs.te_grad_name == "tvmlite_test_cube_grad"
    ((key, value),) = call.attrs.te_grad_kwargs.items()
    assert key == "scale" and float(value.value) == 3.0
