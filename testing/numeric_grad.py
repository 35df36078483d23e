"""`tvm.testing.check_numerical_grads`: analytical gradients against finite differences."""

from __future__ import annotations

from typing import Any, Callable

import numpy as np


def _call(function: Callable[..., Any], values: Any) -> float:
    out = function(**values) if isinstance(values, dict) else function(*values)
    return float(np.asarray(out))


def check_numerical_grads(function: Callable[..., Any], input_values: Any, grad_values: Any,
                          function_value: float | None = None, delta: float = 1e-3,
                          atol: float = 1e-2, rtol: float = 0.1) -> None:
    """Raise AssertionError unless each of `grad_values` matches the central difference of
    the scalar `function` at `input_values` (lists or dicts by name, as TVM's helper takes).

    The tolerance is TVM's: `|numeric - analytic| <= atol * sqrt(n) + rtol * |numeric|`
    in the 2-norm, n the gradient's size.
    """
    named = isinstance(input_values, dict)
    keys = list(input_values) if named else list(range(len(input_values)))
    values = {k: np.asarray(input_values[k]) for k in keys}
    grads = grad_values if named else dict(zip(keys, grad_values))
    if function_value is not None:
        np.testing.assert_allclose(_call(function, _args(values, named)), function_value,
                                   rtol=1e-5, atol=1e-5)
    for k in keys:
        if k not in grads:
            continue
        x = values[k].astype("float64")
        numeric = np.zeros_like(x)
        for idx in np.ndindex(x.shape):
            numeric[idx] = _difference(function, values, named, k, idx, delta)
        analytic = np.asarray(grads[k], "float64")
        if analytic.shape != numeric.shape:
            raise AssertionError(f"gradient {k}: shape {analytic.shape}, expected "
                                 f"{numeric.shape}")
        err = np.linalg.norm(numeric - analytic)
        allowed = atol * np.sqrt(max(numeric.size, 1)) + rtol * np.linalg.norm(numeric)
        if err > allowed:
            raise AssertionError(f"gradient {k}: analytic {analytic} differs from numeric "
                                 f"{numeric} by {err} (allowed {allowed})")


def _args(values: dict[Any, np.ndarray], named: bool) -> Any:
    return values if named else [values[k] for k in sorted(values)]


def _difference(function: Callable[..., Any], values: dict[Any, np.ndarray], named: bool,
                key: Any, idx: tuple[int, ...], delta: float) -> float:
    def at(shift: float) -> float:
        moved = dict(values)
        x = values[key].copy()
        x[idx] += shift
        moved[key] = x.astype(values[key].dtype)
        return _call(function, _args(moved, named))
    return (at(delta) - at(-delta)) / (2 * delta)
