"""Tracer test program for Python: a Triton row softmax and a PyTorch matmul, each in its own NVTX range,
checked against torch. Run under the tracer:
    CUDA_INJECTION64_PATH=.../libkprof_inject.so NVTX_INJECTION64_PATH=/usr/local/cuda/lib64/libcupti.so \
    KPROF_TRACE_FILE=softmax.kptrace python3 triton_softmax.py
"""
import torch
import triton
import triton.language as tl


@triton.jit
def softmax_kernel(out_ptr, in_ptr, in_stride, out_stride, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(in_ptr + row * in_stride + cols, mask=mask, other=-float("inf"))
    x = x - tl.max(x, axis=0)
    num = tl.exp(x)
    tl.store(out_ptr + row * out_stride + cols, num / tl.sum(num, axis=0), mask=mask)


def softmax(x: torch.Tensor) -> torch.Tensor:
    rows, cols = x.shape
    out = torch.empty_like(x)
    softmax_kernel[(rows,)](out, x, x.stride(0), out.stride(0), cols, BLOCK=triton.next_power_of_2(cols))
    return out


def main() -> None:
    torch.manual_seed(0)
    x = torch.randn(4096, 1000, device="cuda") + 0.1
    a = torch.randn(2048, 2048, device="cuda", dtype=torch.bfloat16)
    b = torch.randn(2048, 2048, device="cuda", dtype=torch.bfloat16)
    softmax(x)  # compile outside the ranges
    torch.cuda.synchronize()
    with torch.cuda.nvtx.range("triton_softmax"):
        for _ in range(10):
            y = softmax(x)
    with torch.cuda.nvtx.range("torch_matmul"):
        for _ in range(10):
            c = a @ b
    torch.cuda.synchronize()
    torch.testing.assert_close(y, torch.softmax(x, dim=1), rtol=1e-5, atol=1e-6)
    torch.testing.assert_close(c.float(), a.float() @ b.float(), rtol=2e-2, atol=2e-1)
    print("ok")


if __name__ == "__main__":
    main()
