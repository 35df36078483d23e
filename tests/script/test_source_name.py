"""`tvm.ir.base.SourceName`: the file name a span refers to, as TVM's IR builder tests build it."""

from tvmlite.ir.base import SourceName


def test_source_name_holds_the_file_name():
    name = SourceName("builder_test.py")
    assert name.name == "builder_test.py" and str(name) == "builder_test.py"
    assert name == SourceName("builder_test.py") and name != SourceName("other.py")
