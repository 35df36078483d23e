"""VGG-11 with and without BYOC offload: tvmlite's own kernels vs `blas` vs numpy vs TVM.

    .venv/bin/python bench/byoc.py [--size 224] [--reps 3]

One module (tvmlite.testing.vgg11_source, batch 1, random weights passed as inputs) is
  * built by tvmlite with its default pipeline (LegalizeOps -> TIR -> LLVM),
  * partitioned for the `blas` backend (conv2d+bias+relu and dense+bias(+relu) through numpy's
    BLAS; everything else legalized) -- with weights as inputs, and bound as constants
    (which lets the backend pack the weights once),
  * run by plain numpy (float32, im2col convolutions: the "numpy-only" reference),
  * and built by Apache TVM 0.27 with its default pipeline (subprocess; n/a when missing).
Times are medians of --reps calls (each call takes ~seconds at 224x224). Lower is better.
"""

import json
import os
import subprocess
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import load_module_source, median_s, short_error  # noqa: E402

TVM_HEADER = ("import tvm\nfrom tvm import relax\n"
              "from tvm.script import ir as I, tirx as T, relax as R\n")


def arg(name, default):
    return type(default)(sys.argv[sys.argv.index(name) + 1]) if name in sys.argv else default


def inputs(size):
    from tvmlite import testing

    _, params = testing.vgg11(image_size=size)
    data = np.random.default_rng(1).standard_normal((1, 3, size, size)).astype("float32")
    return data, params


def tvmlite_rows(size, reps):
    import tvmlite as tvm
    from tvmlite import relax, testing
    from tvmlite.relax.backend.pattern_registry import get_patterns_with_prefix

    mod, params = testing.vgg11(image_size=size)
    data = np.random.default_rng(1).standard_normal((1, 3, size, size)).astype("float32")
    args = [data, *params.values()]
    reference = testing.numpy_vgg11(data, params)
    blas = get_patterns_with_prefix("blas")

    def offload(m):
        fused = relax.transform.FuseOpsByPattern(blas, annotate_codegen=True)(m)
        return relax.transform.RunCodegen()(fused)

    bound = relax.transform.BindParams("main", params)(mod)
    variants = {"tvmlite own kernels": (mod, args), "tvmlite + blas offload": (offload(mod), args),
                "tvmlite + blas, bound weights": (offload(bound), [data])}
    rows = {}
    for label, (m, a) in variants.items():
        vm = relax.VirtualMachine(relax.build(m, target="llvm"), tvm.cpu())
        out = vm["main"](*a).numpy()
        err = float(np.abs(out - reference).max())
        rows[label] = (median_s(lambda: vm["main"](*a), reps), err)
    rows["numpy only (float32)"] = (median_s(lambda: numpy_vgg11_f32(data, params), reps), 0.0)
    return rows


def numpy_vgg11_f32(data, params):
    from tvmlite.testing import numpy_vgg11

    return numpy_vgg11(data, params, dtype="float32")


def tvm_worker(size, reps):
    from tvmlite.testing import vgg11_source

    try:
        m = load_module_source(TVM_HEADER + vgg11_source(image_size=size), "byoc_tvm")
        tvm, relax = m.tvm, m.relax
        vm = relax.VirtualMachine(tvm.compile(m.VGG11, target="llvm"), tvm.cpu())
        data, params = inputs(size)
        args = [tvm.runtime.tensor(a) for a in [data, *params.values()]]
        print("JSON" + json.dumps({"s": median_s(lambda: vm["main"](*args), reps),
                                   "version": tvm.__version__}))
    except Exception as e:  # noqa: BLE001 (reported as n/a)
        print("JSON" + json.dumps({"error": short_error(e)}))


def tvm_row(size, reps):
    try:
        p = subprocess.run([sys.executable, os.path.abspath(__file__), "--tvm-worker",
                            "--size", str(size), "--reps", str(reps)],
                           capture_output=True, text=True, timeout=3000)
    except subprocess.TimeoutExpired:
        return {"error": "timeout"}
    for line in p.stdout.splitlines():
        if line.startswith("JSON"):
            return json.loads(line[4:])
    return {"error": (p.stderr.strip().splitlines() or [f"exit {p.returncode}"])[-1][:80]}


def main():
    size, reps = arg("--size", 224), arg("--reps", 3)
    if "--tvm-worker" in sys.argv:
        tvm_worker(size, reps)
        return
    tvm = tvm_row(size, reps)
    rows = tvmlite_rows(size, reps)
    tvm_s = tvm.get("s")
    print(f"VGG-11, batch 1, {size}x{size}; median of {reps} calls; lower is better. "
          f"TVM: {tvm.get('version', 'n/a (' + tvm.get('error', '') + ')')}")
    print("| variant | seconds | vs TVM default | vs numpy | max abs err vs float64 |")
    print("|---|---|---|---|---|")
    np_s = rows["numpy only (float32)"][0]
    for label, (s, err) in rows.items():
        vs_tvm = f"{s / tvm_s:.2f}x" if tvm_s else "n/a"
        print(f"| {label} | {s:.3f} | {vs_tvm} | {s / np_s:.2f}x | {err:.1e} |")
    if tvm_s:
        print(f"| Apache TVM default build | {tvm_s:.3f} | 1.00x | {tvm_s / np_s:.2f}x | |")


if __name__ == "__main__":
    main()
