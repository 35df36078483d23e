"""`tvm.target.Target`: a compilation target object, as TVM users spell it.

`Target("llvm -mcpu=native")`, `Target("cuda")`, `Target({"kind": "cuda", "arch": "sm_80"})`,
`Target("nvidia/nvidia-a100")`; `with Target("cuda"):` makes it `Target.current()`. The build
functions accept these objects anywhere they accept a target string.
"""

from __future__ import annotations

from typing import Any

from .tir.kernel_build import Target as _Parsed
from .tir.kernel_build import parse_target

# TVM's other target kinds and their keys: a Target of one can be made and inspected (a
# pipeline picks its passes by it); building for it raises parse_target's ValueError
_OTHER_KINDS = {"c": ("cpu",), "hexagon": ("hexagon", "cpu"), "vulkan": ("vulkan", "gpu"),
                "webgpu": ("webgpu", "gpu"), "metal": ("metal", "gpu"),
                "rocm": ("rocm", "gpu"), "opencl": ("opencl", "gpu")}


class Target:
    """A parsed target; `str(t)` is the TVM-style string the builders parse again."""

    _stack: list["Target"] = []

    def __init__(self, target: Any, host: Any = None) -> None:
        spec = target._text if isinstance(target, Target) else target
        other = _kind_name(spec)
        if other in _OTHER_KINDS:
            self._parsed = _Parsed(kind=other, mcpu="", mattr="")
        else:
            self._parsed = parse_target(spec)  # raises ValueError for an unknown target
        self._text = spec if isinstance(spec, str) else _to_text(self._parsed)
        if isinstance(spec, str) and spec.startswith("nvidia/"):
            self._text = _to_text(self._parsed)
        self.host = Target(host) if host is not None else None

    @property
    def kind(self) -> "_Kind":
        return _Kind(self._parsed.kind)

    @property
    def keys(self) -> tuple[str, ...]:
        """TVM's target keys: ("cpu",) for llvm, ("cuda", "gpu") for cuda, ..."""
        kind = self._parsed.kind
        return {"llvm": ("cpu",), "cuda": ("cuda", "gpu")}.get(kind) or _OTHER_KINDS[kind]

    @property
    def arch(self) -> str:
        return self._parsed.arch

    @property
    def attrs(self) -> dict[str, Any]:
        return {"arch": self.arch} if self._parsed.kind == "cuda" else {"mcpu": self._parsed.mcpu}

    def __str__(self) -> str:
        return self._text

    def __repr__(self) -> str:
        return f"Target({self._text!r})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Target) and (self._text, str(self.host)) == \
            (other._text, str(other.host))

    def __hash__(self) -> int:
        return hash((self._text, str(self.host)))

    def __enter__(self) -> "Target":
        Target._stack.append(self)
        return self

    def __exit__(self, *exc: Any) -> None:
        Target._stack.pop()

    @staticmethod
    def from_device(device: Any) -> "Target":
        """The target that builds for `device` (`tvm.cuda(0)` -> cuda, `tvm.cpu()` -> llvm)."""
        kind = getattr(device, "device_type", 1)
        return Target("cuda" if kind == 2 else "llvm")

    @staticmethod
    def current(allow_none: bool = True) -> "Target | None":
        if not Target._stack and not allow_none:
            raise ValueError("no target is active; use `with tvm.target.Target(...):`")
        return Target._stack[-1] if Target._stack else None


def _kind_name(spec: Any) -> str:
    if isinstance(spec, str):
        return spec.split()[0] if spec.split() else ""
    if isinstance(spec, dict):
        return str(spec.get("kind", ""))
    return ""


class _Kind:
    """`target.kind.name`, as in TVM."""

    def __init__(self, name: str) -> None:
        self.name = name

    def __str__(self) -> str:
        return self.name

    def __eq__(self, other: object) -> bool:
        return str(other) == self.name

    def __hash__(self) -> int:
        return hash(self.name)


def _to_text(t: Any) -> str:
    if t.kind in _OTHER_KINDS:
        return t.kind
    return f"cuda -arch={t.arch}" if t.kind == "cuda" else "llvm"


def cuda(arch: str = "sm_80", **_: Any) -> Target:
    """`tvm.target.cuda()`."""
    return Target(f"cuda -arch={arch}")
