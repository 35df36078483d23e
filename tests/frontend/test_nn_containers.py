"""nn.ParameterList / nn.ParameterDict naming, and nn.Mutator rewriting a model in place."""

import numpy as np
import pytest

import tvmlite as tvm
from tvmlite import relax
from tvmlite.relax.frontend import nn


class Model(nn.Module):
    def __init__(self):
        self.biases = nn.ParameterList([nn.Parameter((4,), "float32"),
                                        nn.Parameter((4,), "float32")])
        self.scales = nn.ParameterDict({"main": nn.Parameter((4,), "float32")})
        self.blocks = nn.ModuleList([nn.Linear(4, 4, bias=False)])

    def forward(self, x):
        return self.blocks[0](x + self.biases[0] + self.biases[1]) * self.scales["main"]


def test_container_parameters_are_named_by_index_and_key_and_run():
    mod, params = Model().export_tvm({"forward": {"x": nn.spec.Tensor((2, 4), "float32")}})
    names = [n for n, _ in params]
    assert names == ["biases.0", "biases.1", "scales.main", "blocks.0.weight"]
    rng = np.random.default_rng(0)
    x, b0, b1, s = (rng.standard_normal(sh).astype("float32") for sh in [(2, 4), 4, 4, 4])
    w = rng.standard_normal((4, 4)).astype("float32")
    vm = relax.VirtualMachine(tvm.compile(mod, "llvm"), tvm.cpu())
    got = vm["forward"](*(tvm.nd.array(a) for a in (x, b0, b1, s, w))).numpy()
    np.testing.assert_allclose(got, ((x + b0 + b1) @ w.T) * s, rtol=1e-5, atol=1e-5)


def test_containers_check_what_they_hold():
    with pytest.raises(TypeError, match="nn.Parameter"):
        nn.ParameterList([np.zeros(4)])
    with pytest.raises(TypeError, match="keys are strings"):
        nn.ParameterDict({1: nn.Parameter((4,), "float32")})


def test_mutator_replaces_parameters_and_modules_by_dotted_name():
    seen = []

    class ToHalf(nn.Mutator):
        def visit_param(self, name, node):
            seen.append(name)
            return nn.Parameter(node.shape, "float16")

        def visit_module(self, name, node):
            return nn.Identity() if isinstance(node, nn.Linear) else self.visit(name, node)

    model = ToHalf().visit("", Model())
    assert seen == ["biases.0", "biases.1", "scales.main"]
    assert isinstance(model.blocks[0], nn.Identity)
    assert [p.dtype for p in model.parameters()] == ["float16"] * 3


def test_from_const_narrows_numpy_defaults_as_tvm():
    assert nn.Tensor.from_const(np.random.rand(1, 10)).dtype == "float32"
    assert nn.Tensor.from_const(np.arange(3)).dtype == "int32"
    assert nn.Tensor.from_const(np.ones(2, "float16")).dtype == "float16"


def test_packed_params_come_as_one_tuple_and_effect_mode_none_drops_io():
    layer = nn.Linear(4, 3, bias=False)
    spec = {"forward": {"x": nn.spec.Tensor((2, 4), "float32"),
                        "$": {"param_mode": "packed", "effect_mode": "none"}}}
    mod, params = layer.export_tvm(spec, debug=True)
    _, packed = mod["forward"].params  # no _io: effect_mode none
    assert packed.name_hint == "packed_params" and len(packed.struct_info.fields) == 1
    w = np.arange(12, dtype="float32").reshape(3, 4)
    xv = np.ones((2, 4), "float32")
    vm = relax.VirtualMachine(tvm.compile(mod, "llvm"), tvm.cpu())
    got = vm["forward"](tvm.nd.array(xv), (tvm.nd.array(w),)).numpy()
    np.testing.assert_allclose(got, xv @ w.T)
    with pytest.raises(ValueError, match="param_mode is one of"):
        layer.export_tvm({"forward": {"x": nn.spec.Tensor((2, 4), "float32"),
                                      "$": {"param_mode": "bundled"}}})


def test_define_subroutine_makes_private_functions_that_run():
    class Act(nn.Module):
        define_subroutine = True

        def forward(self, x):
            return nn.op.relu(x)

    class Layer(nn.Module):
        define_subroutine = True

        def __init__(self, i, o):
            self.w = nn.Parameter((i, o), "float32")
            self.act = Act()

        def forward(self, x):
            return self.act(nn.op.matmul(x, self.w))

    class Net(nn.Module):
        def __init__(self):
            self.a, self.b = Layer(4, 4), Layer(4, 4)

        def forward(self, x):
            return self.b(self.a(x))

    mod, _ = Net().export_tvm({"forward": {"x": nn.spec.Tensor(("n", 4), "float32")}})
    private = sorted(gv.name_hint for gv, f in mod.functions.items()
                     if gv.name_hint != "forward")
    assert private == ["act", "layer"]  # one per class and shapes, shared by a and b
    n = mod["forward"].params[0].struct_info.shape[0]
    assert mod["layer"].params[0].struct_info.shape[0] is not n  # its own symbolic var
    rng = np.random.default_rng(3)
    x, wa, wb = (rng.standard_normal(s).astype("float32") for s in ((5, 4), (4, 4), (4, 4)))
    vm = relax.VirtualMachine(tvm.compile(mod, "llvm"), tvm.cpu())
    got = vm["forward"](*(tvm.nd.array(a) for a in (x, wa, wb))).numpy()
    np.testing.assert_allclose(got, np.maximum(np.maximum(x @ wa, 0) @ wb, 0), rtol=1e-5)
