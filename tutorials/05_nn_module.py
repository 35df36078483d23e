"""Tutorial 05: models written with the PyTorch-like `nn` API (TVM's Quick Start).

Part 1 is TVM's Quick Start (docs/get_started/tutorials/quick_start.py) with only its imports
changed. Part 2 exports the same model with a symbolic batch ("n", 784), binds trained
weights to its Parameters, and runs one executable at two batch sizes.

    python tutorials/05_nn_module.py
"""

import numpy as np

import tvmlite as tvm
from tvmlite import relax
from tvmlite.relax.frontend import nn

# -- Part 1: the Quick Start ---------------------------------------------------------------------


class MLPModel(nn.Module):
    def __init__(self):
        super(MLPModel, self).__init__()
        self.fc1 = nn.Linear(784, 256)
        self.relu1 = nn.ReLU()
        self.fc2 = nn.Linear(256, 10)

    def forward(self, x):
        x = self.fc1(x)
        x = self.relu1(x)
        x = self.fc2(x)
        return x


# export_tvm traces `forward` into a relax function: the input first, then every parameter
mod, param_spec = MLPModel().export_tvm(
    spec={"forward": {"x": nn.spec.Tensor((1, 784), "float32")}})
mod.show()

mod = relax.get_pipeline("zero")(mod)  # legalize to TIR, then fuse
target = tvm.target.Target("llvm")
ex = relax.build(mod, target)
device = tvm.cpu()
vm = relax.VirtualMachine(ex, device)

data = np.random.rand(1, 784).astype("float32")
tvm_data = tvm.nd.array(data, device=device)
params = [np.random.rand(*param.shape).astype("float32") for _, param in param_spec]
params = [tvm.nd.array(param, device=device) for param in params]
print(vm["forward"](tvm_data, *params).numpy())

# -- Part 2: a symbolic batch and bound weights --------------------------------------------------

model = MLPModel()
rng = np.random.default_rng(0)
# load_state_dict binds data to Parameters by name (numpy arrays, NDArrays or torch tensors)
model.load_state_dict({name: rng.standard_normal(p.shape).astype("float32") * 0.05
                       for name, p in model.named_parameters()})

# "n" is a symbolic dim: one compiled function serves every batch size
mod, named_params = model.export_tvm({"forward": {"x": nn.spec.Tensor(("n", 784), "float32")}})
vm = relax.VirtualMachine(relax.build(relax.get_pipeline("zero")(mod), "llvm"), tvm.cpu())
weights = [p.data for _, p in named_params]

w1, b1, w2, b2 = (w.numpy() for w in weights)
for batch in (1, 8):
    x = rng.random((batch, 784), dtype="float32")
    logits = vm["forward"](tvm.nd.array(x), *weights).numpy()
    expected = np.maximum(x @ w1.T + b1, 0) @ w2.T + b2
    np.testing.assert_allclose(logits, expected, rtol=1e-4, atol=1e-4)
    print(f"batch {batch}: prediction {logits.argmax(axis=1)} matches numpy")
