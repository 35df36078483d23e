"""Module.jit (torch in, torch out), tuple and int inputs, and the debug effect's
nn.op.print_ / nn.op.debug_func, checked against torch / numpy and the values seen."""

import numpy as np
import pytest

import tvmlite as tvm
from tvmlite import relax, tir
from tvmlite.relax.frontend import nn

torch = pytest.importorskip("torch")


class TupleLayer(nn.Module):
    def forward(self, x):
        return nn.add(x[0], x[1]), nn.reshape(x[0], (5, x[2], 5))


@pytest.mark.parametrize("debug", [False, True])
def test_jit_tuple_input_with_an_int(debug):
    spec = {"forward": {"x": (nn.spec.Tensor([10, 5], "float32"),
                              nn.spec.Tensor([10, 5], "float32"), int)}}
    model = TupleLayer().jit(spec=spec, debug=debug)
    a, b = torch.rand(10, 5), torch.rand(10, 5)
    added, reshaped = model["forward"]((a, b, 2))
    assert isinstance(added, torch.Tensor)
    torch.testing.assert_close(added, a + b)
    torch.testing.assert_close(reshaped, a.reshape(5, 2, 5))


def test_jit_uses_the_bound_weights():
    layer = nn.Linear(4, 3, bias=False)
    w = np.arange(12, dtype="float32").reshape(3, 4)
    layer.weight.data = w
    model = layer.jit(spec={"forward": {"x": nn.spec.Tensor([2, 4], "float32")}})
    x = torch.rand(2, 4)
    np.testing.assert_allclose(model["forward"](x).numpy(), x.numpy() @ w.T, rtol=1e-5)


def test_jit_refuses_parameters_without_data():
    with pytest.raises(ValueError, match=r"\['weight'\] have no data"):
        nn.Linear(4, 3, bias=False).jit(spec={"forward": {"x": nn.spec.Tensor([2, 4],
                                                                               "float32")}})


def test_a_tuple_parameter_is_checked_and_binds_its_symbolic_dims():
    mod, _ = TupleLayer().export_tvm({"forward": {"x": (
        nn.spec.Tensor(["n", 5], "float32"), nn.spec.Tensor(["n", 5], "float32"), int)}})
    vm = relax.VirtualMachine(tvm.compile(mod, "llvm"), tvm.cpu())
    a = np.ones((10, 5), "float32")
    out = vm["forward"]((tvm.nd.array(a), tvm.nd.array(a), tvm.runtime.ShapeTuple([2])))
    assert out[1].shape == (5, 2, 5)
    with pytest.raises(ValueError, match=r"x\[2\]"):
        vm["forward"]((tvm.nd.array(a), tvm.nd.array(a), tvm.nd.array(a)))
    with pytest.raises(ValueError, match="tuple of 3 values"):
        vm["forward"]((tvm.nd.array(a), tvm.nd.array(a)))


def test_debug_func_sees_the_call_site_and_values_and_print_prints(capsys):
    seen = []

    @tvm.register_func("tests.nn_jit.debug_probe", override=True)
    def probe(line, tensor, i, f, s, v):
        seen.append((line, tensor.numpy().copy(), i, f, s, v))

    class Layer(nn.Module):
        def forward(self, x, v: tir.Var):
            nn.op.debug_func("tests.nn_jit.debug_probe", x, 1, 2.5, "text", v)
            nn.op.print_(x)
            return x

    model = Layer().jit(spec={"forward": {"x": nn.spec.Tensor([2, 3], "float32"),
                                          "v": int}}, debug=True)
    x = torch.arange(6, dtype=torch.float32).reshape(2, 3)
    model["forward"](x, 8)
    (line, tensor, i, f, s, v), = seen
    assert "test_nn_jit.py" in line and (i, f, s, v) == (1, 2.5, "text", 8)
    np.testing.assert_array_equal(tensor, x.numpy())
    assert "[[0. 1. 2.]" in capsys.readouterr().out


def test_print_without_the_debug_effect_says_how_to_get_it():
    class Layer(nn.Module):
        def forward(self, x):
            nn.op.print_(x)
            return x

    with pytest.raises(RuntimeError, match="debug=True"):
        Layer().export_tvm({"forward": {"x": nn.spec.Tensor([2], "float32")}})


def test_kv_cache_grows_across_calls_and_views_its_rows():
    class Layer(nn.Module):
        def __init__(self):
            self.cache = nn.KVCache(2, [3, 4])  # reserves 2 rows: the third append grows it

        def forward(self, x, total: tir.Var):
            self.cache.append(x)
            return self.cache.view(total)

    model = Layer().jit(spec={"forward": {"x": nn.spec.Tensor([1, 3, 4], "float32"),
                                          "total": int}})
    rows = [torch.rand(1, 3, 4) for _ in range(3)]
    for i, row in enumerate(rows):
        got = model["forward"](row, i + 1)
        torch.testing.assert_close(got, torch.cat(rows[:i + 1]))


def test_kv_cache_view_past_its_rows_is_an_error():
    class Layer(nn.Module):
        def __init__(self):
            self.cache = nn.KVCache(4, [2])

        def forward(self, x, total: tir.Var):
            self.cache.append(x)
            return self.cache.view(total)

    model = Layer().jit(spec={"forward": {"x": nn.spec.Tensor([2], "float32"), "total": int}})
    with pytest.raises(ValueError, match="more than the cache holds"):
        model["forward"](torch.ones(2), 3)
