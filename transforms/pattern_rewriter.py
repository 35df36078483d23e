"""`PatternMatchingRewriter` (TVM 0.27's `relax.dpl`): rewrite rules as objects.

A rule comes from a pattern and a function (`from_pattern`), or from a module whose `pattern`
function is rewritten into its `replacement` function (`from_module`, `@R.rewriter`). A rule
applies to a function or to a whole module (adding the private subroutines the replacement
calls), composes with `|`, and is a Pass. Rules are applied binding by binding, into the
branches of conditionals, until nothing more matches. A `pattern` that returns a tuple matches
a tuple written in the function, or, implicitly, bindings that compute its elements in one
block; a match never spans an impure call.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, replace
from typing import Any, Callable

from ..ir.dpl import (
    AttrPattern, CallPattern, DFPattern, ExprPattern, Matcher, TupleGetItemPattern,
    TuplePattern, TypePattern, WildcardPattern,
)
from ..ir.dpl_rewrite import Emitter, _alternatives, _reemit
from ..ir.expr import (
    BindingBlock, Call, DataflowBlock, DataflowVar, Expr, Function, GlobalVarRef, If, SeqExpr,
    Tuple, TupleGetItem, Var, VarBinding,
)
from ..ir.functor import ExprMutator, substitute_vars
from ..ir.module import GlobalVar, IRModule
from ..ir.op import with_inferred_struct_info
from ..ir.struct_info import ObjectStructInfo, TupleStructInfo
from ..ir.structural import structural_equal
from .bind_symbolic import _Substitute
from .canonicalize import canonicalize
from .inline_functions import param_dims
from .pass_infra import Pass
from .simple_passes import _is_pure, remove_unused

_MAX_ROUNDS = 100
_REWRITES_PER_BINDING = 8  # a round rewriting more than this per binding has stopped converging
_MAX_TUPLE_CANDIDATES = 4096

# what a rule's replacement is: bindings to emit before the matched binding, and its new value
Replacement = tuple[list[Any], Expr]


@dataclass
class _Rule:
    """One rewrite: `patterns` (one, or a tuple's elements when `is_tuple`) and `make`, which
    returns the replacement for the matches, or None to decline."""

    patterns: list[DFPattern]
    make: Callable[[Expr, dict[DFPattern, Expr], bool], Replacement | None]
    is_tuple: bool = False


class PatternMatchingRewriter(Pass):
    """A rewrite rule, applied by calling it on a relax Function or an IRModule."""

    def __init__(self, rules: list[_Rule], subroutines: IRModule | None = None) -> None:
        super().__init__(lambda mod, ctx: self._rewrite_module(mod), type(self).__name__)
        self._rule_list = rules
        self._subroutines = subroutines

    @staticmethod
    def from_pattern(pattern: DFPattern, func: Callable[[Expr, dict[DFPattern, Expr]], Expr]
                     ) -> PatternMatchingRewriter:
        """Replace what `pattern` matches by `func(expr, matches)` (as `rewrite_call`)."""
        return ExprPatternRewriter(pattern, func)

    @staticmethod
    def from_module(mod: IRModule) -> PatternMatchingRewriter:
        """The rule rewriting `mod["pattern"]` into `mod["replacement"]`; other functions of
        `mod` must be private: they are subroutines the replacement may call."""
        return _rule_from_module(mod)

    def __call__(self, obj: Any) -> Any:
        if isinstance(obj, IRModule):
            return super().__call__(obj)
        if isinstance(obj, Function):
            return _rewrite_function(obj, self._rules())
        raise TypeError(f"a PatternMatchingRewriter applies to a relax Function or an "
                        f"IRModule, not {type(obj).__name__}")

    def __or__(self, other: PatternMatchingRewriter) -> PatternMatchingRewriter:
        return OrRewriter(self, other)

    def _rules(self) -> list[_Rule]:
        return list(self._rule_list)

    def _modules(self) -> list[IRModule]:
        return [self._subroutines] if self._subroutines is not None else []

    def _rewrite_module(self, mod: IRModule) -> IRModule:
        rules = self._rules()
        out = mod.map_functions(
            lambda gv, f: _rewrite_function(f, rules) if isinstance(f, Function) else f)
        return _add_subroutines(out, self._modules())


class ExprPatternRewriter(PatternMatchingRewriter):
    """Replace each value `pattern` matches by `func(value, matches)`."""

    def __init__(self, pattern: DFPattern, func: Callable[[Expr, dict[DFPattern, Expr]], Expr]
                 ) -> None:
        def make(value: Expr, matches: dict[DFPattern, Expr], dataflow: bool
                 ) -> Replacement | None:
            new = func(value, matches)
            if new is None or new is value or structural_equal(new, value):
                return None
            prefix: list[Any] = []
            return prefix, Emitter(prefix, dataflow).flatten(new)

        super().__init__([_Rule([pattern], make)])


class TupleRewriter(PatternMatchingRewriter):
    """Replace values matching `patterns` together by `func(tuple_of_them, matches)`, which
    returns a tuple-valued expression."""

    def __init__(self, patterns: list[DFPattern],
                 func: Callable[[Expr, dict[DFPattern, Expr]], Expr]) -> None:
        def make(value: Expr, matches: dict[DFPattern, Expr], dataflow: bool
                 ) -> Replacement | None:
            new = func(value, matches)
            if new is None or new is value:
                return None
            prefix: list[Any] = []
            return prefix, Emitter(prefix, dataflow).flatten(new)

        super().__init__([_Rule(list(patterns), make, is_tuple=True)])


class OrRewriter(PatternMatchingRewriter):
    """`lhs | rhs`: at each binding, the first of the two rules that applies."""

    def __init__(self, lhs: PatternMatchingRewriter, rhs: PatternMatchingRewriter) -> None:
        super().__init__([])
        self.lhs, self.rhs = lhs, rhs

    def _rules(self) -> list[_Rule]:
        return self.lhs._rules() + self.rhs._rules()

    def _modules(self) -> list[IRModule]:
        return self.lhs._modules() + self.rhs._modules()


# -- rules from a module ------------------------------------------------------------------------


def _rule_from_module(mod: IRModule) -> PatternMatchingRewriter:
    pattern_fn = _function_named(mod, "pattern")
    replacement_fn = _function_named(mod, "replacement")
    _check_same_signature(pattern_fn, replacement_fn)
    for gv, f in mod.items():
        if gv.name_hint not in ("pattern", "replacement") and \
                "global_symbol" in getattr(f, "attr_dict", {}):
            raise ValueError(f"the rewriter's subroutine '{gv.name_hint}' is publicly exposed; "
                             f"a rewriter may only add private functions to a module (declare "
                             f"it with private=True)")
    params, result = _pattern_of(pattern_fn)

    def make(value: Expr, matches: dict[DFPattern, Expr], dataflow: bool
             ) -> Replacement | None:
        return _instantiate(replacement_fn, [matches[p] for p in params], dataflow)

    if isinstance(result, list):
        rule = _Rule(result, make, is_tuple=True)
    else:
        rule = _Rule([result], make)
    subroutines = IRModule({gv: f for gv, f in mod.items()
                            if gv.name_hint not in ("pattern", "replacement")})
    return PatternMatchingRewriter([rule], subroutines)


def _function_named(mod: IRModule, name: str) -> Function:
    if name not in mod:
        raise KeyError(f"a rewriter module must define a '{name}' function; it has "
                       f"{mod.names()}")
    f = mod[name]
    if not isinstance(f, Function):
        raise TypeError(f"the rewriter's '{name}' must be a relax function (@R.function), "
                        f"got {type(f).__name__}")
    return f


def _check_same_signature(pattern: Function, replacement: Function) -> None:
    lhs = [p.struct_info for p in pattern.params]
    rhs = [p.struct_info for p in replacement.params]
    if len(lhs) != len(rhs) or not structural_equal(tuple(lhs), tuple(rhs), map_free_vars=True):
        raise ValueError(f"the rewriter's pattern and replacement must have the same "
                         f"signature: pattern takes {lhs}, replacement takes {rhs}")


def _pattern_of(func: Function) -> tuple[list[DFPattern], DFPattern | list[DFPattern]]:
    """The wildcards of `func`'s parameters and the pattern of its result (a list of element
    patterns when it returns a tuple)."""
    params: list[DFPattern] = []
    env: dict[Var, DFPattern] = {}
    for p in func.params:
        wildcard = WildcardPattern()
        params.append(wildcard)
        sinfo = p.struct_info
        env[p] = wildcard if sinfo is None or isinstance(sinfo, ObjectStructInfo) else \
            TypePattern(wildcard, sinfo)
    tuple_of: dict[Var, Tuple] = {}
    for block in func.body.blocks:
        for b in block.bindings:
            if not isinstance(b, VarBinding):
                raise ValueError("a rewriter's pattern may not contain match_cast")
            env[b.var] = _expr_pattern(b.value, env)
            if isinstance(b.value, Tuple):
                tuple_of[b.var] = b.value
    result = func.body.body
    result = tuple_of.get(result, result)
    if isinstance(result, Tuple):
        return params, [_expr_pattern(f, env) for f in result.fields]
    return params, _expr_pattern(result, env)


def _expr_pattern(e: Expr, env: dict[Var, DFPattern]) -> DFPattern:
    if isinstance(e, Var):
        return env[e]
    if isinstance(e, Call):
        op = _expr_pattern(e.op, env) if isinstance(e.op, Var) else ExprPattern(e.op)
        call = CallPattern(op, [_expr_pattern(a, env) for a in e.args], add_constraint=False)
        return AttrPattern(call, dict(e.attrs)) if len(e.attrs) else call
    if isinstance(e, Tuple):
        return TuplePattern([_expr_pattern(f, env) for f in e.fields])
    if isinstance(e, TupleGetItem):
        return TupleGetItemPattern(_expr_pattern(e.tuple_value, env), e.index)
    return ExprPattern(e)


def _instantiate(func: Function, args: list[Expr], dataflow: bool) -> Replacement:
    """`func`'s body with its parameters bound to `args` (and its symbolic dims to theirs), as
    bindings with fresh variables plus the result; the last binding, when it is the result,
    becomes the result's value."""
    dims = param_dims(func.params, args)
    if dims:  # NOTE: one substitution over the whole function keeps its variables consistent
        func = _Substitute(dims)(func)
    var_map: dict[Var, Expr] = dict(zip(func.params, args))
    var_class = DataflowVar if dataflow else Var
    bindings: list[Any] = []
    for block in func.body.blocks:
        for b in block.bindings:
            value = substitute_vars(b.value, var_map)
            var = var_class(b.var.name_hint, b.var.struct_info)
            var_map[b.var] = var
            bindings.append(replace(b, var=var, value=value))
    result = substitute_vars(func.body.body, var_map)
    if bindings and isinstance(bindings[-1], VarBinding) and bindings[-1].var is result:
        result = bindings.pop().value
    return bindings, result


