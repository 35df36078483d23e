"""Matmul benchmark (issue 5): plain TIR vs scheduled TIR vs numpy vs Apache TVM, in GFLOP/s.

    .venv/bin/python bench/matmul.py            # the table
    .venv/bin/python bench/matmul.py --json     # also the raw figures
    .venv/bin/python bench/matmul.py --sizes 256,512

float32, square N. (a) the plain 3-loop TIR matmul with a T.init reduction, (b) the same after
the standard schedule below (8x32 register tile accumulated in a cache_write "local" buffer,
k outside the tile, vectorized inner loop, unrolled rows, parallel outer loop), (c) numpy's
matmul (BLAS, all cores), (d) Apache TVM 0.27 on the same TVMScript text and the same schedule
code, and (e) a user's own schedule without the register cache (`user_schedule`), against
TVM's host-CPU build of the same. Every flavour runs in its own subprocess (`--worker`),
tvmlite with TVMLITE_NUM_THREADS=1 and =2 (the parallel speed-up), TVM with its default
thread count and TVM_NUM_THREADS=2.
TVM's target is its default "llvm" (generic x86-64, SSE2); the scheduled kernel is also run
with `mcpu` = this host's CPU, which is what tvmlite compiles for. (f) tvmlite's default
matmul rule (what `tvm.compile` gives a Relax matmul), B packed in the kernel or beforehand.
"""
import argparse
import json
import os
import subprocess
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import load_module_source, short_error  # noqa: E402

HEADERS = {
    "tvmlite": "import tvmlite as tvm\nfrom tvmlite.script import tir as T\n",
    "tvm": "import tvm\nfrom tvm.script import tirx as T\n",
}

MATMUL_SRC = '''
@T.prim_func(s_tir=True)
def main(A: T.Buffer(({n}, {n}), "float32"), B: T.Buffer(({n}, {n}), "float32"),
         C: T.Buffer(({n}, {n}), "float32")):
    T.func_attr({{"global_symbol": "main", "tir.noalias": True}})
    for i, j, k in T.grid({n}, {n}, {n}):
        with T.sblock("C"):
            vi, vj, vk = T.axis.remap("SSR", [i, j, k])
            with T.init():
                C[vi, vj] = T.float32(0)
            C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]
'''

TILE_I, TILE_J = 8, 32


def schedule(tvm, func):
    """The standard CPU schedule; the same code drives tvmlite and TVM."""
    sch = tvm.s_tir.Schedule(func)
    block = sch.get_sblock("C")
    i, j, k = sch.get_loops(block)
    i0, i1 = sch.split(i, [None, TILE_I])
    j0, j1 = sch.split(j, [None, TILE_J])
    sch.reorder(i0, j0, k, i1, j1)
    acc = sch.cache_write(block, 0, "local")      # the tile accumulates in registers
    sch.reverse_compute_at(acc, j0)
    sch.vectorize(j1)
    sch.unroll(i1)
    sch.parallel(i0)  # NOTE: before decompose_reduction, which TVM's checks require
    sch.decompose_reduction(block, k)
    return sch.mod


def user_schedule(tvm, func):
    """A user's own schedule without a register cache (issue 15's example): i, j split by 32,
    k by 8, loops (i0, j0, k0, i1, k1, j1), j1 vectorized, i0 parallel, reduction decomposed.
    The 32x32 tile of C accumulates in memory (L1)."""
    sch = tvm.s_tir.Schedule(func)
    block = sch.get_sblock("C")
    i, j, k = sch.get_loops(block)
    i0, i1 = sch.split(i, [None, 32])
    j0, j1 = sch.split(j, [None, 32])
    k0, k1 = sch.split(k, [None, 8])
    sch.reorder(i0, j0, k0, i1, k1, j1)
    sch.vectorize(j1)
    sch.parallel(i0)
    sch.decompose_reduction(block, k0)
    return sch.mod


