#!/usr/bin/env python3
"""kprof's estimate for the change each bundled package version made, against the gain it realised (issue 11 item 7).

For each pair (previous → next version) it reads the previous version's annotation contract (examples/h200/packages/
<pkg>_<v>_annotation/contract.json, as re-analysed by the current kprof) and finds the opportunity that names the
change the next version made; the realised gain is 1 - median(next) / median(previous) of the plans' CUDA-event times
(timings.json of the same artifacts). Prints a Markdown table (bench/RESULTS.md §9).
Usage: bench/version_pairs.py [examples/h200/packages]
"""
import json
import sys
from pathlib import Path

# (package, previous, next, what the next version did, the opportunity names that describe that change)
PAIRS = [
    ("gemm", "v1", "v2", "shared-memory tiling", ["Reuse data on chip"]),
    ("gemm", "v2", "v3", "tensor cores (WMMA)", ["Use tensor cores", "Feed the tensor cores"]),
    ("mla", "v1", "v2", "tensor cores (WMMA tiles)", ["Use tensor cores", "Feed the tensor cores"]),
    ("mla", "v2", "v3", "split-KV (more blocks in flight)", ["Put more independent memory requests", "Fill the GPU",
                                                             "Raise occupancy"]),
    # v4 was profiled in a later device call; its artifacts (and v3's from the same call) are in examples/h200/mla-v4.
    ("mla", "v3", "v4", "cuBLASLt wgmma GEMMs + row softmax", ["Use tensor cores", "Feed the tensor cores"],
     "examples/h200/mla-v4"),
]


def load(root, pkg, v, name):
    return json.loads((root / f"{pkg}_{v}_annotation" / name).read_text())


def main():
    root = Path(sys.argv[1] if len(sys.argv) > 1 else "examples/h200/packages")
    print("| pair | change | kprof's opportunity for it (rank of 3) | estimated gain | realised gain |")
    print("| --- | --- | --- | ---: | ---: |")
    for pkg, a, b, change, names, *where in PAIRS:
        d = Path(where[0]) if where else root
        top3 = load(d, pkg, a, "contract.json")["top3"]
        t_a = load(d, pkg, a, "timings.json")["plan"]["gpu_ms"]["median"]
        t_b = load(d, pkg, b, "timings.json")["plan"]["gpu_ms"]["median"]
        hit = next(((i, o) for i, o in enumerate(top3) if any(o["name"].startswith(n) for n in names)), None)
        first = top3[0]["name"] if top3 else "none"
        named = f"{hit[1]['name']} ({hit[0] + 1})" if hit else f"not in the top 3 (first: {first})"
        est = f"{hit[1]['est_gain_pct']:.0f}%" if hit else "—"
        print(f"| {pkg} {a}→{b} | {change} | {named} | {est} | {(1 - t_b / t_a) * 100:.1f}% |")


if __name__ == "__main__":
    main()
