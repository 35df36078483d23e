"""Regenerates docs/repomap.md from each module's docstring.

Run from the root: python docs/make_repomap.py
"""
import ast
import pathlib

root = pathlib.Path(".")
lines = ["# Repository map", "", "One line per module (its docstring's first line). "
         "`tests/test_packaging.py` checks that every module is listed.", ""]
skip = {".venv", "tests", "bench", "tutorials", "docs", ".ci", "build", ".gl", ".whl"}
for p in sorted(root.rglob("*.py")):
    if p.parts[0] in skip or "egg-info" in str(p) or p.parts[0].startswith("."):
        continue
    doc = ast.get_docstring(ast.parse(p.read_text())) or ""
    first = doc.strip().splitlines()[0] if doc.strip() else "(no docstring)"
    lines.append(f"- `{p}`: {first}")
pathlib.Path("docs/repomap.md").write_text("\n".join(lines) + "\n")
