"""`from_onnx`: walk an ONNX graph in order, converting each node through the converter table.

Initializers become bound constants (or, with keep_params_in_input, trailing function
parameters whose values sit in the function's "params" attribute for `detach_params`). A dim
given by name (`dim_param`) or left unknown becomes an int64 `tir.Var`, shared by name.
"""

from __future__ import annotations

from typing import Any


from ...ir import expr as rx
from ...ir import struct_info as si

from ...vm.ndarray import array
from ...tir import expr as tx
from ...transforms.block_builder import BlockBuilder
from . import ops_compose, ops_nn, ops_shape, ops_tensor  # noqa: F401  (fill the converter table)
from .common import constant
from .registry import CONVERTERS


class UnsupportedOnnxOpsError(NotImplementedError):
    """Every ONNX node the converter table lacks, reported at once."""


def from_onnx(model: Any, shape_dict: dict | None = None, dtype_dict: Any = "float32",
              opset: int | None = None, keep_params_in_input: bool = False) -> Any:
    """Convert an `onnx.ModelProto` into an IRModule whose "main" computes the graph."""
    import onnx  # optional dependency: only needed here

    if opset is None:
        opset = max((o.version for o in model.opset_import if o.domain in ("", "ai.onnx")),
                    default=onnx.defs.onnx_opset_version())
    return _Importer(model, opset).translate(shape_dict or {}, dtype_dict,
                                              keep_params_in_input)


class _Importer:
    def __init__(self, model: Any, opset: int) -> None:
        self.graph = model.graph
        self.opset = opset
        self.env: dict[str, Any] = {}
        self.symbols: dict[str, tx.Var] = {}
        self.bb = BlockBuilder()

    def emit(self, expr: Any) -> Any:
        return self.bb.emit(expr) if isinstance(expr, rx.Call) else expr

    def translate(self, shape_dict: dict, dtype_dict: Any, keep_params: bool) -> Any:
        from onnx import numpy_helper

        self._check_supported()
        inits = {t.name: numpy_helper.to_array(t) for t in self.graph.initializer}
        inputs = [self._input_var(i, shape_dict, dtype_dict) for i in self.graph.input
                  if i.name not in inits]
        params, values = [], []
        for name, value in inits.items():
            if keep_params:
                var = rx.Var(name, si.TensorStructInfo(list(value.shape), str(value.dtype)))
                params.append(var)
                values.append(array(value))
                self.env[name] = var
            else:
                self.env[name] = constant(value)
        attrs = {"num_input": len(inputs)} if keep_params else {}
        with self.bb.function("main", inputs + params, attrs=attrs):
            with self.bb.dataflow():
                for node in self.graph.node:
                    self._convert(node)
                outs = [self.env[o.name] for o in self.graph.output]
                out = outs[0] if len(outs) == 1 else rx.Tuple(outs)
                result = self.bb.emit_output(out)
            self.bb.emit_func_output(result)
        mod = self.bb.get()
        if keep_params:
            mod["main"] = mod["main"].with_attr("params", values)
        return mod

    def _check_supported(self) -> None:
        missing = [f"{n.op_type} (opset {self.opset}, node {n.name or '<unnamed>'!r})"
                   for n in self.graph.node
                   if n.op_type not in CONVERTERS or n.domain not in ("", "ai.onnx")]
        if missing:
            raise UnsupportedOnnxOpsError("from_onnx: unsupported ONNX operators: "
                                          + "; ".join(missing))

    def _input_var(self, info: Any, shape_dict: dict, dtype_dict: Any) -> rx.Var:
        from onnx import helper

        ttype = info.type.tensor_type
        if info.name in shape_dict:
            shape = [self._dim(d) for d in shape_dict[info.name]]
        else:
            shape = [self._dim(d.dim_value if d.HasField("dim_value") else
                               (d.dim_param or f"{info.name}_dim{i}"))
                     for i, d in enumerate(ttype.shape.dim)]
        dtype = dtype_dict.get(info.name) if isinstance(dtype_dict, dict) else None
        if dtype is None:
            dtype = (str(helper.tensor_dtype_to_np_dtype(ttype.elem_type))
                     if ttype.elem_type else (dtype_dict if isinstance(dtype_dict, str)
                                              else "float32"))
        var = rx.Var(info.name, si.TensorStructInfo(shape, dtype))
        self.env[info.name] = var
        return var

    def _dim(self, d: Any) -> Any:
        if isinstance(d, str):
            return self.symbols.setdefault(d, tx.Var(d, "int64"))
        return int(d)

    def _convert(self, node: Any) -> None:
        from onnx import helper

        ins = [self.env[n] if n else None for n in node.input]
        attrs = {a.name: helper.get_attribute_value(a) for a in node.attribute}
        try:
            result = CONVERTERS[node.op_type](node, ins, attrs, self)
        except Exception as err:
            if hasattr(err, "add_note"):
                err.add_note(f"while converting ONNX node {node.op_type} {node.name!r}")
            raise
        results = list(result) if isinstance(result, (list, tuple)) else [result]
        for name, value in zip(node.output, results):
            if name:
                self.env[name] = self.emit(value)
