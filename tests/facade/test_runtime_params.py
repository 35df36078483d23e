"""`tvm.runtime.save_param_dict` / `load_param_dict` round trips, and the small runtime
queries (`num_threads`, `enabled`)."""

import numpy as np
import pytest

import tvmlite as tvm


def test_param_dict_round_trips_values_and_dtypes(tmp_path):
    rng = np.random.default_rng(0)
    params = {"w": tvm.nd.array(rng.standard_normal((3, 4)).astype("float32")),
              "ids": np.arange(5, dtype="int64"), "flag": np.array(True)}
    loaded = tvm.runtime.load_param_dict(tvm.runtime.save_param_dict(params))
    assert sorted(loaded) == ["flag", "ids", "w"]
    np.testing.assert_array_equal(loaded["w"].numpy(), params["w"].numpy())
    np.testing.assert_array_equal(loaded["ids"].numpy(), params["ids"])
    assert loaded["ids"].dtype == "int64" and loaded["flag"].numpy() == np.array(True)
    path = str(tmp_path / "params.bin")
    tvm.runtime.save_param_dict_to_file(params, path)
    np.testing.assert_array_equal(tvm.runtime.load_param_dict_from_file(path)["w"].numpy(),
                                  params["w"].numpy())


def test_param_dict_errors_name_the_problem():
    with pytest.raises(TypeError, match="parameter 'x': expected a tensor"):
        tvm.runtime.save_param_dict({"x": [1, 2]})
    with pytest.raises(ValueError, match="not a parameter dict saved by tvmlite"):
        tvm.runtime.load_param_dict(b"not an archive")


def test_runtime_queries():
    assert tvm.runtime.num_threads() >= 1
    assert tvm.runtime.enabled("llvm") and not tvm.runtime.enabled("vulkan")
    assert tvm.runtime.enabled("cuda") == tvm.cuda().exist
