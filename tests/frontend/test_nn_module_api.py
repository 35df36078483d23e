"""The nn.Module API (parameters, state_dict, data, dtype) and its error messages."""

import numpy as np
import pytest

import tvmlite as tvm
from tvmlite import relax
from tvmlite.relax.frontend import nn


class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(4, 8)
        self.act = nn.ReLU()
        self.fc2 = nn.Linear(8, 2, bias=False)

    def forward(self, x):
        return self.fc2(self.act(self.fc1(x)))


SPEC = {"forward": {"x": nn.spec.Tensor((1, 4), "float32")}}


def test_import_paths():
    import tvmlite.relax.frontend.nn as nn2
    from tvmlite import frontend

    assert nn2 is nn is relax.frontend.nn  # the facade's thin module, on TVM's path
    for name in frontend.nn.__all__:  # holding the layer's very objects, not copies
        assert getattr(nn, name) is getattr(frontend.nn, name), name
    from tvmlite.relax.frontend.nn.spec import Tensor as SpecTensor

    assert SpecTensor is frontend.nn.spec.Tensor
    assert relax.frontend.detach_params is frontend.detach_params
    assert nn.op.matmul is nn.matmul and nn.spec.Tensor((1,), "float32").dtype == "float32"


def test_parameters_are_found_in_attribute_order():
    m = MLP()
    assert [n for n, _ in m.named_parameters()] == ["fc1.weight", "fc1.bias", "fc2.weight"]
    assert list(m.state_dict()) == ["fc1.weight", "fc1.bias", "fc2.weight"]
    assert [p.shape for p in m.parameters()] == [[8, 4], [8], [2, 8]]
    assert [n for n, _ in m.named_modules()] == ["", "fc1", "act", "fc2"]


def test_containers_name_by_index_and_key():
    class Net(nn.Module):
        def __init__(self):
            self.blocks = nn.ModuleList([nn.Linear(2, 2), nn.LayerNorm(2)])
            self.heads = nn.ModuleDict({"a": nn.Linear(2, 1, bias=False)})

    names = [n for n, _ in Net().named_parameters()]
    assert names == ["blocks.0.weight", "blocks.0.bias", "blocks.1.weight", "blocks.1.bias",
                     "heads.a.weight"]


def test_parameter_data_is_checked():
    p = nn.Parameter((2, 3))
    assert p.dtype == "float32" and p.data is None and p.ndim == 2
    p.data = np.ones((2, 3), "float32")
    assert isinstance(p.data, tvm.nd.NDArray)
    with pytest.raises(ValueError, match=r"shape \(3, 2\), expected \(2, 3\)"):
        p.data = np.ones((3, 2), "float32")
    with pytest.raises(ValueError, match="dtype float64, expected float32"):
        p.data = np.ones((2, 3))
    with pytest.raises(TypeError, match="numpy array, an NDArray or a DLPack"):
        p.data = [[1, 2, 3]]


def test_load_state_dict_binds_data_and_reports_keys():
    m = MLP()
    weights = {n: np.full(p.shape, 0.5, "float32") for n, p in m.named_parameters()}
    assert m.load_state_dict(weights) == ([], [])
    assert np.all(m.fc1.weight.data.numpy() == 0.5)
    with pytest.raises(KeyError, match=r"missing keys \['fc2.weight'\], unexpected keys "
                                       r"\['fc3.weight'\]"):
        m.load_state_dict({"fc1.weight": weights["fc1.weight"],
                           "fc1.bias": weights["fc1.bias"], "fc3.weight": 1})


def test_to_changes_parameter_dtypes():
    m = MLP().to("float16")
    assert {p.dtype for p in m.parameters()} == {"float16"}
    mod, _ = m.export_tvm({"forward": {"x": nn.spec.Tensor((1, 4), "float16")}})
    assert 'fc1_weight: R.Tensor((8, 4), dtype="float16")' in mod.script()
    bound = MLP()
    bound.fc1.weight.data = np.zeros((8, 4), "float32")
    with pytest.raises(ValueError, match="bound to data"):
        bound.to("float16")


def test_linear_out_dtype_keeps_bias_in_out_dtype():
    lin = nn.Linear(4, 2, dtype="float16", out_dtype="float32").to("float16")
    assert (lin.weight.dtype, lin.bias.dtype) == ("float16", "float32")


def test_tensor_properties_inside_a_trace():
    seen = {}

    class Probe(nn.Module):
        def forward(self, x):
            seen.update(shape=x.shape, dtype=x.dtype, ndim=x.ndim, repr=repr(x))
            return x

    Probe().export_tvm({"forward": {"x": nn.spec.Tensor(("n", 3), "int32")}})
    n = seen["shape"][0]
    assert isinstance(n, tvm.tir.Var) and seen["shape"][1] == 3
    assert (seen["dtype"], seen["ndim"]) == ("int32", 2)


def test_symbolic_int_input_prints_as_a_shape_parameter():
    class Reshape(nn.Module):
        def forward(self, x, k: int):
            return nn.op.reshape(x, (k, -1))

    mod, _ = Reshape().export_tvm({"forward": {"x": nn.spec.Tensor((8,), "float32"),
                                               "k": nn.spec.Int()}})
    text = mod.script()
    assert 'k_1: R.Shape(["k"])' in text and 'R.Tensor(("k", "8 // k")' in text
    assert 'R.func_attr({"num_input": 2})' in text
    mod = relax.transform.LegalizeOps()(mod)
    x = np.arange(8, dtype="float32")
    for mode in ("interpreter", "closure", "auto"):
        vm = relax.VirtualMachine(relax.build(mod, target="llvm"), tvm.cpu(), mode=mode)
        np.testing.assert_array_equal(vm["forward"](x, tvm.runtime.ShapeTuple([2])).numpy(),
                                      x.reshape(2, 4))
        np.testing.assert_array_equal(vm["forward"](x, (4,)).numpy(), x.reshape(4, 2))
        with pytest.raises(ValueError, match="parameter 'k': expected a shape"):
            vm["forward"](x, 2)


