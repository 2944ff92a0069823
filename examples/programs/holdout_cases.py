"""Shared by the held-out diagnosis scripts (diag_holdout2.py ... diag_holdout6.py): runs each case REPS times in an
NVTX range named after it; a case whose operator this PyTorch build lacks is skipped once, with a message."""
import sys

import torch


def arguments():
    """argv → (reps, check, device, bf16 dtype); seeds torch."""
    reps = int(sys.argv[1]) if len(sys.argv) > 1 else 2
    check = not (len(sys.argv) > 2 and sys.argv[2] == "nocheck")
    torch.manual_seed(0)
    return reps, check, "cuda", torch.bfloat16


def run_cases(cases, reps):
    results = {}
    for _ in range(reps):
        for name, fn in cases:
            if isinstance(results.get(name), str):  # "skipped" (a NumPy array's == would compare elementwise)
                continue
            try:
                with torch.cuda.nvtx.range(name):
                    results[name] = fn()
            except (RuntimeError, TypeError, AttributeError) as e:
                print(f"{name}: skipped ({type(e).__name__}: {str(e)[:120]})", flush=True)
                results[name] = "skipped"
    torch.cuda.synchronize()
    return results


def report(name, cond):
    print(f"{name}: {'ok' if cond else 'MISMATCH'}")


def run_and_check(cases, reps, check, checks):
    """run_cases, then (unless `nocheck`) each check of a case that ran: checks maps a case name to a function of
    its result that returns whether it is right."""
    results = run_cases(cases, reps)
    if not check:
        print("ok (not checked)")
        return
    for name, right in checks.items():
        if not isinstance(results.get(name), str):
            report(name, right(results[name]))
    print("ok")
