"""Compile time: tvmlite (cold and warm kernel cache) vs Apache TVM 0.27, each in a fresh process.

    .venv/bin/python bench/compile.py [--reps 3] [--models mlp,vgg11_224,vgg8_32] [--json]
    .venv/bin/python bench/compile.py --tune [--trials 16]
    .venv/bin/python bench/compile.py --llvm-profile vgg8_32 [--top 12]

Every measurement is one new Python process (`--worker`) that imports its side, parses the same
TVMScript text (bench/graph_models.py; only the import header differs) and times
`tvm.compile(mod, target="llvm")` (the default pipeline) and then the time until `main` is
callable as native code: `relax.VirtualMachine(ex, tvm.cpu())["main"]` (tvmlite JIT-compiles
its kernels there; TVM has compiled them already). Importing and parsing are not timed.

tvmlite "cold" runs with an empty kernel cache (a fresh TVMLITE_CACHE_DIR); "warm" is a new
process compiling the same module again with the cache the cold run filled. Figures are
medians over `--reps` processes. Models: the lecture MLP, VGG-11 at 224x224, a VGG-style
net at 32x32 (VGG-11's 8 convs, 512-wide dense layers, 10 classes), and from bench/model_zoo.py
ResNet-18, MobileNetV2 and the BERT encoder layer, written in torch and imported by each side's
`relax.frontend.torch.from_exported_program` (export and import not timed; needs torch).

`--tune`: tuning throughput, tvmlite only: `meta_schedule.tune_tir` of a 256x256x256 matmul
(default space, `--trials` candidates, seed 0, 1 core), each candidate built and timed; trials
per second in a fresh process with an empty cache (cold) and again in a new process with the
cache it filled (warm: the same seed draws the same candidates).

`--llvm-profile MODEL`: where LLVM's time goes in a cold tvmlite build of MODEL (in this
process, empty temporary cache): each kernel's module size and parse/optimize/emit seconds,
then LLVM's own pass timing report (`set_time_passes`) summed over all kernels, top passes.
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
ZOO = ("resnet18", "mobilenetv2", "bert-layer")  # torch models of bench/model_zoo.py


MATMUL_SRC = '''
@I.ir_module
class Module:
    @T.prim_func
    def main(A: T.Buffer((256, 256), "float32"), B: T.Buffer((256, 256), "float32"),
             C: T.Buffer((256, 256), "float32")):
        T.func_attr({"global_symbol": "main", "tir.noalias": True})
        for i, j, k in T.grid(256, 256, 256):
            with T.block("C"):
                vi, vj, vk = T.axis.remap("SSR", [i, j, k])
                with T.init():
                    C[vi, vj] = T.float32(0)
                C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]
'''


def tune_worker(trials):
    mod = load_module_source(HEADERS["tvmlite"] + MATMUL_SRC, "compile_tune")
    from tvmlite import meta_schedule as ms

    t0 = time.perf_counter()
    db = ms.tune_tir(mod.Module, "llvm -num-cores=1", max_trials_global=trials, seed=0)
    elapsed = time.perf_counter() - t0
    n = len(db.get_all_tuning_records())
    print("JSON" + json.dumps({"trials": n, "seconds": elapsed, "per_s": n / elapsed}))


def tune(trials):
    cache = tempfile.mkdtemp(prefix="tvmlite_bench_cache_")
    try:
        out = {}
        for label in ("cold", "warm"):
            p = subprocess.run([sys.executable, os.path.abspath(__file__), "--tune-worker",
                                str(trials)], capture_output=True, text=True, timeout=1200,
                               env={**os.environ, "TVMLITE_CACHE_DIR": cache})
            line = [ln for ln in p.stdout.splitlines() if ln.startswith("JSON")]
            out[label] = json.loads(line[0][4:]) if line else {"error": p.stderr[-300:]}
    finally:
        shutil.rmtree(cache, ignore_errors=True)
    for label, r in out.items():
        if "error" in r:
            print(f"{label}: {r['error']}")
        else:
            print(f"{label}: {r['trials']} candidates in {r['seconds']:.2f} s = "
                  f"{r['per_s']:.1f} per second")


def zoo_module(flavor, model):
    """(tvm, relax, IRModule) of a bench/model_zoo.py torch model, imported by `flavor`."""
    import importlib

    import torch
    from model_zoo import build

    tvm = importlib.import_module("tvm" if flavor == "tvm" else "tvmlite")
    frontend = importlib.import_module(f"{tvm.__name__}.relax.frontend.torch")
    net, example = build(model)
    with torch.no_grad():
        exported = torch.export.export(net, (example,))
    return tvm, tvm.relax, frontend.from_exported_program(exported)


def worker(flavor, model):
    if model in ZOO:
        tvm, relax, module = zoo_module(flavor, model)
    else:
        mod = load_module_source(HEADERS[flavor] + MODELS[model](), f"compile_{flavor}_{model}")
        tvm, relax, module = mod.tvm, mod.relax, mod.Module
    t0 = time.perf_counter()
    ex = tvm.compile(module, target="llvm")
    t1 = time.perf_counter()
    relax.VirtualMachine(ex, tvm.cpu())["main"]
    t2 = time.perf_counter()
    print("JSON" + json.dumps({"compile_s": t1 - t0, "ready_s": t2 - t0}))


def llvm_profile(model, top):
    """Per-kernel LLVM seconds of a cold build of `model`, then LLVM's slowest passes."""
    os.environ["TVMLITE_CACHE_DIR"] = tempfile.mkdtemp(prefix="tvmlite_bench_cache_")
    import llvmlite.binding as llvm
    from tvmlite.vm import kernels

    texts = {}
    compile_unit = kernels.compile_unit

    def recording(unit, cache):
        texts[unit.name] = unit.llvm_ir
        return compile_unit(unit, cache)

    kernels.compile_unit = recording
    mod = load_module_source(HEADERS["tvmlite"] + MODELS[model](), f"profile_{model}")
    mod.relax.VirtualMachine(mod.tvm.compile(mod.Module, target="llvm"), mod.tvm.cpu())["main"]
    kernels.compile_unit = compile_unit
    rows = []
    llvm.set_time_passes(True)
    for name, text in texts.items():
        t0 = time.perf_counter()
        module = kernels._parse(text, name)
        t1 = time.perf_counter()
        kernels._optimize(module)
        t2 = time.perf_counter()
        obj = kernels.compile_object(module, kernels._new_target_machine)
        rows.append((time.perf_counter() - t0, name, len(text), len(obj), t1 - t0, t2 - t1,
                     time.perf_counter() - t2))
    report = llvm.report_and_reset_timings()
    llvm.set_time_passes(False)
    print("| kernel | IR bytes | object bytes | parse s | optimize s | emit s | total s |")
    print("|---|---|---|---|---|---|---|")
    for total, name, n_ir, n_obj, parse, opt, emit in sorted(rows, reverse=True):
        print(f"| {name} | {n_ir} | {n_obj} | {parse:.3f} | {opt:.3f} | {emit:.3f} | {total:.3f} |")
    print(f"all {len(rows)} kernels: {sum(r[0] for r in rows):.3f} s\n")
    print("\n".join(pass_summary(report, top)))


def pass_summary(report, top):
    """The `top` passes of LLVM's timing reports by wall time, summed over the reports."""
    walls = {}
    for line in report.splitlines():
        cols = line.split(")")
        if len(cols) == 5 and "%" in cols[3]:
            name = cols[4].strip().split(" #")[0]
            if name == "Total":
                continue
            walls[name] = walls.get(name, 0.0) + float(cols[3].split("(")[0])
    total = sum(walls.values()) or 1.0
    ranked = sorted(walls.items(), key=lambda kv: -kv[1])[:top]
    return [f"{wall:7.3f} s {100 * wall / total:5.1f}%  {name}" for name, wall in ranked]


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
    if "--tune-worker" in sys.argv:
        tune_worker(int(sys.argv[sys.argv.index("--tune-worker") + 1]))
        return
    if "--llvm-profile" in sys.argv:
        llvm_profile(sys.argv[sys.argv.index("--llvm-profile") + 1], arg("--top", 12))
        return
    if "--tune" in sys.argv:
        tune(arg("--trials", 16))
        return
    reps = arg("--reps", 3)
    models = arg("--models", ",".join([*MODELS, *ZOO])).split(",")
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
