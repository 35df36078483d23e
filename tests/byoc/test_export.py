"""Exported BYOC models run after loading, in a fresh process (vm/external.py).

The built-in backends' functions are saved as data (a step program, or a ccompiler program,
plus .npy constants) and rebuilt by our own loaders; a user backend's plain callable makes
export fail, naming it; a tampered payload is an ExecutableFormatError; nothing is registered.
"""

import io
import json
import pathlib
import shutil
import subprocess
import sys
import zipfile

import numpy as np
import pytest

import tvmlite as tvm
from tvmlite import relax
from tvmlite.backend import blas_runtime, ccompiler, cupy_runtime, numpy_eval  # noqa: F401
from tvmlite.backend.pattern_registry import get_patterns_with_prefix
from tvmlite.script import ir as I
from tvmlite.script import relax as R
from tvmlite.transforms.fuse_by_pattern import FuseOpsByPattern
from tvmlite.transforms.run_codegen import MergeCompositeFunctions, RunCodegen
from tvmlite.vm.executable import ExecutableFormatError, load_executable
from tvmlite.vm.external import ExternalFunction, UnexportableFunctionError

ROOT = pathlib.Path(__file__).resolve().parents[2]
RNG = np.random.default_rng(5)


@I.ir_module
class ConvMLP:
    @R.function
    def main(x: R.Tensor((2, 3, 8, 8), "float32"), w: R.Tensor((4, 3, 3, 3), "float32"),
             b: R.Tensor((1, 4, 1, 1), "float32"), w0: R.Tensor((32, 256), "float32"),
             b0: R.Tensor((32,), "float32"), w1: R.Tensor((10, 32), "float32"),
             b1: R.Tensor((10,), "float32")):
        with R.dataflow():
            c = R.nn.conv2d(x, w, padding=(1, 1))
            cb = R.add(c, b)
            cr = R.nn.relu(cb)
            flat = R.reshape(cr, (2, 256))
            t0 = R.permute_dims(w0)
            d0 = R.matmul(flat, t0)
            a0 = R.add(d0, b0)
            h = R.nn.relu(a0)
            t1 = R.permute_dims(w1)
            d1 = R.matmul(h, t1)
            y = R.add(d1, b1)
            R.output(y)
        return y


@I.ir_module
class Elementwise:
    @R.function
    def main(x: R.Tensor((2, 3), "float32"), y: R.Tensor((2, 3), "float32")):
        with R.dataflow():
            a = R.add(x, y)
            b = R.multiply(a, y)
            c = R.subtract(b, x)
            R.output(c)
        return c


SHAPES = {"w": (4, 3, 3, 3), "b": (1, 4, 1, 1), "w0": (32, 256), "b0": (32,), "w1": (10, 32),
          "b1": (10,)}
PARAMS = {k: RNG.standard_normal(s).astype("float32") for k, s in SHAPES.items()}
X = RNG.standard_normal((2, 3, 8, 8)).astype("float32")


def numpy_conv_mlp(x, w, b, w0, b0, w1, b1):
    win = np.lib.stride_tricks.sliding_window_view(np.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1))),
                                                   (3, 3), axis=(2, 3))
    conv = np.maximum(np.einsum("nchwij,ocij->nohw", win, w) + b, 0).reshape(2, 256)
    return np.maximum(conv @ w0.T + b0, 0) @ w1.T + b1


def offload(mod, backend, merge=False, bind=True):
    if bind:
        mod = relax.transform.BindParams("main", PARAMS)(mod)
    mod = FuseOpsByPattern(get_patterns_with_prefix(backend), annotate_codegen=not merge)(mod)
    if merge:
        mod = MergeCompositeFunctions()(mod)
    return RunCodegen()(mod)


FRESH = """
import json, sys
import numpy as np
import tvmlite as tvm
from tvmlite.vm.vm import VirtualMachine
{setup}
before = tvm.list_global_func_names()
ex = tvm.runtime.load_module(sys.argv[1])
inputs = [np.load(p) for p in sys.argv[3:]]
try:
    np.save(sys.argv[2], VirtualMachine(ex, tvm.cpu())["main"](*inputs).numpy())
    error = None
except Exception as err:
    error = f"{{type(err).__name__}}: {{err}}"
print(json.dumps({{
    "error": error,
    "externals": {{s: [f.kind, f.payload] for s, f in ex.externals.items()}},
    "registered": sorted(set(tvm.list_global_func_names()) - set(before)),
    "modules": sorted({{m.split(".")[1] for m in sys.modules if m.startswith("tvmlite.")}}),
}}))
"""


