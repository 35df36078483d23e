"""Conv2d kernels of the default schedule rule (topi/conv2d_schedule.py), and VGG-11 whole.

    .venv/bin/python bench/conv.py [--threads 1,2] [--no-torch] [--no-vgg]

Per layer shape (VGG-11 and ResNet-18 at 224, MobileNetV2 depthwise): the legalized conv2d
(topi.nn.conv2d_nchw, as LegalizeOps builds it) compiled alone, median ms and GFLOP/s, with
TVMLITE_NUM_THREADS = each of --threads (one subprocess per count, since the pool is sized
once per process), and PyTorch's F.conv2d with torch.set_num_threads(n) when torch is
installed. Then VGG-11 (bench/graph_models.py, default `tvm.compile`) per call, against the
same network in PyTorch eager. Medians of 7 calls; on a shared machine, run it a few times.
"""
import argparse
import json
import os
import subprocess
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

LAYERS = [  # name, input shape, weight shape, stride, padding, groups
    ("vgg 3->64 @224", (1, 3, 224, 224), (64, 3, 3, 3), 1, 1, 1),
    ("vgg 64->128 @112", (1, 64, 112, 112), (128, 64, 3, 3), 1, 1, 1),
    ("vgg 256->256 @56", (1, 256, 56, 56), (256, 256, 3, 3), 1, 1, 1),
    ("vgg 512->512 @28", (1, 512, 28, 28), (512, 512, 3, 3), 1, 1, 1),
    ("vgg 512->512 @14", (1, 512, 14, 14), (512, 512, 3, 3), 1, 1, 1),
    ("resnet 7x7 s2 stem", (1, 3, 224, 224), (64, 3, 7, 7), 2, 3, 1),
    ("resnet 3x3 s2 64->128", (1, 64, 56, 56), (128, 64, 3, 3), 2, 1, 1),
    ("resnet 3x3 512 @7", (1, 512, 7, 7), (512, 512, 3, 3), 1, 1, 1),
    ("mobilenet dw 3x3 144 @56", (1, 144, 56, 56), (144, 1, 3, 3), 1, 1, 144),
]


