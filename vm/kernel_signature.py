"""Kernel signatures (docs/internals.md section 2): what a compiled kernel's arguments must be."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class KernelParam:
    name: str
    kind: str  # "buffer" | "scalar"
    dtype: str
    # an int is a static dim, a plain str a shape var, and "PROGRAM @ n,m" a dim computed
    # from shape vars (a postfix program over them as a0, a1, ...; see computed_dim)
    shape: tuple[int | str, ...] = ()


@dataclass(frozen=True, slots=True)
class KernelSignature:
    name: str
    params: tuple[KernelParam, ...]
    shape_vars: tuple[str, ...] = ()
    device_type: int = 1  # DLPack code of the memory the buffers must live in (2: CUDA)


def computed_dim(dim: int | str) -> tuple[str, tuple[str, ...]] | None:
    """(postfix program, the shape vars it reads) for a computed dim like `n * 2`, else None."""
    if not isinstance(dim, str) or " @ " not in dim:
        return None
    program, names = dim.rsplit(" @ ", 1)
    return program, tuple(n for n in names.split(",") if n)


def format_computed_dim(program: str, names: list[str]) -> str:
    return f"{program} @ {','.join(names)}"


def dim_text(dim: int | str) -> str:
    """A dim as people write it: `128`, `n`, or `n * 2` for a computed one."""
    computed = computed_dim(dim)
    if computed is None:
        return str(dim)
    program, names = computed
    stack: list[str] = []
    for tok in program.split():
        if tok.startswith("a"):
            stack.append(names[int(tok[1:])])
        elif tok.startswith("#"):
            stack.append(tok[1:])
        else:
            b, a = stack.pop(), stack.pop()
            stack.append(f"{tok}({a}, {b})" if tok in ("min", "max") else f"{a} {tok} {b}")
    return stack[-1] if stack else program


def shape_text(shape: tuple[int | str, ...] | list[int | str]) -> str:
    """`(1, n * 2)`, `(128,)`: a shape as Python writes a tuple, dims as people write them."""
    return "(" + ", ".join(dim_text(d) for d in shape) + ("," if len(shape) == 1 else "") + ")"
