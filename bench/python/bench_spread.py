"""Is kprof.bench's spread over calls larger than triton.testing.do_bench's (issue 25: 23.1% against 9.7% over 9
calls on a bf16 4096^3 matmul), or is it the noise of a spread measured on few calls?

Each round calls three timers on the same kernel: kprof.bench, do_bench, and do_bench again as a control (two
calls of one tool show what the noise alone does), in an order that cycles through all six permutations, so no
tool always runs first. ROUNDS rounds (48 by default) after one discarded call of each. Per timer: the median of
its per-call medians, (max - min) / median, the interquartile range / median, and the same split by position in
the round. Usage: python3 bench_spread.py [ROUNDS] [--json FILE]
"""
import itertools
import json
import statistics
import sys

import torch
import triton

import kprof


def stats(ms):
    q = statistics.quantiles(ms, n=4)
    med = statistics.median(ms)
    return {"n": len(ms), "median_ms": med, "spread": (max(ms) - min(ms)) / med, "iqr": (q[2] - q[0]) / med}


def main() -> int:
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 and not sys.argv[1].startswith("--") else 48
    out = sys.argv[sys.argv.index("--json") + 1] if "--json" in sys.argv else None
    a = torch.randn(4096, 4096, device="cuda", dtype=torch.bfloat16)
    b = torch.randn(4096, 4096, device="cuda", dtype=torch.bfloat16)
    x = torch.randn(1 << 24, device="cuda")
    kernels = {"torch_matmul_bf16_4096": lambda: a @ b, "torch_mul_16M": lambda: x * 1.5}
    timers = {"kprof.bench": lambda fn: kprof.bench(fn, return_mode="median"),
              "do_bench": lambda fn: triton.testing.do_bench(fn, return_mode="median"),
              "do_bench (control)": lambda fn: triton.testing.do_bench(fn, return_mode="median")}
    perms = list(itertools.permutations(timers))
    result = {"device": torch.cuda.get_device_name(), "torch": torch.__version__, "triton": triton.__version__,
              "rounds": rounds, "kernels": {}}
    for name, fn in kernels.items():
        fn()
        torch.cuda.synchronize()
        for t in timers.values():
            t(fn)  # discarded
        got = {t: [] for t in timers}
        by_pos = {(t, p): [] for t in timers for p in range(3)}
        for r in range(rounds):
            for pos, t in enumerate(perms[r % len(perms)]):
                ms = timers[t](fn)
                got[t].append(ms)
                by_pos[(t, pos)].append(ms)
        k = {t: dict(stats(v), ms=v) for t, v in got.items()}
        for t in timers:
            k[t]["by_position"] = [stats(by_pos[(t, p)]) for p in range(3)]
        result["kernels"][name] = k
        print(f"## {name}: {rounds} rounds")
        print("| timer | median (ms) | (max-min)/median | IQR/median | IQR/median by position 1, 2, 3 |")
        print("| --- | --- | --- | --- | --- |")
        for t, s in k.items():
            pos = ", ".join(f"{100 * p['iqr']:.2f}%" for p in s["by_position"])
            print(f"| {t} | {s['median_ms']:.4f} | {100 * s['spread']:.2f}% | {100 * s['iqr']:.2f}% | {pos} |")
    if out:
        with open(out, "w") as f:
            json.dump(result, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
