"""The step program: an offloaded function as plain data (what `blas` and `cupy` save).

    program := {"composite": name | null, "inputs": n, "steps": [step, ...], "result": ref}
    step    := {"op": "relax.add", "attrs": {...}, "args": [ref, ...]}     an operator
             | {"call": program, "args": [ref, ...]}                       a nested function
    ref     := ["input", i] | ["step", j] (an earlier step) | ["const", name]

Constants are arrays kept beside the JSON by name (saved as .npy, never pickled). `check`
validates a program read from a file; `compile_program` turns one into `run(inputs) -> array`
for an op table (numpy's or CuPy's) and a backend's fast paths for whole composites (keyed by
the program's "composite" name: blas runs conv2d + bias + relu as one in-place kernel).
This module is runtime code: numpy only, nothing from the compiler.
"""

from __future__ import annotations

from typing import Any, Callable

Run = Callable[[list[Any]], Any]
# a fast path gets (program, const) and returns f(*inputs) -> array, or None to decline
FastPath = Callable[[dict[str, Any], Callable[[str], Any]], Callable[..., Any] | None]
MAX_DEPTH = 8  # composites nest once (MergeCompositeFunctions); more is a malformed file


class ProgramError(ValueError):
    """A program (from a file) is malformed."""


def check(program: Any, arrays: dict[str, Any], arity: dict[str, int], depth: int = 0) -> None:
    """Raise ProgramError unless `program` is well formed for these ops and constants."""
    _expect(depth < MAX_DEPTH, "programs nest too deeply")
    _expect(isinstance(program, dict)
            and set(program) == {"composite", "inputs", "steps", "result"},
            "a program has exactly: composite, inputs, steps, result")
    _expect(program["composite"] is None or isinstance(program["composite"], str),
            "composite must be a name or null")
    n = program["inputs"]
    _expect(_is_int(n) and n >= 0 and isinstance(program["steps"], list), "bad inputs/steps")
    for j, step in enumerate(program["steps"]):
        _expect(isinstance(step, dict) and isinstance(step.get("args"), list),
                f"step {j} is not an object with an args list")
        if set(step) == {"op", "attrs", "args"}:
            op = step["op"]
            _expect(isinstance(op, str) and op in arity, f"step {j}: no implementation of {op!r}")
            _expect(len(step["args"]) == arity[op], f"step {j}: {op} takes {arity[op]} args")
            _expect(isinstance(step["attrs"], dict)
                    and all(k.isidentifier() and k != "xp" and _is_plain(v)
                            for k, v in step["attrs"].items()), f"step {j}: bad attrs")
        else:
            _expect(set(step) == {"call", "args"}, f"step {j}: neither an op nor a call")
            check(step["call"], arrays, arity, depth + 1)
            _expect(len(step["args"]) == step["call"]["inputs"], f"step {j}: argument count")
        for ref in step["args"]:
            _check_ref(ref, n, j, arrays)
    _check_ref(program["result"], n, len(program["steps"]), arrays)


def _check_ref(ref: Any, n_inputs: int, n_steps: int, arrays: dict[str, Any]) -> None:
    _expect(isinstance(ref, list) and len(ref) == 2, f"bad reference {ref!r}")
    kind, at = ref
    ok = (kind == "input" and _is_int(at) and 0 <= at < n_inputs
          or kind == "step" and _is_int(at) and 0 <= at < n_steps
          or kind == "const" and isinstance(at, str) and at in arrays)
    _expect(ok, f"reference {ref!r} points nowhere")


def _is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _is_plain(v: Any) -> bool:
    if isinstance(v, list):
        return all(_is_plain(x) for x in v)
    return v is None or isinstance(v, (bool, int, float, str))


def _expect(ok: bool, message: str) -> None:
    if not ok:
        raise ProgramError(f"malformed program: {message}")


def attrs_of(step: dict[str, Any]) -> dict[str, Any]:
    """A step's attributes as the ops expect them (JSON lists back to tuples)."""
    return {k: _tuples(v) for k, v in step["attrs"].items()}


def _tuples(v: Any) -> Any:
    return tuple(_tuples(x) for x in v) if isinstance(v, list) else v


def compile_program(program: dict[str, Any], ops: dict[str, Callable[..., Any]],
                    fast_paths: dict[str, FastPath], const: Callable[[str], Any]) -> Run:
    """`run(inputs)` for a checked program; `const(name)` gives a constant, ready to use."""
    make = fast_paths.get(program["composite"] or "")
    fast = make(program, const) if make is not None else None
    if fast is not None:
        return lambda inputs: fast(*inputs)
    # Every value lives in one list, [inputs..., step results..., constants...]; refs are
    # resolved to indices into it here, once.
    n, n_steps = program["inputs"], len(program["steps"])
    consts: list[Any] = []
    steps: list[tuple[Callable[..., Any], list[int]]] = []

    def index(ref: list[Any]) -> int:
        kind, at = ref
        if kind == "const":
            consts.append(const(at))
            return n + n_steps + len(consts) - 1
        return at if kind == "input" else n + at

    for step in program["steps"]:
        if "op" in step:
            op, attrs = ops[step["op"]], attrs_of(step)
            impl = (lambda *a, op=op, attrs=attrs: op(*a, **attrs)) if attrs else op
        else:
            inner = compile_program(step["call"], ops, fast_paths, const)
            impl = lambda *a, inner=inner: inner(list(a))  # noqa: E731
        steps.append((impl, [index(r) for r in step["args"]]))
    result = index(program["result"])
    slots = [None] * n_steps

    def run(inputs: list[Any]) -> Any:
        env = [*inputs, *slots, *consts]
        for k, (impl, args) in enumerate(steps, n):
            env[k] = impl(*[env[i] for i in args])
        return env[result]

    return run
