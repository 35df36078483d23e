"""Lower graph functions to VM bytecode (TVM's CallTIRRewrite + VMShapeLower + VMCodeGen).

Invariants in: every binding's var has struct info; calls are call_tir / call_dps_packed /
packed calls / calls of module functions / tuples. Out: one `VMFunction` per graph function.
Entry checks come first (rank, dtype, static dims, and symbolic dims bound to registers), so
every kernel call is proven to get memory of the shape its signature asks for: static dims
are compared here at build time, symbolic ones are bound from the arguments or checked at run
time. A mismatch the compiler can see is a build error naming the call.
"""

from __future__ import annotations

from typing import Any

from ..ir.expr import (
    Call, Constant, DataflowVar, Expr, ExternFunc, Function, GlobalVarRef, If, MatchCast, Op,
    DataTypeImm, PrimValue, ShapeExpr, StringImm, Tuple, TupleGetItem, Var, VarBinding,
)
from ..ir.module import IRModule
from ..ir.op import CALL_DPS_PACKED, CALL_PURE_PACKED, CALL_TIR, CALL_TIR_INPLACE, op_attr
from ..ir.struct_info import (
    PrimStructInfo, ShapeStructInfo, StructInfo, TensorStructInfo, TupleStructInfo,
)
from ..ir.type_analysis import is_base_of
from ..tir import expr as tir
from ..tir.function import PrimFunc, free_vars, shape_vars
from .compute_prim_value import host_prim_call
from ..tir.shape_program import shape_program
from ..vm import bytecode as bc
from ..vm.bytecode import Arg
from ..vm.kernel_signature import shape_text
from .exec_builder import ExecBuilder
from .lower_builtin_ops import as_call_tir_dyn, lower_builtin_op
from .lower_shapes import _dim_text, lower_if


class LoweringError(ValueError):
    """A graph function the VM cannot run as written (names the call and what is wrong)."""


