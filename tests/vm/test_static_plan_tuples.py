"""A multi-output kernel's tuple (batch_norm) read with TupleGetItem stays on the static fast
path, and its members' live ranges follow their uses, however late."""

import numpy as np

import tvmlite as tvm
from tvmlite import relax
from tvmlite.script import ir as I
from tvmlite.script import relax as R
from tvmlite.vm.static_plan import analyze


@I.ir_module
class BatchNormThenLateMember:
    @R.function
    def main(x: R.Tensor((2, 3, 4, 4), "float32"), gamma: R.Tensor((3,), "float32"),
             beta: R.Tensor((3,), "float32"), mean: R.Tensor((3,), "float32"),
             var: R.Tensor((3,), "float32")) -> R.Tensor((2, 3, 4, 4), "float32"):
        with R.dataflow():
            bn = R.nn.batch_norm(x, gamma, beta, mean, var, axis=1, epsilon=1e-5)
            y = R.nn.relu(bn[0])
            z = R.add(y, y)  # more intermediates while bn's members must stay intact
            w = R.multiply(z, bn[0])
            out = R.add(w, R.reshape(bn[1], (1, 3, 1, 1)))
            R.output(out)
        return out


def _reference(x, gamma, beta, mean, var):
    # TVM's default batch_norm (training=True): normalized with the batch's statistics; the
    # second output is the moving mean updated with momentum 0.1
    shape = (1, 3, 1, 1)
    batch_mean, batch_var = x.mean(axis=(0, 2, 3)), x.var(axis=(0, 2, 3))
    y = (x - batch_mean.reshape(shape)) / np.sqrt(batch_var.reshape(shape) + 1e-5) \
        * gamma.reshape(shape) + beta.reshape(shape)
    new_mean = 0.9 * mean + 0.1 * batch_mean
    return 2 * np.maximum(y, 0) * y + new_mean.reshape(shape)


def test_batch_norm_tuple_is_planned_statically_and_computes_the_reference():
    # legalized only: the default build would fuse the elementwise tail into one kernel
    ex = relax.build(BatchNormThenLateMember, "llvm", relax_pipeline=None)
    plan = analyze(ex, ex.functions["main"])  # raises NotStatic if the tuple stops it
    assert len(plan.steps) >= 5
    rng = np.random.default_rng(0)
    x = rng.standard_normal((2, 3, 4, 4)).astype("float32")
    gamma, beta, mean = (rng.standard_normal(3).astype("float32") for _ in range(3))
    var = rng.uniform(0.5, 1.5, 3).astype("float32")
    vm = relax.VirtualMachine(ex, tvm.cpu())
    for _ in range(2):  # the second call reuses the arena
        got = vm["main"](x, gamma, beta, mean, var).numpy()
        np.testing.assert_allclose(got, _reference(x, gamma, beta, mean, var), rtol=1e-5,
                                   atol=1e-5)
