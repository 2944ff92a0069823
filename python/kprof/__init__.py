"""kprof for Python: the kprof C++ core (analysis, in-process CUPTI profiling, the autotune cache) through its C API
(libkprof_c.so, ctypes). See docs/python.md.

    import kprof
    r = kprof.analyze("examples/h200/profiles/annotation_probe")   # an artifact or ncu CSV export
    print(r.contract())                                           # the output contract (Markdown)
    r = kprof.profile(step, x, mode="event", out_dir="out/step")  # in-process, needs a GPU
    ms = kprof.bench(lambda: step(x))                             # triton.testing.do_bench's contract
"""
from .analysis import analyze, compare
from .benchmark import bench
from .errors import (BadInputError, BusyError, CannotWriteError, InterruptedRunError, KprofError, NoGpuError,
                     NoPermissionError, NoToolError, ProgramFailedError, RegressionError, UsageError)
from .plans import (ConcurrentKernels, KernelPipeline, KernelPlan, PackagePlan, Stage, annotation_profile_plan,
                    autotune_plan, describe_plan, event_profile_plan, ncu_profile_plan, nsys_profile_plan, plan_of_version,
                    register_version)
from .profiling import Profiler, modes, profile
from .result import Comparison, Result

__version__ = "0.1.0"


def library_version() -> str:
    """The version of the C++ core the package loaded (libkprof_c.so)."""
    from . import _capi
    return _capi.version()


def __getattr__(name: str):
    # kprof.MODES: the profiling modes' names, read from the C library when first used.
    if name == "MODES":
        return tuple(modes())
    raise AttributeError(f"module 'kprof' has no attribute {name!r}")


def gpu_status() -> dict:
    """What the CUDA driver reports to this process: {"gpus": N, "name": ..., "reason": ...}."""
    from . import _capi
    return _capi.gpu_status()


__all__ = ["analyze", "compare", "profile", "Profiler", "bench", "KernelPlan", "KernelPipeline", "ConcurrentKernels",
           "Stage", "PackagePlan", "describe_plan", "register_version", "plan_of_version", "annotation_profile_plan",
           "autotune_plan", "event_profile_plan",
           "ncu_profile_plan", "nsys_profile_plan", "Result", "Comparison", "KprofError", "UsageError",
           "BadInputError", "NoGpuError", "NoToolError", "NoPermissionError", "ProgramFailedError", "BusyError",
           "CannotWriteError", "RegressionError", "InterruptedRunError", "MODES", "modes", "library_version",
           "gpu_status", "__version__"]
