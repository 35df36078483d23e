"""Write docs/tvm_api_coverage.md: which public names of Apache TVM 0.27 tvmlite has.

    python tools/tvm_api_coverage.py          # needs apache-tvm installed beside tvmlite

For each namespace below, every public function and class (and, for `Schedule`, every public
method) of TVM's module is looked up on tvmlite's module of the same path. A name is
`implemented` when it resolves there, `not applicable` when NOT_APPLICABLE gives a reason, and
`missing` otherwise. tests/test_api_coverage.py checks that every name the table calls
implemented resolves, so the table cannot claim more than tvmlite has.
"""

from __future__ import annotations

import importlib
import inspect
import re
import sys
from pathlib import Path

# (TVM's module path, attribute or None) -> tvmlite's; the same path unless given
OP_FILES = ["base", "binary", "builtin", "ccl", "create", "datatype", "distributed", "grad",
            "image", "index", "linear_algebra", "manipulate", "mask", "memory", "nn", "qdq",
            "sampling", "search", "set", "sorting", "statistical", "ternary", "unary", "vision",
            "vm"]
NAMESPACES = [
    ("tvm.relax.op", None), *((f"tvm.relax.op.{name}", None) for name in OP_FILES),
    ("tvm.relax.analysis", None), ("tvm.error", None),
    ("tvm.relax.transform", None), ("tvm.relax", None), ("tvm.script.relax", None),
    ("tvm.ir", None), ("tvm.runtime", None), ("tvm.s_tir", None), ("tvm.s_tir", "Schedule"),
    ("tvm.script.tirx", None), ("tvm.te", None), ("tvm.topi", None),
]

# Reasons a name cannot apply to tvmlite, matched against the name (regular expressions).
NOT_APPLICABLE = [
    (r"(?i)disco|ccl|allreduce|allgather|broadcast_from_worker|scatter_from_worker",
     "multi-GPU (disco, collective communication)"),
    (r"(?i)ipc", "IPC memory between processes"),
    (r"(?i)vulkan|metal|rocm|opencl|hexagon|webgpu|vpi|ext_dev|hip", "device not supported"),
    (r"(?i)ffi|_object|Object$|ObjectRef|register_object|register_func_attr|FFI",
     "TVM's C++ object system"),
    (r"^ObjectConvertible$", "TVM's C++ object system"),
    (r"^(load_static_library|system_lib)$",
     "native libraries linked into TVM's C++ runtime (tvmlite loads its own exports)"),
    (r"^(GenericConst|OpaqueExpr|OpaqueType|TensorLoad|TensorRegion)$",
     "TVM 0.27's internal unified-IR nodes, not a user-facing API"),
    (r"^(VMShapeLower|VMBuiltinLower|LowerAllocTensor)$",
     "a step of TVM's C++ VM lowering; relax.build lowers to tvmlite's VM in one step "
     "(transforms/lower_to_vm.py)"),
    (r"^(SplitCallTIRByPattern)$", "CUTLASS kernel splitting (no CUTLASS backend)"),
    (r"^(RealizeVDevice|UpdateVDevice|SpecializePrimFuncBasedOnCallSite)$",
     "virtual-device planning for heterogeneous execution (texture memory scopes); tvmlite "
     "runs a module on one device"),
]


# Whole namespaces that cannot apply, with the reason (for the names tvmlite lacks there).
NOT_APPLICABLE_NAMESPACES = {
    "tvm.relax.op.ccl": "multi-GPU (disco, collective communication)",
    "tvm.relax.op.distributed": "multi-GPU (sharded tensors across devices)",
}


# Names that cannot apply within one namespace only (full names), with the reason.
NOT_APPLICABLE_IN = {
    "tvm.script.tirx": [
        (r"ComposeLayout|ExecScope|Iter|Layout|TileLayout|ScopeIdDef|wg_reg_tile|hint|filter"
         r"|selector|device_entry|scope_id|(cta|cluster|lane|warp|warpgroup|thread)_id\w*",
         "TVM's Hopper/Blackwell tile language (execution scopes, tile layouts, sketches)"),
        (r"SMEMPool|TMEMPool|smem|tmem|TensorMap|tensormap_\w+|alloc_cast_frag"
         r"|alloc_tcgen05_ldst_frag|cooperative_tensor_\w+",
         "Hopper/Blackwell GPU memory (TMEM, TMA tensor maps, tcgen05, cooperative tensors)"),
        (r"call_kernel", "GPU kernels written in CUDA/Triton source, called from TIR"),
    ],
}