# -- applying rules -----------------------------------------------------------------------------


def _rewrite_function(func: Function, rules: list[_Rule]) -> Function:
    out = func
    budget = _REWRITES_PER_BINDING * (_count_bindings(func.body) + 8)
    for _ in range(_MAX_ROUNDS):
        # NOTE: tuples written in the function are matched before bindings that compute a
        # tuple's elements separately (implicitly), so an explicit tuple is replaced whole
        body = _Walker(rules, False, budget).seq(out.body, {})
        if body is out.body:
            body = _Walker(rules, True, budget).seq(out.body, {})
        if body is out.body:
            return out
        out = remove_unused(canonicalize(replace(out, body=body)))
    return out


def _count_bindings(seq: SeqExpr) -> int:
    return sum(len(b.bindings) for b in seq.blocks)


class _Walker:
    """One round over a function body: each binding gets the first rule that applies."""

    def __init__(self, rules: list[_Rule], implicit: bool, budget: int) -> None:
        self.single = [r for r in rules if not r.is_tuple]
        self.tuples = [r for r in rules if r.is_tuple]
        self.implicit = implicit
        self.budget = budget

    def seq(self, seq: SeqExpr, var2val: dict[Var, Expr]) -> SeqExpr:
        var2val = dict(var2val)
        blocks, body = list(seq.blocks), seq.body
        # a branch's value may be a call without a binding: matched as if it had one
        returned = None if isinstance(body, (Var, Tuple)) else Var("ret", body.struct_info)
        if returned is not None:
            blocks.append(BindingBlock((VarBinding(returned, body),)))
            body = returned
        renamed: dict[Var, Expr] = {}
        new_blocks = [self.block(b, var2val, renamed) for b in blocks]
        body = substitute_vars(body, renamed) if renamed else body
        if returned is not None:
            new_blocks, body = _unbind_returned(new_blocks, body)
        elif isinstance(body, Tuple) and self.tuples and not self.implicit:
            new_blocks, body = self.output_tuple(new_blocks, body, var2val)
        if body is seq.body and len(new_blocks) == len(seq.blocks) and \
                all(a is b for a, b in zip(new_blocks, seq.blocks)):
            return seq
        return replace(seq, blocks=tuple(new_blocks), body=body)

    def block(self, block: BindingBlock, var2val: dict[Var, Expr],
              renamed: dict[Var, Expr]) -> BindingBlock:
        bindings = list(block.bindings)
        dataflow = isinstance(block, DataflowBlock)
        changed, i = False, 0
        while i < len(bindings):
            b = _reemit(bindings[i], renamed) if renamed else bindings[i]
            if isinstance(b.value, If):
                b = self.branches(b, var2val)
            if b is not bindings[i]:
                bindings[i], changed = b, True
            new = self.rewrite_at(bindings, i, dataflow, var2val, renamed)
            if new is None:
                var2val[b.var] = b.value
                i += 1
                continue
            self.budget -= 1
            if self.budget == 0:
                raise RuntimeError("PatternMatchingRewriter: the rules keep matching what they "
                                   "produce (a replacement that the pattern matches again)")
            bindings, changed = new, True  # NOTE: i stays: the new bindings are matched too
        return replace(block, bindings=tuple(bindings)) if changed else block

    def branches(self, b: VarBinding, var2val: dict[Var, Expr]) -> VarBinding:
        cond = b.value
        then = self.seq(cond.true_branch, var2val)
        other = self.seq(cond.false_branch, var2val)
        if then is cond.true_branch and other is cond.false_branch:
            return b
        return replace(b, value=replace(cond, true_branch=then, false_branch=other))

    def rewrite_at(self, bindings: list[Any], i: int, dataflow: bool,
                   var2val: dict[Var, Expr], renamed: dict[Var, Expr]) -> list[Any] | None:
        b = bindings[i]
        if not isinstance(b, VarBinding):
            return None
        for rule in self.single:
            for alternative in _alternatives(rule.patterns[0]):
                m = Matcher(var2val)
                if not m.match(alternative, b.value) or _spans_impure(bindings, i, m.memo):
                    continue
                matches = dict(m.memo)
                matches.setdefault(rule.patterns[0], matches[alternative])
                made = rule.make(b.value, matches, dataflow)
                if made is not None:
                    return _splice(bindings, i, made, renamed)
        for rule in self.tuples:
            if isinstance(b.value, Tuple):
                m = Matcher(var2val)
                if m.match(TuplePattern(rule.patterns), b.value) and \
                        not _spans_impure(bindings, i, m.memo):
                    made = rule.make(b.value, dict(m.memo), dataflow)
                    if made is not None:
                        return _splice(bindings, i, made, renamed)
                continue
            new = self.implicit_tuple(rule, bindings, i, dataflow, var2val) \
                if self.implicit else None
            if new is not None:
                return new
        return None

    def implicit_tuple(self, rule: _Rule, bindings: list[Any], i: int, dataflow: bool,
                       var2val: dict[Var, Expr]) -> list[Any] | None:
        """Bindings of this block, the first at `i`, that compute the tuple's elements: the
        replacement takes `i`'s place and each of them becomes one of its elements."""
        full = dict(var2val)
        full.update((b.var, b.value) for b in bindings if isinstance(b, VarBinding))
        later = [j for j in range(i + 1, len(bindings)) if isinstance(bindings[j], VarBinding)]
        n = len(rule.patterns)
        for first in range(n):
            if not Matcher(full).match(rule.patterns[first], bindings[i].value):
                continue
            others = [k for k in range(n) if k != first]
            candidates = [[j for j in later
                           if Matcher(full).match(rule.patterns[k], bindings[j].value)]
                          for k in others]
            combos = itertools.islice(itertools.product(*candidates), _MAX_TUPLE_CANDIDATES)
            for combo in combos:
                roots = dict(zip(others, combo))
                roots[first] = i
                if len(set(roots.values())) != n:
                    continue
                fields = Tuple(tuple(bindings[roots[k]].var for k in range(n)))
                m = Matcher(full)
                if not m.match(TuplePattern(rule.patterns), fields):
                    continue
                if _inputs_after(m.memo, bindings, i) or \
                        _spans_impure(bindings, max(roots.values()), m.memo):
                    continue
                made = rule.make(fields, dict(m.memo), dataflow)
                if made is not None:
                    return _split_tuple(bindings, roots, made, dataflow)
        return None

    def output_tuple(self, blocks: list[Any], body: Tuple, var2val: dict[Var, Expr]
                     ) -> tuple[list[Any], Expr]:
        """A tuple returned by the function (or branch) that a tuple rule matches."""
        for b in blocks:
            var2val.update((x.var, x.value) for x in b.bindings if isinstance(x, VarBinding))
        for rule in self.tuples:
            m = Matcher(var2val)
            if not m.match(TuplePattern(rule.patterns), body):
                continue
            made = rule.make(body, dict(m.memo), False)
            if made is None:
                continue
            prefix, value = made
            var = Var("lv", value.struct_info)
            tail = list(blocks[-1].bindings) if blocks and \
                not isinstance(blocks[-1], DataflowBlock) else []
            new_block = BindingBlock(tuple(tail + prefix + [VarBinding(var, value)]))
            blocks = blocks[:-1] + [new_block] if tail else blocks + [new_block]
            return blocks, var
        return blocks, body


