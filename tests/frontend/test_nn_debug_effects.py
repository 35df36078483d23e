"""`export_tvm(debug=True)`: TVM's effect state `_io` threaded through every exported method
(an input after the others, returned beside the result) and `_initialize_effect()`."""

import numpy as np

import tvmlite as tvm
from tvmlite import relax
from tvmlite.relax.frontend import nn
from tvmlite.relax.frontend.nn import spec


class Net(nn.Module):
    def __init__(self) -> None:
        self.fc = nn.Linear(4, 3)

    def forward(self, x: nn.Tensor) -> nn.Tensor:
        return self.fc(x)


def test_debug_export_threads_the_effect_state() -> None:
    mod, params = Net().export_tvm(spec={"forward": {"x": spec.Tensor((2, 4), "float32")}},
                                   debug=True)
    forward = mod["forward"]
    assert [p.name_hint for p in forward.params] == ["x", "_io", "fc_weight", "fc_bias"]
    assert dict(forward.attrs)["num_input"] == 2
    ret = forward.ret_struct_info
    assert isinstance(ret, relax.TupleStructInfo) and len(ret.fields) == 2
    assert "_initialize_effect" in [gv.name_hint for gv in mod.get_global_vars()]

    vm = relax.VirtualMachine(tvm.compile(mod, target="llvm"), tvm.cpu())
    (state,) = vm["_initialize_effect"]()
    x = np.random.rand(2, 4).astype("float32")
    w = np.random.rand(3, 4).astype("float32")
    b = np.random.rand(3).astype("float32")
    out, (state_after,) = vm["forward"](x, state, w, b)
    np.testing.assert_allclose(out.numpy(), x @ w.T + b, rtol=1e-5)
    assert state is None and state_after is None  # R.null_value(), as in TVM
