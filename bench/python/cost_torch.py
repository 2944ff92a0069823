"""The PyTorch + Triton program of the cost benchmark (bench/cost.sh): torch elementwise and reduction kernels at
two sizes each (repeated kernel names with different grids), a bf16 matmul (cuBLAS), a Triton softmax and a Triton
kernel compiled for two block sizes, each launched REPS times. Checked against torch.

    python3 cost_torch.py [reps]
"""
import sys

import torch
import triton
import triton.language as tl


@triton.jit
def softmax_kernel(out_ptr, in_ptr, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(in_ptr + row * n_cols + cols, mask=mask, other=-float("inf"))
    x = x - tl.max(x, axis=0)
    num = tl.exp(x)
    tl.store(out_ptr + row * n_cols + cols, num / tl.sum(num, axis=0), mask=mask)


@triton.jit
def scale_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=offs < n) * 2.0 + 1.0, mask=offs < n)


def main() -> None:
    reps = int(sys.argv[1]) if len(sys.argv) > 1 else 3
    torch.manual_seed(0)
    big = torch.randn(16 << 20, device="cuda")
    small = torch.randn(64 << 10, device="cuda")
    a = torch.randn(4096, 4096, device="cuda", dtype=torch.bfloat16)
    b = torch.randn(4096, 4096, device="cuda", dtype=torch.bfloat16)
    rows = torch.randn(4096, 2048, device="cuda")
    sm = torch.empty_like(rows)
    y1, y2 = torch.empty_like(big), torch.empty_like(small)
    for _ in range(reps):
        big2 = big * 1.5 + 0.5
        small2 = small * 1.5 + 0.5
        s1, s2 = big.sum(), small.sum()
        c = a @ b
        softmax_kernel[(rows.shape[0],)](sm, rows, rows.shape[1], BLOCK=2048)
        scale_kernel[(triton.cdiv(big.numel(), 1024),)](big, y1, big.numel(), BLOCK=1024)
        scale_kernel[(triton.cdiv(small.numel(), 256),)](small, y2, small.numel(), BLOCK=256)
    torch.cuda.synchronize()
    torch.testing.assert_close(big2, big * 1.5 + 0.5)
    torch.testing.assert_close(small2, small * 1.5 + 0.5)
    torch.testing.assert_close(s1, big.sum())
    torch.testing.assert_close(s2, small.sum())
    torch.testing.assert_close(sm, torch.softmax(rows, dim=1), rtol=1e-5, atol=1e-6)
    torch.testing.assert_close(y1, big * 2.0 + 1.0)
    torch.testing.assert_close(y2, small * 2.0 + 1.0)
    torch.testing.assert_close(c[:64].float(), a[:64].float() @ b.float(), rtol=2e-2, atol=5e-1)
    print("ok")


if __name__ == "__main__":
    main()
