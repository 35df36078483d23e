"""Every package folder is listed in pyproject.toml, so `pip install .` ships all of it."""

import pathlib
import re

ROOT = pathlib.Path(__file__).resolve().parents[1]
SKIP = {"tests", "bench", "tutorials", "docs", "build"}


def test_every_package_is_listed():
    text = (ROOT / "pyproject.toml").read_text()
    listed = set(re.findall(r'"(tvmlite(?:\.\w+)*)"', text))
    found = {"tvmlite"}
    for init in ROOT.rglob("__init__.py"):
        rel = init.parent.relative_to(ROOT)
        if rel.parts and (rel.parts[0] in SKIP or rel.parts[0].startswith(".")):
            continue
        if rel.parts:
            found.add("tvmlite." + ".".join(rel.parts))
    assert found <= listed, f"missing from pyproject.toml: {sorted(found - listed)}"


def test_every_module_is_in_the_repomap():
    repomap = (ROOT / "docs" / "repomap.md").read_text()
    missing = []
    for path in sorted(ROOT.rglob("*.py")):
        rel = path.relative_to(ROOT)
        if rel.parts[0] in SKIP or rel.parts[0].startswith(".") or "egg-info" in str(rel):
            continue
        if f"`{rel}`" not in repomap:
            missing.append(str(rel))
    assert not missing, f"add to docs/repomap.md: {missing}"
