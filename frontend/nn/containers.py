"""`nn.ParameterList` and `nn.ParameterDict`: parameters held in a list or a dict, named by
index or key (`biases.0`, `scales.main`) in `named_parameters`, `state_dict` and `export_tvm`."""

from __future__ import annotations

from typing import Any, Iterable, Iterator

from .core import Module, Parameter


def _checked(value: Any, where: str) -> Parameter:
    if not isinstance(value, Parameter):
        raise TypeError(f"{where} holds nn.Parameter values, got {type(value).__name__}")
    return value


class ParameterList(Module):
    """A list of Parameters (as torch's `nn.ParameterList`)."""

    def __init__(self, params: Iterable[Parameter] = ()) -> None:
        self.params = [_checked(p, "nn.ParameterList") for p in params]

    def _items(self) -> Iterator[tuple[str, Any]]:
        return ((str(i), p) for i, p in enumerate(list(self.params)))

    def _set_item(self, key: str, value: Any) -> None:
        self.params[int(key)] = value

    def __getitem__(self, idx: int) -> Parameter:
        return self.params[idx]

    def __setitem__(self, idx: int, param: Parameter) -> None:
        self.params[idx] = _checked(param, "nn.ParameterList")

    def __iter__(self) -> Iterator[Parameter]:
        return iter(self.params)

    def __len__(self) -> int:
        return len(self.params)

    def append(self, param: Parameter) -> None:
        self.params.append(_checked(param, "nn.ParameterList"))

    def extend(self, params: Iterable[Parameter]) -> None:
        for p in params:
            self.append(p)


class ParameterDict(Module):
    """A dict of Parameters with string keys, in insertion order."""

    def __init__(self, params: dict[str, Parameter] | None = None) -> None:
        self.params: dict[str, Parameter] = {}
        self.update(params or {})

    def _items(self) -> Iterator[tuple[str, Any]]:
        return iter(list(self.params.items()))

    def _set_item(self, key: str, value: Any) -> None:
        self.params[key] = value

    def __getitem__(self, key: str) -> Parameter:
        return self.params[key]

    def __setitem__(self, key: str, param: Parameter) -> None:
        if not isinstance(key, str):
            raise TypeError(f"nn.ParameterDict keys are strings, got {key!r}")
        self.params[key] = _checked(param, "nn.ParameterDict")

    def __contains__(self, key: object) -> bool:
        return key in self.params

    def __iter__(self) -> Iterator[str]:
        return iter(self.params)

    def __len__(self) -> int:
        return len(self.params)

    def keys(self) -> Any:
        return self.params.keys()

    def values(self) -> Any:
        return self.params.values()

    def items(self) -> Any:
        return self.params.items()

    def get(self, key: str, default: Any = None) -> Any:
        return self.params.get(key, default)

    def update(self, params: dict[str, Parameter]) -> None:
        for key, param in dict(params).items():
            self[key] = param

    def pop(self, key: str) -> Parameter:
        return self.params.pop(key)

    def clear(self) -> None:
        self.params.clear()