def _unbind_returned(blocks: list[Any], var: Expr) -> tuple[list[Any], Expr]:
    """Undo `seq`'s binding of a returned value: when it is still the last binding, its value
    is returned again, and its block goes when that leaves it empty."""
    last = blocks[-1]
    if not last.bindings or last.bindings[-1].var is not var:
        return blocks, var
    value = last.bindings[-1].value
    rest = last.bindings[:-1]
    return blocks[:-1] + ([replace(last, bindings=rest)] if rest else []), value


def _splice(bindings: list[Any], i: int, made: Replacement,
            renamed: dict[Var, Expr]) -> list[Any]:
    prefix, value = made
    b = bindings[i]
    value = _with_struct_info(value)
    var = b.var
    if value.struct_info is not None and not structural_equal(value.struct_info,
                                                              var.struct_info):
        var = type(var)(var.name_hint, value.struct_info)
        renamed[b.var] = var
    return bindings[:i] + prefix + [replace(b, var=var, value=value)] + bindings[i + 1:]


def _split_tuple(bindings: list[Any], roots: dict[int, int], made: Replacement,
                 dataflow: bool) -> list[Any]:
    """The replacement bound at the first root, each root rebound to its element there."""
    prefix, value = made
    value = _with_struct_info(value)
    first = min(roots.values())
    tuple_var = (DataflowVar if dataflow else Var)("lv", value.struct_info)
    elements = []
    for k, j in sorted(roots.items(), key=lambda kv: kv[1]):
        fields = getattr(value.struct_info, "fields", None)
        item = TupleGetItem(tuple_var, k, fields[k] if fields else None)
        elements.append(replace(bindings[j], value=item))
    gone = set(roots.values())
    out = bindings[:first] + prefix + [VarBinding(tuple_var, value)] + elements
    return out + [b for j, b in enumerate(bindings[first + 1:], first + 1) if j not in gone]


