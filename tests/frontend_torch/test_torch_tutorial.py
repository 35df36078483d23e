"""TVM's "IRModule" tutorial import of a PyTorch MLP, on tvmlite with only the imports
changed; the printed module against what TVM 0.27 prints for the same model; the options
keep_params_as_input / unwrap_unit_return_tuple / no_bind_return_tuple and detach_params."""

import os
import sys

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import tvmlite as tvm  # noqa: E402
from tvmlite import relax  # noqa: E402
from tvmlite.relax.frontend import detach_params  # noqa: E402
from tvmlite.relax.frontend.torch import from_exported_program  # noqa: E402
from tvmlite.ir import expr as rx  # noqa: E402
from tvmlite.ir import struct_info as si  # noqa: E402
from tvmlite.ir.structural import assert_structural_equal  # noqa: E402
from tvmlite.script import from_source  # noqa: E402

sys.path.insert(0, os.path.dirname(__file__))
from torch_frontend_models import TorchModel, export_model, run_relax, run_torch  # noqa: E402

pytestmark = pytest.mark.filterwarnings("ignore:.*LeafSpec:FutureWarning")

# What TVM 0.27 prints (mod.script()) for the tutorial's import, after detach_params.
TVM_TEXT = '''\
# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((1, 784), dtype="float32"), p_fc1_weight: R.Tensor((256, 784), dtype="float32"), p_fc1_bias: R.Tensor((256,), dtype="float32"), p_fc2_weight: R.Tensor((10, 256), dtype="float32"), p_fc2_bias: R.Tensor((10,), dtype="float32")) -> R.Tensor((1, 10), dtype="float32"):
        R.func_attr({"num_input": 1})
        with R.dataflow():
            lv: R.Tensor((784, 256), dtype="float32") = R.permute_dims(p_fc1_weight, axes=[1, 0])
            lv1: R.Tensor((1, 256), dtype="float32") = R.matmul(x, lv, out_dtype="float32")
            lv2: R.Tensor((1, 256), dtype="float32") = R.add(p_fc1_bias, lv1)
            lv3: R.Tensor((1, 256), dtype="float32") = R.nn.relu(lv2)
            lv4: R.Tensor((256, 10), dtype="float32") = R.permute_dims(p_fc2_weight, axes=[1, 0])
            lv5: R.Tensor((1, 10), dtype="float32") = R.matmul(lv3, lv4, out_dtype="float32")
            lv6: R.Tensor((1, 10), dtype="float32") = R.add(p_fc2_bias, lv5)
            gv: R.Tensor((1, 10), dtype="float32") = lv6
            R.output(gv)
        return gv
'''  # noqa: E501


@pytest.fixture(scope="module")
def model():
    torch.manual_seed(0)
    return TorchModel().eval()


@pytest.fixture(scope="module")
def exported(model):
    return export_model(model, (torch.randn(1, 784, dtype=torch.float32),))


def test_tutorial_flow(model, exported, capsys):
    # the tutorial's lines, verbatim but for the imports
    with torch.no_grad():
        mod_from_torch = from_exported_program(exported, keep_params_as_input=True,
                                               unwrap_unit_return_tuple=True)
    mod_from_torch, params_from_torch = detach_params(mod_from_torch)
    mod_from_torch.show()
    mod = relax.transform.LegalizeOps()(mod_from_torch)
    mod = relax.get_pipeline("zero")(mod)
    exec = tvm.compile(mod, target="llvm")
    vm = relax.VirtualMachine(exec, tvm.cpu())
    raw = np.random.default_rng(0).random((1, 784)).astype("float32")
    data = tvm.runtime.tensor(raw, tvm.cpu())
    cpu_out = vm["main"](data, *params_from_torch["main"]).numpy()

    assert "R.matmul(x, lv, out_dtype=\"float32\")" in capsys.readouterr().out
    np.testing.assert_allclose(cpu_out, run_torch(model, torch.from_numpy(raw))[0],
                               rtol=1e-4, atol=1e-5)


def test_module_matches_tvm(exported):
    mod = from_exported_program(exported, keep_params_as_input=True,
                                unwrap_unit_return_tuple=True)
    mod, _ = detach_params(mod)
    # the same IR as TVM's text, read back by tvmlite's parser
    assert_structural_equal(mod, from_source(TVM_TEXT))
    # and the same text (every binding annotated, as TVM prints by default)
    tvm_text = TVM_TEXT.split("with R.dataflow():")[1]
    assert mod.script().split("with R.dataflow():")[1].strip() == tvm_text.strip()
    assert mod.script().split("with R.dataflow():")[0] == \
        TVM_TEXT.split("with R.dataflow():")[0]


def test_keep_params_as_input(model, exported):
    mod = from_exported_program(exported, keep_params_as_input=True)
    main = mod["main"]
    assert [p.name_hint for p in main.params] == \
        ["x", "p_fc1_weight", "p_fc1_bias", "p_fc2_weight", "p_fc2_bias"]
    assert main.attrs["num_input"] == 1
    values = main.attrs["params"]
    for value, name in zip(values, ["fc1.weight", "fc1.bias", "fc2.weight", "fc2.bias"]):
        np.testing.assert_array_equal(value.numpy(), model.state_dict()[name].numpy())
    # not unwrapped: main returns a 1-tuple
    assert isinstance(main.ret_struct_info, si.TupleStructInfo)

    detached, params = detach_params(mod)
    assert "params" not in detached["main"].attrs
    assert list(params) == ["main"] and params["main"] == list(values)
    assert detach_params(detached)[1] == {}  # nothing left to detach

    x = torch.randn(1, 784)
    got = run_relax(detached, x, *params["main"])
    np.testing.assert_allclose(got[0], run_torch(model, x)[0], rtol=1e-4, atol=1e-5)


def test_params_bound_as_constants(model, exported):
    mod = from_exported_program(exported)  # keep_params_as_input=False: weights are constants
    main = mod["main"]
    assert [p.name_hint for p in main.params] == ["x"]
    assert "params" not in main.attrs and "num_input" not in main.attrs
    assert detach_params(mod)[1] == {}
    x = torch.randn(1, 784)
    np.testing.assert_allclose(run_relax(mod, x)[0], run_torch(model, x)[0],
                               rtol=1e-4, atol=1e-5)


def test_return_tuple_options(exported):
    core = exported.run_decompositions()  # once, not in each import

    def main(**options):
        return from_exported_program(core, run_ep_decomposition=False, **options)["main"]

    unwrapped = main(unwrap_unit_return_tuple=True)
    assert unwrapped.ret_struct_info == si.TensorStructInfo((1, 10), "float32")
    bound = main()
    assert isinstance(bound.body.body, rx.Var)  # gv = (lv6,); return gv
    unbound = main(no_bind_return_tuple=True)
    assert isinstance(unbound.body.body, rx.Tuple)  # gv = lv6; return (gv,)
    assert isinstance(unbound.ret_struct_info, si.TupleStructInfo)
