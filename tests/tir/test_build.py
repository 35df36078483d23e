"""Target strings and kernel signatures of tir.kernel_build."""

from __future__ import annotations

import pytest
import tir_builders as tb

from tvmlite.tir import Var
from tvmlite.tir.kernel_build import compile_prim_funcs, parse_target


@pytest.mark.parametrize("target,mcpu,cores", [
    ("llvm", "host", 0), ("llvm -mcpu=native", "native", 0), ("llvm -num-cores=4", "host", 4),
    ({"kind": "llvm"}, "host", 0), ({"kind": "llvm", "mcpu": "znver4"}, "znver4", 0),
])
def test_parse_target(target, mcpu: str, cores: int) -> None:
    t = parse_target(target)
    assert (t.kind, t.mcpu, t.num_cores) == ("llvm", mcpu, cores)


@pytest.mark.parametrize(
    "bad", ["cuda -frobnicate=1", "", "llvm -frobnicate=1", {"kind": "opencl"}, 42]
)
def test_bad_targets_raise_clear_errors(bad) -> None:
    with pytest.raises(ValueError, match="target"):
        parse_target(bad)


def test_signatures_follow_the_abi() -> None:
    n = Var("n", "int64")
    _, sigs = compile_prim_funcs({"linear0": tb.linear(n, 784, 128), "relu0": tb.relu0()})
    lin = sigs["linear0"]
    assert [(p.name, p.kind, p.shape) for p in lin.params] == [
        ("X", "buffer", ("n", 784)), ("W", "buffer", (128, 784)), ("B", "buffer", (128,)),
        ("Z", "buffer", ("n", 128))]
    assert lin.shape_vars == ("n",)
    assert sigs["relu0"].shape_vars == () and sigs["relu0"].params[1].dtype == "float32"