def _with_struct_info(value: Expr) -> Expr:
    if value.struct_info is not None:
        return value
    if isinstance(value, Call):
        return with_inferred_struct_info(value)
    if isinstance(value, Tuple):
        return replace(value, struct_info=TupleStructInfo(
            tuple(_with_struct_info(f).struct_info for f in value.fields)))
    return value


def _positions(bindings: list[Any], memo: dict[DFPattern, Expr]) -> list[int]:
    """Where in `bindings` the values a match covers are bound."""
    covered = {id(v) for v in memo.values()}
    return [j for j, b in enumerate(bindings) if id(b.value) in covered]


def _spans_impure(bindings: list[Any], last: int, memo: dict[DFPattern, Expr]) -> bool:
    """Whether an impure call lies between the first binding a match covers and `last`."""
    covered = _positions(bindings, memo)
    first = min(covered, default=last)
    return any(not _is_pure(bindings[j].value) for j in range(first + 1, last)
               if j not in covered)


def _inputs_after(memo: dict[DFPattern, Expr], bindings: list[Any], i: int) -> bool:
    """Whether a wildcard matched a variable bound at or after `i` (the replacement, bound at
    `i`, could not read it)."""
    late = {b.var for b in bindings[i:]}
    return any(isinstance(p, WildcardPattern) and isinstance(e, Var) and e in late
               for p, e in memo.items())


