"""kprof.profile: profile a Python callable (or a ``with`` block) in this process.

event, nsys and annotation run in-process through the C API: the CUPTI collector in ``libkprof_inject.so`` is
loaded into this Python process, the window's records are written into an artifact directory and assembled and
analysed by the C++ core exactly like ``kprof run``'s. ncu cannot run in-process (Nsight Compute replays kernels
from outside): ``mode="ncu"`` re-runs this script under ``kprof run --prof-type=ncu``, restricted to the NVTX range
the call opens, and says so on stderr.
"""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any, Callable

from . import _capi
from .errors import NoGpuError, NoToolError, UsageError, error_for_exit_code
from .result import Result

NCU_RANGE = "kprof.profile"
_NCU_CHILD_ENV = "KPROF_PY_NCU_CHILD"


def modes() -> dict[str, dict[str, Any]]:
    """The profiling modes, by name, as the C library describes them (purpose, whether they run in-process)."""
    return {m["name"]: m for m in _capi.interface()["modes"]}


def default_mode() -> str:
    """The mode every front end profiles in unless told otherwise (the --prof-type default)."""
    return next(o["default"] for o in _capi.interface()["run_options"] if o["key"] == "mode")


def run_options() -> set[str]:
    """`kprof run`'s options (names and aliases, and the printing flags): a plan parameter of the same name cannot
    be passed to a re-run as --name=value."""
    names = {"json", "quiet", "help", "q", "h"}
    for o in _capi.interface()["run_options"]:
        if o["run"]:
            names.add(o["name"])
            if o["alias"]:
                names.add(o["alias"])
    return names


def __getattr__(name: str) -> Any:
    # MODES and _RUN_OPTIONS are read from the C library when first used (importing kprof loads nothing).
    if name == "MODES":
        return tuple(modes())
    if name == "_RUN_OPTIONS":
        return run_options()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def require_gpu() -> dict[str, Any]:
    """The GPU the driver reports; NoGpuError (with the driver's reason) when there is none."""
    status = _capi.gpu_status()
    if not status.get("gpus"):
        raise NoGpuError("kprof: no GPU: " + (status.get("reason") or "the CUDA driver reports none"), 4, "no-gpu")
    return status


def synchronize() -> None:
    """Waits for the GPU work this process launched (records of unfinished kernels are not delivered)."""
    torch = sys.modules.get("torch")
    if torch is not None and torch.cuda.is_available() and torch.cuda.is_initialized():
        torch.cuda.synchronize()
        return
    import ctypes
    try:
        ctypes.CDLL("libcuda.so.1").cuCtxSynchronize()
    except OSError:
        pass


def kprof_binary() -> str:
    """The kprof command line: the one installed with the package, else ``kprof`` on PATH."""
    bundled = Path(__file__).resolve().parent / "_bin" / "kprof"
    if bundled.is_file():
        return str(bundled)
    found = shutil.which("kprof")
    if not found:
        raise NoToolError("kprof: the kprof command line is needed for mode='ncu' and was not found "
                          "(reinstall the package, or put kprof on PATH)", 5, "no-tool")
    return found


