"""The executable's assembly text: `print_executable` and its inverse, `parse_executable`.

The text is the executable's truth on disk; it is parsed with a lark LALR grammar into
bytecode objects directly (no eval, no pickle). Tensor constants are summarized in the text
(`c4 tensor float32 (128, 784)`) and their data travels beside it as .npy files.
"""

from __future__ import annotations

import json
import re
from typing import Any

import numpy as np
from lark import Lark, Token, Transformer, v_args
from lark.exceptions import LarkError, UnexpectedEOF, UnexpectedInput, VisitError
from lark.lexer import PatternStr

from .bytecode import Arg, ArgKind, Call, Goto, If, Ret
from .executable import Executable, ExecutableFormatError, FuncEntry, VMFunction
from .kernels import KernelLibrary
from .ndarray import NDArray

_BARE = re.compile(r"[A-Za-z_][A-Za-z0-9_.$\-]*\Z")

GRAMMAR = r"""
program: "func_table" ":" entry* "constants" ":" constant* function*
entry: FREF KIND name
constant: CREF "str" STRING           -> const_str
        | CREF "int" SIGNED_INT       -> const_int
        | CREF "float" FLOATLIT       -> const_float
        | CREF "shape" ints           -> const_shape
        | CREF "tensor" NAME ints     -> const_tensor
ints: "(" [SIGNED_INT ("," SIGNED_INT)*] ","? ")"
function: "function" name "(" [name ("," name)*] ")" "regs" INT ":" param* instr*
param: "param" name ":" sinfo
sinfo: "any"                          -> sinfo_any
     | "tensor" dims dtype            -> sinfo_tensor
dims: "?"                             -> unknown
    | "(" [dim ("," dim)*] ","? ")"   -> known
dim: SIGNED_INT | NAME | STRING
dtype: "?" -> unknown
     | NAME
instr: INT ":" op
op: "call" name "in:" [arg ("," arg)*] ["dst:" REG]  -> call
  | "ret" REG                                        -> ret
  | "goto" SIGNED_INT                                -> goto
  | "if" REG "else" SIGNED_INT                       -> if_
arg: REG | IMM | CREF | FREF
name: NAME | STRING
KIND: "vm" | "packed" | "kernel"
REG: /%[0-9]+/
IMM: /i-?[0-9]+/
CREF: /c[0-9]+/
FREF: /f[0-9]+/
NAME: /[A-Za-z_][A-Za-z0-9_.$\-]*/
STRING: /"(\\.|[^"\\\n])*"/
FLOATLIT: /-?(inf|nan|[0-9]+(\.[0-9]*)?([eE][-+]?[0-9]+)?)/
SIGNED_INT: /[-+]?[0-9]+/
INT: /[0-9]+/
COMMENT: /;[^\n]*/
%ignore COMMENT
%ignore /[ \t\r\n]+/
"""

_PARSER: Lark | None = None


def _name(s: str) -> str:
    return s if _BARE.match(s) and s not in ("vm", "packed", "kernel") else json.dumps(s)


def _const_line(i: int, c: Any) -> str:
    if isinstance(c, NDArray):
        return f"c{i} tensor {c.dtype} {_tuple(c.shape)}"
    if isinstance(c, str):
        return f"c{i} str {json.dumps(c)}"
    if isinstance(c, (bool, int, np.integer)):
        return f"c{i} int {int(c)}"
    if isinstance(c, (float, np.floating)):
        return f"c{i} float {repr(float(c))}"
    if isinstance(c, tuple) and all(isinstance(v, (int, np.integer)) for v in c):
        return f"c{i} shape {_tuple(c)}"
    raise ExecutableFormatError(f"constant c{i} of type {type(c).__name__} cannot be stored")


def _tuple(vals: Any) -> str:
    vals = [str(int(v)) if not isinstance(v, str) else _name(v) for v in vals]
    return "(" + ", ".join(vals) + ("," if len(vals) == 1 else "") + ")"


def _sinfo(s: tuple[Any, ...]) -> str:
    if s and s[0] == "tensor":
        shape = "?" if s[1] is None else _tuple(s[1])
        return f"tensor {shape} {s[2] or '?'}"
    return "any"


def _instr(ex: Executable, ins: Any) -> str:
    if isinstance(ins, Call):
        dst = "" if ins.dst is None else f" dst: %{ins.dst}"
        args = ", ".join(str(a) for a in ins.args)
        return f"call {_name(ex.func_table[ins.func].name)} in: {args}{dst}".replace("  ", " ")
    if isinstance(ins, Ret):
        return f"ret %{ins.result}"
    if isinstance(ins, Goto):
        return f"goto {ins.offset:+d}"
    return f"if %{ins.cond} else {ins.false_offset:+d}"


