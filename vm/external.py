"""External functions: what a BYOC codegen compiled, as data an exported executable carries.

A backend's codegen (`relax.ext.<backend>`) returns one destination-passing callable per
offloaded function. A plain Python callable runs in the process where `RunCodegen` ran, and
nowhere else. An `ExternalFunction` is also a callable, but it can be saved: `kind` names the
loader that rebuilds it, `payload` is JSON-able and `arrays` are its constants (saved as .npy).
TVM's counterpart is a runtime module's SaveToBinary and `runtime.module.loadbinary_<kind>`.

`export_library` saves every RunCodegen function of an executable with `serialize`
(`RunCodegen` records here what each symbol came from); `load_executable` rebuilds them with
`read_externals`, through the `load(payload, arrays)` of an allowlisted module of ours
(`LOADERS`) -- never a module named by the file, never pickle or eval -- and keeps them on the
loaded executable (`Executable.externals`), which the VM consults before the global registry.
"""

from __future__ import annotations

import importlib
import io
import json
import re
import zipfile
from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np

from .executable import Executable, ExecutableFormatError

# kind -> the module of tvmlite.backend whose `load(payload, arrays)` rebuilds it
LOADERS = {"blas": "blas_runtime", "ccompiler": "ccompiler_runtime", "cupy": "cupy_runtime"}
MANIFEST = "externals.json"
_ARRAY_NAME = re.compile(r"[A-Za-z0-9_]{1,64}\Z")


@dataclass(frozen=True, eq=False)
class ExternalFunction:
    """A compiled function that can be saved: `run` is the destination-passing callable."""

    kind: str
    payload: dict[str, Any]
    run: Callable[..., Any]
    arrays: dict[str, np.ndarray] = field(default_factory=dict)

    def __call__(self, *args: Any) -> Any:
        return self.run(*args)

    def export(self) -> tuple[dict[str, Any], dict[str, np.ndarray]]:
        return self.payload, self.arrays


class UnexportableFunctionError(ValueError):
    """An executable calls a codegen's function that cannot be saved (a plain callable)."""


# symbol -> (backend, what its codegen returned); RunCodegen records every function it made
_FROM_CODEGEN: dict[str, tuple[str, Callable[..., Any]]] = {}


def record_codegen(symbol: str, backend: str, impl: Callable[..., Any]) -> None:
    _FROM_CODEGEN[symbol] = (backend, impl)


def unwrap(f: Callable[..., Any]) -> Callable[..., Any]:
    """The callable to put in a VM's function table (an ExternalFunction's own `run`)."""
    return f.run if isinstance(f, ExternalFunction) else f


def collect(ex: Executable) -> dict[str, ExternalFunction]:
    """The external functions `ex` calls, by symbol; raises if one of them cannot be saved."""
    out: dict[str, ExternalFunction] = {}
    for entry in ex.func_table:
        if entry.kind != "packed":
            continue
        f = ex.externals.get(entry.name)
        backend = f.kind if f is not None else None
        if f is None and entry.name in _FROM_CODEGEN:
            backend, f = _FROM_CODEGEN[entry.name]
        if f is None:
            continue  # a builtin or a function the user registers by name: stays by name
        if not isinstance(f, ExternalFunction) or f.kind not in LOADERS:
            raise UnexportableFunctionError(_unexportable(entry.name, str(backend), f))
        out[entry.name] = f
    return out


def _unexportable(symbol: str, backend: str, f: Any) -> str:
    what = (f"an ExternalFunction of kind {f.kind!r}, which tvmlite has no loader for"
            if isinstance(f, ExternalFunction) else f"a plain Python callable ({f!r})")
    return (f"cannot export: the executable calls {symbol!r}, which the {backend!r} backend's "
            f"codegen (relax.ext.{backend}) returned as {what}; it runs only in the process "
            "that ran RunCodegen. To export, have the codegen return "
            "tvmlite.vm.external.ExternalFunction objects of a kind tvmlite can load "
            f"({', '.join(sorted(LOADERS))}) -- e.g. "
            "tvmlite.backend.numpy_eval.compile_function(func, module) runs a function with "
            "numpy and saves it as a 'blas' program -- or run the model where it was built.")