def public_names(module: object, attr: str | None) -> list[str]:
    """TVM's public functions and classes of `module` (or public methods of class `attr`)."""
    target = getattr(module, attr) if attr else module
    names = []
    for name, value in vars(target).items() if attr else inspect.getmembers(target):
        if name.startswith("_") or inspect.ismodule(value):
            continue
        if attr or inspect.isfunction(value) or inspect.isclass(value) or callable(value):
            if attr or _own(module, value):
                names.append(name)
    return sorted(set(names))


def _own(module: object, value: object) -> bool:
    """For an operator file (`tvm.relax.op.unary`), only what TVM defines in it, not the
    helpers it imports (`Expr`, typing names); every other namespace counts all it exposes."""
    name = getattr(module, "__name__", "")
    if not name.startswith("tvm.relax.op.") or name.rsplit(".", 1)[1] not in OP_FILES:
        return True
    return getattr(value, "__module__", "").startswith("tvm.relax.op")


def lite_target(path: str, attr: str | None) -> object | None:
    try:
        module = importlib.import_module("tvmlite" + path[len("tvm"):])
    except ImportError:
        return None
    return getattr(module, attr, None) if attr else module


def reason_not_applicable(name: str, path: str = "") -> str | None:
    for pattern, reason in NOT_APPLICABLE_IN.get(path, []):
        if re.fullmatch(pattern, name):
            return reason
    for pattern, reason in NOT_APPLICABLE:
        if re.search(pattern, name):
            return reason
    return None


def table_rows() -> list[tuple[str, list[tuple[str, str]]]]:
    rows = []
    for path, attr in NAMESPACES:
        tvm_module = importlib.import_module(path)
        ours = lite_target(path, attr)
        entries = []
        for name in public_names(tvm_module, attr):
            if ours is not None and hasattr(ours, name):
                entries.append((name, "implemented"))
            else:
                why = NOT_APPLICABLE_NAMESPACES.get(path) or reason_not_applicable(name, path)
                entries.append((name, f"not applicable: {why}" if why else "missing"))
        rows.append((f"{path}.{attr}" if attr else path, entries))
    return rows


def render(rows: list[tuple[str, list[tuple[str, str]]]]) -> str:
    out = ["# TVM 0.27 API coverage", "",
           "Generated by `tools/tvm_api_coverage.py` from apache-tvm and tvmlite; do not edit.",
           "`tests/test_api_coverage.py` checks that every name marked implemented resolves.",
           "How TVM's own unit tests fare on tvmlite, file by file: `docs/tvm_test_rates.md`.",
           "", "| namespace | TVM names | implemented | not applicable | missing | of applicable |",
           "|---|---|---|---|---|---|"]
    for namespace, entries in rows:
        done = sum(1 for _, s in entries if s == "implemented")
        na = sum(1 for _, s in entries if s.startswith("not applicable"))
        applicable = len(entries) - na
        share = f"{100 * done / applicable:.0f}%" if applicable else "-"
        out.append(f"| `{namespace}` | {len(entries)} | {done} | {na} | "
                   f"{len(entries) - done - na} | {share} |")
    for namespace, entries in rows:
        out += ["", f"## `{namespace}`", ""]
        out += [f"- `{name}`: {status}" for name, status in entries]
    return "\n".join(out) + "\n"


def main() -> int:
    try:
        import tvm  # noqa: F401 (apache-tvm, only to read its names)
    except ImportError:
        print("apache-tvm is not installed: pip install apache-tvm==0.27.0.post1")
        return 1
    root = Path(__file__).resolve().parents[1]
    sys.path.insert(0, str(root.parent))
    (root / "docs" / "tvm_api_coverage.md").write_text(render(table_rows()))
    print((root / "docs" / "tvm_api_coverage.md").read_text().split("\n\n## ")[0])
    return 0


if __name__ == "__main__":
    sys.exit(main())
