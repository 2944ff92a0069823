"""Kernel plans with Python-callable stages: KernelPlan (one stage or several run in order), KernelPipeline
(stages one after another, each may read what the previous wrote) and ConcurrentKernels (independent stages, one
CUDA stream each). A stage declares its work (FLOPs, compulsory DRAM bytes, precision) for the roofline and may
have a tile space, tuned with kprof.bench and remembered in the autotune cache the C++ side uses
(``.cache/kernel-autotune/<kernel>/<version>/<stage>/<device>/<params>.json``, plan/autotune_cache.hpp).

Each stage runs inside an NVTX range named after it, so kprof groups its kernels under that name and applies the
declared work to them. ``*_profile_plan`` profile ``bench_runs`` runs of the plan in one mode (kprof.profile).
A plan of a bundled kprof-kernels package (``describe_plan``) is profiled by the C++ API instead
(``kprof <package> --prof-type=<mode>``: check, tune, profile)."""
from __future__ import annotations

import datetime as _dt
import hashlib
import inspect
import os
from dataclasses import dataclass, field
from typing import Any, Callable, Sequence

from . import _capi
from .errors import NoGpuError, UsageError
from .profiling import Profiler, modes
from .result import Result

DEFAULT_CACHE = ".cache/kernel-autotune"


@dataclass
class Stage:
    """One stage: ``fn(**config)`` launches its kernels. ``tile_space`` lists configs (dicts of ints); the first
    is the default. ``min_bytes`` is the compulsory DRAM traffic per execution."""
    name: str
    fn: Callable[..., Any]
    flops: float | None = None
    min_bytes: float | None = None
    precision: str = ""
    tile_space: list[dict[str, int]] = field(default_factory=list)
    stream: int = 0

    def declared(self) -> dict[str, Any]:
        return {"flops": self.flops, "min_bytes": self.min_bytes, "precision": self.precision}

    def source_hash(self) -> str:
        try:
            text = inspect.getsource(self.fn)
        except (OSError, TypeError):
            text = getattr(self.fn, "__qualname__", repr(self.fn))
        return hashlib.sha256(text.encode()).hexdigest()[:16]


def _stage(s: Stage | tuple | dict) -> Stage:
    if isinstance(s, Stage):
        return s
    if isinstance(s, dict):
        return Stage(**s)
    return Stage(*s)


