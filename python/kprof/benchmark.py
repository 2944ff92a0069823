"""kprof.bench: triton.testing.do_bench's signature and return shape, timed with CUDA events, the L2 cache flushed
(a 256 MB buffer zeroed) before every repetition. Needs PyTorch with CUDA in this process; NoGpuError otherwise."""
from __future__ import annotations

import math
import statistics
import sys
from typing import Any, Callable, Sequence

from .errors import NoGpuError, UsageError

RETURN_MODES = ("min", "max", "mean", "median", "all")
FLUSH_BYTES = 256 << 20  # larger than any current L2 (H200: 60 MB); triton's choice too


def _check(warmup: Any, rep: Any, quantiles: Sequence[float] | None, return_mode: str) -> None:
    if return_mode not in RETURN_MODES:
        raise UsageError(f"kprof.bench: return_mode must be one of {', '.join(RETURN_MODES)} (got {return_mode!r})",
                         2, "usage")
    for name, v in (("warmup", warmup), ("rep", rep)):
        if not isinstance(v, (int, float)) or isinstance(v, bool) or v <= 0:
            raise UsageError(f"kprof.bench: {name} is a time in milliseconds > 0 (got {v!r})", 2, "usage")
    if quantiles is not None:
        if not isinstance(quantiles, (list, tuple)) or not quantiles or \
                not all(isinstance(q, (int, float)) and 0 <= q <= 1 for q in quantiles):
            raise UsageError("kprof.bench: quantiles is a list of numbers in [0, 1]", 2, "usage")


def quantile(values: Sequence[float], qs: Sequence[float]) -> list[float]:
    """Linear interpolation between closest ranks (torch.quantile's default, what do_bench uses)."""
    s = sorted(values)
    n = len(s)
    out = []
    for q in qs:
        pos = (n - 1) * q
        lo, hi = math.floor(pos), math.ceil(pos)
        out.append(s[lo] + (s[hi] - s[lo]) * (pos - lo))
    return out


def summarize(times: list[float], quantiles: Sequence[float] | None, return_mode: str) -> Any:
    """do_bench's reduction: quantiles when given (a scalar for one), else the return mode."""
    if quantiles is not None:
        ret = quantile(times, quantiles)
        return ret[0] if len(ret) == 1 else ret
    if return_mode == "all":
        return times
    return {"min": min, "max": max, "mean": statistics.mean, "median": statistics.median}[return_mode](times)


def _torch():
    try:
        import torch
    except ImportError as e:
        raise NoGpuError("kprof.bench needs PyTorch with CUDA in this process (CUDA events, the L2 flush); "
                         "torch is not importable", 4, "no-gpu") from e
    if not torch.cuda.is_available():
        raise NoGpuError("kprof.bench: no GPU (torch.cuda.is_available() is False)", 4, "no-gpu")
    return torch


def bench(fn: Callable[[], Any], warmup: float = 25, rep: float = 100, grad_to_none: Sequence[Any] | None = None,
          quantiles: Sequence[float] | None = None, return_mode: str = "mean") -> Any:
    """Milliseconds per call of ``fn``, as triton.testing.do_bench (same parameters in the same order): ``warmup`` and ``rep`` are time budgets (ms)
    turned into counts from a 5-call estimate; each repetition clears ``grad_to_none``'s gradients, zeroes a
    256 MB buffer (L2 flush) and is timed alone with a pair of CUDA events."""
    _check(warmup, rep, quantiles, return_mode)
    torch = _torch()
    fn()
    torch.cuda.synchronize()
    cache = torch.empty(FLUSH_BYTES // 4, dtype=torch.int, device="cuda")
    start = torch.cuda.Event(enable_timing=True)
    end = torch.cuda.Event(enable_timing=True)
    start.record()
    for _ in range(5):
        cache.zero_()
        fn()
    end.record()
    torch.cuda.synchronize()
    estimate_ms = start.elapsed_time(end) / 5
    n_warmup = max(1, int(warmup / estimate_ms)) if estimate_ms > 0 else 1
    n_repeat = max(1, int(rep / estimate_ms)) if estimate_ms > 0 else 1
    starts = [torch.cuda.Event(enable_timing=True) for _ in range(n_repeat)]
    ends = [torch.cuda.Event(enable_timing=True) for _ in range(n_repeat)]
    for _ in range(n_warmup):
        fn()
    for i in range(n_repeat):
        if grad_to_none is not None:
            for x in grad_to_none:
                x.grad = None
        cache.zero_()
        starts[i].record()
        fn()
        ends[i].record()
    torch.cuda.synchronize()
    times = [s.elapsed_time(e) for s, e in zip(starts, ends)]
    return summarize(times, quantiles, return_mode)