def time_s(fn, budget_s=1.5, min_runs=3, max_runs=50):
    """Median seconds per call: one warm-up, then runs until `budget_s` (at least min_runs)."""
    fn()
    times, start = [], time.perf_counter()
    while len(times) < min_runs or (time.perf_counter() - start < budget_s
                                    and len(times) < max_runs):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return sorted(times)[len(times) // 2]


def gflops(n, seconds):
    return 2.0 * n ** 3 / seconds / 1e9


def build(flavor, tvm, mod, mcpu=None):
    if flavor == "tvm":
        target = tvm.target.Target({"kind": "llvm", "mcpu": mcpu}) if mcpu else "llvm"
        lib = tvm.compile(mod, target=target)
        return lib["main"]
    return tvm.build(mod, target="llvm")


def run_size(flavor, tvm, n, mcpu):
    mod = load_module_source(HEADERS[flavor] + MATMUL_SRC.format(n=n), f"mm_{flavor}_{n}")
    func = mod.main
    rng = np.random.default_rng(0)
    a, b = rng.standard_normal((2, n, n)).astype("float32")
    want = a @ b
    out = {}
    cases = [("plain", func, None), ("sched", schedule(tvm, func), None),
             ("user", user_schedule(tvm, func), None)]
    if flavor == "tvm" and mcpu:
        cases += [("sched_native", cases[1][1], mcpu), ("user_native", cases[2][1], mcpu)]
    for name, prog, cpu in cases:
        try:
            f = build(flavor, tvm, prog, cpu)
            # tensors as each library makes them (64-byte aligned, both)
            make = tvm.runtime.tensor if flavor == "tvm" else tvm.nd.array
            args = [make(x) for x in (a, b, np.zeros((n, n), "float32"))]
            f(*args)
            got = args[2].numpy()
            np.testing.assert_allclose(got, want, rtol=1e-3, atol=1e-3)
            budget = 0.5 if name == "plain" else 1.5
            out[name] = gflops(n, time_s(lambda: f(*args), budget_s=budget,
                                         min_runs=1 if name == "plain" and n >= 1024 else 3))
        except Exception as err:  # noqa: BLE001 (report, keep going)
            out[name] = short_error(err)
    if flavor == "tvmlite":
        out.update(run_rule(tvm, n, a, b, want))
    return out


def run_rule(tvm, n, a, b, want):
    """tvmlite's default matmul rule (topi/matmul_schedule.py) as the build applies it: B
    packed into column panels inside the kernel ("rule"), or packed once beforehand, as
    weights bound at build time are ("rule_packed")."""
    from tvmlite import te, topi
    from tvmlite.topi.matmul_packed import matmul_packed, pack_panels, panel_lanes
    from tvmlite.topi.schedule_mode import default_schedules

    out = {}
    lanes = panel_lanes(n, "float32")
    A = te.placeholder((n, n), "float32", name="A")
    with default_schedules():
        B = te.placeholder((n, n), "float32", name="B")
        P = te.placeholder((n // lanes, n, lanes), "float32", name="P")
        cases = {"rule": ([A, B, topi.nn.matmul(A, B)], b),
                 "rule_packed": ([A, P, matmul_packed(A, P)], pack_panels(b, lanes))}
    for name, (tensors, bb) in cases.items():
        try:
            f = tvm.build(te.create_prim_func(tensors), target="llvm")["main"]
            args = [tvm.nd.array(x) for x in (a, bb, np.zeros((n, n), "float32"))]
            f(*args)
            np.testing.assert_allclose(args[2].numpy(), want, rtol=1e-3, atol=1e-3)
            out[name] = gflops(n, time_s(lambda: f(*args)))
        except Exception as err:  # noqa: BLE001 (report, keep going)
            out[name] = short_error(err)
    return out


def worker(flavor, sizes, mcpu):
    import llvmlite.binding as llvm  # noqa: F401 (both sides have it)

    if flavor == "tvm":
        import tvm
        threads = tvm.runtime.num_threads()
    else:
        import tvmlite as tvm
        from tvmlite.vm.parallel_runtime import num_threads
        threads = num_threads()
    result = {"threads": threads}
    for n in sizes:
        result[str(n)] = run_size(flavor, tvm, n, mcpu)
    print(json.dumps(result))


def run_worker(flavor, sizes, env_threads=None, mcpu=None):
    env = dict(os.environ)
    key = "TVM_NUM_THREADS" if flavor == "tvm" else "TVMLITE_NUM_THREADS"
    env.pop(key, None)
    if env_threads:
        env[key] = str(env_threads)
    cmd = [sys.executable, os.path.abspath(__file__), "--worker", flavor,
           "--sizes", ",".join(map(str, sizes))] + (["--mcpu", mcpu] if mcpu else [])
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=1800)
    lines = [ln for ln in proc.stdout.splitlines() if ln.startswith("{")]
    if proc.returncode != 0 or not lines:
        return {"error": short_error(proc.stderr.strip().splitlines()[-1:] or ["crashed"])}
    return json.loads(lines[-1])


def numpy_gflops(n):
    rng = np.random.default_rng(0)
    a, b = rng.standard_normal((2, n, n)).astype("float32")
    return gflops(n, time_s(lambda: a @ b))


def fmt(x):
    return f"{x:7.1f}" if isinstance(x, float) else "    n/a"


def ratio(x, y):
    return f"{x / y:5.2f}x" if isinstance(x, float) and isinstance(y, float) else "  n/a"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--worker")
    ap.add_argument("--sizes", default="256,512,1024")
    ap.add_argument("--mcpu")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    if args.worker:
        return worker(args.worker, sizes, args.mcpu)
    import llvmlite.binding as llvm

    host = llvm.get_host_cpu_name()
    res = {
        "tvmlite_1": run_worker("tvmlite", sizes, 1),
        "tvmlite_2": run_worker("tvmlite", sizes, 2),
        "tvm_default": run_worker("tvm", sizes, None, host),
        "tvm_2": run_worker("tvm", sizes, 2, host),
        "numpy": {str(n): numpy_gflops(n) for n in sizes},
    }
    print_table(res, sizes, host)
    if args.json:
        print(json.dumps(res, indent=1))


def print_table(res, sizes, host):
    def get(key, n, case):
        return res[key].get(str(n), {}).get(case) if "error" not in res[key] else None

    print(f"GFLOP/s (float32 matmul); tvmlite threads 1 / 2; TVM default threads = "
          f"{res['tvm_default'].get('threads', 'n/a')}; host cpu {host}")
    for key in res:
        if "error" in res[key]:
            print(f"  {key}: {res[key]['error']}")
    print("   N | plain: lite  TVM  ratio | sched: lite1 lite2 TVM TVM2 TVM-native  "
          "lite2/TVM2 lite2/TVMnat2 | numpy lite2/numpy | speed-up 1->2")
    for n in sizes:
        pl, pt = get("tvmlite_1", n, "plain"), get("tvm_default", n, "plain")
        s1, s2 = get("tvmlite_1", n, "sched"), get("tvmlite_2", n, "sched")
        t1, t2 = get("tvm_default", n, "sched"), get("tvm_2", n, "sched")
        tn = get("tvm_2", n, "sched_native")
        npy = res["numpy"][str(n)]
        print(f"{n:5d} | {fmt(pl)} {fmt(pt)} {ratio(pl, pt)} | {fmt(s1)} {fmt(s2)} {fmt(t1)} "
              f"{fmt(t2)} {fmt(tn)} {ratio(s2, t2)} {ratio(s2, tn)} | {fmt(npy)} "
              f"{ratio(s2, npy)} | {ratio(s2, s1)}")
    print("user schedule (32/32/8, no register cache), 2 threads each:")
    print("   N | lite2  TVM-native2  lite2/TVMnat2 | numpy lite2/numpy")
    for n in sizes:
        u2, un = get("tvmlite_2", n, "user"), get("tvm_2", n, "user_native")
        npy = res["numpy"][str(n)]
        print(f"{n:5d} | {fmt(u2)} {fmt(un)} {ratio(u2, un)} | {fmt(npy)} {ratio(u2, npy)}")
    print("default rule (topi.nn.matmul: B packed in the kernel; packed beforehand), "
          "threads 1 / 2:")
    print("   N | rule1 rule2 packed1 packed2 | numpy rule2/numpy packed2/numpy")
    for n in sizes:
        r1, r2 = get("tvmlite_1", n, "rule"), get("tvmlite_2", n, "rule")
        p1, p2 = get("tvmlite_1", n, "rule_packed"), get("tvmlite_2", n, "rule_packed")
        npy = res["numpy"][str(n)]
        print(f"{n:5d} | {fmt(r1)} {fmt(r2)} {fmt(p1)} {fmt(p2)} | {fmt(npy)} {ratio(r2, npy)} "
              f"{ratio(p2, npy)}")


if __name__ == "__main__":
    main()
