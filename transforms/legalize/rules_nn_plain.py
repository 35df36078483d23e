"""TVM's plain legalization of the `R.nn` operators (topi/nn_plain.py, conv_plain.py).

Each rule here replaces an earlier one only outside the build pipeline: under
`default_schedules()` (topi/schedule_mode.py) the earlier rule, with its scheduled compute,
still runs, so the kernels the build compiles do not change.
"""

from __future__ import annotations

from typing import Any

from ...topi import nn_plain as P
from ...topi.schedule_mode import scheduled
from .rules import LEGALIZE, Rule, register_legalize


def plain_rule(name: str, rule: Rule) -> None:
    """`rule` for `name` when not scheduled, the rule registered before otherwise."""
    before = LEGALIZE.get(name)

    def either(call: Any, *args: Any) -> Any:
        if before is not None and scheduled():
            return before(call, *args)
        return rule(call, *args)
    register_legalize(name, either)


plain_rule("relax.nn.gelu", lambda c, x: P.gelu(x))
plain_rule("relax.nn.gelu_tanh", lambda c, x: P.gelu_tanh(x))
plain_rule("relax.nn.silu", lambda c, x: P.silu(x))
plain_rule("relax.nn.leakyrelu", lambda c, x: P.leaky_relu(x, c.attr("alpha")))
plain_rule("relax.nn.prelu", lambda c, x, a: P.prelu(x, a, c.attr("axis")))
plain_rule("relax.nn.softmax", lambda c, x: P.softmax(x, c.attr("axis")))
plain_rule("relax.nn.log_softmax", lambda c, x: P.log_softmax(x, c.attr("axis")))
plain_rule("relax.nn.cross_entropy_with_logits",
           lambda c, x, y: P.cross_entropy_with_logits(x, y))