def print_executable(ex: Executable) -> str:
    """Readable assembly: the function table, constants, then each function's code."""
    lines = ["; tvmlite executable", "func_table:"]
    lines += [f"  f{i} {e.kind} {_name(e.name)}" for i, e in enumerate(ex.func_table)]
    lines.append("constants:")
    lines += ["  " + _const_line(i, c) for i, c in enumerate(ex.constants)]
    for fn in ex.functions.values():
        params = ", ".join(_name(p) for p in fn.params)
        lines.append(f"function {_name(fn.name)}({params}) regs {fn.num_regs}:")
        lines += [f"  param {_name(p)}: {_sinfo(s)}" for p, s in zip(fn.params, fn.param_sinfo)]
        lines += [f"  {pc}: {_instr(ex, ins)}" for pc, ins in enumerate(fn.instructions)]
    return "\n".join(lines) + "\n"


_ARG_KIND = {"REG": ArgKind.REGISTER, "IMM": ArgKind.IMMEDIATE, "CREF": ArgKind.CONST,
             "FREF": ArgKind.FUNC}


@v_args(inline=True)
class _Build(Transformer):
    """Parse tree -> plain values; function names in `call` are resolved afterwards."""

    def name(self, tok: Token) -> str:
        return json.loads(tok) if tok.type == "STRING" else str(tok)

    def entry(self, ref: Token, kind: Token, name: str) -> tuple[int, FuncEntry]:
        return int(ref[1:]), FuncEntry(str(kind), name)

    def const_str(self, ref: Token, s: Token) -> tuple[int, Any]:
        return int(ref[1:]), json.loads(s)

    def const_int(self, ref: Token, v: Token) -> tuple[int, Any]:
        return int(ref[1:]), int(v)

    def const_float(self, ref: Token, v: Token) -> tuple[int, Any]:
        return int(ref[1:]), float(v)

    def const_shape(self, ref: Token, v: tuple[int, ...]) -> tuple[int, Any]:
        return int(ref[1:]), v

    def const_tensor(self, ref: Token, dtype: Token, shape: tuple[int, ...]) -> tuple[int, Any]:
        return int(ref[1:]), ("tensor", str(dtype), shape)

    def ints(self, *vals: Token | None) -> tuple[int, ...]:
        return tuple(int(v) for v in vals if v is not None)

    def known(self, *dims: Any) -> tuple[Any, ...]:
        return tuple(d for d in dims if d is not None)

    def unknown(self) -> None:
        return None

    def dim(self, tok: Token) -> int | str:
        return int(tok) if tok.type == "SIGNED_INT" else self.name(tok)

    def dtype(self, tok: Token) -> str:
        return str(tok)

    def sinfo_any(self) -> tuple[Any, ...]:
        return ("any",)

    def sinfo_tensor(self, shape: Any, dtype: Any) -> tuple[Any, ...]:
        return ("tensor", shape, dtype)

    def param(self, name: str, sinfo: tuple[Any, ...]) -> tuple[str, Any]:
        return name, sinfo

    def arg(self, tok: Token) -> Arg:
        return Arg(_ARG_KIND[tok.type], int(tok[1:]))

    def call(self, fname: str, *rest: Any) -> tuple[Any, ...]:
        dst = rest[-1]
        args = tuple(a for a in rest[:-1] if a is not None)
        return ("call", fname, args, None if dst is None else int(dst[1:]))

    def ret(self, r: Token) -> tuple[Any, ...]:
        return ("ret", int(r[1:]))

    def goto(self, off: Token) -> tuple[Any, ...]:
        return ("goto", int(off))

    def if_(self, r: Token, off: Token) -> tuple[Any, ...]:
        return ("if", int(r[1:]), int(off))

    def instr(self, pc: Token, op: tuple[Any, ...]) -> tuple[int, tuple[Any, ...]]:
        return int(pc), op

    def function(self, name: str, *rest: Any) -> tuple[Any, ...]:
        items = list(rest)
        pos = next(i for i, x in enumerate(items) if isinstance(x, Token) and x.type == "INT")
        params = tuple(p for p in items[:pos] if p is not None)
        body = items[pos + 1:]
        sinfos = [b for b in body if isinstance(b[0], str)]
        return (name, params, int(items[pos]), sinfos, [b for b in body if isinstance(b[0], int)])

    def program(self, *items: Any) -> list[Any]:
        return list(items)


def _parser() -> Lark:
    global _PARSER
    if _PARSER is None:
        _PARSER = Lark(GRAMMAR, start="program", parser="lalr")
    return _PARSER


