"""Compile time: tvmlite (cold and warm kernel cache) vs Apache TVM 0.27, each in a fresh process.

    .venv/bin/python bench/compile.py [--reps 3] [--models mlp,vgg11_224,vgg8_32] [--json]

Every measurement is one new Python process (`--worker`) that imports its side, parses the same
TVMScript text (bench/graph_models.py; only the import header differs) and times
`tvm.compile(mod, target="llvm")` (the default pipeline) and then the time until `main` is
callable as native code: `relax.VirtualMachine(ex, tvm.cpu())["main"]` (tvmlite JIT-compiles
its kernels there; TVM has compiled them already). Importing and parsing are not timed.

tvmlite "cold" runs with an empty kernel cache (a fresh TVMLITE_CACHE_DIR); "warm" is a new
process compiling the same module again with the cache the cold run filled. Figures are
medians over `--reps` processes. Models: the lecture MLP, VGG-11 at 224x224, and a VGG-style
net at 32x32 (VGG-11's 8 convs, 512-wide dense layers, 10 classes). No ResNet-18 or BERT
builder exists in bench/ yet, so they are not measured.
"""
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from common import load_module_source, short_error  # noqa: E402
import graph_models as gm  # noqa: E402

HEADERS = {
    "tvmlite": "import tvmlite as tvm\nfrom tvmlite import relax\n"
               "from tvmlite.script import ir as I, tir as T, relax as R\n",
    "tvm": "import tvm\nfrom tvm import relax\n"
           "from tvm.script import ir as I, tirx as T, relax as R\n",
}
MODELS = {
    "mlp": lambda: gm.MLP_SRC,
    "vgg11_224": lambda: gm.vgg11_src(224),
    "vgg8_32": lambda: gm.vgg11_src(32, 512, 10),
}


def worker(flavor, model):
    mod = load_module_source(HEADERS[flavor] + MODELS[model](), f"compile_{flavor}_{model}")
    tvm, relax = mod.tvm, mod.relax
    t0 = time.perf_counter()
    ex = tvm.compile(mod.Module, target="llvm")
    t1 = time.perf_counter()
    relax.VirtualMachine(ex, tvm.cpu())["main"]
    t2 = time.perf_counter()
    print("JSON" + json.dumps({"compile_s": t1 - t0, "ready_s": t2 - t0}))


def spawn(flavor, model, cache_dir=None):
    env = dict(os.environ)
    if cache_dir is not None:
        env["TVMLITE_CACHE_DIR"] = cache_dir
    try:
        p = subprocess.run([sys.executable, os.path.abspath(__file__), "--worker", flavor, model],
                           capture_output=True, text=True, timeout=1200, env=env)
    except subprocess.TimeoutExpired:
        return {"error": "timeout"}
    for line in p.stdout.splitlines():
        if line.startswith("JSON"):
            return json.loads(line[4:])
    last = p.stderr.strip().splitlines()[-1] if p.stderr.strip() else f"exit {p.returncode}"
    return {"error": short_error(RuntimeError(last))}


def measure(model, reps):
    """{side: [result per process]} for TVM, tvmlite cold and tvmlite warm."""
    runs = {"tvm": [], "cold": [], "warm": []}
    for _ in range(reps):
        runs["tvm"].append(spawn("tvm", model))
        cache = tempfile.mkdtemp(prefix="tvmlite_bench_cache_")
        try:
            runs["cold"].append(spawn("tvmlite", model, cache))
            runs["warm"].append(spawn("tvmlite", model, cache))
        finally:
            shutil.rmtree(cache, ignore_errors=True)
    return runs


def median(results, field):
    good = [r[field] for r in results if "error" not in r]
    return statistics.median(good) if good else None


def arg(name, default):
    return type(default)(sys.argv[sys.argv.index(name) + 1]) if name in sys.argv else default


def fmt(x, spec=".3f"):
    return "" if x is None else format(x, spec)


def ratio(a, b):
    return None if a is None or b is None or b == 0 else a / b


def main():
    if "--worker" in sys.argv:
        i = sys.argv.index("--worker")
        worker(sys.argv[i + 1], sys.argv[i + 2])
        return
    reps = arg("--reps", 3)
    models = arg("--models", ",".join(MODELS)).split(",")
    table = {m: measure(m, reps) for m in models}
    print(f"median of {reps} fresh processes each; seconds until `main` is native code "
          f"(tvm.compile alone in parentheses)\n")
    print("| model | TVM 0.27 | tvmlite cold | cold/TVM | tvmlite warm | warm/TVM |")
    print("|---|---|---|---|---|---|")
    for m, runs in table.items():
        errors = [r["error"] for rs in runs.values() for r in rs if "error" in r]
        cells = {k: (median(rs, "ready_s"), median(rs, "compile_s")) for k, rs in runs.items()}
        tvm, cold, warm = cells["tvm"][0], cells["cold"][0], cells["warm"][0]
        print(f"| {m} | {fmt(tvm)} ({fmt(cells['tvm'][1])}) | {fmt(cold)} ({fmt(cells['cold'][1])})"
              f" | {fmt(ratio(cold, tvm), '.2f')}x | {fmt(warm)} ({fmt(cells['warm'][1])}) | "
              f"{fmt(ratio(warm, tvm), '.2f')}x |" + (f" errors: {errors[:2]}" if errors else ""))
    if "--json" in sys.argv:
        print(json.dumps(table, indent=1))


if __name__ == "__main__":
    main()
