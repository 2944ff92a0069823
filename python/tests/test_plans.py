"""Kernel plans: stage order and configs, declared work, and the autotune cache shared with C++."""
import json

import pytest

import kprof
from kprof.plans import Stage


def test_stages_run_in_order_with_their_configs():
    calls = []
    plan = kprof.KernelPipeline("pipe", [
        Stage("a", lambda bm=0: calls.append(("a", bm)), flops=1e9, min_bytes=1e6, precision="fp32",
              tile_space=[{"bm": 64}, {"bm": 128}]),
        Stage("b", lambda: calls.append(("b", None))),
    ], params={"n": 4})
    plan.run()
    plan.run()
    assert calls == [("a", 64), ("b", None)] * 2
    assert plan.kind == "pipeline"
    assert plan.declared_stages() == {"a": {"flops": 1e9, "min_bytes": 1e6, "precision": "fp32"},
                                      "b": {"flops": None, "min_bytes": None, "precision": ""}}


def test_plan_validation():
    with pytest.raises(kprof.UsageError, match="differ"):
        kprof.KernelPlan("x", [Stage("a", print), Stage("a", print)])
    with pytest.raises(kprof.UsageError, match="at least one"):
        kprof.KernelPlan("x", [])
    assert kprof.KernelPlan("x", [Stage("a", print)]).kind == "single"
    assert kprof.KernelPlan("x", [Stage("a", print), Stage("b", print)]).kind == "pipeline"
    assert kprof.ConcurrentKernels("x", [Stage("a", print), Stage("b", print, stream=1)]).kind == "concurrent"


def test_autotune_cache_is_the_cpp_one(tmp_path):
    plan = kprof.KernelPlan("gemm_py", [Stage("stage_gemm", lambda bm=64: None, tile_space=[{"bm": 64}, {"bm": 128}])],
                            params={"m": 256}, version="v1", dtype="bf16")
    s = plan.stages[0]
    dev = "NVIDIA_H200_sm90"
    plan.record(s, dev, {"bm": 64}, [2.0, 2.2, 2.1], cache_dir=tmp_path)
    reply = plan.record(s, dev, {"bm": 128}, [1.5, 1.7, 1.6], cache_dir=tmp_path)
    # plan::AutotuneCache::path_for: <root>/<kernel>/<version>/<stage>/<device>/<params>.json
    assert reply["path"] == str(tmp_path / "gemm_py" / "v1" / "stage_gemm" / dev / "m256_bf16.json")
    assert reply["best"] == {"bm": 128}  # lowest median, chosen by the C++ cache
    on_disk = json.loads((tmp_path / "gemm_py" / "v1" / "stage_gemm" / dev / "m256_bf16.json").read_text())
    assert on_disk["schema"] == "kprof.autotune/1"
    assert [e["median_ms"] for e in on_disk["entries"]] == [2.1, 1.6]
    again = plan.cached(s, dev, cache_dir=tmp_path)
    assert again["best"] == {"bm": 128} and not again["warnings"]
    # Another source for the stage is another key: the C++ cache refuses the file and says why.
    plan.stages[0] = Stage("stage_gemm", lambda bm=64: bm, tile_space=s.tile_space)
    other = plan.cached(plan.stages[0], dev, cache_dir=tmp_path)
    assert other["file"]["entries"] == [] and other["warnings"]


def test_failed_config_is_recorded_and_never_best(tmp_path):
    plan = kprof.KernelPlan("k", [Stage("s", lambda: None)], version="v1")
    s = plan.stages[0]
    plan.record(s, "dev", {"bm": 1}, None, status="launch-failed", message="too many registers", cache_dir=tmp_path)
    r = plan.record(s, "dev", {"bm": 2}, [3.0], cache_dir=tmp_path)
    assert r["best"] == {"bm": 2}
    assert r["file"]["entries"][0]["status"] == "launch-failed"


def test_autotune_without_a_gpu_raises_no_gpu_error(tmp_path):
    try:
        import torch
        if torch.cuda.is_available():
            pytest.skip("a GPU is present")
    except ImportError:
        pass
    plan = kprof.KernelPlan("k", [Stage("s", lambda bm=1: None, tile_space=[{"bm": 1}])])
    with pytest.raises(kprof.NoGpuError):
        plan.autotune(cache_dir=tmp_path)


def test_profile_plan_checks_bench_runs():
    plan = kprof.KernelPlan("k", [Stage("s", lambda: None)])
    with pytest.raises(kprof.UsageError, match="bench_runs"):
        kprof.event_profile_plan(plan, "out", bench_runs=0)


def test_profile_plan_without_a_gpu(tmp_path):
    from conftest import has_gpu
    if has_gpu():
        pytest.skip("a GPU is present")
    plan = kprof.KernelPlan("k", [Stage("s", lambda: None)], version="v2")
    for fn in (kprof.annotation_profile_plan, kprof.event_profile_plan, kprof.nsys_profile_plan):
        with pytest.raises(kprof.NoGpuError):
            fn(plan, out_dir=tmp_path, version="v2", bench_runs=3)


