"""MLP benchmark (MLC lecture 4) and VM per-call overhead: tvmlite vs numpy vs Apache TVM.

    .venv/bin/python bench/mlp.py            # prints the table
    .venv/bin/python bench/mlp.py --json     # also prints the raw figures as JSON

The same TVMScript text (MLP_SRC / CHAIN_SRC below) and the same driver code (run_case) are
used for tvmlite and for TVM; only the import header differs (TVM 0.27 has no
`tvm.script.tir`, it is `tvm.script.tirx`).  The source uses TVM 0.27's own spelling
(`@T.prim_func(s_tir=True)`, `T.sblock`, `cls.f` callees, `R.Tensor` out) since that is
what TVM 0.27 accepts and what tvmlite promises to accept too.

Each side runs in a subprocess of this script (`--worker tvm|tvmlite`), so a crash is reported,
not fatal; TVM runs twice, with its default thread count and with TVM_NUM_THREADS=2 set before
`import tvm`.  numpy runs in this process.
Latencies are medians of per-call time through the Python call `vm["main"](*args)`
(bench/common.py: median_us), so both sides pay their Python-to-runtime call cost.
"""
import json
import os
import subprocess
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import load_module_source, median_us, short_error  # noqa: E402

HEADERS = {
    "tvmlite": "import tvmlite as tvm\nfrom tvmlite import relax\n"
               "from tvmlite.script import ir as I, tir as T, relax as R\n",
    "tvm": "import tvm\nfrom tvm import relax\n"
           "from tvm.script import ir as I, tirx as T, relax as R\n",
}

MLP_SRC = '''
@I.ir_module
class MLP:
    @T.prim_func(s_tir=True)
    def relu0(X: T.Buffer((1, 128), "float32"), Y: T.Buffer((1, 128), "float32")):
        T.func_attr({"global_symbol": "relu0", "tir.noalias": True})
        for i, j in T.grid(1, 128):
            with T.sblock("Y"):
                vi, vj = T.axis.remap("SS", [i, j])
                Y[vi, vj] = T.max(X[vi, vj], T.float32(0))

    @T.prim_func(s_tir=True)
    def linear0(X: T.Buffer((1, 784), "float32"), W: T.Buffer((128, 784), "float32"),
                B: T.Buffer((128,), "float32"), Z: T.Buffer((1, 128), "float32")):
        T.func_attr({"global_symbol": "linear0", "tir.noalias": True})
        Y = T.alloc_buffer((1, 128), "float32")
        for i, j, k in T.grid(1, 128, 784):
            with T.sblock("Y"):
                vi, vj, vk = T.axis.remap("SSR", [i, j, k])
                with T.init():
                    Y[vi, vj] = T.float32(0)
                Y[vi, vj] = Y[vi, vj] + X[vi, vk] * W[vj, vk]
        for i, j in T.grid(1, 128):
            with T.sblock("Z"):
                vi, vj = T.axis.remap("SS", [i, j])
                Z[vi, vj] = Y[vi, vj] + B[vj]

    @T.prim_func(s_tir=True)
    def linear1(X: T.Buffer((1, 128), "float32"), W: T.Buffer((10, 128), "float32"),
                B: T.Buffer((10,), "float32"), Z: T.Buffer((1, 10), "float32")):
        T.func_attr({"global_symbol": "linear1", "tir.noalias": True})
        Y = T.alloc_buffer((1, 10), "float32")
        for i, j, k in T.grid(1, 10, 128):
            with T.sblock("Y"):
                vi, vj, vk = T.axis.remap("SSR", [i, j, k])
                with T.init():
                    Y[vi, vj] = T.float32(0)
                Y[vi, vj] = Y[vi, vj] + X[vi, vk] * W[vj, vk]
        for i, j in T.grid(1, 10):
            with T.sblock("Z"):
                vi, vj = T.axis.remap("SS", [i, j])
                Z[vi, vj] = Y[vi, vj] + B[vj]

    @R.function
    def main(x: R.Tensor((1, 784), "float32"), w0: R.Tensor((128, 784), "float32"),
             b0: R.Tensor((128,), "float32"), w1: R.Tensor((10, 128), "float32"),
             b1: R.Tensor((10,), "float32")):
        cls = MLP
        with R.dataflow():
            lv0 = R.call_tir(cls.linear0, (x, w0, b0), R.Tensor((1, 128), "float32"))
            lv1 = R.call_tir(cls.relu0, (lv0,), R.Tensor((1, 128), "float32"))
            out = R.call_tir(cls.linear1, (lv1, w1, b1), R.Tensor((1, 10), "float32"))
            R.output(out)
        return out
'''

