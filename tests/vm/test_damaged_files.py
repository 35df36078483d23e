"""Damaged and doctored executable files (issue 13, item 3): every load works or raises
ExecutableFormatError naming what was wrong -- never another exception, never an abort."""

from __future__ import annotations

import json
import pathlib
import subprocess
import sys
import zipfile

import pytest
from test_executable import X, _exe, _rewrite

from tvmlite.vm.executable import ExecutableFormatError, load_executable
from tvmlite.vm.file_checks import RUNTIME_DECLARATIONS


@pytest.fixture()
def exported(tmp_path: pathlib.Path) -> str:
    path = str(tmp_path / "m.tvmlite")
    _exe().export_library(path)
    return path


def _members(path: str) -> dict[str, bytes]:
    with zipfile.ZipFile(path) as zf:
        return {n: zf.read(n) for n in zf.namelist()}


def test_truncated_assembly_names_member_line_and_expectation(exported: str) -> None:
    text = _members(exported)["executable.asm"]
    _rewrite(exported, "executable.asm", lambda b: b[: len(b) // 2])
    with pytest.raises(ExecutableFormatError) as info:
        load_executable(exported)
    msg = str(info.value)
    line = text[: len(text) // 2].count(b"\n") + 1
    assert msg.startswith(f"executable.asm, line {line}, column ")
    assert "expected" in msg and "__ANON" not in msg and "$END" not in msg


def test_unexpected_token_is_shown(exported: str) -> None:
    _rewrite(exported, "executable.asm", lambda b: b.replace(b"ret %3", b"ret ret", 1))
    with pytest.raises(ExecutableFormatError, match=r"expected a register \(%3\); got 'ret'"):
        load_executable(exported)


DOCTORED_IR = [
    ('@llvm.global_ctors = appending global [1 x { i32, ptr, ptr }] '
     '[{ i32, ptr, ptr } { i32 65535, ptr @evil, ptr null }]\n'
     'define internal void @evil() {\n  ret void\n}\n', "global @llvm.global_ctors"),
    ('@llvm.global_dtors = appending global [1 x { i32, ptr, ptr }] '
     '[{ i32, ptr, ptr } { i32 65535, ptr @evil, ptr null }]\n'
     'define internal void @evil() {\n  ret void\n}\n', "global @llvm.global_dtors"),
    ('module asm "nop"\n', "module-level inline assembly"),
    ('define void @sneaky() {\n  call void asm sideeffect "nop", ""()\n  ret void\n}\n',
     "inline assembly"),
    ('declare i32 @system(ptr)\n', "declares @system"),
    ('define void @extra() {\n  ret void\n}\n', "defines @extra"),
]


@pytest.mark.parametrize("extra, msg", DOCTORED_IR)
def test_doctored_kernel_ir_is_refused_before_llvm_sees_it(exported: str, extra: str,
                                                           msg: str) -> None:
    _rewrite(exported, "kernels.ll", lambda b: b + b"\n" + extra.encode())
    with pytest.raises(ExecutableFormatError, match=msg):
        load_executable(exported)


def test_kernels_json_must_match_kernels_ll(exported: str) -> None:
    def add_kernel(b: bytes) -> bytes:
        sigs = json.loads(b)
        sigs["ghost"] = next(iter(sigs.values()))
        return json.dumps(sigs).encode()

    _rewrite(exported, "kernels.json", add_kernel)
    with pytest.raises(ExecutableFormatError, match="ghost"):
        load_executable(exported)


def test_members_are_checked_before_parsing(exported: str) -> None:
    files = _members(exported)
    for bad, msg in [({**files, "evil.so": b"\x7fELF"}, "unexpected member 'evil.so'"),
                     ({k: v for k, v in files.items() if k != "kernels.ll"}, "'kernels.ll'")]:
        with zipfile.ZipFile(exported, "w") as zf:
            for n, data in bad.items():
                zf.writestr(n, data)
        with pytest.raises(ExecutableFormatError, match=msg):
            load_executable(exported)


def test_runtime_declarations_cover_the_codegen() -> None:
    from tvmlite.tir import codegen_llvm

    libm = set(codegen_llvm._LIBM.values())
    assert libm | {n + "f" for n in libm} <= RUNTIME_DECLARATIONS


# -- fuzzing, in a subprocess (an abort must fail the test, not kill the run) ---------------

_WORKER = r"""
import json, sys, zipfile
import numpy as np
from tvmlite.vm.executable import ExecutableFormatError, load_executable
from tvmlite.vm.vm import VirtualMachine
for path in sys.argv[1:]:
    try:
        vm = VirtualMachine(load_executable(path))
        vm["main"](np.array(%r, np.float32))
        outcome = "ok"
    except ExecutableFormatError:
        outcome = "format"
    except Exception as err:  # a wrong call of a changed-but-valid program is fine too
        outcome = "ok" if type(err).__name__ in ("VMFunctionError", "ValueError") and \
            "parameter" in str(err) else f"{type(err).__name__}: {err}"
    print(json.dumps([path, outcome]), flush=True)
"""


def _variants(files: dict[str, bytes]) -> list[dict[str, bytes]]:
    """Truncations and bit flips of every member, and members swapped: fixed, not random."""
    out = []
    for name, data in sorted(files.items()):
        for frac in (0, 0.1, 0.5, 0.9, 0.99):
            out.append({**files, name: data[: int(len(data) * frac)]})
        for k in range(6):
            if data:
                pos = (k * 2654435761) % len(data)
                flipped = bytearray(data)
                flipped[pos] ^= 1 << (k % 8)
                out.append({**files, name: bytes(flipped)})
    names = ["executable.asm", "kernels.ll", "kernels.json", "FORMAT"]
    for a, b in zip(names, names[1:] + names[:1]):
        out.append({**files, a: files[b], b: files[a]})
    return out


def test_fuzzed_files_load_or_raise_format_error(exported: str, tmp_path: pathlib.Path) -> None:
    paths = []
    for i, files in enumerate(_variants(_members(exported))):
        path = tmp_path / f"v{i}.tvmlite"
        with zipfile.ZipFile(path, "w") as zf:
            for n, data in files.items():
                zf.writestr(n, data)
        paths.append(str(path))
    proc = subprocess.run([sys.executable, "-c", _WORKER % X.tolist(), *paths],
                          capture_output=True, text=True, timeout=300)
    results = dict(json.loads(line) for line in proc.stdout.splitlines())
    done = len(results)
    assert proc.returncode == 0, f"the load of {paths[done] if done < len(paths) else '?'} " \
        f"ended the process ({proc.returncode}): {proc.stderr[-2000:]}"
    bad = {p: o for p, o in results.items() if o not in ("ok", "format")}
    assert not bad, bad
    assert list(results.values()).count("format") > len(paths) // 2