def median_s(fn, reps=7):
    fn()
    samples = []
    for _ in range(reps):
        t = time.perf_counter()
        fn()
        samples.append(time.perf_counter() - t)
    return sorted(samples)[reps // 2]


def flops(xs, ws, out_shape):
    return 2 * int(np.prod(out_shape)) * ws[1] * ws[2] * ws[3]


def tvmlite_layers():
    import tvmlite as tvm
    from tvmlite import te, topi

    res = {}
    for name, xs, ws, s, p, g in LAYERS:
        X, W = te.placeholder(xs, "float32", name="X"), te.placeholder(ws, "float32", name="W")
        out = topi.nn.conv2d_nchw(X, W, (s, s), (p, p, p, p), (1, 1), g)
        kernel = tvm.build(te.create_prim_func([X, W, out]), target="llvm")["main"]
        x, w = np.random.rand(*xs).astype("float32"), np.random.rand(*ws).astype("float32")
        y = np.zeros([int(d.value) for d in out.shape], "float32")
        res[name] = (median_s(lambda: kernel(x, w, y)), flops(xs, ws, y.shape))
    return res


def torch_layers(threads):
    import torch

    torch.set_num_threads(threads)
    res = {}
    with torch.no_grad():
        for name, xs, ws, s, p, g in LAYERS:
            x, w = torch.rand(xs), torch.rand(ws)
            y = torch.nn.functional.conv2d(x, w, stride=s, padding=p, groups=g)
            res[name] = median_s(lambda: torch.nn.functional.conv2d(x, w, stride=s, padding=p,
                                                                    groups=g))
            del y
    return res


def vgg_tvmlite():
    import graph_models as gm
    from common import load_module_source

    arrays = gm.vgg11_params(224, 4096, 1000, np.random.default_rng(0))
    mod = load_module_source("import tvmlite as tvm\nfrom tvmlite import relax\n"
                             "from tvmlite.script import ir as I, tir as T, relax as R\n"
                             + gm.vgg11_src(224), "conv_bench_vgg")
    ex = mod.tvm.compile(mod.Module, target="llvm")
    vm = mod.relax.VirtualMachine(ex, mod.tvm.cpu())
    args = [mod.tvm.nd.array(a) for a in arrays]
    out = vm["main"](*args).numpy()
    err = float(np.abs(out - gm.vgg11_numpy(arrays)).max())
    return median_s(lambda: vm["main"](*args)), err


def vgg_torch(threads):
    import graph_models as gm
    import torch
    import torch.nn.functional as F

    torch.set_num_threads(threads)
    data, *ws = (torch.from_numpy(a) for a in gm.vgg11_params(224, 4096, 1000,
                                                               np.random.default_rng(0)))
    plan = "c p c p c c p c c p c c p".split()

    def forward():
        with torch.no_grad():
            x, i = data, 0
            for step in plan:
                if step == "c":
                    x, i = F.relu(F.conv2d(x, ws[i], ws[i + 1].reshape(-1), padding=1)), i + 2
                else:
                    x = F.max_pool2d(x, 2, 2)
            x = F.relu(F.linear(x.reshape(1, -1), ws[i], ws[i + 1]))
            x = F.relu(F.linear(x, ws[i + 2], ws[i + 3]))
            return F.softmax(F.linear(x, ws[i + 4], ws[i + 5]), -1)
    return median_s(forward)


def worker(threads, want_torch, want_vgg):
    res = {"layers": tvmlite_layers()}
    if want_vgg:
        res["vgg"] = vgg_tvmlite()
    try:
        if want_torch:
            res["torch_layers"] = torch_layers(threads)
            res["torch_vgg"] = vgg_torch(threads) if want_vgg else None
    except ImportError:
        pass
    print("JSON" + json.dumps(res))


def spawn(threads, args):
    env = dict(os.environ, TVMLITE_NUM_THREADS=str(threads))
    cmd = [sys.executable, os.path.abspath(__file__), "--worker", str(threads)]
    cmd += ["--no-torch"] if args.no_torch else []
    cmd += ["--no-vgg"] if args.no_vgg else []
    p = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=1800)
    line = next((ln for ln in p.stdout.splitlines() if ln.startswith("JSON")), None)
    if line is None:
        raise RuntimeError(p.stderr.strip().splitlines()[-1] if p.stderr.strip() else "failed")
    return json.loads(line[4:])


def report(threads, res):
    print(f"\n## {threads} thread(s), load average {os.getloadavg()[0]:.2f}")
    print("| layer | tvmlite ms | GFLOP/s | torch ms | tvmlite/torch |")
    print("|---|---|---|---|---|")
    for name, (sec, fl) in res["layers"].items():
        t = res.get("torch_layers", {}).get(name)
        ratio = f"{sec / t:.2f}x" if t else "n/a"
        tms = f"{t * 1e3:.3f}" if t else "n/a"
        print(f"| {name} | {sec * 1e3:.3f} | {fl / sec / 1e9:.0f} | {tms} | {ratio} |")
    if "vgg" in res:
        sec, err = res["vgg"]
        t = res.get("torch_vgg")
        extra = f", PyTorch eager {t * 1e3:.1f} ms ({sec / t:.2f}x)" if t else ""
        print(f"\nVGG-11 224: tvmlite {sec * 1e3:.1f} ms (max abs err {err:.1e}){extra}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--threads", default="1,2")
    ap.add_argument("--no-torch", action="store_true")
    ap.add_argument("--no-vgg", action="store_true")
    ap.add_argument("--worker", type=int)
    args = ap.parse_args()
    if args.worker:
        worker(args.worker, not args.no_torch, not args.no_vgg)
        return
    for threads in (int(t) for t in args.threads.split(",")):
        report(threads, spawn(threads, args))


if __name__ == "__main__":
    main()
