"""tvm.testing's helpers behave as TVM's tests expect: a module-level `parameter` parametrizes
every test taking it, `fixture` caches when asked, device_enabled knows the CPU."""

import tvmlite as tvm

size = tvm.testing.parameter(1, 3, 5)
named = tvm.testing.parameter(by_dict={"small": 2, "large": 20})
_seen: list = []


@tvm.testing.fixture(cache_return_value=True)
def expensive():
    _seen.append("built")
    return object()


def test_parameter_runs_once_per_value(size):
    _seen.append(size)
    assert size in (1, 3, 5)


def test_parameter_values_were_all_used():
    assert {1, 3, 5} <= set(_seen)


def test_by_dict(named):
    assert named in (2, 20)


def test_cached_fixture_is_built_once(expensive):
    assert expensive is not None


def test_cached_fixture_again(expensive):
    assert _seen.count("built") == 1


def test_device_enabled_and_assert_allclose():
    assert tvm.testing.device_enabled("llvm")
    assert not tvm.testing.device_enabled("vulkan")
    tvm.testing.assert_allclose(tvm.nd.array([1.0, 2.0]), [1.0, 2.0 + 1e-9])
