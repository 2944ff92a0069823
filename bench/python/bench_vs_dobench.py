"""kprof.bench against triton.testing.do_bench on the same kernels, side by side (bench/RESULTS.md §12).

For each kernel, CALLS rounds alternate one kprof.bench call and one do_bench call (order swapped every round),
both with return_mode="median" and their default warmup=25 ms, rep=100 ms, after one discarded call of each. Per tool it prints the median of the
per-call medians, their spread ((max - min) / median over the calls) and the median wall time of one call.
Usage: python3 bench_vs_dobench.py [CALLS] [--json FILE] [--only NAME,...]
"""
import json
import statistics
import sys
import time
from pathlib import Path

import torch
import triton

import kprof


sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "examples" / "python"))
from softmax_versions import softmax_one_pass as _softmax  # noqa: E402  (the example package's v2 kernel)


def kernels():
    x = torch.randn(16384, 4096, device="cuda")
    y = torch.empty_like(x)
    a = torch.randn(4096, 4096, device="cuda", dtype=torch.bfloat16)
    b = torch.randn(4096, 4096, device="cuda", dtype=torch.bfloat16)
    u = torch.randn(1 << 20, device="cuda")
    v = torch.randn(1 << 20, device="cuda")
    return {
        "triton_softmax_16384x4096": lambda: _softmax[(16384,)](y, x, x.stride(0), 4096, BLOCK=4096, num_warps=8),
        "torch_matmul_bf16_4096": lambda: a @ b,
        "torch_add_1M": lambda: u + v,
    }


def main() -> int:
    flags = {"--json", "--only"}
    args = [a for i, a in enumerate(sys.argv[1:], 1) if not a.startswith("--") and sys.argv[i - 1] not in flags]
    only = sys.argv[sys.argv.index("--only") + 1].split(",") if "--only" in sys.argv else None
    calls = int(args[0]) if args else 5
    out = sys.argv[sys.argv.index("--json") + 1] if "--json" in sys.argv else None
    tools = {"kprof.bench": lambda fn: kprof.bench(fn, return_mode="median"),
             "do_bench": lambda fn: triton.testing.do_bench(fn, return_mode="median")}
    rows = []
    for name, fn in kernels().items():
        if only and not any(name.startswith(o) for o in only):
            continue
        fn()
        torch.cuda.synchronize()
        for t in tools:  # one discarded call of each first: the first call of a run read apart on the H200
            tools[t](fn)
        got = {t: {"ms": [], "wall_s": []} for t in tools}
        for i in range(calls):
            order = list(tools) if i % 2 == 0 else list(reversed(tools))
            for t in order:
                t0 = time.perf_counter()
                ms = tools[t](fn)
                got[t]["wall_s"].append(time.perf_counter() - t0)
                got[t]["ms"].append(ms)
        for t, g in got.items():
            med = statistics.median(g["ms"])
            rows.append({"kernel": name, "tool": t, "calls": calls, "median_ms": med,
                         "spread": (max(g["ms"]) - min(g["ms"])) / med, "wall_s": statistics.median(g["wall_s"]),
                         "ms": g["ms"], "walls": g["wall_s"]})
    print(f"| kernel | tool | median of {calls} medians (ms) | spread (max-min)/median | wall per call (s) |")
    print("| --- | --- | --- | --- | --- |")
    for r in rows:
        print(f"| {r['kernel']} | {r['tool']} | {r['median_ms']:.4f} | {100 * r['spread']:.2f}% | {r['wall_s']:.3f} |")
    if out:
        with open(out, "w") as f:
            json.dump({"device": torch.cuda.get_device_name(), "torch": torch.__version__,
                       "triton": triton.__version__, "rows": rows}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
