"""FuseOpsByPattern inside the branches of a relax `If`: a dataflow block in a branch is
partitioned as a top-level one is. TVMScript: a branch may end with a dataflow block whose one
output is the branch's result."""

from tvmlite import ir, relax
from tvmlite.ir import expr as rx
from tvmlite.relax.dpl import is_op, wildcard
from tvmlite.script import relax as R


@R.function
def branchy(x: R.Tensor((4, 4), "float32"), w: R.Tensor((4, 4), "float32"),
            flip: R.Prim("bool")):
    if flip:
        with R.dataflow():
            wt = R.permute_dims(w)
            out = R.matmul(x, wt)
            R.output(out)
    else:
        with R.dataflow():
            out = R.add(x, w)
            R.output(out)
    return out


def test_a_branch_ending_in_a_dataflow_block_yields_its_output():
    body = branchy.body
    cond = body.blocks[0].bindings[-1].value
    assert isinstance(cond, rx.If)
    then = cond.true_branch
    assert isinstance(then.blocks[0], rx.DataflowBlock)
    assert then.body is then.blocks[0].bindings[-1].var  # `out` of the then-block


def test_patterns_match_inside_branches():
    mod = ir.IRModule.from_dict({"branchy": branchy})
    pattern = is_op("relax.matmul")(wildcard(), is_op("relax.permute_dims")(wildcard()))
    after = relax.transform.FuseOpsByPattern([("demo.matmul_t", pattern)])(mod)
    composites = [gv.name_hint for gv, f in after.functions.items()
                  if isinstance(f, rx.Function) and f.attr_dict.get("Composite")]
    assert composites == ["fused_relax_permute_dims_relax_matmul"]
    cond = after["branchy"].body.blocks[0].bindings[-1].value
    then_call = cond.true_branch.blocks[0].bindings[-1].value
    assert then_call.op.name_hint == "fused_relax_permute_dims_relax_matmul"
    else_call = cond.false_branch.blocks[0].bindings[-1].value
    assert else_call.op.name == "relax.add"  # no pattern there: untouched
    relax.analysis.well_formed(after)