def run_fresh(path, inputs, tmp_path, setup=""):
    """Load `path` in a new interpreter, run main on `inputs`; (output or None, report)."""
    files = []
    for i, a in enumerate(inputs):
        files.append(str(tmp_path / f"in{i}.npy"))
        np.save(files[-1], a)
    out = tmp_path / "out.npy"
    done = subprocess.run([sys.executable, "-c", FRESH.format(setup=setup), str(path), str(out),
                           *files], capture_output=True, text=True, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout.strip().splitlines()[-1])
    return (np.load(out) if out.exists() else None), report


@pytest.mark.parametrize("merge", [False, True], ids=["composites", "merged"])
def test_blas_model_runs_in_a_fresh_process(tmp_path, merge):
    mod = offload(ConvMLP, "blas", merge=merge)
    path = tmp_path / "model.tvmlite"
    relax.build(mod, "llvm").export_library(str(path))
    out, report = run_fresh(path, [X], tmp_path)
    assert report["error"] is None, report["error"]
    np.testing.assert_allclose(out, numpy_conv_mlp(X, **PARAMS), rtol=1e-4, atol=1e-4)
    assert len(report["externals"]) == (2 if merge else 3)  # merged: the two dense layers
    assert {k for k, _ in report["externals"].values()} == {"blas"}
    assert report["registered"] == []  # kept on the executable, not in the registry
    assert set(report["modules"]) <= {"vm", "nd", "runtime", "backend"}  # no compiler


def test_blas_weights_as_inputs_round_trip(tmp_path):
    mod = offload(ConvMLP, "blas", bind=False)
    path = tmp_path / "model.tvmlite"
    relax.build(mod, "llvm").export_library(str(path))
    out, report = run_fresh(path, [X, *PARAMS.values()], tmp_path)
    assert report["error"] is None, report["error"]
    np.testing.assert_allclose(out, numpy_conv_mlp(X, **PARAMS), rtol=1e-4, atol=1e-4)


def test_loaded_conv_uses_the_packed_weight_fast_path(tmp_path):
    path = tmp_path / "model.tvmlite"
    relax.build(offload(ConvMLP, "blas"), "llvm").export_library(str(path))
    before = tvm.list_global_func_names()
    ex = load_executable(str(path))
    assert tvm.list_global_func_names() == before
    convs = [f for f in ex.externals.values() if f.payload["composite"] == "blas.conv2d_bias_relu"]
    assert len(convs) == 1
    assert blas_runtime.fused_conv(convs[0].payload, convs[0].arrays.__getitem__) is not None
    out = relax.VirtualMachine(ex, tvm.cpu())["main"](X).numpy()
    np.testing.assert_allclose(out, numpy_conv_mlp(X, **PARAMS), rtol=1e-4, atol=1e-4)


@pytest.mark.skipif(shutil.which("cc") is None and shutil.which("gcc") is None,
                    reason="needs a C compiler")
def test_ccompiler_model_runs_in_a_fresh_process(tmp_path):
    mod = RunCodegen()(MergeCompositeFunctions()(
        FuseOpsByPattern(get_patterns_with_prefix("ccompiler"))(Elementwise)))
    path = tmp_path / "model.tvmlite"
    relax.build(mod, "llvm").export_library(str(path))
    x, y = (RNG.standard_normal((2, 3)).astype("float32") for _ in range(2))
    out, report = run_fresh(path, [x, y], tmp_path)
    assert report["error"] is None, report["error"]
    np.testing.assert_allclose(out, (x + y) * y - x, rtol=1e-6)
    ((kind, payload),) = report["externals"].values()
    assert kind == "ccompiler" and [s["call"]["steps"][0]["op"] for s in payload["steps"]] == [
        "relax.add", "relax.multiply", "relax.subtract"]
    assert report["registered"] == []


def _mine(functions, options, mod):
    def run(a, b, out):
        np.copyto(np.from_dlpack(out), np.maximum(np.from_dlpack(a) + np.from_dlpack(b), 0))

    return [run for _ in functions]


def _add_relu_module():
    from tvmlite.relax.dpl import is_op, wildcard

    pattern = is_op("relax.nn.relu")(is_op("relax.add")(wildcard(), wildcard()))
    return FuseOpsByPattern([("mine.add_relu", pattern)], bind_constants=False,
                            annotate_codegen=True)(ConvMLP)


