"""High-level models (graph operators, legalized): tvmlite vs numpy vs Apache TVM, and memory
planning savings.

    .venv/bin/python bench/graph.py [--json] [--size 224] [--quick]

The same TVMScript text (bench/graph_models.py: MLP with R.matmul/R.add/R.nn.relu, VGG-11 of
seed 000) is compiled by each side with `tvm.compile(mod, target="llvm")` -- the default
pipeline: LegalizeOps, no fusion, no tuning -- and with the "zero" pipeline (FuseOps +
FuseTIR) on tvmlite. Each side runs in a subprocess (`--worker tvm|tvmlite`). Latencies are
medians of per-call time of `vm["main"](*args)` (common.median_us for the MLP; the median of
`--reps` calls for VGG-11, whose calls take seconds).

Memory: for each function the fast path plans (vm/static_plan.py), "unplanned" is the sum of
the bytes of every intermediate allocation (what one allocation per call_tir costs) and
"planned" the arena after first-fit reuse across non-overlapping lifetimes.
"""
import json
import os
import subprocess
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from common import load_module_source, median_s, median_us, short_error  # noqa: E402
import graph_models as gm  # noqa: E402

HEADERS = {
    "tvmlite": "import tvmlite as tvm\nfrom tvmlite import relax\n"
               "from tvmlite.script import ir as I, tir as T, relax as R\n",
    "tvm": "import tvm\nfrom tvm import relax\n"
           "from tvm.script import ir as I, tirx as T, relax as R\n",
}


def cases(size):
    rng = np.random.default_rng(0)
    return {
        "mlp": (gm.MLP_SRC, gm.mlp_params(rng)),
        f"vgg11_{size}": (gm.vgg11_src(size), gm.vgg11_params(size, 4096, 1000, rng)),
    }


def _time(fn, heavy, reps):
    return median_s(fn, reps) * 1e6 if heavy else median_us(fn)


def run_case(flavor, name, src, arrays, pipeline, reps):
    mod = load_module_source(HEADERS[flavor] + src, f"graph_{flavor}_{name}_{pipeline}")
    tvm, relax = mod.tvm, mod.relax
    t0 = time.perf_counter()
    if pipeline == "zero":
        ex = tvm.compile(relax.get_pipeline("zero")(mod.Module), target="llvm")
    else:
        ex = tvm.compile(mod.Module, target="llvm")
    build_s = time.perf_counter() - t0
    vm = relax.VirtualMachine(ex, tvm.cpu())
    nd = getattr(tvm, "runtime").tensor if hasattr(tvm.runtime, "tensor") else tvm.nd.array
    args = [nd(a) for a in arrays]
    out = vm["main"](*args).numpy()
    us = _time(lambda: vm["main"](*args), name != "mlp", reps)
    res = {"us": us, "build_s": build_s, "out": out.ravel()[:8].tolist()}
    if flavor == "tvmlite":
        res["memory"] = memory_figures(ex)
    return res


def memory_figures(ex):
    from tvmlite.vm.static_plan import NotStatic, analyze

    out = {}
    for name, fn in ex.functions.items():
        try:
            plan = analyze(ex, fn)
        except NotStatic as e:
            out[name] = f"not static: {e}"
            continue
        inter = [b for b in plan.buffers if b.kind == "arena"]
        out[name] = {"allocs": len(inter), "unplanned_bytes": sum(b.nbytes for b in inter),
                     "planned_bytes": plan.arena_bytes,
                     "outputs_bytes": sum(b.nbytes for b in plan.outputs)}
    return out


def worker(flavor, size, reps):
    res = {}
    pipes = ["default", "zero"] if flavor == "tvmlite" else ["default"]
    for name, (src, arrays) in cases(size).items():
        for pipe in pipes:
            try:
                res[f"{name}/{pipe}"] = run_case(flavor, name, src, arrays, pipe, reps)
            except Exception as e:  # noqa: BLE001 (reported in the table)
                res[f"{name}/{pipe}"] = {"error": short_error(e)}
    print("JSON" + json.dumps(res))


def spawn(flavor, size, reps):
    try:
        p = subprocess.run([sys.executable, os.path.abspath(__file__), "--worker", flavor,
                            "--size", str(size), "--reps", str(reps)],
                           capture_output=True, text=True, timeout=3000)
    except subprocess.TimeoutExpired:
        return {"error": "timeout"}
    for line in p.stdout.splitlines():
        if line.startswith("JSON"):
            return json.loads(line[4:])
    return {"error": short_error(RuntimeError(p.stderr.strip().splitlines()[-1]
                                              if p.stderr.strip() else f"exit {p.returncode}"))}


def numpy_times(size, reps):
    out = {}
    for name, (_, arrays) in cases(size).items():
        if name == "mlp":
            x, w0, b0, w1, b1 = arrays
            out[name] = median_us(lambda: np.maximum(x @ w0.T + b0, 0) @ w1.T + b1)
        else:
            out[name] = _time(lambda: gm.vgg11_numpy(arrays), True, reps)
    return out


def arg(name, default):
    return type(default)(sys.argv[sys.argv.index(name) + 1]) if name in sys.argv else default


def main():
    size, reps = arg("--size", 224), arg("--reps", 5)
    if "--worker" in sys.argv:
        worker(sys.argv[sys.argv.index("--worker") + 1], size, reps)
        return
    lite, tvm = spawn("tvmlite", size, reps), spawn("tvm", size, reps)
    npy = numpy_times(size, reps)
    print("| case | tvmlite µs | numpy µs | TVM µs | tvmlite/TVM | tvmlite/numpy |")
    print("|---|---|---|---|---|---|")
    for key, r in lite.items() if isinstance(lite, dict) and "error" not in lite else []:
        name = key.split("/")[0]
        t = tvm.get(f"{name}/default", {}) if isinstance(tvm, dict) else {}
        if "error" in r:
            print(f"| {key} | {r['error']} | | | | |")
            continue
        tu = t.get("us")
        print(f"| {key} | {r['us']:.1f} | {npy[name]:.1f} | "
              f"{tu if tu is None else f'{tu:.1f}'} | "
              f"{'' if tu is None else f'{r[chr(117) + chr(115)] / tu:.2f}'} | "
              f"{r['us'] / npy[name]:.2f} |")
    print("\nmemory (per function): ")
    for key, r in lite.items() if isinstance(lite, dict) else []:
        for fn, m in (r.get("memory") or {}).items():
            print(f"  {key} {fn}: {m}")
    if isinstance(tvm, dict) and "error" in tvm:
        print("TVM:", tvm["error"])
    for key, t in (tvm.items() if isinstance(tvm, dict) else []):
        if isinstance(t, dict) and "error" in t:
            print(f"TVM {key}: {t['error']}")
    if "--json" in sys.argv:
        print(json.dumps({"tvmlite": lite, "tvm": tvm, "numpy": npy}, indent=1))


if __name__ == "__main__":
    main()
