"""`script(path_to_underline=..., obj_to_underline=...)` on IR: TVMScript with parts underlined.

A path (`AccessPath.root().attr("body").attr("seq").array_item(1)`) is followed through the
object's attributes, list items and dict entries; every object on the way is watched while
printing (`source_marks`), and the deepest one whose text the printer marked is underlined (a
shallower one gets TVM's "nearest visible parent" note, none at all its "no visible object"
note). Objects in `obj_to_underline` are underlined wherever the printer marks them: a variable
at each use. The decoration (header, `^` lines, line numbers, context) is the doc printer's.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ...ffi.access_path import AccessPath
from ...tir.function import PrimFunc
from ...tir.stmt import BlockRealize, Buffer
from .doc_underline import Output, UnderlineOptions, decorate
from .source_marks import annotate, strip_marks, watching

_MISSING = object()
_UNMARKED = (str, int, float, bool, list, tuple, dict, type(None))
_DEFINING = {"loop_var", "var", "params"}
_VARIABLES = {"Var", "SizeVar", "DataflowVar"}


def wants_underline(options: dict[str, Any]) -> bool:
    return any(options.get(name) for name in ("path_to_underline", "obj_to_underline",
                                              "path_to_annotate", "obj_to_annotate",
                                              "print_line_numbers"))


def _step(obj: Any, kind: str, key: Any) -> Any:
    if kind == "attr" and key == "ty" and isinstance(obj, Buffer):
        return obj  # TVM 0.27's BufferType: the shape, dtype, ... of the buffer itself
    if kind == "attr" and key == "storage_scope" and isinstance(obj, Buffer):
        return obj.scope
    if kind == "attr":  # NOTE: private attributes are no part of the IR a path names
        return _MISSING if key.startswith("_") else getattr(obj, key, _MISSING)
    if kind == "array_item" and isinstance(obj, (list, tuple)) and -len(obj) <= key < len(obj):
        return obj[key]
    if kind == "map_item" and isinstance(obj, dict):
        for k, v in obj.items():  # NOTE: object keys (GlobalVars) match by identity first
            if k is key:
                return v
        return obj.get(key, _MISSING) if isinstance(key, (str, int)) else _MISSING
    return _MISSING


def resolve(root: Any, path: AccessPath) -> list[Any]:
    """The objects along `path`: `chain[k]` is reached after k steps; it stops at the first
    step this IR does not have."""
    chain, steps, i = [root], path.steps, 0
    while i < len(steps):
        if _rootless_body(chain, steps, i):  # `.block.body` of a root block TVM would add
            chain += [chain[-1], chain[-1]]
            i += 2
            continue
        try:
            nxt = _step(chain[-1], *steps[i])
        except Exception:  # an attribute that computes and fails is not there
            nxt = _MISSING
        if _buffer_param(chain, steps, i) and steps[i + 1:i + 2] == (("attr", "ty"),):
            nxt = chain[-2].buffer_of(nxt) or nxt  # `params[1].ty`: the parameter's buffer
        if nxt is _MISSING:
            break
        chain.append(nxt)
        i += 1
    return chain


def _buffer_param(chain: list[Any], steps: tuple, i: int) -> bool:
    """At `params[k]` of a prim_func (TVM 0.27: a buffer parameter is the buffer's variable)."""
    return i >= 1 and steps[i - 1] == ("attr", "params") and isinstance(chain[-2], PrimFunc) \
        and steps[i][0] == "array_item"


def _rootless_body(chain: list[Any], steps: tuple, i: int) -> bool:
    """At a prim_func's body that has no root block, facing `.block.body`: TVM's parser adds
    that block to a function with blocks, and TVM's paths go through it."""
    return i >= 1 and steps[i - 1] == ("attr", "body") and isinstance(chain[-2], PrimFunc) \
        and not isinstance(chain[-1], BlockRealize) \
        and steps[i:i + 2] == (("attr", "block"), ("attr", "body"))


def _body_span(text: str) -> tuple[int, int]:
    """The whole text but its `# from tvm.script import ...` header and the blank line after."""
    pos = 0
    for line in text.split("\n"):
        if line and not line.startswith("# from "):
            break
        pos += len(line) + 1
    return min(pos, len(text)), len(text)


def _output(text: str, paths: list[AccessPath]) -> Output:
    out = Output(paths)
    out.write(text)
    start = 0
    for line in text.split("\n"):
        if start:
            out.line_starts.append(start)
            out.exempt(start - 1, start)
        stripped = line.lstrip(" ")
        if stripped.startswith("#"):  # comment lines (`# with T.sblock("root"):`) stay plain
            out.exempt(start, start + len(line))
        else:
            out.exempt(start, start + len(line) - len(stripped))
        start += len(line) + 1
    return out


def _hide_definitions(path: AccessPath, chain: list[Any]) -> None:
    """A variable reached where it is defined (`.loop_var`, `.params[0]`, a binding's `.var`)
    names its definition, which TVM does not underline, not its uses: it stays unmarked."""
    for depth in range(1, len(chain)):
        kind, key = path.steps[depth - 1]
        defining = (kind == "attr" and key in _DEFINING) or (
            kind == "array_item" and depth >= 2 and path.steps[depth - 2] == ("attr", "params"))
        if defining and type(chain[depth]).__name__ in _VARIABLES:
            chain[depth] = None


def _annotations(root: Any, options: dict[str, Any]) -> list[tuple[Any, str]]:
    """(object, comment) from `obj_to_annotate` and from the paths of `path_to_annotate` that
    reach an object."""
    notes = list((options.get("obj_to_annotate") or {}).items())
    for path, note in (options.get("path_to_annotate") or {}).items():
        chain = resolve(root, path)
        if len(chain) == path.depth + 1:
            notes.append((chain[-1], note))
    return [(o, n) for o, n in notes if not isinstance(o, _UNMARKED)]


def _inside_ancestor(found: list[tuple[int, int]],
                     ancestors: list[list[tuple[int, int]]]) -> list[tuple[int, int]]:
    """The spans of a shared object (a variable used twice) that lie in the text of the
    nearest marked object above it on the path: the use the path names, not every use."""
    for outer in reversed(ancestors):
        if outer:
            return [(a, b) for a, b in found if any(s <= a and b <= e for s, e in outer)]
    return found


def _nth_repeat(found: list[tuple[int, int]], container: Any,
                step: tuple[str, Any]) -> list[tuple[int, int]]:
    """`f(y, y)` and the path `.args[1]`: of the two uses, the second (its items print in
    order)."""
    kind, index = step
    if kind != "array_item" or not isinstance(container, (list, tuple)) or len(found) < 2:
        return found
    item = container[index]
    nth = sum(1 for other in container[:index % len(container)] if other is item)
    repeats = sum(1 for other in container if other is item)
    if repeats != len(found):  # the item is also used elsewhere in the parent's text
        return found
    return [sorted(found)[nth]]


def underlined_script(root: Any, print_text: Callable[[], str], options: dict[str, Any],
                      root_visible: bool = True) -> str:
    """`print_text()` decorated as `script(**options)` asks (see the module docstring)."""
    extra = dict(options.get("extra_config") or {})
    paths = list(options.get("path_to_underline") or ())
    objs = list(options.get("obj_to_underline") or ())
    chains = [resolve(root, p) for p in paths]
    for path, chain in zip(paths, chains):
        _hide_definitions(path, chain)
    notes = _annotations(root, options)
    numbers: dict[int, int] = {}
    for obj in [o for chain in chains for o in chain[1:]] + objs + [o for o, _ in notes]:
        if not isinstance(obj, _UNMARKED):
            numbers.setdefault(id(obj), len(numbers))
    with watching(numbers):
        text = print_text()
    for obj, note in notes:
        text = annotate(text, numbers[id(obj)], note)
    clean, spans = strip_marks(text)
    out = _output(clean, paths)
    for i, chain in enumerate(chains):
        marked = [spans.get(numbers.get(id(o), -1), []) for o in chain]
        if root_visible:
            marked[0] = marked[0] or [_body_span(clean)]
        for depth in range(len(chain) - 1, -1, -1):
            found = _inside_ancestor(marked[depth], marked[:depth])
            if found and depth:
                found = _nth_repeat(found, chain[depth - 1], paths[i].steps[depth - 1])
            if found:
                out.best_depth[i], out.spans[i] = depth, found
                break
    out.spans.append([s for o in objs for s in spans.get(numbers.get(id(o), -1), [])])
    context = options.get("num_context_lines")
    return decorate(out, UnderlineOptions(
        paths, bool(options.get("print_line_numbers")), -1 if context is None else context,
        bool(extra.get("render_invisible_path_info",
                       options.get("render_invisible_path_info", True)))))
