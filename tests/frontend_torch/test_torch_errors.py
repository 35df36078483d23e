"""What from_exported_program says about programs it cannot import, and custom converters."""

import pytest

torch = pytest.importorskip("torch")

from tvmlite.frontend.torch import UnsupportedOperatorError, from_exported_program  # noqa: E402
from tvmlite.ir.op import op_attr  # noqa: E402

pytestmark = pytest.mark.filterwarnings("ignore:.*LeafSpec:FutureWarning")


class CumFlip(torch.nn.Module):
    def forward(self, x):
        return torch.lgamma(torch.digamma(x)).relu()


@pytest.fixture(scope="module")
def exported():
    return torch.export.export(CumFlip(), (torch.randn(2, 3),))


def test_unsupported_ops_are_all_named(exported):
    with pytest.raises(UnsupportedOperatorError) as err:
        from_exported_program(exported)
    assert err.value.ops == ["digamma.default", "lgamma.default"]
    msg = str(err.value)
    assert "digamma.default, lgamma.default" in msg and "custom_convert_map" in msg
    assert isinstance(err.value, NotImplementedError)


def test_custom_convert_map(exported):
    add = op_attr("relax.add", "make")

    def double(node, importer):  # TVM's converter signature
        x = importer.retrieve_args(node)[0]
        return importer.block_builder.emit(add(x, x))

    mod = from_exported_program(exported, custom_convert_map={
        "digamma.default": double, "lgamma.default": lambda node, imp: imp.env[node.args[0]]})
    ops = [b.value.op.name for b in mod["main"].body.blocks[0].bindings
           if hasattr(b.value, "op")]
    assert ops == ["relax.add", "relax.nn.relu"]
