"""Hand-built kernels and bytecode for the VM tests (no parser, no compiler involved)."""

from __future__ import annotations

from tvmlite.vm.bytecode import Call, Goto, If, Ret, const, imm, reg
from tvmlite.vm.executable import Executable, FuncEntry, VMFunction
from tvmlite.vm.kernel_signature import KernelParam, KernelSignature
from tvmlite.vm.kernels import KernelLibrary


def _loop_kernel(name: str, n: str, body: str, extra: str = "") -> str:
    """A kernel looping i over [0, n) with `body` using %a %b (%c) and index %i."""
    return f"""
define void @{name}(ptr noalias %a, ptr noalias %b{extra}) {{
entry:
  %nonempty = icmp sgt i64 {n}, 0
  br i1 %nonempty, label %loop, label %exit
loop:
  %i = phi i64 [0, %entry], [%i1, %loop]
  %pa = getelementptr float, ptr %a, i64 %i
  %v = load float, ptr %pa
{body}
  %i1 = add i64 %i, 1
  %more = icmp slt i64 %i1, {n}
  br i1 %more, label %loop, label %exit
exit:
  ret void
}}
"""


_STORE_B = "  %pb = getelementptr float, ptr %b, i64 %i\n  store float %w, ptr %pb"
KERNEL_IR = (
    _loop_kernel("add_one", "4", "  %w = fadd float %v, 1.0\n" + _STORE_B)
    + _loop_kernel("sub_one", "4", "  %w = fsub float %v, 1.0\n" + _STORE_B)
    + _loop_kernel("add_one_n", "%n", "  %w = fadd float %v, 1.0\n" + _STORE_B, ", i64 %n")
    + _loop_kernel("scale", "4", "  %w = fmul float %v, %s\n" + _STORE_B, ", float %s")
    + _loop_kernel("vadd", "4", "  %pc = getelementptr float, ptr %c, i64 %i\n"
                   "  %u = load float, ptr %pb0\n  %w = fadd float %v, %u\n"
                   "  store float %w, ptr %pc", ", ptr noalias %c").replace(
        "  %v = load float, ptr %pa\n  %pc", "  %v = load float, ptr %pa\n"
        "  %pb0 = getelementptr float, ptr %b, i64 %i\n  %pc")
)


def _buf(name: str, shape: tuple[int | str, ...] = (4,)) -> KernelParam:
    return KernelParam(name, "buffer", "float32", shape)


SIGNATURES = {
    "add_one": KernelSignature("add_one", (_buf("A"), _buf("B"))),
    "sub_one": KernelSignature("sub_one", (_buf("A"), _buf("B"))),
    "add_one_n": KernelSignature("add_one_n", (_buf("A", ("n",)), _buf("B", ("n",))), ("n",)),
    "scale": KernelSignature("scale", (_buf("A"), _buf("B"),
                                       KernelParam("s", "scalar", "float32"))),
    "vadd": KernelSignature("vadd", (_buf("A"), _buf("B"), _buf("C"))),
}

BUILTINS = ["check_tensor_info", "check_dim", "alloc_tensor", "tensor_dim", "check_dim_equal",
            "make_tuple"]
TABLE = [FuncEntry("packed", "vm.builtin." + b) for b in BUILTINS] + [
    FuncEntry("kernel", k) for k in SIGNATURES]
F = {e.name.split(".")[-1]: i for i, e in enumerate(TABLE)}
T4 = ("tensor", (4,), "float32")


def library() -> KernelLibrary:
    return KernelLibrary(KERNEL_IR, SIGNATURES)


def check4(r: int, name_const: int) -> list[Call]:
    """Entry checks pinning register r to a float32 (4,) tensor; c0 is "float32"."""
    return [Call(None, F["check_tensor_info"], (reg(r), imm(1), const(0), const(name_const))),
            Call(None, F["check_dim"], (reg(r), imm(0), imm(4), const(name_const)))]


def alloc4(dst: int) -> Call:
    return Call(dst, F["alloc_tensor"], (const(0), imm(4)))


def chain(n: int) -> VMFunction:
    """main(x) = x + n, as n chained add_one kernels (a static region)."""
    code: list = check4(0, 1)
    for k in range(n):
        code += [alloc4(k + 1), Call(None, F["add_one"], (reg(k), reg(k + 1)))]
    return VMFunction("main", ("x",), (T4,), n + 1, tuple(code + [Ret(n)]))


def executable(*functions: VMFunction, table: list[FuncEntry] | None = None,
               constants: list | None = None) -> Executable:
    consts = ["float32", "x", "y", "n"] + list(constants or [])
    return Executable(table or TABLE, {f.name: f for f in functions}, consts, library())


def dps_function(packed_index: int) -> VMFunction:
    """main(x) = packed(add_one(x)) where packed writes its output in place (DPS)."""
    code = check4(0, 1) + [alloc4(1), Call(None, F["add_one"], (reg(0), reg(1))),
                           alloc4(2), Call(None, packed_index, (reg(1), reg(2))), Ret(2)]
    return VMFunction("main", ("x",), (T4,), 3, tuple(code))


def symbolic() -> VMFunction:
    """main(x: (n,), y: (n,)) = (x + 1) with y checked to have the same n."""
    code = [Call(None, F["check_tensor_info"], (reg(0), imm(1), const(0), const(1))),
            Call(None, F["check_tensor_info"], (reg(1), imm(1), const(0), const(2))),
            Call(2, F["tensor_dim"], (reg(0), imm(0))),
            Call(None, F["check_dim_equal"], (reg(1), imm(0), reg(2), const(2), const(3))),
            Call(3, F["alloc_tensor"], (const(0), reg(2))),
            Call(None, F["add_one_n"], (reg(0), reg(3), reg(2))), Ret(3)]
    return VMFunction("main", ("x", "y"), (("tensor", ("n",), "float32"),) * 2, 4, tuple(code))


def branchy() -> VMFunction:
    """main(x, flag) = x + 1 if flag else x - 1, with If/Goto."""
    code = check4(0, 1) + [alloc4(2), If(1, 3), Call(None, F["add_one"], (reg(0), reg(2))),
                           Goto(2), Call(None, F["sub_one"], (reg(0), reg(2))), Ret(2)]
    return VMFunction("main", ("x", "flag"), (T4, ("any",)), 3, tuple(code))


def with_constant(cindex: int) -> VMFunction:
    """main(x) = scale(vadd(x, c), 2.0): a tensor constant and a scalar kernel argument."""
    code = check4(0, 1) + [alloc4(1), Call(None, F["vadd"], (reg(0), const(cindex), reg(1))),
                           alloc4(2), Call(None, F["scale"], (reg(1), reg(2), const(cindex + 1))),
                           Call(3, F["make_tuple"], (reg(2), reg(1))), Ret(3)]
    return VMFunction("main", ("x",), (T4,), 4, tuple(code))