class FunctionLowering:
    """Emits the bytecode of one graph function into an ExecBuilder."""

    def __init__(self, builder: ExecBuilder, mod: IRModule, name: str, func: Function) -> None:
        self.b, self.mod, self.name, self.func = builder, mod, name, func
        self.code: list[bc.Instruction] = []
        self.values: dict[Var, Arg] = {}
        self.dims: dict[tir.Var, Arg] = {}
        self.computed: dict[tir.PrimExpr, Arg] = {}
        self.num_regs = len(func.params)

    # -- registers and emission -----------------------------------------------------------
    def new_reg(self) -> int:
        self.num_regs += 1
        return self.num_regs - 1

    def emit(self, fname: str, args: list[Arg], dst: int | None = None, kind: str = "packed"
             ) -> None:
        self.code.append(bc.Call(dst, self.b.func_index(kind, fname), tuple(args)))

    def lower(self) -> None:
        for i, p in enumerate(self.func.params):
            self.values[p] = bc.reg(i)
            self.check_param(bc.reg(i), p.struct_info, p.name_hint)
        body = self.func.body
        for block in body.blocks:
            for binding in block.bindings:
                self.lower_binding(binding)
        result = self.as_register(self.value_of(body.body))
        self.check_return(bc.reg(result), self.func.ret_struct_info, body.body.struct_info)
        self.code.append(bc.Ret(result))

    def check_return(self, result: Arg, ret: StructInfo, got: StructInfo | None) -> None:
        """A return annotation the body does not refine (the parser keeps it, as TVM does) is
        checked against the value when the function returns: run time for a tensor's rank,
        dtype and dims (symbolic ones against their bound values), build time for a tuple's
        arity."""
        if got is None or is_base_of(ret, got):
            return
        if isinstance(ret, TupleStructInfo) and isinstance(got, TupleStructInfo) \
                and len(ret.fields) != len(got.fields):
            raise LoweringError(f"{self.name}: the return annotation is a tuple of "
                                f"{len(ret.fields)} but the function returns "
                                f"{len(got.fields)} values")
        if isinstance(ret, TensorStructInfo):
            self.check_tensor(result, ret, "match_cast return value")

    # -- checks that make kernel calls safe ------------------------------------------------
    def check_param(self, arg: Arg, sinfo: StructInfo, name: str) -> None:
        """Check a parameter against its struct info, binding the symbolic vars it defines
        (a tuple's fields too: `x: R.Tuple(R.Tensor(("n",)), R.Shape(["k"]))` binds n, k)."""
        if isinstance(sinfo, TensorStructInfo):
            self.check_tensor(arg, sinfo, name)
        elif isinstance(sinfo, ShapeStructInfo):  # R.Shape(["k"]): binds k
            self.emit("vm.builtin.check_shape_info", [arg, bc.imm(sinfo.ndim),
                                                      self.b.const(name)])
            self.bind_shape(arg, sinfo)
        elif isinstance(sinfo, TupleStructInfo):
            self.emit("vm.builtin.check_tuple_info",
                      [arg, bc.imm(len(sinfo.fields)), self.b.const(name)])
            for i, field in enumerate(sinfo.fields):
                if isinstance(field, (TensorStructInfo, ShapeStructInfo, TupleStructInfo)):
                    r = self.new_reg()
                    self.emit("vm.builtin.tuple_getitem", [arg, bc.imm(i)], dst=r)
                    self.check_param(bc.reg(r), field, f"{name}[{i}]")

    def check_tensor(self, t: Arg, sinfo: TensorStructInfo, name: str) -> None:
        """Check rank and dtype, then each dim: static ones compared, symbolic ones bound."""
        self.emit("vm.builtin.check_tensor_info",
                  [t, bc.imm(sinfo.ndim), self.b.const(sinfo.dtype), self.b.const(name)])
        for axis, dim in enumerate(sinfo.shape or ()):
            if isinstance(dim, tir.IntImm):
                self.emit("vm.builtin.check_dim",
                          [t, bc.imm(axis), bc.imm(dim.value), self.b.const(name)])
            elif isinstance(dim, tir.Var) and dim not in self.dims:
                r = self.new_reg()
                self.emit("vm.builtin.tensor_dim", [t, bc.imm(axis)], dst=r)
                self.dims[dim] = bc.reg(r)
            elif isinstance(dim, tir.Var):
                self.emit("vm.builtin.check_dim_equal",
                          [t, bc.imm(axis), self.dims[dim], self.b.const(name),
                           self.b.const(dim.name)])
            else:  # a computed dim: every variable in it must be bound by now
                value = self.dim_arg(dim, f"parameter {name}")
                self.emit("vm.builtin.check_shape_value",
                          [t, bc.imm(axis), value, self.b.const(name),
                           self.b.const(_dim_text(dim))])

    def dim_arg(self, dim: tir.PrimExpr, where: str) -> Arg:
        """An argument holding `dim`: an immediate, the register of a bound variable, or a
        register computed by `vm.builtin.eval_shape` (once per distinct expression)."""
        if isinstance(dim, tir.IntImm):
            return bc.imm(dim.value)
        if isinstance(dim, tir.Var) and dim in self.dims:
            return self.dims[dim]
        if dim in self.computed:
            return self.computed[dim]
        free = [v for v in free_vars(dim) if v not in self.dims]
        if free or isinstance(dim, tir.Var):
            names = ", ".join(v.name for v in free) or getattr(dim, "name", str(dim))
            raise LoweringError(f"{self.name}: {where}: the dim {_dim_text(dim)} uses {names}, "
                                "which no input binds (bind it with a parameter's shape or "
                                "R.match_cast)")
        program, operands = shape_program(dim, [])
        if program is None:
            raise LoweringError(f"{self.name}: {where}: cannot compute the dim {dim} at run "
                                "time (only + - * // % min max and comparisons of ints)")
        r = self.new_reg()
        self.emit("vm.builtin.eval_shape",
                  [self.b.const(program), *[self.dims[v] for v in operands]], dst=r)
        self.computed[dim] = bc.reg(r)
        return self.computed[dim]

    # -- bindings ---------------------------------------------------------------------------
    def lower_binding(self, binding: VarBinding | MatchCast) -> None:
        if isinstance(binding, MatchCast):
            arg = self.value_of(binding.value)
            if isinstance(binding.struct_info, TensorStructInfo):
                self.check_tensor(arg, binding.struct_info, f"match_cast {binding.var.name_hint}")
            elif isinstance(binding.struct_info, ShapeStructInfo):
                self.bind_shape(arg, binding.struct_info)
            self.values[binding.var] = arg
            return
        value, var = binding.value, binding.var
        if isinstance(value, Call):
            self.values[var] = self.lower_call(value, var.name_hint)
        elif isinstance(value, If):
            self.values[var] = lower_if(self, value)
        else:
            self.values[var] = self.value_of(value)

    def value_of(self, e: Expr) -> Arg:
        if isinstance(e, (Var, DataflowVar)):
            if e not in self.values:
                raise LoweringError(f"{self.name}: {e.name_hint} is used before it is bound")
            return self.values[e]
        if isinstance(e, Constant):
            return self.b.const(e.data)
        if isinstance(e, PrimValue) and isinstance(e.value, tir.IntImm):
            return bc.imm(e.value.value)
        if isinstance(e, PrimValue) and e.value.dtype.startswith(("int", "uint", "bool")):
            return self.dim_arg(e.value, "R.prim_value")
        if isinstance(e, PrimValue) and isinstance(e.value, tir.FloatImm):
            return self.b.const(float(e.value.value))
        if isinstance(e, ShapeExpr):
            r = self.new_reg()
            self.emit("vm.builtin.make_tuple", [self.dim_arg(d, "R.shape") for d in e.values],
                      dst=r)
            return bc.reg(r)
        if isinstance(e, (StringImm, DataTypeImm)):  # DataTypeImm: R.memory.* allocations
            return self.b.const(e.value)
        if isinstance(e, Tuple):
            r = self.new_reg()
            self.emit("vm.builtin.make_tuple", [self.value_of(f) for f in e.fields], dst=r)
            return bc.reg(r)
        if isinstance(e, TupleGetItem):
            r = self.new_reg()
            self.emit("vm.builtin.tuple_getitem", [self.value_of(e.tuple_value),
                                                   bc.imm(e.index)], dst=r)
            return bc.reg(r)
        if isinstance(e, Call):
            return self.lower_call(e, "result")
        if isinstance(e, GlobalVarRef) and e.gvar.name_hint in self.mod and \
                isinstance(self.mod[e.gvar.name_hint], Function):
            return bc.func(self.b.func_index("vm", e.gvar.name_hint))  # a function as a value
        raise LoweringError(f"{self.name}: cannot lower {type(e).__name__} yet")

    def as_register(self, arg: Arg) -> int:
        if arg.kind == bc.ArgKind.REGISTER:
            return arg.value
        r = self.new_reg()  # a constant returned as is: wrap-and-unwrap moves it to a register
        self.emit("vm.builtin.make_tuple", [arg], dst=r)
        out = self.new_reg()
        self.emit("vm.builtin.tuple_getitem", [bc.reg(r), bc.imm(0)], dst=out)
        return out

    # -- calls ------------------------------------------------------------------------------
    def lower_call(self, call: Call, what: str) -> Arg:
        if call.op == CALL_TIR:
            return self.lower_call_tir(call, what)
        if call.op == CALL_TIR_INPLACE:
            return self.lower_call_tir(call, what, tuple(call.attr("inplace_indices")))
        if call.op == CALL_DPS_PACKED:
            extern = call.args[0]
            if not isinstance(extern, ExternFunc):
                raise NotImplementedError(f"{what}: R.call_dps_packed of a variable "
                                          f"({extern!r}) is not lowered yet; call the "
                                          "function by its name")
            outs = self.alloc_outputs(call.sinfo_args[0], what)
            inputs = [self.value_of(a) for a in _tuple_fields(call.args[1])]
            self.emit(extern.global_symbol, inputs + outs)
            return self.pack_outputs(outs)
        if isinstance(call.op, ExternFunc) or call.op == CALL_PURE_PACKED:
            target = call.op if isinstance(call.op, ExternFunc) else call.args[0]
            args = call.args if isinstance(call.op, ExternFunc) else call.args[1:]
            r = self.new_reg()
            self.emit(target.global_symbol, [self.value_of(a) for a in args], dst=r)
            return bc.reg(r)
        if isinstance(call.op, GlobalVarRef) and call.op.gvar.name_hint in self.mod and \
                isinstance(self.mod[call.op.gvar.name_hint], PrimFunc):
            prim = self.mod[call.op.gvar.name_hint]
            if prim.ret_dtype != "void":  # a value-returning host function: computed here
                return self.host_call(prim, call)
            return lower_builtin_op(self, as_call_tir_dyn(call), "call_tir_dyn")  # in place
        if isinstance(call.op, GlobalVarRef):
            callee = call.op.gvar.name_hint
            r = self.new_reg()
            self.emit(callee, [self.value_of(a) for a in call.args], dst=r, kind="vm")
            return bc.reg(r)
        if isinstance(call.op, (Var, DataflowVar)):  # a closure held in a variable
            r = self.new_reg()
            self.emit("vm.builtin.invoke_closure",
                      [self.value_of(call.op)] + [self.value_of(a) for a in call.args], dst=r)
            return bc.reg(r)
        name = getattr(call.op, "name", type(call.op).__name__)
        builtin = op_attr(name, "vm_builtin") if isinstance(call.op, Op) else None
        if builtin is not None:  # ops the VM runs as one builtin call (ir/ops/runtime_ops.py)
            return lower_builtin_op(self, call, builtin)
        raise LoweringError(f"{self.name}: operator {name} must be legalized before the VM "
                            "can run it (apply relax.transform.LegalizeOps)")

    def host_call(self, prim: PrimFunc, call: Call) -> Arg:
        """A call of a prim_func returning a value (ComputePrimValue's `compute_symbolic_expr`)
        is the expression its body returns, evaluated from the call's values with the VM's
        own shape arithmetic."""
        value = host_prim_call(prim, call.args)
        if value is None or not value.dtype.startswith(("int", "uint", "bool")):
            raise LoweringError(f"{self.name}: {call.op.gvar.name_hint} returns a value; the VM "
                                "runs such a prim_func only when its body is `return <integer "
                                "expression of its scalar parameters>`")
        return self.dim_arg(value, call.op.gvar.name_hint)

    def lower_call_tir(self, call: Call, what: str, inplace: tuple[int, ...] | None = None
                       ) -> Arg:
        callee = call.args[0]
        assert isinstance(callee, GlobalVarRef)
        kname = callee.gvar.name_hint
        sig = self.b.kernel_signature(kname)
        inputs = list(_tuple_fields(call.args[1]))
        # R.Prim inputs go to the kernel's scalar parameters (before any tir_vars)
        prims = [a for a in inputs if isinstance(a.struct_info, PrimStructInfo)]
        inputs = [a for a in inputs if not isinstance(a.struct_info, PrimStructInfo)]
        out_sinfos = _flatten_outputs(call.sinfo_args[0])
        in_args = [self.value_of(a) for a in inputs]
        if inplace is None:
            outs = fresh = self.alloc_outputs(call.sinfo_args[0], what)
            fresh_sinfos = out_sinfos
        else:  # call_tir_inplace: output i is argument inplace[i] (-1: allocated)
            outs, fresh, fresh_sinfos = self.inplace_outputs(kname, inputs, in_args,
                                                             out_sinfos, inplace, what)
        buffers = [p for p in sig.params if p.kind == "buffer"]
        if len(buffers) != len(inputs) + len(fresh):
            raise LoweringError(
                f"{self.name}: call_tir({kname}) passes {len(inputs)} inputs and {len(fresh)} "
                f"outputs, but {kname} takes {len(buffers)} buffers")
        sinfos = [a.struct_info for a in inputs] + fresh_sinfos
        args = in_args + fresh
        bound: dict[str, Arg] = {}
        for param, sinfo, arg in zip(buffers, sinfos, args):
            self.match_buffer(kname, param, sinfo, arg, bound)
        scalars = self.scalar_args(kname, sig, call, bound, prims)
        shape_args = self.shape_var_args(kname, sig, bound)
        self.emit(kname, self.kernel_args(sig, args, scalars) + shape_args, kind="kernel")
        return self.pack_outputs(outs)

    def shape_var_args(self, kname: str, sig: Any, bound: dict[str, Arg]) -> list[Arg]:
        """Values of the kernel's shape vars: bound from its buffers, else (te-made kernels
        share the function's own dim variables) the function's variable of that identity."""
        scalars = {p.name for p in sig.params}
        prim = self.mod[kname] if kname in self.mod else None
        by_name = {v.name: v for v in shape_vars(prim)} if isinstance(prim, PrimFunc) else {}
        out = []
        for name in sig.shape_vars:
            if name in scalars:
                continue
            if name not in bound:
                var = by_name.get(name)
                if var is None or var not in self.dims:
                    raise LoweringError(f"{self.name}: call_tir({kname}) cannot bind the "
                                        f"shape variable {name} from its arguments")
                bound[name] = self.dims[var]
            out.append(bound[name])
        return out

    def bind_shape(self, arg: Arg, sinfo: ShapeStructInfo) -> None:
        for i, d in enumerate(sinfo.values or ()):
            if isinstance(d, tir.Var) and d not in self.dims:
                r = self.new_reg()
                self.emit("vm.builtin.tuple_getitem", [arg, bc.imm(i)], dst=r)
                self.dims[d] = bc.reg(r)

    def kernel_args(self, sig: Any, buffers: list[Arg], scalars: list[Arg]) -> list[Arg]:
        ordered, bi, si = [], iter(buffers), iter(scalars)
        for p in sig.params:
            ordered.append(next(bi) if p.kind == "buffer" else next(si))
        return ordered

    def scalar_args(self, kname: str, sig: Any, call: Call, bound: dict[str, Arg],
                    prims: list[Any] = ()) -> list[Arg]:  # type: ignore[assignment]
        scalars = [p for p in sig.params if p.kind == "scalar"]
        tir_vars = list(call.args[2].values) if len(call.args) > 2 else []  # type: ignore
        if len(prims) + len(tir_vars) != len(scalars):
            raise LoweringError(f"{self.name}: {kname} takes {len(scalars)} scalar parameters "
                                f"but call_tir passes {len(prims)} R.Prim inputs and "
                                f"{len(tir_vars)} tir_vars")
        out = [self.value_of(a) for a in prims]
        out += [self.dim_arg(value, f"tir_vars of call_tir({kname})") for value in tir_vars]
        for p, arg in zip(scalars, out):
            bound.setdefault(p.name, arg)
        return out

    def match_buffer(self, kname: str, param: Any, sinfo: StructInfo | None, arg: Arg,
                     bound: dict[str, Arg]) -> None:
        """Prove (or check at run time) that `arg` fits the kernel's buffer `param`."""
        where = f"call_tir({kname}) argument {param.name}"
        if not isinstance(sinfo, TensorStructInfo) or sinfo.shape is None:
            sinfo = TensorStructInfo(tuple(tir.Var(f"_{param.name}{i}", "int64")
                                           for i in range(len(param.shape))), param.dtype)
            self.check_tensor(arg, sinfo, where)  # unknown statically: check at run time
        if sinfo.dtype != param.dtype or len(sinfo.shape or ()) != len(param.shape):
            raise LoweringError(f"{self.name}: {where} expects a {param.dtype} tensor of shape "
                                f"{shape_text(param.shape)}, got {_sinfo_text(sinfo)}")
        for axis, (want, have) in enumerate(zip(param.shape, sinfo.shape or ())):
            if isinstance(want, int):
                if isinstance(have, tir.IntImm):
                    if have.value != want:
                        raise LoweringError(
                            f"{self.name}: {where} expects shape {shape_text(param.shape)}, "
                            f"got {_sinfo_text(sinfo)}")
                else:
                    self.emit("vm.builtin.check_dim",
                              [arg, bc.imm(axis), bc.imm(want), self.b.const(where)])
            elif not want.isidentifier():
                continue  # a computed dim (n * 2): the struct info already says what it is
            elif want in bound:
                self.check_same_dim(bound[want], have, arg, axis, where, want)
            else:
                bound[want] = self.dim_arg(have, where)

    def check_same_dim(self, first: Arg, have: tir.PrimExpr, arg: Arg, axis: int, where: str,
                       var: str) -> None:
        second = self.dim_arg(have, where)
        if first == second:
            return
        if first.kind == second.kind == bc.ArgKind.IMMEDIATE:
            raise LoweringError(f"{self.name}: {where}: dim {var} is {first.value} in one "
                                f"argument and {second.value} in another")
        self.emit("vm.builtin.check_dim_equal",
                  [arg, bc.imm(axis), first, self.b.const(where), self.b.const(var)])

    def alloc_outputs(self, sinfo: StructInfo, what: str) -> list[Arg]:
        outs = []
        for s in _flatten_outputs(sinfo):
            if s.shape is None or not s.dtype:
                raise LoweringError(f"{self.name}: the output of {what} needs a known shape "
                                    "and dtype to be allocated")
            dims = [self.dim_arg(d, f"output of {what}") for d in s.shape]
            r = self.new_reg()
            self.emit("vm.builtin.alloc_tensor", [self.b.const(s.dtype), *dims], dst=r)
            outs.append(bc.reg(r))
        return outs

    def inplace_outputs(self, kname: str, inputs: list[Expr], in_args: list[Arg],
                        out_sinfos: list[TensorStructInfo], inplace: tuple[int, ...], what: str
                        ) -> tuple[list[Arg], list[Arg], list[TensorStructInfo]]:
        """The outputs of call_tir_inplace: the chosen arguments' registers and fresh tensors
        for the -1 entries (the kernel takes only those after its inputs)."""
        outs: list[Arg] = []
        fresh: list[Arg] = []
        fresh_sinfos = []
        for i, s in zip(inplace, out_sinfos):
            if i >= 0:
                if in_args[i].kind != bc.ArgKind.REGISTER:
                    raise LoweringError(f"{self.name}: call_tir_inplace({kname}) would write "
                                        f"into argument {i}, a constant")
                outs.append(in_args[i])
                continue
            (arg,) = self.alloc_outputs(s, what)
            outs.append(arg)
            fresh.append(arg)
            fresh_sinfos.append(s)
        return outs, fresh, fresh_sinfos

    def pack_outputs(self, outs: list[Arg]) -> Arg:
        if len(outs) == 1:
            return outs[0]
        r = self.new_reg()
        self.emit("vm.builtin.make_tuple", outs, dst=r)
        return bc.reg(r)


def _tuple_fields(e: Expr) -> tuple[Expr, ...]:
    return e.fields if isinstance(e, Tuple) else (e,)


def _flatten_outputs(sinfo: StructInfo) -> list[TensorStructInfo]:
    if isinstance(sinfo, TupleStructInfo):
        return [s for f in sinfo.fields for s in _flatten_outputs(f)]
    if not isinstance(sinfo, TensorStructInfo):
        raise LoweringError(f"a destination-passing call must produce tensors, not {sinfo}")
    return [sinfo]


def _sinfo_text(s: TensorStructInfo) -> str:
    dims = tuple(d.value if isinstance(d, tir.IntImm) else getattr(d, "name", str(d))
                 for d in s.shape or ())
    return f"a {s.dtype or 'unknown-dtype'} tensor of shape {shape_text(dims)}"


def lower_function(builder: ExecBuilder, mod: IRModule, name: str, func: Function) -> None:
    lowering = FunctionLowering(builder, mod, name, func)
    lowering.lower()
    builder.add_function(name, func, lowering.code, lowering.num_regs)

