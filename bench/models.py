"""Whole models, batch-1 (and 8/64) float32 inference on the CPU: tvmlite's default build
against what a user would run instead, in one run.

    .venv/bin/python bench/models.py [--models mlp-b1,vgg11,...] [--threads 2] [--reps 7]
                                     [--no-tvm] [--no-onnx] [--tune-trials N]

Models (bench/model_zoo.py, torch written by hand, same weights for everyone): the lecture
MLP (batch 1 and 64), VGG-11, ResNet-18 (batch 1 and 8), MobileNetV2, a BERT-base encoder
layer (seq 128, batch 1 and 8). Columns, each system in its own subprocess with --threads
threads (TVMLITE_NUM_THREADS, torch.set_num_threads, ORT intra_op_num_threads,
TVM_NUM_THREADS):

- tvmlite: `torch.export` -> `relax.frontend.torch.from_exported_program` -> default
  `tvm.compile(mod, target="llvm")`;
- tvmlite (onnx): the same model through `torch.onnx.export` -> `relax.frontend.onnx.from_onnx`;
- tvmlite tuned (--tune-trials N, 0 = n/a): `meta_schedule.relax_integration.tune_relax` on
  the model's matmuls, N measured candidates in all (the issue allows 10 minutes a model),
  records in bench/tune_logs/<model>, then `MetaScheduleApplyDatabase` + `tvm.compile`;
  a second run reuses the records without measuring;
- PyTorch eager, `torch.no_grad()`;
- ONNX Runtime 2 threads on the torch.onnx export (when onnx/onnxruntime are installed);
- TVM 0.27 default (when apache-tvm is installed): its own from_exported_program and
  `tvm.compile(mod, target="llvm")`, default thread pool and TVM_NUM_THREADS=threads.

Latency is the median of --reps calls after one warm-up; each tvmlite/TVM cell also checks the
output against PyTorch's (max abs error printed). Ratios are tvmlite / other: below 1.0 means
tvmlite is faster. On a shared machine run it a few times.
"""
import argparse
import io
import json
import os
import subprocess
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

# table columns; "tuned" is n/a without --tune-trials
COLUMNS = ["tvmlite", "tvmlite-onnx", "tuned", "torch", "ort", "tvm", "tvm-threads"]


def _median_ms(fn, reps):
    fn()
    samples = []
    for _ in range(reps):
        t = time.perf_counter()
        fn()
        samples.append(time.perf_counter() - t)
    return sorted(samples)[reps // 2] * 1e3


def _exported(model, example):
    import torch

    with torch.no_grad():
        return torch.export.export(model, (example,))


def _onnx_bytes(model, example):
    import torch

    buffer = io.BytesIO()
    with torch.no_grad():
        torch.onnx.export(model, (example,), buffer, dynamo=False, opset_version=17,
                          input_names=["x"])
    return buffer.getvalue()


def _run_tvmlite(model, example, via_onnx):
    import tvmlite as tvm
    from tvmlite import relax

    start = time.perf_counter()
    if via_onnx:
        import onnx
        from tvmlite.relax.frontend.onnx import from_onnx

        mod = from_onnx(onnx.load_from_string(_onnx_bytes(model, example)))
    else:
        from tvmlite.relax.frontend.torch import from_exported_program

        mod = from_exported_program(_exported(model, example))
    vm = relax.VirtualMachine(tvm.compile(mod, target="llvm"), tvm.cpu())
    compile_s = time.perf_counter() - start
    x = tvm.nd.array(example.numpy())
    out = vm["main"](x)
    first = out[0] if isinstance(out, (list, tuple)) else out
    return (lambda: vm["main"](x)), first.numpy(), compile_s


def _run_tvmlite_tuned(name, model, example, trials):
    import tvmlite as tvm
    from tvmlite import relax
    from tvmlite.meta_schedule import relax_integration
    from tvmlite.relax.frontend.torch import from_exported_program

    work_dir = os.path.join(HERE, "tune_logs", name)
    start = time.perf_counter()
    mod = from_exported_program(_exported(model, example))
    relax_integration.tune_relax(mod, None, "llvm", work_dir, max_trials_global=trials)
    mod = relax_integration.MetaScheduleApplyDatabase(work_dir)(mod)
    vm = relax.VirtualMachine(tvm.compile(mod, target="llvm"), tvm.cpu())
    compile_s = time.perf_counter() - start
    x = tvm.nd.array(example.numpy())
    out = vm["main"](x)
    first = out[0] if isinstance(out, (list, tuple)) else out
    return (lambda: vm["main"](x)), first.numpy(), compile_s


def _run_tvm(model, example):
    import tvm
    from tvm import relax
    from tvm.relax.frontend.torch import from_exported_program

    start = time.perf_counter()
    mod = from_exported_program(_exported(model, example))
    vm = relax.VirtualMachine(tvm.compile(mod, target="llvm"), tvm.cpu())
    compile_s = time.perf_counter() - start
    x = tvm.runtime.tensor(example.numpy())
    out = vm["main"](x)
    first = out[0] if isinstance(out, (list, tuple)) or type(out).__name__ == "Array" else out
    return (lambda: vm["main"](x)), first.numpy(), compile_s


def _run_torch(model, example, threads):
    import torch

    torch.set_num_threads(threads)

    def call():
        with torch.no_grad():
            return model(example)
    return call, call().numpy(), 0.0


def _run_ort(model, example, threads):
    import onnxruntime as ort

    opts = ort.SessionOptions()
    opts.intra_op_num_threads = threads
    opts.inter_op_num_threads = 1
    sess = ort.InferenceSession(_onnx_bytes(model, example), opts,
                                providers=["CPUExecutionProvider"])
    feed = {"x": example.numpy()}
    return (lambda: sess.run(None, feed)), sess.run(None, feed)[0], 0.0


def worker(name, system, threads, reps, trials=0):
    import torch

    from model_zoo import build

    torch.set_num_threads(threads)
    model, example = build(name)
    with torch.no_grad():
        reference = model(example).numpy()
    if system == "torch":
        call, out, compile_s = _run_torch(model, example, threads)
    elif system == "ort":
        call, out, compile_s = _run_ort(model, example, threads)
    elif system == "tuned":
        call, out, compile_s = _run_tvmlite_tuned(name, model, example, trials)
    elif system.startswith("tvm-") or system == "tvm":
        call, out, compile_s = _run_tvm(model, example)
    else:
        call, out, compile_s = _run_tvmlite(model, example, system == "tvmlite-onnx")
    err = float(np.abs(out - reference).max())
    print("JSON" + json.dumps({"ms": _median_ms(call, reps), "err": err,
                               "compile_s": compile_s}))


def spawn(name, system, threads, reps, timeout, trials=0):
    env = dict(os.environ, TVMLITE_NUM_THREADS=str(threads), OMP_NUM_THREADS=str(threads))
    if system == "tvm-threads":
        env["TVM_NUM_THREADS"] = str(threads)
    cmd = [sys.executable, os.path.abspath(__file__), "--worker", name, system,
           "--threads", str(threads), "--reps", str(reps), "--tune-trials", str(trials)]
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=timeout)
    except subprocess.TimeoutExpired:
        return {"error": f"timeout {timeout}s"}
    line = next((ln for ln in p.stdout.splitlines() if ln.startswith("JSON")), None)
    if line is None:
        lines = p.stderr.strip().splitlines()
        return {"error": lines[-1][:80] if lines else f"exit {p.returncode}"}
    return json.loads(line[4:])


