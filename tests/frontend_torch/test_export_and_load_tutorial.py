"""TVM's "Export and Load Relax Executables" how-to, as written (imports and paths aside): a
torch MLP imported with its parameters kept as inputs, built with the default pipeline under
`with Target`, exported to `mlp_cpu.so`, loaded back with tvm.runtime.load_module, run with
the detached parameters, tuple output unpacked through `tvm.ir.Array`."""

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import tvmlite as tvm  # noqa: E402
from tvmlite import relax  # noqa: E402
from tvmlite.relax.frontend.torch import from_exported_program  # noqa: E402


class TorchMLP(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.net = torch.nn.Sequential(
            torch.nn.Flatten(),
            torch.nn.Linear(28 * 28, 128),
            torch.nn.ReLU(),
            torch.nn.Linear(128, 10),
        )

    def forward(self, data):
        return self.net(data)


@pytest.mark.filterwarnings("ignore:.*LeafSpec:FutureWarning")
def test_export_and_load_tutorial(tmp_path) -> None:
    from torch.export import export

    torch_model = TorchMLP().eval()
    example_args = (torch.randn(1, 1, 28, 28, dtype=torch.float32),)
    with torch.no_grad():
        exported_program = export(torch_model, example_args)
    mod = from_exported_program(exported_program, keep_params_as_input=True)
    mod, params = relax.frontend.detach_params(mod)

    TARGET = tvm.target.Target("llvm")
    pipeline = relax.get_pipeline()
    with TARGET:
        built_mod = pipeline(mod)
    executable = tvm.compile(built_mod, target=TARGET)
    library_path = tmp_path / "mlp_cpu.so"
    executable.export_library(str(library_path), workspace_dir=str(tmp_path))

    loaded_rt_mod = tvm.runtime.load_module(str(library_path))
    dev = tvm.cpu(0)
    vm = relax.VirtualMachine(loaded_rt_mod, dev)
    input_tensor = torch.randn(1, 1, 28, 28, dtype=torch.float32)
    vm_input = tvm.runtime.tensor(input_tensor.numpy(), dev)
    vm_params = [tvm.runtime.tensor(p, dev) for p in params["main"]]
    tvm_output = vm["main"](vm_input, *vm_params)
    if isinstance(tvm_output, tvm.ir.Array) and len(tvm_output) > 0:
        result_tensor = tvm_output[0]
    else:
        result_tensor = tvm_output
    assert result_tensor.shape == (1, 10)
    assert "func_table:" in loaded_rt_mod["stats"]()
    with torch.no_grad():
        want = torch_model(input_tensor).numpy()
    np.testing.assert_allclose(result_tensor.numpy(), want, rtol=1e-4, atol=1e-5)
