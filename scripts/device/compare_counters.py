#!/usr/bin/env python3
"""Compares the canonical metrics of two annotation artifacts of the same program, kernel by kernel: one with
counters from the CUPTI range profiler (kprof run --counters cupti), one from Nsight Compute.
    python3 scripts/device/compare_counters.py <cupti artifact> <ncu artifact>
Counts that do not depend on timing (bytes, FLOPs, launch shape, registers, theoretical occupancy) must agree
within 1%; rates and times (throughput %, duration, achieved occupancy, hit rates) are shown, and must agree
within 15% (two separate runs of the program, clocks left as found). Exits 1 on any disagreement."""
import json
import sys
from pathlib import Path

EXACT = ["grid_size", "block_size", "registers_per_thread", "shared_mem_per_block_bytes", "theoretical_occupancy_pct",
         "flops_fp32", "flops_fp64", "flops_fp16", "flops_tensor", "local_memory_bytes", "l1_bytes"]
RATES = ["duration_ns", "sm_throughput_pct", "memory_throughput_pct", "dram_throughput_pct", "tensor_pipe_pct",
         "achieved_occupancy_pct", "l2_hit_pct", "l1_hit_pct", "waves_per_sm", "dram_bytes", "l2_bytes"]


def load(path):
    p = Path(path)
    d = json.loads((p / "profile.json" if p.is_dir() else p).read_text())
    return {(s["name"], k["label"]): k["metrics"] for s in d["stages"] for k in s["kernels"]}


def rel(a, b):
    if a is None or b is None:
        return None
    if a == b:
        return 0.0
    return abs(a - b) / max(abs(a), abs(b), 1e-9)


a, b = load(sys.argv[1]), load(sys.argv[2])
bad = 0
compared = 0
print(f"{'stage / kernel':50} {'metric':28} {'cupti':>14} {'ncu':>14} {'diff':>7}")
for key in sorted(set(a) & set(b)):
    for m in EXACT + RATES:
        va, vb = a[key].get(m), b[key].get(m)
        r = rel(va, vb)
        if r is None:
            if (va is not None or vb is not None) and not (va is None and m.startswith("flops_")):
                print(f"{'/'.join(key)[:50]:50} {m:28} {str(va):>14} {str(vb):>14}   only one")
            continue
        compared += 1
        # small absolute values (a few %, a few hundred bytes) are noise, not disagreement
        limit = 0.01 if m in EXACT else 0.15
        small = m in RATES + ["flops_fp32", "flops_fp64", "flops_fp16", "flops_tensor", "local_memory_bytes", "l1_bytes"] \
            and max(abs(va), abs(vb)) < (5 if m.endswith("_pct") else 4096)
        flag = r > limit and not small
        bad += flag
        if flag or m in ("duration_ns", "dram_bytes", "sm_throughput_pct", "theoretical_occupancy_pct",
                         "registers_per_thread", "flops_tensor"):
            print(f"{'/'.join(key)[:50]:50} {m:28} {va:14.4g} {vb:14.4g} {100*r:6.1f}%{'  <-- differs' if flag else ''}")
only = sorted(set(a) ^ set(b))
for k in only:
    print(f"only in {'cupti' if k in a else 'ncu'}: {'/'.join(k)}")
print(f"SUMMARY counters cupti vs ncu: {len(set(a) & set(b))} kernels, {compared} values compared, {bad} differ, "
      f"{len(only)} kernels in one only")
sys.exit(1 if bad or not compared else 0)
