"""The spine: MLC lecture 4's MLP from TVMScript to `vm["main"]`, in both syntax generations."""

import numpy as np
import pytest

import tvmlite as tvm
from tvmlite import relax

import lecture_modules as lecture
import new_syntax_modules as modern

RNG = np.random.default_rng(0)


def make_params() -> dict[str, np.ndarray]:
    shapes = {"w0": (128, 784), "b0": (128,), "w1": (10, 128), "b1": (10,)}
    # Scaled like trained weights (~1/sqrt(fan_in)) so float32 rounding stays near 1e-6.
    return {k: (RNG.standard_normal(s) * 0.05).astype("float32") for k, s in shapes.items()}


def numpy_mlp(data, w0, b0, w1, b1):
    return np.maximum(data @ w0.T + b0, 0) @ w1.T + b1


PARAMS = make_params()
ORDER = ("w0", "b0", "w1", "b1")


def nd_params() -> list:
    return [tvm.nd.array(PARAMS[k]) for k in ORDER]


@pytest.fixture(autouse=True)
def env_functions():
    """The lecture's external functions, registered as the lecture does (numpy for torch)."""

    @tvm.register_func("env.linear", override=True)
    def np_linear(x, w, b, out):
        x, w, b, out = (np.from_dlpack(t) for t in (x, w, b, out))
        np.matmul(x, w.T, out=out)
        np.add(out, b, out=out)

    @tvm.register_func("env.relu", override=True)
    def np_relu(x, out):
        np.maximum(np.from_dlpack(x), 0, out=np.from_dlpack(out))

    yield


@pytest.mark.parametrize("module", [lecture.MyModule, lecture.MyModuleWithExternCall,
                                    lecture.MyModuleMixture], ids=["tir", "extern", "mixture"])
def test_lecture_modules_match_numpy(module):
    data = RNG.standard_normal((1, 784)).astype("float32")
    ex = relax.vm.build(module, target="llvm")
    vm = relax.VirtualMachine(ex, tvm.cpu())
    out = vm["main"](tvm.nd.array(data), *nd_params())
    np.testing.assert_allclose(out.numpy(), numpy_mlp(data, *PARAMS.values()), rtol=1e-5,
                               atol=1e-5)


def test_register_func_with_torch_dlpack():
    torch = pytest.importorskip("torch")

    @tvm.register_func("env.linear", override=True)
    def torch_linear(x, w, b, out):
        x_t, w_t, b_t = torch.from_dlpack(x), torch.from_dlpack(w), torch.from_dlpack(b)
        out_t = torch.from_dlpack(out)
        torch.mm(x_t, w_t.T, out=out_t)
        torch.add(out_t, b_t, out=out_t)

    data = RNG.standard_normal((1, 784)).astype("float32")
    vm = relax.VirtualMachine(relax.vm.build(lecture.MyModuleMixture, "llvm"), tvm.cpu())
    out = vm["main"](tvm.nd.array(data), *nd_params())
    np.testing.assert_allclose(out.numpy(), numpy_mlp(data, *PARAMS.values()), rtol=1e-5,
                               atol=1e-5)


@pytest.mark.parametrize("as_numpy", [False, True])
def test_bind_params_leaves_only_the_data(as_numpy):
    params = {k: (v if as_numpy else tvm.nd.array(v)) for k, v in PARAMS.items()}
    bound = relax.transform.BindParams("main", params)(lecture.MyModuleMixture)
    assert [p.name_hint for p in bound["main"].params] == ["x"]
    vm = relax.VirtualMachine(relax.vm.build(bound, target="llvm"), tvm.cpu())
    data = RNG.standard_normal((1, 784)).astype("float32")
    np.testing.assert_allclose(vm["main"](tvm.nd.array(data)).numpy(),
                               numpy_mlp(data, *PARAMS.values()), rtol=1e-5, atol=1e-5)


