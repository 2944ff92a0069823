"""A 0.5 ms-class elementwise kernel (y = x * 1.5 + 0.25 over 256 Mi floats, ~2 GiB moved), for comparing the
stability of kprof's event-mode median with triton.testing.do_bench on the same kernel.
    python3 elementwise.py loop      # 200 timed-by-nobody launches (kprof event mode traces them)
    python3 elementwise.py dobench   # prints do_bench's median in ms
"""
import sys

import torch


def main() -> None:
    n = 256 * 1024 * 1024
    x = torch.rand(n, device="cuda", dtype=torch.float32) + 0.5  # random, never zeros
    y = torch.empty_like(x)

    def fn() -> None:
        torch.mul(x, 1.5, out=y).add_(0.25)

    fn()
    torch.cuda.synchronize()
    ref = x[:1024].double() * 1.5 + 0.25
    if not torch.allclose(y[:1024].double(), ref, rtol=1e-6):
        raise SystemExit("wrong result")
    if sys.argv[1:] == ["dobench"]:
        import triton.testing

        print(f"dobench_median_ms={triton.testing.do_bench(fn, warmup=25, rep=100, return_mode='median'):.6f}")
    else:
        for _ in range(200):
            fn()
        torch.cuda.synchronize()


if __name__ == "__main__":
    main()
