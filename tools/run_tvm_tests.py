"""Run Apache TVM's own Python test files against tvmlite and against apache-tvm, and compare.

    python tools/run_tvm_tests.py /path/to/tvm/tests/python/relax/test_op_unary.py [...]

Each file runs twice under pytest in a fresh process: once with the installed apache-tvm (a test
counts only if it passes there) and once with `import tvm` aliased to tvmlite
(tools/tvm_shim). Prints, per file, how many of TVM's passing tests pass on tvmlite, and with
`--failures` the tests that do not. A file whose pytest process dies (apache-tvm 0.27 segfaults
in some tests) is run again one test per process. TVM's test files are TVM's code: they are
read from the path given, never copied into this repository.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET
from pathlib import Path

SHIM = Path(__file__).resolve().parent / "tvm_shim"


def _pytest(target: str, env: dict[str, str], cwd: str, timeout: float,
            extra: list[str]) -> subprocess.CompletedProcess | None:
    cmd = [sys.executable, "-m", "pytest", "-q", target, "-p", "no:cacheprovider",
           "-o", "addopts=", "--rootdir", str(Path(target.split("::")[0]).parent),
           "--noconftest", *extra]
    try:
        return subprocess.run(cmd, env=env, cwd=cwd, capture_output=True, text=True,
                              timeout=timeout)
    except subprocess.TimeoutExpired:
        return None


def _tvm_outcomes(test_file: Path, args: argparse.Namespace) -> dict[str, str]:
    """apache-tvm's outcomes for the file, from the cache when it has them."""
    if args.tvm_cache is None:
        return _outcomes(test_file, use_shim=False, timeout=args.timeout, keyword=args.keyword)
    import hashlib
    import json
    from importlib.metadata import version

    key = hashlib.sha1(test_file.read_bytes() + version("apache-tvm").encode()
                       + str(args.keyword).encode()).hexdigest()[:16]
    entry = args.tvm_cache / f"{test_file.stem}-{key}.json"
    if entry.exists():
        return json.loads(entry.read_text())
    found = _outcomes(test_file, use_shim=False, timeout=args.timeout, keyword=args.keyword)
    if found:  # an empty answer (a crash, a timeout) is not worth keeping
        args.tvm_cache.mkdir(parents=True, exist_ok=True)
        entry.write_text(json.dumps(found))
    return found


def _outcomes(test_file: Path, use_shim: bool, timeout: float, keyword: str | None = None
              ) -> dict[str, str]:
    """Run one file under pytest; map each test id to passed / failed / skipped."""
    env = dict(os.environ)
    if use_shim:
        env["PYTHONPATH"] = os.pathsep.join([str(SHIM), env.get("PYTHONPATH", "")])
    with tempfile.TemporaryDirectory() as tmp:
        report = Path(tmp) / "report.xml"
        select = ["-k", keyword] if keyword else []
        done = _pytest(str(test_file), env, tmp, timeout, [f"--junitxml={report}", *select])
        if done is None:
            return {}
        if not report.exists():  # the process died (apache-tvm segfaults on some tests)
            return _one_by_one(test_file, env, tmp, timeout)
        results = {}
        for case in ET.parse(report).getroot().iter("testcase"):
            name = f"{case.get('classname')}::{case.get('name')}"
            tags = {child.tag for child in case}
            results[name] = ("failed" if tags & {"failure", "error"} else
                             "skipped" if "skipped" in tags else "passed")
        return results


def _one_by_one(test_file: Path, env: dict[str, str], cwd: str,
                timeout: float) -> dict[str, str]:
    """Each test in its own process, so that one crash costs only that test."""
    listed = _pytest(str(test_file), env, cwd, timeout, ["--collect-only"])
    if listed is None:
        return {}
    results = {}
    for line in listed.stdout.splitlines():
        if "::" not in line:
            continue
        test_id = line.strip().split("::", 1)[1]
        done = _pytest(f"{test_file}::{test_id}", env, cwd, timeout, [])
        outcome = "failed" if done is None or done.returncode not in (0, 5) else (
            "skipped" if done.returncode == 5 or " skipped" in done.stdout and
            " passed" not in done.stdout else "passed")
        *classes, name = test_id.split("::")  # named as the junit report names them
        results[f"{'.'.join([test_file.stem, *classes])}::{name}"] = outcome
    return results


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("files", nargs="+", type=Path)
    parser.add_argument("--failures", action="store_true", help="list tvmlite's failing tests")
    parser.add_argument("--timeout", type=float, default=600.0, help="seconds per file and run")
    parser.add_argument("-k", dest="keyword", default=None,
                        help="pytest -k expression for both runs (e.g. 'not sparse_csr')")
    parser.add_argument("--tvm-cache", type=Path, default=None,
                        help="folder keeping apache-tvm's outcomes per test file (keyed by the "
                             "file's contents and the installed TVM), so reruns skip that run")
    args = parser.parse_args()
    total_tvm = total_both = 0
    for test_file in args.files:
        on_tvm = _tvm_outcomes(test_file.resolve(), args)
        on_lite = _outcomes(test_file.resolve(), use_shim=True, timeout=args.timeout,
                            keyword=args.keyword)
        passing = [name for name, outcome in on_tvm.items() if outcome == "passed"]
        both = [name for name in passing if on_lite.get(name) == "passed"]
        total_tvm += len(passing)
        total_both += len(both)
        share = f"{100 * len(both) / len(passing):.0f}%" if passing else "-"
        print(f"{test_file.name}: {len(both)}/{len(passing)} ({share})", flush=True)
        if args.failures:
            for name in passing:
                if on_lite.get(name) != "passed":
                    print(f"    {on_lite.get(name, 'not run')}: {name}")
    share = f"{100 * total_both / total_tvm:.0f}%" if total_tvm else "-"
    print(f"total: {total_both}/{total_tvm} ({share})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
