"""Make `import tvm` (and every `tvm.*` submodule) resolve to tvmlite.

Put this folder first on PYTHONPATH to run code written for TVM on tvmlite unchanged; the
real apache-tvm, if installed, is then shadowed. Used by tools/run_tvm_tests.py.
"""

import importlib
import importlib.abc
import importlib.util
import sys


class _AliasLoader(importlib.abc.Loader):
    def __init__(self, real_name: str) -> None:
        self.real_name = real_name

    def create_module(self, spec):  # the already-imported tvmlite module is the module
        return importlib.import_module(self.real_name)

    def exec_module(self, module) -> None:
        pass


# TVM 0.27 code imports its object system (`tvm_ffi`) next to `tvm`; tvmlite has both.
_ALIASES = {"tvm": "tvmlite", "tvm_ffi": "tvmlite.ffi"}


class _TvmAliasFinder(importlib.abc.MetaPathFinder):
    def find_spec(self, fullname, path=None, target=None):
        root = fullname.split(".", 1)[0]
        if root not in _ALIASES:
            return None
        real_name = _ALIASES[root] + fullname[len(root):]
        try:
            real_spec = importlib.util.find_spec(real_name)
        except ModuleNotFoundError:
            return None
        if real_spec is None:
            return None
        return importlib.util.spec_from_loader(
            fullname, _AliasLoader(real_name),
            is_package=real_spec.submodule_search_locations is not None)


sys.meta_path.insert(0, _TvmAliasFinder())
