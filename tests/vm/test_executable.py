"""Executables: assembly text, export -> load in a fresh process, tampered files."""

from __future__ import annotations

import ast
import os
import pathlib
import subprocess
import sys
import zipfile

import numpy as np
import pytest
import vmtools as V

from tvmlite.vm import ndarray as nd
from tvmlite.vm.asm import parse_executable
from tvmlite.vm.bytecode import Call, Ret, reg
from tvmlite.vm.executable import ExecutableFormatError, VMFunction, load_executable
from tvmlite.vm.vm import VirtualMachine

X = np.array([1.5, -2.0, 0.0, 3.25], np.float32)
C = np.array([10, 20, 30, 40], np.float32)
VM_DIR = pathlib.Path(__file__).resolve().parents[2] / "vm"


def _exe() -> V.Executable:
    fn = V.with_constant(4)
    return V.executable(fn, V.chain(3).__class__("chain3", *list(_fields(V.chain(3)))[1:]),
                        constants=[nd.array(C), 2.0])


def _fields(fn: VMFunction) -> tuple:
    return (fn.name, fn.params, fn.param_sinfo, fn.num_regs, fn.instructions)


def test_as_text() -> None:
    text = _exe().as_text()
    assert "call vm.builtin.alloc_tensor in: c0, i4 dst: %1" in text
    assert "c4 tensor float32 (4,)" in text and "c5 float 2.0" in text
    assert "f6 kernel add_one" in text and "param x: tensor (4,) float32" in text


def test_text_round_trip() -> None:
    ex = _exe()
    arrays = {"constants/c4.npy": C}
    again = parse_executable(ex.as_text(), arrays, ex.kernels)
    assert again.as_text() == ex.as_text()
    assert again.functions == ex.functions


def test_export_load_in_fresh_process(tmp_path: pathlib.Path) -> None:
    path = str(tmp_path / "model.tvmlite")
    _exe().export_library(path)
    script = (
        "import sys, numpy as np\n"
        "from tvmlite.vm.executable import load_executable\n"
        "from tvmlite.vm.vm import VirtualMachine\n"
        "from tvmlite.vm import ndarray as nd\n"
        f"vm = VirtualMachine(load_executable({path!r}))\n"
        "x = nd.array(np.array([1.5, -2.0, 0.0, 3.25], np.float32))\n"
        "a, b = vm['main'](x)\n"
        "print(a.numpy().tolist(), b.numpy().tolist(), vm['chain3'](x).numpy().tolist())\n"
        "loaded = {m.split('.')[1] for m in sys.modules if m.startswith('tvmlite.')}\n"
        "print(','.join(sorted(loaded)))\n")
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                         check=True).stdout.strip().splitlines()
    want = [((X + C) * 2).tolist(), (X + C).tolist(), (X + 3).tolist()]
    assert out[0] == " ".join(str(w) for w in want)
    # loading and running needs the runtime alone: no parser, IR, passes or codegen
    assert set(out[1].split(",")) <= {"vm", "nd", "runtime"}, out[1]


def _rewrite(path: str, name: str, edit) -> None:
    with zipfile.ZipFile(path) as zf:
        files = {n: zf.read(n) for n in zf.namelist()}
    files[name] = edit(files[name])
    with zipfile.ZipFile(path, "w") as zf:
        for n, data in files.items():
            zf.writestr(n, data)


TAMPER = [
    ("executable.asm", lambda b: b.replace(b"ret %3", b"ret %99"), "register out of range"),
    ("executable.asm", lambda b: b.replace(b"dst: %1", b"dst %1"), "executable.asm, line"),
    ("executable.asm", lambda b: b.replace(b"call add_one", b"call evil"), "not in the function"),
    ("executable.asm", lambda b: b.replace(b"c4 tensor float32 (4,)", b"c4 tensor float32 (8,)"),
     "constant c4"),
    ("executable.asm", lambda b: b.replace(b"i4, c1", b"i4, c77"), "out of range"),
    ("executable.asm", lambda b: b.replace(b"goto", b"goto") + b"\x00garbage",
     "executable.asm, line"),
    ("executable.asm", lambda b: b.replace(b"  1: ", b"  7: ", 1), "numbered"),
    ("kernels.json", lambda b: b"{not json", "kernels.json"),
    ("kernels.json", lambda b: b.replace(b'"buffer"', b'"bogus"', 1), "kernels.json"),
    ("constants/c4.npy", lambda b: b"not an npy file", "c4"),
    ("FORMAT", lambda b: b"something else", "not a"),
]


@pytest.mark.parametrize("name,edit,msg", TAMPER)
def test_tampered_file_gives_clean_error(tmp_path: pathlib.Path, name, edit, msg) -> None:
    path = str(tmp_path / "m.tvmlite")
    _exe().export_library(path)
    _rewrite(path, name, edit)
    with pytest.raises(ExecutableFormatError, match=msg):
        load_executable(path)


def test_pickled_constant_is_refused(tmp_path: pathlib.Path) -> None:
    import io

    path = str(tmp_path / "m.tvmlite")
    _exe().export_library(path)
    buf = io.BytesIO()
    np.save(buf, np.array([object()], dtype=object), allow_pickle=True)
    _rewrite(path, "constants/c4.npy", lambda b: buf.getvalue())
    with pytest.raises(ExecutableFormatError, match="c4"):
        load_executable(path)


def test_not_a_zip_and_corrupt_bytes(tmp_path: pathlib.Path) -> None:
    bad = tmp_path / "bad.tvmlite"
    bad.write_bytes(b"hello world")
    with pytest.raises(ExecutableFormatError, match="not a readable"):
        load_executable(str(bad))
    path = tmp_path / "m.tvmlite"
    _exe().export_library(str(path))
    data = path.read_bytes()
    from tvmlite.vm.kernels import KernelLoadError

    for pos in range(0, len(data), 7):  # flip bytes all over: a clean error or a clean load
        flipped = bytearray(data)
        flipped[pos] ^= 0xFF
        path.write_bytes(bytes(flipped))
        try:
            VirtualMachine(load_executable(str(path)))
        except (ExecutableFormatError, KernelLoadError):
            pass


def test_invalid_kernel_ir_is_a_clean_error(tmp_path: pathlib.Path) -> None:
    path = str(tmp_path / "m.tvmlite")
    _exe().export_library(path)
    _rewrite(path, "kernels.ll", lambda b: b.replace(b"fadd", b"fbogus", 1))
    with pytest.raises(ExecutableFormatError, match="kernels.ll: invalid LLVM IR"):
        load_executable(path)  # checked before LLVM compiles anything of it


def test_in_memory_validation() -> None:
    bad = VMFunction("main", ("x",), (V.T4,), 1, (Call(None, 99, (reg(0),)), Ret(0)))
    with pytest.raises(ExecutableFormatError, match="f99"):
        V.executable(bad)
    with pytest.raises(ExecutableFormatError, match="must end"):
        V.executable(VMFunction("main", (), (), 1, ()))


def test_vm_imports_nothing_from_the_compiler() -> None:
    """A user loads an exported executable with vm/ alone."""
    for path in VM_DIR.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom):
                mod = node.module or ""
                assert node.level <= 1, f"{path.name} imports from outside vm/: {mod}"
                assert not mod.startswith(("tvmlite.script", "tvmlite.ir", "tvmlite.tir",
                                           "tvmlite.transforms")), path.name
            elif isinstance(node, ast.Import):
                assert not any(a.name.startswith("tvmlite") for a in node.names), path.name
    assert os.path.isdir(VM_DIR)
