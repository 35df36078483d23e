"""TVMScript: the `T`, `R` and `I` namespaces, the decorators and `from_source`.

```python
from tvmlite.script import ir as I, tir as T, relax as R   # or: tvm.script.ir_module
```
"""

from . import diagnostics, ir, relax, tir
from .diagnostics import DiagnosticError
from .parser.entry import from_source, ir_module

from . import tirx  # noqa: E402 (TVM 0.27 spells it `from tvm.script import tirx as T`)

diagnostics.install_excepthook()

__all__ = ["DiagnosticError", "diagnostics", "from_source", "ir", "ir_module", "relax", "tir",
           "tirx"]