# -- errors ---------------------------------------------------------------------------------------


def test_spec_naming_a_missing_method():
    with pytest.raises(AttributeError, match="the spec names method 'fwd', but MLP has no such "
                                             r"method \(its methods: forward\)"):
        MLP().export_tvm({"fwd": {"x": nn.spec.Tensor((1, 4), "float32")}})


def test_spec_missing_an_input():
    with pytest.raises(TypeError, match=r"spec of MLP.forward has no entry for argument\(s\) "
                                        r"\['x'\]"):
        MLP().export_tvm({"forward": {}})


def test_spec_naming_an_unknown_input():
    with pytest.raises(TypeError, match=r"names \['y'\], which MLP.forward\(x\) does not take"):
        MLP().export_tvm({"forward": {"x": nn.spec.Tensor((1, 4), "float32"),
                                      "y": nn.spec.Tensor((1, 4), "float32")}})


def test_spec_with_a_bad_entry():
    with pytest.raises(TypeError, match="nn.spec.Int or a tuple of them, got"):
        MLP().export_tvm({"forward": {"x": "float32"}})
    with pytest.raises(TypeError, match="dims are ints, names"):
        nn.spec.Tensor((1, 4.0), "float32")
    with pytest.raises(TypeError, match="spec is a dict from method name"):
        MLP().export_tvm(nn.spec.Tensor((1, 4), "float32"))


def test_linear_shape_mismatch_names_the_layer():
    with pytest.raises(ValueError, match=r"fc1 \(Linear\(4, 8\)\) expects in_features = 4 in "
                                         r"the last dimension of its input, got an input of "
                                         r"shape \(1, 5\)"):
        MLP().export_tvm({"forward": {"x": nn.spec.Tensor((1, 5), "float32")}})


def test_conv_channel_mismatch_names_the_layer():
    class Net(nn.Module):
        def __init__(self):
            self.body = nn.ModuleList([nn.Conv2D(3, 4, 3)])

        def forward(self, x):
            return self.body(x)

    with pytest.raises(ValueError, match=r"body.0 \(Conv2D\(3, 4, \(3, 3\)\)\) expects 3 input "
                                         r"channels"):
        Net().export_tvm({"forward": {"x": nn.spec.Tensor((1, 2, 8, 8), "float32")}})


def test_operator_errors_surface_as_value_errors():
    class Bad(nn.Module):
        def forward(self, x, y):
            return nn.op.matmul(x, y)

    with pytest.raises(ValueError, match="R.matmul"):
        Bad().export_tvm({"forward": {"x": nn.spec.Tensor((2, 3), "float32"),
                                      "y": nn.spec.Tensor((4, 5), "float32")}})


def test_ops_outside_export_say_so():
    m = MLP()
    with pytest.raises(RuntimeError, match="while Module.export_tvm traces a method"):
        m.fc1.weight * 2
    with pytest.raises(RuntimeError, match="while Module.export_tvm traces a method"):
        nn.op.zeros((2, 3))


def test_a_parameter_the_module_does_not_hold():
    stray = nn.Parameter((1, 4))

    class Leaky(nn.Module):
        def forward(self, x):
            return x + stray

    with pytest.raises(ValueError, match=r"Tensor\(\[1, 4\], \"float32\"\) is not a parameter "
                                         r"of the exported Leaky"):
        Leaky().export_tvm(SPEC)


def test_forward_returning_a_non_tensor():
    class Odd(nn.Module):
        def forward(self, x):
            return 3

    with pytest.raises(TypeError, match="Odd.forward must return nn.Tensor or a tuple of them, "
                                        "got int"):
        Odd().export_tvm(SPEC)


def test_debug_export_adds_the_effect_state():
    mod, _ = MLP().export_tvm(SPEC, debug=True)  # tests/frontend/test_nn_debug_effects.py
    assert mod["forward"].params[1].name_hint == "_io"


def test_a_failed_export_leaves_the_module_usable():
    m = MLP()
    with pytest.raises(ValueError):
        m.export_tvm({"forward": {"x": nn.spec.Tensor((1, 5), "float32")}})
    assert all(p._expr is None for p in m.parameters())
    mod, _ = m.export_tvm(SPEC)
    assert "forward" in [gv.name_hint for gv in mod.get_global_vars()]


def test_spec_dims_may_be_tir_vars_shared_across_inputs():
    # TVM's form: a tir.Var dim is that var itself, so two inputs given the same var agree
    from tvmlite import tir

    n = tir.Var("n", "int64")

    class Add(nn.Module):
        def forward(self, a, b):
            return a + b

    mod, _ = Add().export_tvm({"forward": {"a": nn.spec.Tensor((n, 4), "float32"),
                                           "b": nn.spec.Tensor((n, 4), "float32")}})
    a, b = mod["forward"].params
    assert a.struct_info.shape[0] is n and b.struct_info.shape[0] is n
    assert mod["forward"].body.body.struct_info.shape[0] is n