def serialize(ex: Executable) -> dict[str, bytes]:
    """The zip members saving `ex`'s external functions: `externals.json` (symbol, kind,
    payload, array names) and `externals/<i>/<name>.npy`. Raises before anything is written."""
    files: dict[str, bytes] = {}
    manifest = []
    for i, (symbol, f) in enumerate(collect(ex).items()):
        payload, arrays = f.export()
        for name, arr in arrays.items():
            if not _ARRAY_NAME.match(name):
                raise UnexportableFunctionError(f"{symbol}: bad constant name {name!r}")
            buf = io.BytesIO()
            np.save(buf, np.asarray(arr), allow_pickle=False)
            files[f"externals/{i}/{name}.npy"] = buf.getvalue()
        manifest.append({"symbol": symbol, "kind": f.kind, "payload": payload,
                         "arrays": sorted(arrays)})
    try:
        if manifest:  # (an executable without BYOC functions is written as before)
            files[MANIFEST] = json.dumps(manifest).encode()
    except (TypeError, ValueError) as err:
        raise UnexportableFunctionError(f"a payload is not JSON data: {err}") from None
    return files


def read_manifest(zf: zipfile.ZipFile) -> tuple[list[Any], dict[str, np.ndarray]]:
    """The raw manifest and the arrays beside it (files without externals give nothing)."""
    if MANIFEST not in zf.namelist():
        return [], {}
    try:
        manifest = json.loads(zf.read(MANIFEST).decode())
    except (ValueError, RecursionError) as err:
        raise ExecutableFormatError(f"{MANIFEST} is not JSON: {err}") from None
    arrays = {}
    for name in zf.namelist():
        if name.startswith("externals/"):
            try:
                arrays[name] = np.load(io.BytesIO(zf.read(name)), allow_pickle=False)
            except ValueError as err:
                raise ExecutableFormatError(f"{name}: not a plain .npy array ({err})") from None
    return manifest, arrays


def build_externals(ex: Executable, manifest: Any, files: dict[str, np.ndarray]
                    ) -> dict[str, ExternalFunction]:
    """Rebuild each saved function with its kind's loader, checking everything on the way."""
    if not isinstance(manifest, list):
        raise ExecutableFormatError(f"{MANIFEST}: expected a list of functions")
    packed = {e.name for e in ex.func_table if e.kind == "packed"}
    out: dict[str, ExternalFunction] = {}
    for i, entry in enumerate(manifest):
        if not (isinstance(entry, dict)
                and set(entry) == {"symbol", "kind", "payload", "arrays"}
                and isinstance(entry["arrays"], list)
                and all(isinstance(n, str) and _ARRAY_NAME.match(n) for n in entry["arrays"])):
            raise ExecutableFormatError(f"{MANIFEST}: entry {i} is malformed")
        symbol, kind = entry["symbol"], entry["kind"]
        if symbol not in packed or symbol in out:
            raise ExecutableFormatError(f"{MANIFEST}: {symbol!r} is not a packed function of "
                                        "the function table (or appears twice)")
        if kind not in LOADERS:
            raise ExecutableFormatError(f"{MANIFEST}: {symbol!r} has unknown kind {kind!r} "
                                        f"(known: {', '.join(sorted(LOADERS))})")
        arrays = {}
        for name in entry["arrays"]:
            arr = files.get(f"externals/{i}/{name}.npy")
            if arr is None:
                raise ExecutableFormatError(f"{symbol!r}: constant {name!r} is missing")
            arrays[name] = arr
        out[symbol] = _load(symbol, kind, entry["payload"], arrays)
    return out


def _load(symbol: str, kind: str, payload: Any, arrays: dict[str, np.ndarray]
          ) -> ExternalFunction:
    # NOTE: the module comes from LOADERS, keyed by the file's kind: the file names no module.
    package = __name__.rsplit(".", 2)[0]
    loader = importlib.import_module(f"{package}.backend.{LOADERS[kind]}").load
    try:
        f = loader(payload, arrays)
    except (ValueError, TypeError, KeyError, IndexError, RecursionError) as err:
        raise ExecutableFormatError(f"external function {symbol!r} ({kind}): {err}") from None
    if not isinstance(f, ExternalFunction):
        raise ExecutableFormatError(f"the {kind} loader gave {f!r} for {symbol!r}")
    return f
