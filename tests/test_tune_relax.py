"""Whole-model tuning: tuned matmuls equal numpy, records persist as JSON and are reused."""

import concurrent.futures as cf
import json
import os

import numpy as np
import pytest

import tvmlite as tvm
from tvmlite import relax
from tvmlite.meta_schedule import relax_integration as ri
from tvmlite.script import ir as I
from tvmlite.script import relax as R


@I.ir_module
class Mlp:
    @R.function
    def main(x: R.Tensor((16, 64), "float32"), w: R.Tensor((64, 32), "float32"),
             v: R.Tensor((32, 16), "float32")) -> R.Tensor((16, 16), "float32"):
        with R.dataflow():
            h = R.nn.relu(R.matmul(x, w))
            y = R.matmul(h, v)
            R.output(y)
        return y


class CountingExecutor(cf.ThreadPoolExecutor):
    """Counts measurements submitted (the test asserts a reuse does none)."""

    def __init__(self) -> None:
        super().__init__(max_workers=1)
        self.submitted = 0

    def submit(self, *args, **kwargs):  # type: ignore[override]
        self.submitted += 1
        return super().submit(*args, **kwargs)


def run(mod, *arrays):
    vm = relax.VirtualMachine(tvm.compile(mod, "llvm"), tvm.cpu())
    return vm["main"](*(tvm.nd.array(a) for a in arrays)).numpy()


def test_tune_apply_matches_numpy_and_reuses_records(tmp_path):
    rng = np.random.default_rng(1)
    x, w, v = (rng.standard_normal(s, dtype="float32") for s in ((16, 64), (64, 32), (32, 16)))
    assert sorted(ri.extract_tasks(Mlp)) == [(16, 16, 32), (16, 32, 64)]
    ex = CountingExecutor()
    best = ri.tune_relax(Mlp, None, "llvm", str(tmp_path), max_trials_global=6, executor=ex)
    assert ex.submitted == 6 and set(best) == {(16, 16, 32), (16, 32, 64)}
    records = json.load(open(tmp_path / ri.DB_FILE))
    assert len(records) == 6 and all(r["latency_s"] > 0 for r in records)
    again = CountingExecutor()
    tuned = ri.MetaScheduleTuneIRMod(None, str(tmp_path), 6, executor=again)(Mlp)
    assert again.submitted == 0  # every task is in the database: no measuring
    ref = np.maximum(x @ w, 0) @ v
    np.testing.assert_allclose(run(tuned, x, w, v), ref, rtol=1e-4, atol=1e-4)
    applied = relax.transform.MetaScheduleApplyDatabase(str(tmp_path))(Mlp)  # the facade
    np.testing.assert_allclose(run(applied, x, w, v), ref, rtol=1e-4, atol=1e-4)


def test_nondefault_knobs_compute_the_same():
    # rows 2, lanes 8, k block 16 (the default is 8 x 32 x 64): must still equal numpy
    assert ri.measure((16, 32, 64), {"rows": 2, "lanes": 8, "kc": 16}) > 0


@pytest.mark.parametrize("content", [
    "not json", json.dumps({"a": 1}),
    json.dumps([{"workload": [16, 32, 64], "knobs": {"rows": 3, "lanes": 16, "kc": 64},
                 "latency_s": 1e-5}]),
    json.dumps([{"workload": [16, 32, 64], "knobs": {"rows": 8}, "latency_s": 1e-5}]),
])
def test_corrupt_database_is_rejected(tmp_path, content):
    (tmp_path / ri.DB_FILE).write_text(content)
    with pytest.raises(ri.DatabaseError, match=ri.DB_FILE):
        ri.load_database(str(tmp_path))


def test_ridge_cost_model_ranks_by_fit():
    model = ri.RidgeCostModel()
    knobs = [{"rows": r, "lanes": ln, "kc": 64} for r in (1, 2, 4, 8) for ln in (8, 16)]
    model.fit(knobs, [1e-3 / (c["rows"] * c["lanes"]) for c in knobs])
    pred = model.predict(knobs)
    assert int(np.argmin(pred)) == knobs.index({"rows": 8, "lanes": 16, "kc": 64})


def test_dask_executor(tmp_path):
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(n_workers=1, processes=False, threads_per_worker=1,
                                  dashboard_address=None) as cluster, \
            distributed.Client(cluster) as client:
        best = ri.tune_relax(Mlp, None, "llvm", str(tmp_path), max_trials_global=2,
                             executor=client.get_executor())
    assert set(best) == {(16, 16, 32), (16, 32, 64)}
    assert os.path.exists(tmp_path / ri.DB_FILE)


def test_search_measures_the_default_rule_first():
    with cf.ThreadPoolExecutor(1) as ex:
        records = ri.tune_task((16, 32, 64), 3, ex)
    assert records[0]["knobs"] == ri._default_knobs((16, 32, 64))
    assert len({json.dumps(r["knobs"], sort_keys=True) for r in records}) == 3


def test_facade_tune_pass_tunes_the_graph_matmuls(tmp_path):
    # relax.transform.MetaScheduleTuneIRMod on a graph-level module: the build's matmuls are
    # the tasks; the module comes back unchanged (TVM's contract) and the facade's
    # MetaScheduleApplyDatabase then builds the tuned kernels
    rng = np.random.default_rng(2)
    x, w, v = (rng.standard_normal(s, dtype="float32") for s in ((16, 64), (64, 32), (32, 16)))
    out = relax.transform.MetaScheduleTuneIRMod({}, str(tmp_path), max_trials_global=2)(Mlp)
    assert out is Mlp
    records = json.load(open(tmp_path / ri.DB_FILE))
    assert {tuple(r["workload"]) for r in records} == {(16, 16, 32), (16, 32, 64)}
    applied = relax.transform.MetaScheduleApplyDatabase(str(tmp_path))(Mlp)
    np.testing.assert_allclose(run(applied, x, w, v), np.maximum(x @ w, 0) @ v,
                               rtol=1e-4, atol=1e-4)