class Profiler:
    """One profiling window: ``with kprof.profile(mode="event") as p: ...`` then ``p.result``."""

    def __init__(self, mode: str | None = None, out_dir: str | os.PathLike | None = None, *,
                 out_root: str | os.PathLike = "out/profiles", kernel: str | None = None, version: str = "-",
                 params: dict[str, int] | None = None, declared_stages: dict[str, dict[str, Any]] | None = None,
                 baseline: str | os.PathLike | None = None, nvtx_range: str = NCU_RANGE, ncu: str = "ncu",
                 no_wait: bool = False):
        known = modes()
        mode = mode or default_mode()
        if mode not in known:
            raise UsageError(f"kprof.profile: mode must be one of {', '.join(known)} (got {mode!r})", 2, "usage")
        self._in_process = known[mode]["in_process"]
        self.mode = mode
        self.result: Result | None = None
        self.nvtx_range = nvtx_range
        self.ncu = ncu
        self._request: dict[str, Any] = {
            "mode": mode, "out_root": str(out_root), "out_dir": str(out_dir) if out_dir else "",
            "kernel": kernel or _script_name(), "version": version, "params": params or {},
            "declared_stages": declared_stages or {}, "baseline": str(baseline) if baseline else "",
            "script": sys.argv[0] if sys.argv and sys.argv[0] else "<in-process>", "no_wait": no_wait}
        self._open = False
        self._child = False

    # --- ncu: re-run the script under Nsight Compute ----------------------------------------------------------
    def _ncu_command(self) -> list[str]:
        script = sys.argv[0] if sys.argv else ""
        if not script or script == "-c" or not Path(script).is_file():
            raise UsageError("kprof.profile(mode='ncu') re-runs the script under Nsight Compute, and this process "
                             "has no script file to re-run (interactive or `python -c`): put the code in a file",
                             2, "usage")
        r = self._request
        cmd = [kprof_binary(), "run", "--prof-type=ncu", "--nvtx-include", self.nvtx_range + "/", "--kernel",
               r["kernel"], "--version", r["version"] or "-", "--ncu", self.ncu]
        clash = sorted(k for k in r["params"] if str(k).replace("_", "-") in run_options())
        if clash:
            raise UsageError(f"kprof.profile(mode='ncu'): parameter name(s) {', '.join(clash)} are also `kprof run` "
                             "options, so the re-run could not pass them as parameters: rename them", 2, "usage")
        cmd += [f"--{k}={int(v) if isinstance(v, bool) else v}" for k, v in r["params"].items()]
        if r["declared_stages"]:
            cmd += ["--declared", self._declared_file()]
        cmd += ["--out", r["out_dir"]] if r["out_dir"] else ["--out-root", r["out_root"]]
        return cmd + ["--", sys.executable, *sys.argv]

    def _declared_file(self) -> str:
        """The plan's declared work, for the re-run's roofline (`kprof run --declared`)."""
        import json
        import tempfile
        if not hasattr(self, "_declared_path"):
            fd, path = tempfile.mkstemp(prefix="kprof-declared-", suffix=".json")
            with os.fdopen(fd, "w") as f:
                json.dump(self._request["declared_stages"], f)
            self._declared_path = path
        return self._declared_path

    def _run_ncu(self) -> None:
        require_gpu()
        if not self._request["out_dir"]:
            raise UsageError("kprof.profile(mode='ncu') needs out_dir= (the re-run writes the artifact there)",
                             2, "usage")
        cmd = self._ncu_command()
        print(f"kprof: ncu mode re-runs this script under Nsight Compute, restricted to NVTX range "
              f"'{self.nvtx_range}': {' '.join(cmd)}", file=sys.stderr)
        env = dict(os.environ, **{_NCU_CHILD_ENV: "1"})
        try:
            done = subprocess.run(cmd, env=env)
        finally:
            if hasattr(self, "_declared_path"):
                os.unlink(self._declared_path)
                del self._declared_path
        if done.returncode != 0:
            raise error_for_exit_code(f"kprof: the ncu re-run exited with code {done.returncode}", done.returncode)
        from .analysis import analyze
        self.result = analyze(self._request["out_dir"], write=False)
        self.result.dir = Path(self._request["out_dir"])  # the re-run wrote the artifact there

    # --- the window ---------------------------------------------------------------------------------------------
    def __enter__(self) -> "Profiler":
        if not self._in_process:  # ncu: re-run the script under `kprof run`
            if os.environ.get(_NCU_CHILD_ENV) == "1":  # inside the re-run: mark the range ncu is restricted to
                self._child = True
                _capi.nvtx_push(self.nvtx_range)
            self._open = True
            return self
        require_gpu()
        _capi.call("profile_begin", self._request)
        self._open = True
        return self

    def __exit__(self, exc_type, exc, tb) -> bool:
        if not self._open:
            return False
        self._open = False
        if not self._in_process:
            if self._child:
                synchronize()
                _capi.nvtx_pop()
            elif exc_type is None:
                self._run_ncu()
            return False
        synchronize()
        reply = _capi.call("profile_end", {})
        self.result = Result(reply)
        return False


def _script_name() -> str:
    script = sys.argv[0] if sys.argv else ""
    return Path(script).stem if script and script != "-c" else "python"


def profile(fn: Callable[..., Any] | None = None, *args: Any, mode: str | None = None,
            out_dir: str | os.PathLike | None = None, kwargs: dict[str, Any] | None = None,
            **options: Any) -> Result | Profiler | None:
    """Profiles ``fn(*args, **kwargs)`` in one mode (default: annotation, the command line's) and returns the analysed Result; without ``fn``, a context
    manager (``with kprof.profile(mode="event", out_dir="out/p") as p: ...`` then ``p.result``).

    options: out_root, kernel, version, params, declared_stages ({stage: {"flops", "min_bytes", "precision"}}),
    baseline, nvtx_range (ncu mode), ncu, no_wait. Raises NoGpuError without a GPU. In ncu mode the script's
    re-run returns None from this call (the parent gets the Result)."""
    p = Profiler(mode, out_dir, **options)
    if fn is None:
        return p
    if not callable(fn):
        raise UsageError("kprof.profile: the first argument must be callable (or omit it for a `with` block)",
                         2, "usage")
    with p:
        fn(*args, **(kwargs or {}))
    return p.result
