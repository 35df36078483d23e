"""`from_exported_program`: a `torch.export.ExportedProgram` as a relax IRModule.

As in TVM 0.27: the program is first decomposed to core ATen (`run_decompositions()`), its
placeholders become the parameters of `main` (user inputs first, then -- with
`keep_params_as_input` -- the model's parameters, whose values the function keeps in its
`params` attribute for `detach_params`), and each `call_function` node becomes relax ops
through the converter table (registry.py). Buffers and lifted constants are always bound as
constants; so are the parameters otherwise.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ...ir import expr as rx
from ...ir.module import IRModule
from ...ir.ops.base import as_expr, const
from ...ir.ops.runtime_ops import null_value
from ...transforms.block_builder import BlockBuilder
from ...vm.ndarray import NDArray, array
from .registry import Converter, converter_table
from .symbolic import SymbolTable


class UnsupportedOperatorError(NotImplementedError):
    """The program uses ATen ops tvmlite has no converter for; `ops` names all of them."""

    def __init__(self, ops: list[str]) -> None:
        self.ops = ops
        super().__init__(
            f"from_exported_program: no converter for {len(ops)} op(s): {', '.join(ops)}. "
            "Work around it by passing custom_convert_map={\"<op>\": convert} with "
            "convert(node, importer) -> relax expression (importer.retrieve_args(node) gives "
            "the converted arguments, importer.block_builder emits ops), or by rewriting that "
            "part of the model with supported torch ops.")


def from_exported_program(exported_program: Any, *, keep_params_as_input: bool = False,
                          unwrap_unit_return_tuple: bool = False,
                          no_bind_return_tuple: bool = False,
                          custom_convert_map: dict[str, Converter] | None = None,
                          run_ep_decomposition: bool = True) -> IRModule:
    """Import a `torch.export.ExportedProgram` as an IRModule whose `main` runs it.

    keep_params_as_input: the model's parameters become parameters of `main` after the user
        inputs (attribute `num_input` says how many inputs come first; attribute `params`
        holds their values, see `relax.frontend.detach_params`); otherwise they are bound as
        constants.
    unwrap_unit_return_tuple: a single output is returned as itself, not as a 1-tuple.
    no_bind_return_tuple: each output is bound on its own and the function returns the tuple
        of them, instead of binding the tuple to one variable.
    custom_convert_map: converters for ops by ATen overload name (`"cumsum.default"`),
        `fn(node, importer)`, taking precedence over the built-in ones.
    run_ep_decomposition: decompose to core ATen first (as TVM does); the table also knows
        many ops of the undecomposed program.
    """
    if run_ep_decomposition:
        exported_program = exported_program.run_decompositions()
    importer = ExportedProgramImporter({**converter_table(), **(custom_convert_map or {})})
    return importer.translate(exported_program, keep_params_as_input, unwrap_unit_return_tuple,
                              no_bind_return_tuple)


class ExportedProgramImporter:
    """One translation: the FX node -> relax value environment and the block builder."""

    def __init__(self, convert_map: dict[str, Converter]) -> None:
        self.convert_map = convert_map
        self.block_builder = BlockBuilder()
        self.env: dict[Any, Any] = {}
        self.symbols = SymbolTable()

    # -- what converters use ------------------------------------------------------------------

    def retrieve_args(self, node: Any) -> Any:
        """The node's positional arguments with every FX node replaced by its relax value."""
        return self._retrieve(node.args)

    def named_args(self, node: Any) -> dict[str, Any]:
        """All arguments by their ATen schema names, defaults filled in, values converted."""
        out = {}
        for i, a in enumerate(node.target._schema.arguments):
            if i < len(node.args) and not a.kwarg_only:
                value = node.args[i]
            elif a.name in node.kwargs:
                value = node.kwargs[a.name]
            else:
                value = a.default_value if a.has_default_value() else None
            out[a.name] = self._retrieve(value)
        return out

    def _retrieve(self, x: Any) -> Any:
        if isinstance(x, (list, tuple)):
            return type(x)(self._retrieve(a) for a in x)
        return self.env[x] if type(x).__name__ == "Node" else x

    def emit(self, expr: Any) -> rx.Var:
        return self.block_builder.emit(expr)

    def shape_of(self, node: Any) -> tuple[Any, ...]:
        """The node's result shape as torch.export inferred it (ints and symbolic dims)."""
        return self.symbols.shape(node.meta["val"].shape)

    # -- the translation ----------------------------------------------------------------------

    def translate(self, ep: Any, keep_params: bool, unwrap: bool, no_bind: bool) -> IRModule:
        nodes = list(ep.graph.nodes)
        self._check_supported(nodes)
        inputs, params, values = self._inputs(ep, keep_params)
        attrs: dict[str, Any] = {"num_input": len(inputs)} if keep_params else {}
        attrs.update(self._bounds(ep))
        bb = self.block_builder
        with bb.function("main", inputs + params, attrs=attrs):
            with bb.dataflow():
                outputs = self._walk(nodes, ep)
                if unwrap and len(outputs) == 1:
                    result: Any = bb.emit_output(outputs[0])
                elif no_bind:
                    result = as_expr(tuple(bb.emit_output(o) for o in outputs))
                else:
                    result = bb.emit_output(as_expr(tuple(outputs)))
            bb.emit_func_output(result)
        mod = bb.get()
        if keep_params:
            mod["main"] = mod["main"].with_attr("params", values)
        return mod

    def _check_supported(self, nodes: list[Any]) -> None:
        missing = set()
        for node in nodes:
            if node.op == "call_function" and not _is_symbolic_int(node):
                name = _op_name(node.target)
                if name not in self.convert_map:
                    missing.add(name)
            elif node.op in ("call_module", "call_method", "get_attr"):
                missing.add(f"{node.op} {node.target}")  # control flow (torch.cond) and such
        if missing:
            raise UnsupportedOperatorError(sorted(missing))

    def _inputs(self, ep: Any, keep_params: bool) -> tuple[list[rx.Var], list[rx.Var], list]:
        """Function parameters for user inputs (and kept parameters); constants for the rest."""
        from torch.export.graph_signature import InputKind

        placeholders = {n.name: n for n in ep.graph.nodes if n.op == "placeholder"}
        inputs, params, values = [], [], []
        for spec in ep.graph_signature.input_specs:
            name = spec.arg.name
            node = placeholders[name]
            if spec.kind == InputKind.USER_INPUT:
                val = node.meta.get("val")
                if not hasattr(val, "shape"):
                    raise NotImplementedError(f"from_exported_program: input {name!r} is not a "
                                              f"tensor ({type(val).__name__}); only tensor "
                                              "inputs are supported")
                var = rx.Var(name, self.symbols.tensor_sinfo(val))
                inputs.append(var)
                self.env[node] = var
                continue
            tensor = _lifted_tensor(ep, spec, InputKind)
            if spec.kind == InputKind.PARAMETER and keep_params:
                var = rx.Var(name, self.symbols.tensor_sinfo(tensor))
                params.append(var)
                values.append(to_ndarray(tensor))
                self.env[node] = var
            else:
                self.env[node] = const(_numpy(tensor))
        return inputs, params, values

    def _bounds(self, ep: Any) -> dict[str, Any]:
        """TVM's `tir_var_lower_bound` / `tir_var_upper_bound` for the symbolic dims."""
        lower, upper = {}, {}
        for sym, vr in getattr(ep, "range_constraints", {}).items():
            if not getattr(sym, "is_Symbol", False):
                continue
            if math.isinf(float(vr.lower)):  # an unbounded data value (x.item()): not a dim
                continue
            lower[str(sym)] = int(vr.lower)
            if not math.isinf(float(vr.upper)):  # torch's int_oo: no upper bound
                upper[str(sym)] = int(vr.upper)
        out = {"tir_var_lower_bound": lower} if lower else {}
        return {**out, "tir_var_upper_bound": upper} if upper else out

    def _walk(self, nodes: list[Any], ep: Any) -> list[rx.Expr]:
        outputs: list[rx.Expr] = []
        for node in nodes:
            if node.op == "call_function":
                self.env[node] = self._convert(node)
            elif node.op == "output":
                outputs = self._user_outputs(node, ep)
        return outputs

    def _convert(self, node: Any) -> Any:
        if _is_symbolic_int(node):  # sym_size, int arithmetic on sizes: no relax code
            return self.symbols.dim(node.meta["val"])
        try:
            value = self.convert_map[_op_name(node.target)](node, self)
            return self.emit(value) if isinstance(value, rx.Call) else value
        except Exception as err:
            if hasattr(err, "add_note"):  # Python >= 3.11: say which node, keep the error
                err.add_note(f"while converting torch node: {node.format_node()}")
            raise

    def _user_outputs(self, node: Any, ep: Any) -> list[rx.Expr]:
        """The graph's outputs minus those torch.export adds for buffer mutations."""
        from torch.export.graph_signature import OutputKind

        results = list(node.args[0])
        specs = ep.graph_signature.output_specs
        if len(specs) == len(results):
            results = [r for r, s in zip(results, specs)
                       if s.kind in (OutputKind.USER_OUTPUT, OutputKind.LOSS_OUTPUT)]
        # a None output is TVM's R.null_value() (an R.Any field of the result tuple)
        values = [self.emit(null_value()) if r is None else self._retrieve(r) for r in results]
        for r, v in zip(results, values):
            if not isinstance(v, rx.Expr):
                raise NotImplementedError(f"from_exported_program: output {r} is "
                                          f"{type(v).__name__}, not a tensor")
        return values