def test_export_refuses_a_plain_callable_and_says_what_to_return(tmp_path):
    tvm.register_func("relax.ext.mine", _mine, override=True)
    ex = relax.build(RunCodegen()(_add_relu_module()), "llvm")
    path = tmp_path / "model.tvmlite"
    with pytest.raises(UnexportableFunctionError) as err:
        ex.export_library(str(path))
    message = str(err.value)
    assert "'mine.fused_relax_add_relax_nn_relu" in message and "relax.ext.mine" in message
    assert "plain Python callable" in message and "ExternalFunction" in message
    assert "compile_function" in message
    assert not path.exists()  # nothing written that could not run
    args = [X, *PARAMS.values()]
    expected = relax.VirtualMachine(ex, tvm.cpu())["main"](*args).numpy()  # runs in-process

    # the fix the message names: return numpy_eval.compile_function(...) instead
    tvm.register_func("relax.ext.mine", lambda fs, opts, m: [
        numpy_eval.compile_function(f, m) for f in fs], override=True)
    relax.build(RunCodegen()(_add_relu_module()), "llvm").export_library(str(path))
    out, report = run_fresh(path, args, tmp_path)
    assert report["error"] is None, report["error"]
    np.testing.assert_allclose(out, expected, rtol=1e-5, atol=1e-5)


def test_packed_functions_registered_by_name_stay_by_name(tmp_path):
    @I.ir_module
    class UsesEnv:
        @R.function
        def main(x: R.Tensor((4,), "float32")):
            y = R.call_dps_packed("test_export.double", (x,), R.Tensor((4,), "float32"))
            return y

    tvm.register_func("test_export.double", lambda a, out: np.multiply(
        np.from_dlpack(a), 2, out=np.from_dlpack(out)), override=True)
    path = tmp_path / "m.tvmlite"
    relax.build(UsesEnv, "llvm").export_library(str(path))
    ex = load_executable(str(path))
    assert ex.externals == {}
    x = np.arange(4, dtype="float32")
    np.testing.assert_allclose(relax.VirtualMachine(ex, tvm.cpu())["main"](x).numpy(), x * 2)


def _rewrite(path, edit):
    with zipfile.ZipFile(path) as zf:
        files = {n: zf.read(n) for n in zf.namelist()}
    edit(files)
    with zipfile.ZipFile(path, "w") as zf:
        for n, data in files.items():
            zf.writestr(n, data)


def _edit_manifest(change):
    def edit(files):
        manifest = json.loads(files["externals.json"])
        change(manifest)
        files["externals.json"] = json.dumps(manifest).encode()

    return edit


def _first_conv(manifest):
    return next(e for e in manifest if e["payload"]["composite"] == "blas.conv2d_bias_relu")


def _pickled(files):
    buf = io.BytesIO()
    np.save(buf, np.array([object()], dtype=object), allow_pickle=True)
    name = next(n for n in files if n.startswith("externals/"))
    files[name] = buf.getvalue()


TAMPER = [
    (lambda f: f.update({"externals.json": b"[{not json"}), "not JSON"),
    (_edit_manifest(lambda m: m[0].update(kind="os")), "unknown kind 'os'"),
    (_edit_manifest(lambda m: m[0].update(kind="pickle")), "unknown kind"),
    (_edit_manifest(lambda m: m[0].update(symbol="evil.r0")), "not a packed function"),
    (_edit_manifest(lambda m: m.append(m[0])), "appears twice"),
    (_edit_manifest(lambda m: m[0].pop("payload")), "entry 0 is malformed"),
    (_edit_manifest(lambda m: m[0].update(arrays=["../../etc/passwd"])), "malformed"),
    (_edit_manifest(lambda m: _first_conv(m)["payload"]["steps"][0].update(op="os.system")),
     "no implementation of 'os.system'"),
    (_edit_manifest(lambda m: _first_conv(m)["payload"].update(result=["step", 99])),
     "points nowhere"),
    (_edit_manifest(lambda m: _first_conv(m)["payload"]["steps"][1]["args"].pop()),
     "takes 2 args"),
    (_edit_manifest(lambda m: _first_conv(m)["payload"]["steps"][0]["attrs"].update(
        xp="numpy")), "bad attrs"),
    (_edit_manifest(lambda m: _first_conv(m)["payload"]["steps"][0]["args"].__setitem__(
        1, ["const", "c9"])), "points nowhere"),
    (_edit_manifest(lambda m: _first_conv(m)["payload"].update(inputs=True)), "bad inputs"),
    (lambda f: f.pop(next(n for n in f if n.startswith("externals/"))), "is missing"),
    (_pickled, "not a plain .npy"),
]


