"""A kernel may be named like a C math function (TVM names the legalized kernel of R.erf `erf`):
the code generator reaches libm through aliases, so float64 math still calls the library, in a
fresh build, from the kernel cache and in an exported executable."""

import math

import numpy as np

import tvmlite as tvm
from tvmlite import relax
from tvmlite.script import relax as R


def _erf_module():
    x = relax.Var("x", R.Tensor((5,), "float64"))
    bb = relax.BlockBuilder()
    with bb.function("main", [x]):
        y = bb.emit(relax.op.erf(x))
        bb.emit_func_output(bb.emit(relax.op.add(y, relax.op.tanh(x))))
    return bb.get()


def test_float64_erf_kernel_named_erf_calls_libm(tmp_path, monkeypatch):
    monkeypatch.setenv("TVMLITE_CACHE_DIR", str(tmp_path / "cache"))
    mod = _erf_module()
    assert "erf" in [gv.name_hint for gv in relax.transform.LegalizeOps()(mod).functions]
    v = np.array([-2.0, -0.3, 0.0, 0.7, 3.1])
    want = np.array([math.erf(t) + math.tanh(t) for t in v])
    for _ in range(2):  # built, then again from the kernel cache
        ex = tvm.compile(mod, "llvm")
        got = relax.VirtualMachine(ex, tvm.cpu())["main"](tvm.runtime.tensor(v)).numpy()
        np.testing.assert_allclose(got, want, rtol=1e-14)
    path = str(tmp_path / "erf.tvmlite")
    ex.export_library(path)
    loaded = tvm.runtime.load_module(path)
    got = relax.VirtualMachine(loaded, tvm.cpu())["main"](tvm.runtime.tensor(v)).numpy()
    np.testing.assert_allclose(got, want, rtol=1e-14)
