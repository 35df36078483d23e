"""The tensor cache format (tvm.contrib.tvmjs, vm.builtin.tensor_cache.*) and the KV cache's
sliding window, each against numpy."""

import json
import os

import numpy as np
import pytest

import tvmlite as tvm
from tvmlite.contrib import tvmjs


def test_round_trip_raw_and_bf16_with_shards_and_updates(tmp_path):
    rng = np.random.default_rng(0)
    params = {"w_0": rng.standard_normal((600, 1000)).astype("float32"),  # > 1 MB: own shard
              "w_1": np.arange(6, dtype="int32").reshape(2, 3),
              "w_2": rng.standard_normal(5).astype("float32")}
    tvmjs.dump_tensor_cache(params, str(tmp_path), shard_cap_mb=1, show_progress=False)
    index = json.loads((tmp_path / "tensor-cache.json").read_text())
    assert len(index["records"]) == 2
    loaded, _ = tvmjs.load_tensor_cache(str(tmp_path), tvm.cpu())
    bf16 = tvmjs._convert_bf16_to_f32(tvmjs._convert_f32_to_bf16(params["w_0"]))
    np.testing.assert_array_equal(loaded["w_0"].numpy(), bf16)
    assert np.abs(bf16 - params["w_0"]).max() <= np.abs(params["w_0"]).max() * 2 ** -8
    np.testing.assert_array_equal(loaded["w_1"].numpy(), params["w_1"])

    params["w_1"] = params["w_1"] * 10
    tvmjs.dump_tensor_cache({"w_1": params["w_1"]}, str(tmp_path), update_if_exists=True,
                            show_progress=False)
    tvm.get_global_func("vm.builtin.tensor_cache.load")(str(tmp_path), 1, 0)
    got = tvm.get_global_func("vm.builtin.param_array_from_cache")("w", -1)
    assert len(got) == 3
    np.testing.assert_array_equal(got[1].numpy(), params["w_1"])
    tvm.get_global_func("vm.builtin.tensor_cache.clear")()


def test_an_index_that_points_outside_its_shard_is_refused(tmp_path):
    tvmjs.dump_tensor_cache({"a": np.ones(4, "int32")}, str(tmp_path), show_progress=False)
    path = tmp_path / "tensor-cache.json"
    index = json.loads(path.read_text())
    index["records"][0]["records"][0]["byteOffset"] = 8
    path.write_text(json.dumps(index))
    with pytest.raises(ValueError, match="outside its shard"):
        tvmjs.load_tensor_cache(str(tmp_path))
    index["records"][0]["dataPath"] = os.path.join("..", "elsewhere.bin")
    path.write_text(json.dumps(index))
    with pytest.raises(FileNotFoundError):  # only files inside the cache folder are read
        tvmjs.load_tensor_cache(str(tmp_path))


@pytest.mark.parametrize("sinks", [0, 3])
def test_sliding_window_keeps_the_sinks_and_the_latest_rows(sinks):
    create = tvm.get_global_func("vm.builtin.attention_kv_cache_create")
    override = tvm.get_global_func("vm.builtin.attention_kv_cache_window_override_with_sinks")
    view = tvm.get_global_func("vm.builtin.attention_kv_cache_view")
    size = 8
    cache = create(tvm.nd.array(np.zeros((size, 2), "int32")), tvm.runtime.ShapeTuple([size, 2]),
                   0)
    written = []
    for step in range(1, 6):
        rows = np.arange(len(written), len(written) + step, dtype="int32")[:, None].repeat(2, 1)
        written.extend(rows[:, 0])
        cache = override(cache, tvm.nd.array(rows), size, sinks)
    got = view(cache, tvm.runtime.ShapeTuple([size, 2])).numpy()[:, 0]
    assert list(got[:sinks]) == written[:sinks]  # the first rows stay
    assert sorted(got[sinks:]) == written[-(size - sinks):]  # the ring holds the latest