def parse_executable(text: str, arrays: dict[str, np.ndarray], kernels: KernelLibrary
                     ) -> Executable:
    """Assembly text (+ the .npy data of tensor constants) -> a validated Executable."""
    try:
        items = _Build().transform(_parser().parse(text))
    except VisitError as err:
        raise ExecutableFormatError(f"malformed executable: {err.orig_exc}") from None
    except UnexpectedInput as err:
        raise syntax_error(err, text) from None
    except LarkError as err:
        raise ExecutableFormatError(f"executable.asm: malformed assembly ({err})") from None
    entries = [x for x in items if isinstance(x[1], FuncEntry)]
    consts = [x for x in items if len(x) == 2 and not isinstance(x[1], FuncEntry)]
    funcs = [x for x in items if len(x) == 5]
    table = _in_order(entries, "f")
    index = {e.name: i for i, e in enumerate(table)}
    constants = [_constant(i, c, arrays) for i, c in enumerate(_in_order(consts, "c"))]
    functions = {f[0]: _function(f, index) for f in funcs}
    return Executable(table, functions, constants, kernels)


_NAMED = {"REG": "a register (%3)", "IMM": "an immediate (i7)", "CREF": "a constant (c0)",
          "FREF": "a function (f0)", "NAME": "a name", "STRING": "a quoted string",
          "FLOATLIT": "a float", "SIGNED_INT": "an integer", "INT": "a number",
          "KIND": "vm, packed or kernel", "$END": "the end of the text"}


def _terminal_text(name: str) -> str:
    if name in _NAMED:
        return _NAMED[name]
    term = next((t for t in _parser().terminals if t.name == name), None)
    if term is not None and isinstance(term.pattern, PatternStr):
        return repr(term.pattern.value)
    return name.lower()


def syntax_error(err: UnexpectedInput, text: str) -> ExecutableFormatError:
    """`executable.asm, line L, column C: expected ...; got ...` (lark's terminal names never
    show: a truncated or damaged file names what was expected in the assembly's own terms)."""
    expected = getattr(err, "expected", None) or getattr(err, "allowed", None) or ()
    wanted = sorted({_terminal_text(t) for t in expected})
    token = getattr(err, "token", None)
    if isinstance(err, UnexpectedEOF) or (token is not None and token.type == "$END"):
        got = "the end of the text (is the file truncated?)"
        line, col = text.count("\n") + 1, len(text.rsplit("\n", 1)[-1]) + 1
    else:
        got = repr(token.value if token is not None else getattr(err, "char", "?"))
        line, col = getattr(err, "line", 0), getattr(err, "column", 0)
    listed = ", ".join(wanted[:10]) + (", ..." if len(wanted) > 10 else "")
    return ExecutableFormatError(f"executable.asm, line {line}, column {col}: expected "
                                 f"{'one of ' if len(wanted) > 1 else ''}{listed or 'nothing'}"
                                 f"; got {got}")


def _in_order(pairs: list[tuple[int, Any]], prefix: str) -> list[Any]:
    if [i for i, _ in pairs] != list(range(len(pairs))):
        raise ExecutableFormatError(f"{prefix}-entries must be numbered 0, 1, 2, ... in order")
    return [v for _, v in pairs]


def _constant(i: int, c: Any, arrays: dict[str, np.ndarray]) -> Any:
    if not (isinstance(c, tuple) and c[:1] == ("tensor",)):
        return c
    arr = arrays.get(f"constants/c{i}.npy")
    if arr is None or arr.dtype.name != c[1] or tuple(arr.shape) != c[2]:
        got = "missing" if arr is None else f"{arr.dtype.name} {tuple(arr.shape)}"
        raise ExecutableFormatError(f"constant c{i}: text says tensor {c[1]} {c[2]}, data {got}")
    return NDArray(arr)


def _function(f: tuple[Any, ...], index: dict[str, int]) -> VMFunction:
    name, params, num_regs, sinfos, instrs = f
    if [s[0] for s in sinfos] != list(params):
        raise ExecutableFormatError(f"function {name!r}: param lines do not match {params}")
    if [pc for pc, _ in instrs] != list(range(len(instrs))):
        raise ExecutableFormatError(f"function {name!r}: instructions must be numbered 0, 1, ...")
    code = []
    for pc, op in instrs:
        if op[0] == "call":
            if op[1] not in index:
                raise ExecutableFormatError(f"function {name!r}, instruction {pc}: "
                                            f"{op[1]!r} is not in the function table")
            code.append(Call(op[3], index[op[1]], op[2]))
        elif op[0] == "ret":
            code.append(Ret(op[1]))
        elif op[0] == "goto":
            code.append(Goto(op[1]))
        else:
            code.append(If(op[1], op[2]))
    return VMFunction(name, params, tuple(s[1] for s in sinfos), num_regs, tuple(code))

