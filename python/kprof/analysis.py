"""kprof.analyze and kprof.compare: the C++ core's analysis of artifacts and ncu exports."""
from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Iterable

from . import _capi
from .errors import UsageError
from .result import Comparison, Result

PathLike = str | os.PathLike


def analyze(path: PathLike | Iterable[PathLike], *, out_dir: PathLike | None = None,
            out_root: PathLike = "out/profiles", write: bool = False, kernel: str | None = None,
            version: str = "-", params: dict[str, int] | None = None, baseline: PathLike | None = None,
            devices: PathLike | None = None, thresholds: PathLike | None = None) -> Result:
    """Analyses an artifact directory, an ncu CSV export (or several, or a directory of them) as
    ``kprof analyze`` does. Nothing is written unless ``write=True`` (or ``out_dir`` is given)."""
    items = [path] if isinstance(path, (str, os.PathLike)) else list(path) if isinstance(path, Iterable) else None
    if items is None or not all(isinstance(p, (str, os.PathLike)) for p in items):
        raise UsageError(f"kprof.analyze: expected a path or a list of paths (got {path!r})", 2, "usage")
    inputs = [str(p) for p in items]
    if not inputs:
        raise UsageError("kprof.analyze: no input given", 2, "usage")
    request: dict[str, Any] = {"inputs": inputs, "write": bool(write or out_dir), "out_root": str(out_root),
                               "out_dir": str(out_dir) if out_dir else "", "kernel": kernel or "",
                               "version": version, "baseline": str(baseline) if baseline else "",
                               "devices": str(devices) if devices else "",
                               "thresholds": str(thresholds) if thresholds else ""}
    if params:
        request["params"] = params
    return Result(_capi.call("analyze", request))


def _artifact(x: Any) -> str:
    if isinstance(x, Result):
        if x.dir is None:
            raise ValueError("kprof.compare: this Result was not written to an artifact directory "
                             "(analyze with write=True or out_dir=...)")
        return str(x.dir)
    if not isinstance(x, (str, os.PathLike)):
        raise UsageError(f"kprof.compare: expected an artifact directory, a profile.json or a written Result "
                         f"(got {x!r})", 2, "usage")
    return str(Path(x))


def compare(a: Any, b: Any, *, devices: PathLike | None = None, thresholds: PathLike | None = None) -> Comparison:
    """Baseline ``a`` vs current ``b`` (artifact directories, profile.json files or written Results), each change
    judged against noise (Mann-Whitney U when both sides have enough launches), as ``kprof compare``."""
    return Comparison(_capi.call("compare", {"baseline": _artifact(a), "current": _artifact(b),
                                             "devices": str(devices) if devices else "",
                                             "thresholds": str(thresholds) if thresholds else ""}))