def _op_name(target: Any) -> str:
    """TVM's key for an op: the overload's name (`addmm.default`), or a function's name."""
    return getattr(target, "__name__", str(target))


def _is_symbolic_int(node: Any) -> bool:
    """An int-valued node (sizes under dynamic shapes): it becomes a TIR expression."""
    if node.op != "call_function" or _op_name(node.target) == "_local_scalar_dense.default":
        return False  # x.item(): a value of the data, not a size
    val = node.meta.get("val")
    return type(val).__name__ == "SymInt" or type(val) is int


def _lifted_tensor(ep: Any, spec: Any, kinds: Any) -> Any:
    if spec.kind in (kinds.PARAMETER, kinds.BUFFER) and spec.target in ep.state_dict:
        return ep.state_dict[spec.target]
    if spec.target in ep.constants:  # non-persistent buffers and lifted tensor constants
        return ep.constants[spec.target]
    raise NotImplementedError(f"from_exported_program: input {spec.arg.name!r} of kind "
                              f"{spec.kind.name} is not supported")


def _numpy(tensor: Any) -> np.ndarray:
    t = tensor.detach().cpu()
    if str(t.dtype) == "torch.bfloat16":
        raise NotImplementedError("from_exported_program: bfloat16 weights cannot be held in "
                                  "numpy; convert the model with .float() before exporting")
    return np.array(t.numpy(), order="C")  # NOTE: ascontiguousarray makes a 0-d array 1-d


def to_ndarray(tensor: Any) -> NDArray:
    return array(_numpy(tensor))