def test_cache_dir_none_is_the_default_cache_not_a_folder_named_none(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    plan = kprof.KernelPlan("k", [Stage("s", lambda: None)], version="v1")
    reply = plan.cached(plan.stages[0], "dev", cache_dir=None)
    assert reply["path"].startswith(kprof.plans.DEFAULT_CACHE), reply["path"]
    assert not (tmp_path / "None").exists()


def test_version_loads_that_versions_plan_not_a_relabel():
    # Issue 25 / the seed: version= retrieves that version's plan, built with the given plan's parameters.
    built = []

    def v2(n):
        built.append(n)
        return kprof.KernelPlan("pkg", [Stage("s2", print)], params={"n": n}, version="v2")

    v1 = kprof.KernelPlan("pkg", [Stage("s1", print)], params={"n": 8}, version="v1", versions={"v2": v2})
    other = kprof.plan_of_version(v1, "v2")
    assert other.version == "v2" and other.stages[0].name == "s2" and built == [8]
    assert kprof.plan_of_version(v1, "v1") is v1 and kprof.plan_of_version(v1, "") is v1
    with pytest.raises(kprof.UsageError, match="known versions: v2"):
        kprof.plan_of_version(v1, "v9")
    kprof.register_version("pkg", "v3", lambda n: kprof.KernelPlan("pkg", [Stage("s3", print)], params={"n": n}))
    assert kprof.plan_of_version(v1, "v3").version == "v3"  # a factory's plan without a version takes the asked one


def test_kernel_plan_repr_says_what_it_is():
    plan = kprof.KernelPipeline("gemm", [Stage("a", print, tile_space=[{"bm": 64}, {"bm": 128}]), Stage("b", print)],
                                params={"m": 4096}, version="v2", dtype="bf16")
    assert repr(plan) == "<kprof.KernelPipeline gemm v2 (pipeline) stages: a[2 configs], b; m=4096; bf16>"


def test_describe_plan_finds_the_bundled_kernels_binary():
    # kprof-kernels ships in the package (_bin/) where it was built: describe_plan from Python said "not found".
    import pathlib
    bundled = pathlib.Path(kprof.__file__).parent / "_bin" / "kprof-kernels"
    if not bundled.is_file():
        pytest.skip("this build has no kprof-kernels (built only with the CUDA toolkit)")
    plan = kprof.describe_plan("mla", "v2", {"b": 2, "s": 2, "t": 256})
    assert plan.plan["package"] == "mla" and plan.plan["version"] == "v2" and plan.plan["params"]["t"] == 256


def test_a_plan_artifact_gets_tiling(tmp_path):
    # Issue 25: Python plan artifacts get tiling/ like C++ package ones: the config each stage ran with (and, with a
    # GPU naming the cache's device, the autotune tries).
    from kprof.plans import _write_tiling
    plan = kprof.KernelPlan("k", [Stage("a", print, tile_space=[{"bm": 64}, {"bm": 128}]), Stage("b", print)])
    plan.configs["a"] = {"bm": 128}
    art = tmp_path / "artifact"
    art.mkdir()
    _write_tiling(plan, str(art), tmp_path / "cache")
    doc = json.loads((art / "tiling" / "a.json").read_text())
    assert doc["stage"] == "a" and doc["config"] == {"bm": 128} and doc["tile_space"] == [{"bm": 64}, {"bm": 128}]
    assert not (art / "tiling" / "b.json").exists()  # no tile space, no config: nothing to say
    assert not [p for p in (art / "tiling").iterdir() if p.name.startswith(".")]  # no temporary file left


def test_executor_is_for_packages_not_python_plans():
    # issue 28: a Python plan's stages are callables of this process; no executor can run them elsewhere.
    plan = kprof.KernelPlan("k", [Stage("s", lambda: None)])
    with pytest.raises(kprof.UsageError, match="executor= and autotune= are for kprof-kernels packages"):
        kprof.event_profile_plan(plan, executor="gpus")
    with pytest.raises(kprof.UsageError, match="autotune_plan takes describe_plan"):
        kprof.autotune_plan(plan, executor="gpus")


_LIST = {"schema": "kprof.packages/1", "packages": [{
    "name": "gemm", "description": "C = A B", "dtype": "bf16",
    "params": [{"name": "m", "default_value": 4096, "description": ""}, {"name": "n", "default_value": 4096, "description": ""},
               {"name": "k", "default_value": 4096, "description": ""}],
    "versions": [{"name": "v2", "description": "tiled"}]}]}
_PLAN = {"package": "gemm", "version": "v2", "kind": "single", "dtype": "bf16", "params": {"k": 256, "m": 256, "n": 256},
         "stages": [{"name": "gemm", "flops": 33554432.0, "min_bytes": 524288.0, "precision": "bf16", "stream": 0,
                     "tile_space": [{"bm": 32}, {"bm": 64}, {"bm": 128}]}]}


def _fake_kernels(tmp_path):
    """A stand-in kprof-kernels answering list and describe (a dry run needs nothing else)."""
    (tmp_path / "list.json").write_text(json.dumps(_LIST))
    (tmp_path / "plan.json").write_text(json.dumps(_PLAN))
    fake = tmp_path / "kprof-kernels"
    fake.write_text(f"""#!/bin/sh
case "$1" in list) cat {tmp_path}/list.json ;; describe) cat {tmp_path}/plan.json ;; *) exit 9 ;; esac
""")
    fake.chmod(0o755)
    return str(fake)


def test_autotune_plan_takes_the_executor_through_to_kprof(tmp_path):
    # issue 28: kprof.autotune_plan(..., executor=) is `kprof <package> --autotune --executor=...` (a dry run here).
    fake = _fake_kernels(tmp_path)
    plan = kprof.PackagePlan(_PLAN)
    reply = kprof.autotune_plan(plan, executor="gpus", dry_run=True, kernels=fake, cache_dir=str(tmp_path / "cache"))
    assert reply["exit_code"] == 0 and reply["package"] == "gemm" and reply["version"] == "v2"
    with pytest.raises(kprof.UsageError, match="'cloud' is not an executor"):
        kprof.autotune_plan(plan, executor="cloud", dry_run=True, kernels=fake)
    with pytest.raises(kprof.UsageError, match="chunk must be at least 1"):
        kprof.autotune_plan(plan, executor="slurm", chunk=0, dry_run=True, kernels=fake)