def _cell(res):
    if res is None:
        return "n/a"
    if "error" in res:
        return f"failed ({res['error']})"
    return f"{res['ms']:.3g}"


def _ratio(mine, other):
    if not mine or not other or "ms" not in mine or "ms" not in other:
        return "n/a"
    return f"{mine['ms'] / other['ms']:.2f}x"


def report(name, results):
    me = results.get("tvmlite")
    row = [name] + [_cell(results.get(s)) for s in COLUMNS]
    row += [_ratio(me, results.get(s)) for s in ("torch", "ort", "tvm-threads")]
    errs = [f"{s} {r['err']:.1e}" for s, r in results.items() if r and "err" in r
            and s != "torch"]
    compiles = [f"{s} {r['compile_s']:.1f}s" for s, r in results.items() if r and
                r.get("compile_s")]
    print("| " + " | ".join(row) + " |", flush=True)
    return f"{name}: max abs err vs torch: {', '.join(errs)}; build: {', '.join(compiles)}"


def _available(module):
    import importlib.util

    return importlib.util.find_spec(module) is not None


def main():
    from model_zoo import MODELS

    ap = argparse.ArgumentParser()
    ap.add_argument("--models", default=",".join(MODELS))
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--reps", type=int, default=7)
    ap.add_argument("--timeout", type=int, default=900)
    ap.add_argument("--no-tvm", action="store_true")
    ap.add_argument("--no-onnx", action="store_true")
    ap.add_argument("--tune-trials", type=int, default=0,
                    help="measured candidates per model for the tuned column (0: n/a)")
    ap.add_argument("--worker", nargs=2)
    args = ap.parse_args()
    if args.worker:
        worker(*args.worker, args.threads, args.reps, args.tune_trials)
        return
    systems = ["tvmlite", "torch"] + (["tuned"] if args.tune_trials else [])
    if not args.no_onnx and _available("onnx") and _available("onnxruntime"):
        systems[1:1] = ["tvmlite-onnx"]
        systems.append("ort")
    if not args.no_tvm and _available("tvm"):
        systems += ["tvm", "tvm-threads"]
    print(f"threads {args.threads}, median of {args.reps} calls, ms; load average "
          f"{os.getloadavg()[0]:.2f}\n")
    print("| model | tvmlite | tvmlite (onnx) | tvmlite tuned | PyTorch eager | ONNX Runtime "
          "| TVM 0.27 | TVM 0.27 (TVM_NUM_THREADS) | vs PyTorch | vs ORT | vs TVM best |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    notes = []
    for name in args.models.split(","):
        results = {s: spawn(name, s, args.threads, args.reps, args.timeout, args.tune_trials)
                   for s in systems}
        notes.append(report(name, results))
    print("\n" + "\n".join(notes))


if __name__ == "__main__":
    main()
