"""`relax.testing.nn.checkpoint` and friends: mark stages for the Gradient pass to recompute
(R.grad.start_checkpoint on a stage's inputs, R.grad.end_checkpoint on its outputs)."""

from __future__ import annotations

from typing import Any, Callable

from ...ir import expr as rx
from ...ir.ops.grad import end_checkpoint, start_checkpoint
from ...transforms.block_builder import BlockBuilder


def checkpoint(func: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    """`func(*args, **kwargs)` with its expression arguments and results marked (not
    emitted)."""
    args = tuple(start_checkpoint(v) if isinstance(v, rx.Expr) else v for v in args)
    kwargs = {k: start_checkpoint(v) if isinstance(v, rx.Expr) else v
              for k, v in kwargs.items()}
    result = func(*args, **kwargs)
    if isinstance(result, (list, tuple)):
        return [end_checkpoint(v) if isinstance(v, rx.Expr) else v for v in result]
    return end_checkpoint(result)


def _builder() -> BlockBuilder:
    bb = BlockBuilder.current()
    if bb is None:
        raise RuntimeError("emit_checkpoint must be called inside `with bb.function(...)`")
    return bb


def _end(bb: BlockBuilder, v: rx.Expr) -> rx.Var:
    var = v if isinstance(v, rx.Var) else bb.emit(v)
    return bb.emit(end_checkpoint(var), var.name_hint + "_ecp")


def emit_checkpoint(func: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    """As `checkpoint`, emitting the markers (`<x>_scp`, `<y>_ecp`) in the current builder."""
    bb = _builder()

    def start(v: Any) -> Any:
        if isinstance(v, rx.Var):
            return bb.emit(start_checkpoint(v), v.name_hint + "_scp")
        return v

    result = func(*(start(v) for v in args), **{k: start(v) for k, v in kwargs.items()})
    if isinstance(result, (list, tuple)):
        return [_end(bb, v) if isinstance(v, rx.Expr) else v for v in result]
    return _end(bb, result)


def emit_checkpoint_sequential(functions: list[Callable[[Any], Any]], segments: Any,
                               input: rx.Expr,  # noqa: A002 (TVM's parameter name)
                               checkpoint_last: bool = False) -> Any:
    """Run `functions` one after another, each segment of them as one checkpointed stage
    (`segments`: a count, or the start indices); the last one unmarked unless
    `checkpoint_last`."""
    bb = _builder()
    n = len(functions)
    cuts = list(segments) if isinstance(segments, list) else \
        list(range(0, n, n // segments)) + [n]
    if cuts[-1] != n:
        cuts.append(n)

    def stage(lo: int, hi: int) -> Callable[[Any], Any]:
        def run(x: Any) -> Any:
            for f in functions[lo:hi]:
                x = f(x)
            return x
        return run

    value = input
    for i in range(len(cuts) - 1):
        run = stage(cuts[i], cuts[i + 1])
        last = i == len(cuts) - 2
        value = run(value) if last and not checkpoint_last else emit_checkpoint(run, value)
    return value if isinstance(value, rx.Var) else bb.emit(value)