CHAIN_SRC = '''
@I.ir_module
class Chain:
    @T.prim_func(s_tir=True)
    def add_one(A: T.Buffer((4,), "float32"), B: T.Buffer((4,), "float32")):
        T.func_attr({"global_symbol": "add_one", "tir.noalias": True})
        for i in range(4):
            with T.sblock("B"):
                vi = T.axis.spatial(4, i)
                B[vi] = A[vi] + T.float32(1)

    @R.function
    def main(x: R.Tensor((4,), "float32")):
        cls = Chain
        with R.dataflow():
%s
            R.output(lv%d)
        return lv%d
'''

CHAIN_LENGTHS = (1, 2, 10, 100)
# mlp-strict: tvmlite without its float-reduction reassociation (`-fast-math=none`), so both
# sides sum in the same order; mlp-native: TVM told the host CPU (tvmlite always uses it).
CASES = ["mlp", "mlp-strict", "mlp-native"] + [f"chain{n}" for n in CHAIN_LENGTHS]


def target_for(flavor, case):
    if flavor == "tvmlite":
        return "llvm -fast-math=none" if case == "mlp-strict" else "llvm"
    if case == "mlp-native":
        import llvmlite.binding as llvm
        return {"kind": "llvm", "mcpu": llvm.get_host_cpu_name()}
    return "llvm"


def chain_src(n):
    lines = [f'            lv{i + 1} = R.call_tir(cls.add_one, ({"x" if i == 0 else f"lv{i}"},),'
             f' R.Tensor((4,), "float32"))' for i in range(n)]
    return CHAIN_SRC % ("\n".join(lines), n, n)


def make_inputs(case):
    rng = np.random.default_rng(0)
    if case.startswith("mlp"):
        shapes = [(1, 784), (128, 784), (128,), (10, 128), (10,)]
        return [rng.standard_normal(s).astype("float32") for s in shapes]
    return [rng.standard_normal(4).astype("float32")]


def reference(case, arrays):
    if case.startswith("mlp"):
        x, w0, b0, w1, b1 = arrays
        return np.maximum(x @ w0.T + b0, 0) @ w1.T + b1
    return arrays[0] + np.float32(int(case[len("chain"):]))


def run_case(flavor, case):
    """Parse, compile and time one case with `flavor` ('tvmlite' or 'tvm'); returns µs/call."""
    is_mlp = case.startswith("mlp")
    body = MLP_SRC if is_mlp else chain_src(int(case[len("chain"):]))
    m = load_module_source(HEADERS[flavor] + body, f"bench_{flavor}_{case}")
    tvm, relax = m.tvm, m.relax
    ir_mod = m.MLP if is_mlp else m.Chain
    target = target_for(flavor, case)
    ex = tvm.compile(ir_mod, target=tvm.target.Target(target) if flavor == "tvm" else target)
    vm = relax.VirtualMachine(ex, tvm.cpu())
    arrays = make_inputs(case)
    args = [tvm.runtime.tensor(a) for a in arrays]
    f = vm["main"]
    out = f(*args).numpy()
    if not np.allclose(out, reference(case, arrays), rtol=1e-4, atol=1e-3):
        err = np.abs(out - reference(case, arrays)).max()
        raise AssertionError(f"wrong result (max err {err:.3g})")
    return median_us(lambda: f(*args))


def measure(flavor):
    """{case: µs or 'n/a (error ...)'} for one flavor, never raising."""
    results = {}
    for case in CASES:
        try:
            results[case] = run_case(flavor, case)
        except BaseException as e:  # noqa: BLE001 -- a broken section is reported, not fatal
            if isinstance(e, KeyboardInterrupt):
                raise
            results[case] = f"n/a (error {short_error(e)})"
    return results


def measure_numpy():
    x, w0, b0, w1, b1 = make_inputs("mlp")
    return median_us(lambda: np.maximum(x @ w0.T + b0, 0) @ w1.T + b1)


