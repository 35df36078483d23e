"""Liveness and alias analysis of a dataflow block (relax.testing.transform), checked by hand."""

import numpy as np

import tvmlite as tvm
from tvmlite.relax.testing.transform import dataflow_alias_analysis, dataflow_liveness_analysis
from tvmlite.script import ir as I
from tvmlite.script import relax as R


@I.ir_module
class Module:
    @R.function
    def helper(x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        return x

    @R.function
    def main(x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        with R.dataflow():
            a = R.add(x, x)
            b = R.reshape(a, (2, 2))  # noqa: F841 (unused: its live range is one binding)
            t = R.split(a, 2)
            c = t[1]
            d = Module.helper(c)
            e = R.multiply(d, d)
            R.output(e)
        return e


def names(mapping):
    return {v.name_hint: value for v, value in mapping.items()}


def test_live_ranges():
    ranges = names(dataflow_liveness_analysis(Module["main"].body.blocks[0]))
    # x comes from outside and e leaves the block: both live to its end (6 bindings)
    assert ranges == {"x": (-1, 6), "a": (0, 2), "b": (1, 1), "t": (2, 3), "c": (3, 4),
                      "d": (4, 5), "e": (5, 6)}


def test_views_share_locations_and_opaque_calls_may_return_their_arguments():
    sets, tuples = dataflow_alias_analysis(Module["main"].body.blocks[0],
                                           Module["main"].params)
    sets = names(sets)
    assert sets["a"] == {1} and sets["b"] == {1}  # a reshape is a view of its input
    assert sets["t"] == {2} and tuples[2] == [{3}, {4}] and sets["c"] == {4}
    assert sets["d"] == {4, 5}  # a relax function may return its argument, or a new value
    assert sets["e"] == {6}
    # the reshape really is a view at run time
    shared = tvm.get_global_func("runtime.TVMTensorIsStorageShared")
    base = tvm.nd.array(np.zeros(4, "float32"))
    assert shared(base, base._create_view((2, 2)))
    assert not shared(base, tvm.nd.array(np.zeros(4, "float32")))