# -- subroutines --------------------------------------------------------------------------------


def _add_subroutines(mod: IRModule, sources: list[IRModule]) -> IRModule:
    """Add the sources' functions that `mod` now calls, each under a name free in `mod`
    (`subroutine`, `subroutine_1`, ...), and the ones they call in turn."""
    from ..ir.analysis import all_global_vars

    owner = {gv: src for src in sources for gv in src.functions}
    renames: dict[GlobalVar, GlobalVar] = {}
    todo = [gv for f in mod.functions.values() if isinstance(f, Function)
            for gv in all_global_vars(f) if gv in owner and gv not in mod.functions]
    added: dict[GlobalVar, Any] = {}
    taken = set(mod.names())
    while todo:
        gv = todo.pop(0)
        if gv in renames:
            continue
        name, k = gv.name_hint, 0
        while name in taken:
            k += 1
            name = f"{gv.name_hint}_{k}"
        taken.add(name)
        renames[gv] = GlobalVar(name)
        func = owner[gv].functions[gv]
        added[gv] = func
        if isinstance(func, Function):
            todo.extend(g for g in all_global_vars(func) if g in owner)
    if not renames:
        return mod
    out = mod.map_functions(lambda gv, f: _renamed_globals(f, renames))
    for gv, func in added.items():
        out = out.with_function(renames[gv], _renamed_globals(func, renames))
    return out


def _renamed_globals(func: Any, renames: dict[GlobalVar, GlobalVar]) -> Any:
    if not isinstance(func, Function):
        return func

    class _Rename(ExprMutator):
        def visit_GlobalVarRef(self, ref: GlobalVarRef) -> Expr:
            new = renames.get(ref.gvar)
            return ref if new is None else replace(ref, gvar=new)

    return _Rename().visit(func)
