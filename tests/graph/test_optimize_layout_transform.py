"""OptimizeLayoutTransform: a layout_transform undoing the one before it goes, a repeated one
is reused; the program computes the same values."""

import numpy as np

import tvmlite as tvm
from tvmlite import relax
from tvmlite.script import ir as I
from tvmlite.script import relax as R


@I.ir_module
class RoundTrips:
    @R.function
    def main(x: R.Tensor((4, 8), "float32"), y: R.Tensor((8, 4), "float32")):
        with R.dataflow():
            xt = R.layout_transform(x, index_map=lambda i, j: (j, i))
            s = R.add(xt, y)
            back = R.layout_transform(s, index_map=lambda i, j: (j, i))
            again = R.layout_transform(back, index_map=lambda i, j: (j, i))  # undoes `back`
            xt2 = R.layout_transform(x, index_map=lambda i, j: (j, i))  # repeats `xt`
            t = R.multiply(again, xt2)
            blocked = R.layout_transform(t, index_map=lambda i, j: (i, j // 2, j % 2))
            gv = R.sum(blocked, axis=[2])
            R.output(gv)
        return gv


def _transforms(mod):
    return {b.var.name_hint: b.value.args[0].name_hint for b in mod["main"].body.blocks[0].bindings
            if getattr(b.value.op, "name", "") == "relax.layout_transform"}


def _run(mod, *args):
    vm = relax.VirtualMachine(tvm.compile(mod), tvm.cpu())
    return vm["main"](*(tvm.runtime.tensor(a) for a in args)).numpy()


def test_inverse_pairs_and_repeats_go_and_values_stay():
    after = relax.transform.DeadCodeElimination()(
        relax.transform.OptimizeLayoutTransform()(RoundTrips))
    assert _transforms(after) == {"xt": "x", "blocked": "t"}  # `back` had no other use
    mult = next(b.value for b in after["main"].body.blocks[0].bindings
                if b.var.name_hint == "t")
    assert [a.name_hint for a in mult.args] == ["s", "xt"]
    rng = np.random.default_rng(0)
    x, y = rng.standard_normal((4, 8)).astype("float32"), rng.standard_normal((8, 4)).astype(
        "float32")
    expected = ((x.T + y) * x.T).reshape(8, 2, 2).sum(axis=2)
    np.testing.assert_allclose(_run(RoundTrips, x, y), expected, rtol=1e-5)
    np.testing.assert_allclose(_run(after, x, y), expected, rtol=1e-5)
