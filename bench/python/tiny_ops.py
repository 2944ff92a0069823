"""Tracer overhead on a launch-bound PyTorch loop (bench/cost.sh): N launches of x.add_(1.0) on 32 floats, each
loop timed inside the process (host clock around it, then a synchronize), after a warm-up.

    python3 tiny_ops.py peers [rounds] [n]   # per round, alternating: plain, torch.profiler (CPU+CUDA),
                                             # torch.profiler (CUDA only), Triton Proton (cupti backend)
    python3 tiny_ops.py loops [rounds] [n]   # plain loops only: what kprof's tracer is injected into

Prints one line per loop: "<variant> <round> loop_ms=<ms>".
"""
import sys
import time

import torch


def loop(x: torch.Tensor, n: int) -> float:
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    for _ in range(n):
        x.add_(1.0)
    torch.cuda.synchronize()
    return (time.perf_counter() - t0) * 1e3


def run_variant(variant: str, x: torch.Tensor, n: int) -> float:
    if variant == "plain":
        return loop(x, n)
    if variant in ("torch_profiler", "torch_profiler_cuda"):
        from torch.profiler import ProfilerActivity, profile

        acts = [ProfilerActivity.CUDA]
        if variant == "torch_profiler":
            acts.insert(0, ProfilerActivity.CPU)
        with profile(activities=acts):
            return loop(x, n)
    if variant == "proton":
        import triton.profiler as proton

        proton.start("/tmp/kprof-proton", backend="cupti")
        try:
            return loop(x, n)
        finally:
            proton.finalize()
    raise SystemExit("unknown variant " + variant)


def main() -> None:
    what = sys.argv[1] if len(sys.argv) > 1 else "loops"
    rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 5
    n = int(sys.argv[3]) if len(sys.argv) > 3 else 20000
    x = torch.zeros(32, device="cuda")
    loop(x, 1000)  # warm-up: allocator, kernel load
    expected = 1000.0
    variants = ["plain", "torch_profiler", "torch_profiler_cuda", "proton"] if what == "peers" else ["plain"]
    for r in range(rounds):
        for v in variants:
            try:
                ms = run_variant(v, x, n)
            except Exception as e:  # a peer that is not installed: say so and go on
                print(f"{v} {r} unavailable: {type(e).__name__}: {e}")
                continue
            expected += n
            print(f"{v} {r} loop_ms={ms:.3f}", flush=True)
    if abs(float(x[0]) - expected) > 0.5:
        raise SystemExit("wrong result")


if __name__ == "__main__":
    main()