def test_bind_params_rejects_unknown_names_and_bad_shapes():
    with pytest.raises(ValueError, match="no parameter named w9"):
        relax.transform.BindParams("main", {"w9": PARAMS["w0"]})(lecture.MyModule)
    with pytest.raises(ValueError, match="parameter w0 expects shape"):
        relax.transform.BindParams("main", {"w0": PARAMS["w1"]})(lecture.MyModule)


@pytest.mark.parametrize("batch", [1, 3, 8])
def test_one_executable_runs_any_batch(batch):
    ex = tvm.compile(modern.DynamicMLP, target="llvm")
    vm = relax.VirtualMachine(ex, tvm.cpu())
    data = RNG.standard_normal((batch, 784)).astype("float32")
    args = [tvm.runtime.tensor(data)] + [tvm.runtime.tensor(PARAMS[k]) for k in ORDER]
    out = vm["main"](*args)
    assert out.shape == (batch, 10)
    np.testing.assert_allclose(out.numpy(), numpy_mlp(data, *PARAMS.values()), rtol=1e-5,
                               atol=1e-5)


def test_new_syntax_static_module_with_call_dps_packed():
    vm = relax.VirtualMachine(relax.build(modern.StaticMLPNewSyntax, target="llvm"), tvm.cpu())
    data = RNG.standard_normal((1, 784)).astype("float32")
    out = vm["main"](data, *[PARAMS[k] for k in ORDER])  # numpy arrays are accepted too
    np.testing.assert_allclose(out.numpy(), numpy_mlp(data, *PARAMS.values()), rtol=1e-5,
                               atol=1e-5)


def test_call_packed_uses_the_return_value():
    @tvm.register_global_func("env.double", override=True)
    def double(x):
        return tvm.nd.array(np.from_dlpack(x) * 2)

    vm = relax.VirtualMachine(relax.build(modern.PackedCallModule, target="llvm"), tvm.cpu())
    data = RNG.standard_normal((2, 3)).astype("float32")
    np.testing.assert_allclose(vm["main"](tvm.nd.array(data)).numpy(), data * 2)


# -- bad input: a clear ValueError naming the parameter, never a kernel on the wrong memory --

@pytest.fixture(scope="module")
def lecture_vm():
    return relax.VirtualMachine(relax.vm.build(lecture.MyModule, target="llvm"), tvm.cpu())


def test_wrong_argument_count(lecture_vm):
    expected = (r"main\(x: R.Tensor\(\(1, 784\), 'float32'\), .*"
                r"b0: R.Tensor\(\(128,\), 'float32'\).*\) takes 5 arguments, got 1")
    with pytest.raises(ValueError, match=expected):
        lecture_vm["main"](tvm.nd.array(np.zeros((1, 784), "float32")))


@pytest.mark.parametrize("bad, message", [
    (np.zeros((784,), "float32"), r"'x'.*rank-2 tensor, got rank 1"),
    (np.zeros((1, 784), "float64"), r"'x': expected dtype float32, got float64"),
    (np.zeros((2, 784), "float32"), r"'x': expected shape\[0\] == 1, got 2"),
])
def test_wrong_tensor_argument(lecture_vm, bad, message):
    with pytest.raises(ValueError, match=message):
        lecture_vm["main"](tvm.nd.array(bad), *nd_params())


def test_wrong_static_dim_of_a_weight(lecture_vm):
    params = nd_params()
    params[1] = tvm.nd.array(np.zeros((64,), "float32"))  # b0 should be (128,)
    with pytest.raises(ValueError, match=r"b0"):
        lecture_vm["main"](tvm.nd.array(np.zeros((1, 784), "float32")), *params)


def test_symbolic_dims_must_agree():
    vm = relax.VirtualMachine(tvm.compile(modern.DynamicMLP, target="llvm"), tvm.cpu())
    bad_w0 = tvm.nd.array(np.zeros((128, 783), "float32"))
    args = [tvm.nd.array(np.zeros((2, 784), "float32")), bad_w0,
            *[tvm.nd.array(PARAMS[k]) for k in ORDER[1:]]]
    with pytest.raises(ValueError, match=r"w0"):
        vm["main"](*args)
