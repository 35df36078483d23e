"""Run Apache TVM's own Python test files against tvmlite and against apache-tvm, and compare.

    python tools/run_tvm_tests.py /path/to/tvm/tests/python/relax/test_op_unary.py [...]

Each file runs twice under pytest in a fresh process: once with the installed apache-tvm (a test
counts only if it passes there) and once with `import tvm` aliased to tvmlite
(tools/tvm_shim). Prints, per file, how many of TVM's passing tests pass on tvmlite, and with
`--failures` the tests that do not. TVM's test files are TVM's code: they are read from the path
given, never copied into this repository.
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


def _outcomes(test_file: Path, use_shim: bool, timeout: float) -> dict[str, str]:
    """Run one file under pytest; map each test id to passed / failed / skipped."""
    env = dict(os.environ)
    if use_shim:
        env["PYTHONPATH"] = os.pathsep.join([str(SHIM), env.get("PYTHONPATH", "")])
    with tempfile.TemporaryDirectory() as tmp:
        report = Path(tmp) / "report.xml"
        cmd = [sys.executable, "-m", "pytest", "-q", str(test_file),
               "-p", "no:cacheprovider", f"--junitxml={report}", "-o", "addopts=",
               "--rootdir", str(test_file.parent), "--noconftest"]
        try:
            subprocess.run(cmd, env=env, cwd=tmp, capture_output=True, timeout=timeout)
        except subprocess.TimeoutExpired:
            return {}
        if not report.exists():
            return {}
        results = {}
        for case in ET.parse(report).getroot().iter("testcase"):
            name = f"{case.get('classname')}::{case.get('name')}"
            tags = {child.tag for child in case}
            results[name] = ("failed" if tags & {"failure", "error"} else
                             "skipped" if "skipped" in tags else "passed")
        return results


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("files", nargs="+", type=Path)
    parser.add_argument("--failures", action="store_true", help="list tvmlite's failing tests")
    parser.add_argument("--timeout", type=float, default=600.0, help="seconds per file and run")
    args = parser.parse_args()
    total_tvm = total_both = 0
    for test_file in args.files:
        on_tvm = _outcomes(test_file.resolve(), use_shim=False, timeout=args.timeout)
        on_lite = _outcomes(test_file.resolve(), use_shim=True, timeout=args.timeout)
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
