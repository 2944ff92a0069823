#!/usr/bin/env python3
"""Checks what scripts/device-check.sh produced (the results folder: profiles/, summary.txt).
Prints one PASS/FAIL line per check and exits 1 if any check fails.
    python3 scripts/device/validate.py /tmp/kprof-results      # on the device, at the end of device-check.sh
    python3 scripts/device/validate.py examples/h200            # on the committed copy
"""
import json
import re
import sys
from pathlib import Path

root = Path(sys.argv[1] if len(sys.argv) > 1 else "examples/h200")
failures = 0


def check(name, ok, detail):
    global failures
    failures += 0 if ok else 1
    print(f"{'PASS' if ok else 'FAIL'}  {name}: {detail}")


def groups(profile):
    d = json.loads((root / "profiles" / profile / "profile.json").read_text())
    return {(s["name"], k["label"]): k for s in d["stages"] for k in s["kernels"]}, d


def summary_rc(step):
    text = (root / "summary.txt").read_text() if (root / "summary.txt").exists() else (root / "logs" / "summary.txt").read_text()
    m = re.search(rf"^{step}\s+rc=(\d+)", text, re.M)
    return int(m.group(1)) if m else None


# 1. Event-mode medians agree with ncu's gpu__time_duration for kernels >= 50 us (within 3%).
ev, _ = groups("event_probe")
nc, _ = groups("ncu_probe")
worst = 0.0
for key, k in ev.items():
    if key in nc and nc[key]["duration_ns"]["median"] >= 50_000:
        e, n = k["duration_ns"]["median"], nc[key]["duration_ns"]["median"]
        worst = max(worst, abs(e - n) / n)
check("event vs ncu durations", 0 < worst < 0.03, f"largest difference {100 * worst:.2f}% (goal < 3%)")

# 2. The timeline shows the overlap streams_nvtx_graph was written to have.
tl = (root / "profiles" / "nsys_streams" / "timeline.md").read_text()
kk = float(re.search(r"kernel–kernel overlap \(% of busy\) \| ([\d.]+)%", tl).group(1))
ck = float(re.search(r"copy–kernel overlap \(% of busy\) \| ([\d.]+)%", tl).group(1))
check("kernel-kernel overlap", kk > 0, f"{kk}% of busy time")
check("copy-kernel overlap", ck > 0, f"{ck}% of busy time")
check("NVTX ranges (C++)", "phase_overlap/kernel_kernel" in tl, "nested ranges present")

# 3. Annotation mode: the float4 copy is memory-bound with counters attached.
an, _ = groups("annotation_probe")
copy = next(k for (s, l), k in an.items() if l == "copy_f4")
check("annotation copy_f4", copy["analysis"]["bottleneck"]["kind"] == "memory", copy["analysis"]["bottleneck"]["key_issue"])

# 4. Python: kernels traced; NVTX ranges from torch.cuda.nvtx reached the trace.
tr = (root / "profiles" / "nsys_triton" / "timeline.md").read_text()
kernels = int(re.search(r"Records: (\d+) kernels", tr).group(1))
ranges = int(re.search(r"(\d+) NVTX ranges", tr).group(1))
check("Python kernels traced", kernels > 0, f"{kernels} kernels")
check("Python NVTX ranges", ranges > 0, f"{ranges} ranges")

# 5. In-process counters (CUPTI range profiler) agree with Nsight Compute's, and annotation mode with them costs
#    at most 0.15x of `ncu --set full` on the probe program.
def step_seconds(step):
    text = (root / "summary.txt").read_text() if (root / "summary.txt").exists() else (root / "logs" / "summary.txt").read_text()
    m = re.search(rf"^{step}\s+rc=\d+\s+([\d.]+) s", text, re.M)
    return float(m.group(1)) if m else None


for name in ("annotation_probe_cupti_counters", "annotation_streams_cupti", "annotation_triton_cupti"):
    f = root / f"compare_{name}.txt"
    f = f if f.exists() else root / "logs" / f"compare_{name}.txt"
    last = f.read_text().strip().splitlines()[-1] if f.exists() else "missing"
    check(f"counters cupti vs ncu ({name})", " 0 differ" in last, last)
full, cupti = step_seconds("ncu_full_plain"), step_seconds("annot_probe_cupti_ct")
if full and cupti:
    check("annotation cost (--counters cupti --timing counters)", cupti / full <= 0.15,
          f"{cupti:.2f} s vs ncu --set full {full:.2f} s = {cupti / full:.3f}x (goal <= 0.15x)")

# 6. Exit codes of the error paths.
check("failing program exit code", summary_rc("fail_program") == 7, f"rc={summary_rc('fail_program')} (want 7)")
check("GPU lock busy exit code", summary_rc("lock_busy") == 8, f"rc={summary_rc('lock_busy')} (want 8)")

print(f"{failures} failed")
sys.exit(1 if failures else 0)
