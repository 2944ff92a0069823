"""Diagnosis corpus, Python part: PyTorch and Triton kernels nobody here tuned, plus a few Triton kernels built to
have one known bottleneck. Labels are in diag_corpus_expected.toml. Each case runs REPS times in an NVTX range
named after it; results are checked against torch.

    python3 diag_torch.py [reps]

Kernel names repeat on purpose: torch's elementwise kernels run at two sizes (same name, different grids), and
the random initialisation uses the same kernels as the cases.
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
def atomic_sum_kernel(x_ptr, sum_ptr, n, BLOCK: tl.constexpr):
    # Every element is added to one address: the atomics serialise in L2.
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n, other=0.0)
    tl.atomic_add(sum_ptr + tl.zeros([BLOCK], dtype=tl.int32), x, mask=offs < n)


@triton.jit
def strided_rowsum_kernel(x_ptr, out_ptr, n_rows, n_cols, BLOCK: tl.constexpr):
    # Lane i handles row i and walks along it: adjacent lanes are a whole row apart (uncoalesced loads).
    rows = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for c in range(0, n_cols):
        acc += tl.load(x_ptr + rows * n_cols + c, mask=rows < n_rows, other=0.0)
    tl.store(out_ptr + rows, acc, mask=rows < n_rows)


@triton.jit
def matmul_fp32_ieee_kernel(a_ptr, b_ptr, c_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    # A float32 matmul with input_precision="ieee": exact FP32 FMAs, the tensor cores stay idle.
    pid_m, pid_n = tl.program_id(0), tl.program_id(1)
    rm = pid_m * BM + tl.arange(0, BM)
    rn = pid_n * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    acc = tl.zeros([BM, BN], dtype=tl.float32)
    for k in range(0, K, BK):
        a = tl.load(a_ptr + rm[:, None] * K + (k + rk)[None, :])
        b = tl.load(b_ptr + (k + rk)[:, None] * N + rn[None, :])
        acc += tl.dot(a, b, input_precision="ieee")
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc)


def nvtx(name):
    return torch.cuda.nvtx.range(name)


def main() -> None:
    reps = int(sys.argv[1]) if len(sys.argv) > 1 else 3
    torch.manual_seed(0)
    dev = "cuda"
    # Inputs (random init kernels run here, outside the cases' ranges).
    big_a = torch.randn(64 << 20, device=dev)
    big_b = torch.randn(64 << 20, device=dev)
    small_a = torch.randn(4096, device=dev)
    small_b = torch.randn(4096, device=dev)
    sm_in = torch.randn(16384, 4096, device=dev)
    mm_a = torch.randn(8192, 8192, device=dev, dtype=torch.bfloat16)
    mm_b = torch.randn(8192, 8192, device=dev, dtype=torch.bfloat16)
    f32_a = torch.randn(2048, 2048, device=dev)
    f32_b = torch.randn(2048, 2048, device=dev)
    at_x = torch.randn(8 << 20, device=dev)
    st_x = torch.randn(1 << 18, 256, device=dev)
    torch.cuda.synchronize()

    # Compile the Triton kernels outside the ranges.
    sm_out = torch.empty_like(sm_in)
    softmax_kernel[(sm_in.shape[0],)](sm_out, sm_in, sm_in.shape[1], BLOCK=4096)
    at_sum = torch.zeros(1, device=dev)
    atomic_sum_kernel[(triton.cdiv(at_x.numel(), 1024),)](at_x, at_sum, at_x.numel(), BLOCK=1024)
    st_out = torch.empty(st_x.shape[0], device=dev)
    strided_rowsum_kernel[(triton.cdiv(st_x.shape[0], 128),)](st_x, st_out, st_x.shape[0], st_x.shape[1], BLOCK=128)
    f32_c = torch.empty(2048, 2048, device=dev)
    mm_grid = (2048 // 64, 2048 // 64)
    matmul_fp32_ieee_kernel[mm_grid](f32_a, f32_b, f32_c, 2048, 2048, 2048, BM=64, BN=64, BK=32)
    torch.cuda.synchronize()

    for _ in range(reps):
        with nvtx("torch_add_large"):
            big_c = big_a + big_b
        with nvtx("torch_add_small"):
            small_c = small_a + small_b
        with nvtx("torch_matmul_bf16"):
            mm_c = mm_a @ mm_b
        with nvtx("triton_softmax"):
            softmax_kernel[(sm_in.shape[0],)](sm_out, sm_in, sm_in.shape[1], BLOCK=4096)
        with nvtx("triton_atomic_sum"):
            at_sum.zero_()
            atomic_sum_kernel[(triton.cdiv(at_x.numel(), 1024),)](at_x, at_sum, at_x.numel(), BLOCK=1024)
        with nvtx("triton_strided_rowsum"):
            strided_rowsum_kernel[(triton.cdiv(st_x.shape[0], 128),)](st_x, st_out, st_x.shape[0], st_x.shape[1],
                                                                       BLOCK=128)
        with nvtx("triton_matmul_fp32_ieee"):
            matmul_fp32_ieee_kernel[mm_grid](f32_a, f32_b, f32_c, 2048, 2048, 2048, BM=64, BN=64, BK=32)
    torch.cuda.synchronize()

    torch.testing.assert_close(big_c, big_a + big_b)
    torch.testing.assert_close(small_c, small_a + small_b)
    torch.testing.assert_close(sm_out, torch.softmax(sm_in, dim=1), rtol=1e-5, atol=1e-6)
    torch.testing.assert_close(at_sum, at_x.sum().reshape(1), rtol=1e-3, atol=1e-1)
    torch.testing.assert_close(st_out, st_x.sum(dim=1), rtol=1e-4, atol=1e-3)
    torch.testing.assert_close(f32_c, f32_a @ f32_b, rtol=1e-4, atol=1e-3)
    ref = (mm_a[:256].float() @ mm_b.float())
    torch.testing.assert_close(mm_c[:256].float(), ref, rtol=2e-2, atol=5e-1)
    print("ok")


if __name__ == "__main__":
    main()
