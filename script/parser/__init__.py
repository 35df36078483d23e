"""The TVMScript parser: a core AST walker (`core`) with one handler set per dialect."""


def __getattr__(name: str) -> object:
    # `from tvm.script.parser import ir as I, relax as R, tirx as T` (TVM's spelling): the
    # namespaces sit one level up, and import this package, so they are found on first use
    if name in ("ir", "relax", "tir", "tirx"):
        import importlib

        return importlib.import_module("..tir" if name == "tirx" else f"..{name}", __name__)
    if name == "ir_module":  # `from tvm.script.parser import ir_module`
        from .entry import ir_module

        return ir_module
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