class KernelPlan:
    """A named plan: ``KernelPlan("gemm", [Stage("stage_gemm", fn, flops=2*m*n*k, min_bytes=...)],
    params={"m": m, ...}, version="v2")``. ``kind`` is "single", "pipeline" or "concurrent"."""

    kind = "single"

    def __init__(self, name: str, stages: Sequence[Stage | tuple | dict], *, params: dict[str, int] | None = None,
                 version: str = "-", dtype: str = "",
                 versions: dict[str, Callable[..., "KernelPlan"]] | None = None):
        if not name:
            raise UsageError("KernelPlan: a name is required", 2, "usage")
        self.name = name
        self.stages = [_stage(s) for s in stages]
        if not self.stages:
            raise UsageError("KernelPlan: at least one stage is required", 2, "usage")
        names = [s.name for s in self.stages]
        if len(set(names)) != len(names):
            raise UsageError(f"KernelPlan: stage names must differ (got {names})", 2, "usage")
        if self.kind == "single" and len(self.stages) > 1:
            self.kind = "pipeline"
        self.params = dict(params or {})
        self.version = version
        self.dtype = dtype
        self.configs: dict[str, dict[str, int]] = {s.name: dict(s.tile_space[0]) if s.tile_space else {}
                                                   for s in self.stages}
        # Other versions of this package: version -> factory(**params) returning that version's plan (see
        # register_version); *_profile_plan(plan, version=...) profiles the plan the factory builds.
        self.versions: dict[str, Callable[..., KernelPlan]] = dict(versions or {})

    def __repr__(self) -> str:
        stages = ", ".join(s.name + (f"[{len(s.tile_space)} configs]" if s.tile_space else "") for s in self.stages)
        params = ", ".join(f"{k}={v}" for k, v in self.params.items())
        return (f"<kprof.{type(self).__name__} {self.name} {self.version} ({self.kind}) stages: {stages}"
                f"{'; ' + params if params else ''}{'; ' + self.dtype if self.dtype else ''}>")

    # --- running ----------------------------------------------------------------------------------------------
    def run_stage(self, stage: Stage) -> Any:
        _capi.nvtx_push(stage.name)
        try:
            return stage.fn(**self.configs.get(stage.name, {}))
        finally:
            _capi.nvtx_pop()

    def run(self) -> None:
        """Runs every stage once, in order, each in its NVTX range, with its chosen config."""
        for s in self.stages:
            self.run_stage(s)

    def declared_stages(self) -> dict[str, dict[str, Any]]:
        return {s.name: s.declared() for s in self.stages}

    def describe(self) -> dict[str, Any]:
        """The plan as the C++ side describes one (plan/plan_types.hpp)."""
        return {"package": self.name, "version": self.version, "kind": self.kind, "params": self.params,
                "dtype": self.dtype,
                "stages": [{"name": s.name, "flops": s.flops or 0, "min_bytes": s.min_bytes or 0,
                            "precision": s.precision, "stream": s.stream, "tile_space": s.tile_space}
                           for s in self.stages]}

    # --- autotuning -------------------------------------------------------------------------------------------
    def cache_key(self, stage: Stage, device: str) -> dict[str, Any]:
        return {"kernel": self.name, "version": self.version, "stage": stage.name, "device": device,
                "params": {"values": self.params, "dtype": self.dtype}, "source_hash": stage.source_hash()}

    def cached(self, stage: Stage, device: str, cache_dir: str | os.PathLike = DEFAULT_CACHE) -> dict[str, Any]:
        """The stage's autotune cache file as the C++ AutotuneCache reads it: path, entries, best, warnings."""
        return _capi.call("autotune_load", {"root": str(cache_dir or DEFAULT_CACHE), "key": self.cache_key(stage, device)})

    def record(self, stage: Stage, device: str, config: dict[str, int], samples_ms: Sequence[float] | None,
               status: str = "ok", message: str = "", cache_dir: str | os.PathLike = DEFAULT_CACHE) -> dict[str, Any]:
        """Adds one tried config to the cache (the C++ AutotuneCache computes best and saves atomically)."""
        entry: dict[str, Any] = {"config": config, "status": status, "message": message,
                                 "measured_at": _dt.datetime.now(_dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")}
        if samples_ms:
            s = sorted(samples_ms)
            entry.update(samples_ms=list(samples_ms), min_ms=s[0],
                         median_ms=s[len(s) // 2] if len(s) % 2 else (s[len(s) // 2 - 1] + s[len(s) // 2]) / 2)
        return _capi.call("autotune_record", {"root": str(cache_dir or DEFAULT_CACHE), "key": self.cache_key(stage, device),
                                              "entry": entry})

    def autotune(self, *, cache_dir: str | os.PathLike = DEFAULT_CACHE, retune: bool = False, rep: float = 20,
                 warmup: float = 5) -> dict[str, dict[str, int]]:
        """Times every config of every stage with a tile space (kprof.bench, L2 flushed), skipping configs the
        cache already has (all of them again with ``retune``), and keeps the fastest. Needs a GPU."""
        from .benchmark import bench
        device = device_key()
        for s in self.stages:
            if not s.tile_space:
                continue
            have = {tuple(sorted(e["config"].items())) for e in self.cached(s, device, cache_dir)["file"]["entries"]}
            for config in s.tile_space:
                if not retune and tuple(sorted(config.items())) in have:
                    continue
                try:
                    samples = bench(lambda: s.fn(**config), warmup=warmup, rep=rep, return_mode="all")
                    self.record(s, device, config, samples, cache_dir=cache_dir)
                except NoGpuError:
                    raise
                except Exception as e:  # a config that fails to launch is recorded as such, like the C++ tuner
                    self.record(s, device, config, None, status="launch-failed", message=str(e), cache_dir=cache_dir)
            best = self.cached(s, device, cache_dir)["best"]
            if best:
                self.configs[s.name] = dict(best)
        return dict(self.configs)


class KernelPipeline(KernelPlan):
    """Stages run one after another; each may read what the previous wrote."""
    kind = "pipeline"


class ConcurrentKernels(KernelPlan):
    """Independent stages, each on its own CUDA stream (``Stage.stream``), meant to overlap. Needs PyTorch."""
    kind = "concurrent"

    def run(self) -> None:
        import torch
        streams: dict[int, Any] = {}
        for s in self.stages:
            streams.setdefault(s.stream, torch.cuda.Stream())
        current = torch.cuda.current_stream()
        for st in streams.values():
            st.wait_stream(current)
        for s in self.stages:
            with torch.cuda.stream(streams[s.stream]):
                self.run_stage(s)
        for st in streams.values():
            current.wait_stream(st)


def device_key() -> str:
    """The cache's device key, "NVIDIA_H200_sm90" (plan::device_key); NoGpuError without a GPU."""
    try:
        import torch
    except ImportError as e:
        raise NoGpuError("autotuning needs PyTorch with CUDA (the device and kprof.bench)", 4, "no-gpu") from e
    if not torch.cuda.is_available():
        raise NoGpuError("autotuning: no GPU (torch.cuda.is_available() is False)", 4, "no-gpu")
    name = torch.cuda.get_device_name().replace(" ", "_")
    major, minor = torch.cuda.get_device_capability()
    return f"{name}_sm{major}{minor}"


# --- versions of a package ---------------------------------------------------------------------------------------

_VERSIONS: dict[str, dict[str, Callable[..., KernelPlan]]] = {}


def register_version(package: str, version: str, factory: Callable[..., KernelPlan]) -> None:
    """Makes ``factory(**params)`` the plan of ``version`` of ``package``: ``*_profile_plan(plan, version=v)`` then
    profiles that version's plan with ``plan``'s parameters, not ``plan`` itself (the seed's contract). A plan's own
    ``versions={...}`` does the same for that plan."""
    if not package or not version or not callable(factory):
        raise UsageError("register_version(package, version, factory): a name, a version and a callable", 2, "usage")
    _VERSIONS.setdefault(package, {})[version] = factory


def plan_of_version(plan: KernelPlan, version: str) -> KernelPlan:
    """The plan of ``version`` of ``plan``'s package, built with ``plan``'s parameters (``plan`` itself when it is
    that version). UsageError naming the known versions when none is registered."""
    if not version or version == plan.version:
        return plan
    factory = plan.versions.get(version) or _VERSIONS.get(plan.name, {}).get(version)
    if factory is None:
        known = sorted(set(plan.versions) | set(_VERSIONS.get(plan.name, {})))
        raise UsageError(f"no plan of {plan.name} {version} is known (known versions: {', '.join(known) or 'none'}): "
                         f"pass that version's plan, or register it with kprof.register_version({plan.name!r}, "
                         f"{version!r}, factory) or KernelPlan(..., versions={{...}})", 2, "usage")
    other = factory(**plan.params)
    if not isinstance(other, KernelPlan):
        raise UsageError(f"the factory of {plan.name} {version} returned {type(other).__name__}, not a KernelPlan",
                         2, "usage")
    if other.version in ("", "-"):
        other.version = version
    return other


def _write_tiling(plan: KernelPlan, artifact: str, cache_dir: str | os.PathLike) -> None:
    """tiling/<stage>.json in the artifact, as C++ package artifacts have: the config each stage ran with and, where
    the stage has a tile space and a GPU names the cache's device, every try the autotune cache holds."""
    import json
    stages = [s for s in plan.stages if s.tile_space or plan.configs.get(s.name)]
    if not stages or not artifact or not os.path.isdir(artifact):
        return
    try:
        device = device_key()
    except NoGpuError:
        device = ""
    folder = os.path.join(artifact, "tiling")
    os.makedirs(folder, exist_ok=True)
    for s in stages:
        doc: dict[str, Any] = {"stage": s.name, "config": plan.configs.get(s.name, {}), "tile_space": s.tile_space}
        if device and s.tile_space:
            cached = plan.cached(s, device, cache_dir)
            doc.update(cache=cached.get("path"), best=cached.get("best"), tries=cached.get("file", {}).get("entries", []))
        tmp = os.path.join(folder, f".{s.name}.json.tmp.{os.getpid()}")
        with open(tmp, "x", encoding="utf-8") as f:  # exclusive: never through a link planted at this name
            json.dump(doc, f, indent=2)
        os.replace(tmp, os.path.join(folder, f"{s.name}.json"))


# --- profiling a plan ---------------------------------------------------------------------------------------------

class PackagePlan:
    """A bundled kprof-kernels package's plan (``describe_plan``): profiled by the C++ API."""

    def __init__(self, plan: dict[str, Any]):
        self.plan = plan

    def __repr__(self) -> str:
        return f"<kprof.PackagePlan {self.plan.get('package')} {self.plan.get('version')} {self.plan.get('params')}>"


def describe_plan(package: str, version: str = "", params: dict[str, int] | None = None,
                  kernels: str = "") -> PackagePlan:
    """The plan of ``version`` ("" = latest) of a kprof-kernels package (``kprof-kernels describe``)."""
    return PackagePlan(_capi.call("describe_plan", {"package": package, "version": version, "params": params or {},
                                                    "kernels": kernels})["plan"])


def _profile_plan(mode: str, plan: KernelPlan | PackagePlan, out_dir: str | os.PathLike, version: str,
                  bench_runs: int, **options: Any) -> Result:
    if not isinstance(bench_runs, int) or bench_runs < 1:
        raise UsageError(f"bench_runs must be a positive integer (got {bench_runs!r})", 2, "usage")
    if isinstance(plan, PackagePlan):
        reply = _capi.call("profile_plan", {"mode": mode, "plan": plan.plan, "out_dir": str(out_dir),
                                            "version": version or "", "bench_runs": bench_runs,
                                            "settings": options})
        if reply.get("exit_code"):
            from .errors import error_for_exit_code
            raise error_for_exit_code(f"the profiled plan run failed (exit {reply['exit_code']}); partial results in "
                                      f"{reply.get('dir')}", int(reply["exit_code"]))
        from .analysis import analyze
        return analyze(reply["dir"])
    if not isinstance(plan, KernelPlan):
        raise UsageError("expected a KernelPlan, KernelPipeline, ConcurrentKernels or describe_plan()'s result",
                         2, "usage")
    if options.get("executor", "local") != "local" or options.get("autotune"):
        raise UsageError("executor= and autotune= are for kprof-kernels packages (describe_plan()): a Python plan's "
                         "stages run in this process (KernelPlan.autotune tunes them here)", 2, "usage")
    plan = plan_of_version(plan, version)
    label = plan.version
    cache_dir = options.pop("cache_dir", None) or DEFAULT_CACHE
    exact = options.pop("exact_dir", None)
    if not exact and not modes()[mode]["in_process"]:  # a re-run (ncu) writes to a directory named up front
        stamp = _dt.datetime.now(_dt.timezone.utc).strftime("%Y%m%d-%H%M%S")
        exact = os.path.join(str(out_dir), mode, plan.name, stamp)
    p = Profiler(mode, exact, out_root=out_dir, kernel=plan.name, version=label, params=plan.params,
                 declared_stages=plan.declared_stages(), **options)
    with p:
        for _ in range(bench_runs):
            plan.run()
    result = p.result
    if result is not None:
        _write_tiling(plan, getattr(result, "dir", "") or "", cache_dir)
    return result


def autotune_plan(plan: PackagePlan, version: str = "", executor: str = "local", **options: Any) -> dict[str, Any]:
    """``kprof <package> --autotune --executor=...``: check and autotune a kprof-kernels package (describe_plan()'s
    result), every tile config tried on the executor's GPUs ("local", "gpus": a worker per visible GPU, "slurm": an
    sbatch --array job; docs/scale.md) into the shared autotune cache; nothing is profiled. Options as for the
    ``*_profile_plan`` functions (cache_dir, retune, chunk, sbatch_args, no_wait, kernels). Returns the C API's reply
    (exit_code, package, version, params)."""
    if not isinstance(plan, PackagePlan):
        raise UsageError("autotune_plan takes describe_plan()'s result; a Python KernelPlan has .autotune()", 2, "usage")
    reply = _capi.call("profile_plan", {"mode": "event", "plan": plan.plan, "version": version or "",
                                        "settings": dict(options, executor=executor, autotune=True)})
    if reply.get("exit_code"):
        from .errors import error_for_exit_code
        raise error_for_exit_code(f"autotuning failed (exit {reply['exit_code']})", int(reply["exit_code"]))
    return reply


def annotation_profile_plan(plan, out_dir="out/profiles", version="", bench_runs=20, **options) -> Result:
    """Counters per stage kernel (in-process: the CUPTI range profiler) with the plan's declared work."""
    return _profile_plan("annotation", plan, out_dir, version, bench_runs, **options)


def event_profile_plan(plan, out_dir="out/profiles", version="", bench_runs=20, **options) -> Result:
    """Kernel and stage timings from the CUPTI tracer over ``bench_runs`` runs."""
    return _profile_plan("event", plan, out_dir, version, bench_runs, **options)


def ncu_profile_plan(plan, out_dir="out/profiles", version="", bench_runs=20, **options) -> Result:
    """Nsight Compute's full set: re-runs the script under ncu (see kprof.profile), or kprof-kernels for a package."""
    return _profile_plan("ncu", plan, out_dir, version, bench_runs, **options)


def nsys_profile_plan(plan, out_dir="out/profiles", version="", bench_runs=20, **options) -> Result:
    """The timeline: kernels, copies, synchronisation, overlap of the stages."""
    return _profile_plan("nsys", plan, out_dir, version, bench_runs, **options)
