"""docs/tvm_api_coverage.md cannot claim more than tvmlite has: every name it marks implemented
resolves on tvmlite's module (or class) of the same path. Needs no apache-tvm."""

import importlib
import pathlib
import re

import pytest

TABLE = pathlib.Path(__file__).resolve().parents[1] / "docs" / "tvm_api_coverage.md"


def _implemented() -> list[tuple[str, str]]:
    found, namespace = [], None
    for line in TABLE.read_text().splitlines():
        heading = re.fullmatch(r"## `(.+)`", line)
        if heading:
            namespace = heading.group(1)
        entry = re.fullmatch(r"- `(\w+)`: implemented", line)
        if entry and namespace:
            found.append((namespace, entry.group(1)))
    return found


def _lite(namespace: str) -> object:
    path = "tvmlite" + namespace[len("tvm"):]
    try:
        return importlib.import_module(path)
    except ImportError:
        module_path, _, cls = path.rpartition(".")
        return getattr(importlib.import_module(module_path), cls)


def test_the_table_lists_names():
    assert len(_implemented()) > 400


@pytest.mark.parametrize("namespace", sorted({ns for ns, _ in _implemented()}))
def test_every_implemented_name_resolves(namespace):
    target = _lite(namespace)
    missing = [name for ns, name in _implemented() if ns == namespace and not hasattr(target, name)]
    assert not missing, f"{namespace}: the table says implemented, tvmlite lacks {missing}"
