"""A kernel package written in Python: a Triton row softmax in two versions, profiled with kprof from Python.

    v1  two passes over each row in column chunks (online max/sum, then normalise): reads the input twice
    v2  the whole row in registers: one read, one write (tile space: num_warps)

Each version is a kprof.KernelPlan with one stage whose declared work feeds the roofline (the compulsory traffic is
one read and one write of the matrix). Usage, one mode per process (a process holds either the CUPTI tracer or the
range profiler):

    python3 softmax_versions.py --version v2 --mode event --out out/py-softmax [--rows 16384 --cols 4096]

prints the artifact directory and the contract. ``--mode ncu`` re-runs this script under Nsight Compute restricted
to the plan's NVTX range (kprof.ncu_profile_plan says so on stderr). ``--bench`` prints kprof.bench and
triton.testing.do_bench for the version instead of profiling.
"""
from __future__ import annotations

import argparse
import sys

try:
    import torch
    import triton
    import triton.language as tl
except ImportError as e:  # a machine without them: say so rather than a traceback
    raise SystemExit(f"softmax_versions.py needs PyTorch and Triton (and a GPU to run the kernels): {e}")

import kprof


@triton.jit
def softmax_two_pass(out_ptr, in_ptr, stride, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    src = in_ptr + row * stride
    dst = out_ptr + row * stride
    m = tl.full([BLOCK], -1e30, tl.float32)
    s = tl.zeros([BLOCK], tl.float32)
    for start in range(0, n_cols, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        mask = cols < n_cols
        x = tl.load(src + cols, mask=mask, other=-1e30)
        m_new = tl.maximum(m, x)
        s = s * tl.exp(m - m_new) + tl.where(mask, tl.exp(x - m_new), 0.0)
        m = m_new
    mx = tl.max(m, axis=0)
    total = tl.sum(s * tl.exp(m - mx), axis=0)
    for start in range(0, n_cols, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        mask = cols < n_cols
        x = tl.load(src + cols, mask=mask, other=-1e30)
        tl.store(dst + cols, tl.exp(x - mx) / total, mask=mask)


@triton.jit
def softmax_one_pass(out_ptr, in_ptr, stride, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(in_ptr + row * stride + cols, mask=mask, other=-float("inf"))
    x = x - tl.max(x, axis=0)
    num = tl.exp(x)
    tl.store(out_ptr + row * stride + cols, num / tl.sum(num, axis=0), mask=mask)


VERSIONS = ("v1", "v2")


def make_plan(version: str, rows: int, cols: int) -> tuple[kprof.KernelPlan, torch.Tensor, torch.Tensor]:
    torch.manual_seed(0)
    x = torch.randn(rows, cols, device="cuda", dtype=torch.float32)
    y = torch.empty_like(x)
    if version == "v1":
        def stage(BLOCK: int = 512, num_warps: int = 4) -> None:
            softmax_two_pass[(rows,)](y, x, x.stride(0), cols, BLOCK=BLOCK, num_warps=num_warps)
        space = [{"BLOCK": b, "num_warps": w} for b in (512, 256, 1024) for w in (4, 8)]
    elif version == "v2":
        block = triton.next_power_of_2(cols)

        def stage(num_warps: int = 8) -> None:
            softmax_one_pass[(rows,)](y, x, x.stride(0), cols, BLOCK=block, num_warps=num_warps)
        space = [{"num_warps": w} for w in (8, 4, 16, 32)]
    else:
        raise SystemExit(f"unknown version {version!r} (have {', '.join(VERSIONS)})")
    flops = 5.0 * rows * cols  # max, subtract, exp, sum, divide per element
    min_bytes = 2.0 * rows * cols * x.element_size()  # read the matrix once, write it once
    plan = kprof.KernelPlan("softmax", [kprof.Stage("row_softmax", stage, flops=flops, min_bytes=min_bytes,
                                                    precision="fp32", tile_space=space)],
                            params={"rows": rows, "cols": cols}, version=version, dtype="fp32")
    return plan, x, y


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--version", choices=VERSIONS, default="v2")
    ap.add_argument("--mode", choices=("annotation", "event", "nsys", "ncu"), default="annotation")
    ap.add_argument("--out", default="out/profiles")
    ap.add_argument("--rows", type=int, default=16384)
    ap.add_argument("--cols", type=int, default=4096)
    ap.add_argument("--bench-runs", type=int, default=20)
    ap.add_argument("--bench", action="store_true", help="time with kprof.bench and do_bench instead")
    a = ap.parse_args(argv)
    plan, x, y = make_plan(a.version, a.rows, a.cols)
    tuned = plan.autotune()  # cached under .cache/kernel-autotune: the ncu re-run finds it and times nothing
    plan.run()
    torch.cuda.synchronize()
    torch.testing.assert_close(y, torch.softmax(x, dim=1), rtol=1e-5, atol=1e-6)
    if a.bench:
        fn = lambda: plan.run()  # noqa: E731
        print(f"{a.version} {tuned} kprof.bench {kprof.bench(fn):.4f} ms  do_bench "
              f"{triton.testing.do_bench(fn):.4f} ms")
        return 0
    profile = getattr(kprof, f"{a.mode}_profile_plan")
    runs = min(a.bench_runs, 2) if a.mode == "ncu" else a.bench_runs
    result = profile(plan, out_dir=a.out, bench_runs=runs)
    if result is None:  # inside ncu's re-run: the parent reads the artifact
        return 0
    print(f"artifact: {result.dir}")
    print(f"config: {tuned}")
    print(result.contract())
    return 0


if __name__ == "__main__":
    sys.exit(main())