def worker(flavor):
    """Runs in a subprocess: prints {'version', 'threads', case: µs-or-error} as JSON."""
    info = {}
    try:
        lib = __import__(flavor)
        info["version"] = getattr(lib, "__version__", "?")
        if flavor == "tvm":
            info["threads"] = lib.runtime.num_threads()
        info.update(measure(flavor))
    except BaseException as e:  # noqa: BLE001
        info["error"] = short_error(e)
    print("@@RESULT@@" + json.dumps(info))


def run_worker(flavor, num_threads=None):
    """Measure `flavor` in a fresh subprocess (a crash there can't take this script down)."""
    env = dict(os.environ)
    env.pop("TVM_NUM_THREADS", None)
    if num_threads is not None:
        env["TVM_NUM_THREADS"] = str(num_threads)
    try:
        p = subprocess.run([sys.executable, os.path.abspath(__file__), "--worker", flavor],
                           env=env, capture_output=True, text=True, timeout=600)
        for line in p.stdout.splitlines():
            if line.startswith("@@RESULT@@"):
                return json.loads(line[len("@@RESULT@@"):])
        return {"error": f"worker exited {p.returncode}: {p.stderr.strip()[-200:]}"}
    except Exception as e:  # noqa: BLE001
        return {"error": short_error(e)}


def fmt(v, width=10):
    return f"{v:{width}.2f}" if isinstance(v, float) else f"{'n/a':>{width}}"


def ratio(a, b):
    return f"{a / b:8.2f}x" if isinstance(a, float) and isinstance(b, float) else f"{'n/a':>9}"


def main():
    import importlib.util
    have_tvm = importlib.util.find_spec("tvm") is not None
    tvm_default = run_worker("tvm") if have_tvm else {"error": "apache-tvm not installed"}
    tvm_2t = run_worker("tvm", 2) if have_tvm else {"error": "apache-tvm not installed"}
    lite = run_worker("tvmlite")
    numpy_us = measure_numpy()

    def tvm_val(d, case):
        v = d.get(case)
        return v if isinstance(v, float) else None

    print("MLP (lecture 4, batch 1) and VM overhead: median µs per vm['main'] call; "
          "ratios are tvmlite/other, LOWER IS BETTER (<1 means tvmlite is faster)")
    print(f"TVM: {tvm_default.get('version', 'n/a')}, default threads="
          f"{tvm_default.get('threads', 'n/a')}; nproc={os.cpu_count()}")
    cols = ["case", "tvmlite", "numpy", "TVM dflt", "TVM 2thr", "/TVMdflt", "/TVM2thr", "/numpy"]
    print(f"{cols[0]:<10}" + "".join(f"{c:>10}" for c in cols[1:]))
    for case in CASES:
        lv = lite.get(case) if isinstance(lite.get(case), float) else None
        npv = numpy_us if case.startswith("mlp") else None
        td, t2 = tvm_val(tvm_default, case), tvm_val(tvm_2t, case)
        print(f"{case:<10}{fmt(lv)}{fmt(npv)}{fmt(td)}{fmt(t2)} {ratio(lv, td)} "
              f"{ratio(lv, t2)} {ratio(lv, npv)}")
    # cost of one further call_tir, from the 1- and 100-call chains
    per = {}
    for name, d in (("tvmlite", lite), ("TVM dflt", tvm_default), ("TVM 2thr", tvm_2t)):
        a, b = d.get("chain1"), d.get("chain100")
        per[name] = (b - a) / 99 if isinstance(a, float) and isinstance(b, float) else None
    print(f"{'+1 calltir':<10}{fmt(per['tvmlite'])}{fmt(None)}{fmt(per['TVM dflt'])}"
          f"{fmt(per['TVM 2thr'])} {ratio(per['tvmlite'], per['TVM dflt'])} "
          f"{ratio(per['tvmlite'], per['TVM 2thr'])}")
    notes = []
    for label, d in (("tvmlite", lite), ("TVM default", tvm_default), ("TVM 2 threads", tvm_2t)):
        if "error" in d:
            notes.append(f"{label}: n/a ({d['error']})")
        notes += [f"{label} {c}: {v}" for c, v in d.items() if c in CASES and isinstance(v, str)]
    for n in notes:
        print("  " + n)
    if "--json" in sys.argv:
        print(json.dumps({"tvmlite": lite, "numpy_mlp": numpy_us, "tvm_default": tvm_default,
                          "tvm_2threads": tvm_2t}, indent=1))


if __name__ == "__main__":
    if "--worker" in sys.argv:
        worker(sys.argv[sys.argv.index("--worker") + 1])
    else:
        main()