@pytest.mark.parametrize("edit,msg", TAMPER)
def test_tampered_payload_is_a_format_error(tmp_path, edit, msg):
    path = tmp_path / "model.tvmlite"
    relax.build(offload(ConvMLP, "blas"), "llvm").export_library(str(path))
    _rewrite(path, edit)
    with pytest.raises(ExecutableFormatError, match=msg):
        load_executable(str(path))


def test_flipped_manifest_bytes_give_a_clean_error_or_a_clean_load(tmp_path):
    path = tmp_path / "model.tvmlite"
    relax.build(offload(ConvMLP, "blas"), "llvm").export_library(str(path))
    with zipfile.ZipFile(path) as zf:
        manifest = zf.read("externals.json")
    for pos in range(0, len(manifest), 5):  # rewritten with a valid CRC: the JSON is read
        flipped = bytearray(manifest)
        flipped[pos] ^= 0x04
        _rewrite(path, lambda files: files.update({"externals.json": bytes(flipped)}))
        try:
            load_executable(str(path))
        except ExecutableFormatError:
            pass


@pytest.mark.skipif(shutil.which("cc") is None and shutil.which("gcc") is None,
                    reason="needs a C compiler")
def test_ccompiler_payload_cannot_smuggle_c(tmp_path):
    """The file holds a program, not C: only ops we write C for, and no constants."""
    mod = RunCodegen()(FuseOpsByPattern(get_patterns_with_prefix("ccompiler"),
                                        annotate_codegen=True)(Elementwise))
    path = tmp_path / "model.tvmlite"
    relax.build(mod, "llvm").export_library(str(path))
    _rewrite(path, _edit_manifest(
        lambda m: m[0]["payload"]["steps"][0].update(op='relax.add"); system("id')))
    with pytest.raises(ExecutableFormatError, match="no implementation"):
        load_executable(str(path))


def test_cupy_payload_round_trip_without_a_gpu(tmp_path, monkeypatch):
    """The cupy backend's functions export as step programs; loading needs no CuPy."""
    monkeypatch.setattr(cupy_runtime, "cupy_module", lambda: None)  # let the codegen run here
    mod = offload(ConvMLP, "cupy")
    monkeypatch.undo()
    ex = relax.build(mod, "llvm")
    path = tmp_path / "model.tvmlite"
    ex.export_library(str(path))
    loaded = load_executable(str(path))
    made = {s: tvm.get_global_func(s) for s in loaded.externals}
    assert len(made) == 3 and all(f.kind == "cupy" for f in loaded.externals.values())
    for symbol, f in loaded.externals.items():
        assert f.payload == made[symbol].payload
        assert f.arrays.keys() == made[symbol].arrays.keys()
        for k in f.arrays:
            np.testing.assert_array_equal(f.arrays[k], made[symbol].arrays[k])
    out, report = run_fresh(path, [X], tmp_path)
    if report["error"] is not None:  # no CuPy or no GPU here: loading worked, running says why
        assert report["error"].startswith("CuPyUnavailableError"), report["error"]
    else:
        np.testing.assert_allclose(out, numpy_conv_mlp(X, **PARAMS), rtol=1e-4, atol=1e-4)


def test_cupy_model_runs_after_loading_on_the_emulator(tmp_path, monkeypatch):
    """With tests/gpu's CuPy emulator in the fresh process, the loaded GPU functions run."""
    sys.path.insert(0, str(ROOT / "tests" / "gpu"))
    try:
        import cupy_emulator
    finally:
        sys.path.pop(0)
    missing = cupy_emulator.unavailable()
    if missing:
        pytest.skip(missing)
    monkeypatch.setattr(cupy_runtime, "cupy_module", lambda: None)
    mod = offload(ConvMLP, "cupy")
    monkeypatch.undo()
    path = tmp_path / "model.tvmlite"
    relax.build(mod, "llvm").export_library(str(path))
    setup = (f"sys.path.insert(0, {str(ROOT / 'tests' / 'gpu')!r})\n"
             "import cupy_emulator\nemulator = cupy_emulator.installed()\nemulator.__enter__()")
    out, report = run_fresh(path, [X], tmp_path, setup=setup)
    assert report["error"] is None, report["error"]
    np.testing.assert_allclose(out, numpy_conv_mlp(X, **PARAMS), rtol=1e-4, atol=1e-4)


def test_external_function_is_callable_and_exports_its_payload():
    f = ExternalFunction("blas", {"composite": None, "inputs": 1, "steps": [],
                                  "result": ["input", 0]}, lambda a, out: None)
    assert f(1, 2) is None and f.export()[1] == {}
