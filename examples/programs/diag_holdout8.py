"""Eighth held-out diagnosis set: library kernels that already use the tensor cores on Hopper (cuBLAS, flash and cuDNN
attention, FP8 scaled matmul, a Triton matmul), in low precision, and pipelines of library kernels that an expert would
fuse (GEMM then GELU, layer norm then linear, attention with its score matrix in DRAM), plus a loop of tiny launches
each followed by a host synchronisation (for the program-level timeline). None is in the first seven sets. Labels
come from Nsight Compute's full report (and the timeline) alone. Each case runs REPS times in an NVTX range named
after it; a case whose operator or backend is missing in this PyTorch build is skipped with a message.

    python3 diag_holdout8.py [reps] [nocheck]
"""
import math

import torch
import torch.nn.functional as F

from holdout_cases import arguments, run_and_check

try:
    from torch.nn.attention import SDPBackend, sdpa_kernel
except ImportError:
    SDPBackend = sdpa_kernel = None

try:
    import triton
    import triton.language as tl
except ImportError:
    triton = None

if triton is not None:

    @triton.jit
    def matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
                      BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr):
        """C = A @ B in bf16 with fp32 accumulation; M, N, K multiples of the blocks. Tiles are grouped GROUP_M rows
        at a time so that neighbouring programs share A and B tiles in L2."""
        pid = tl.program_id(0)
        num_pid_m = tl.cdiv(M, BLOCK_M)
        num_pid_n = tl.cdiv(N, BLOCK_N)
        num_pid_in_group = GROUP_M * num_pid_n
        first_pid_m = (pid // num_pid_in_group) * GROUP_M
        group_size_m = min(num_pid_m - first_pid_m, GROUP_M)
        pid_m = first_pid_m + ((pid % num_pid_in_group) % group_size_m)
        pid_n = (pid % num_pid_in_group) // group_size_m
        offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
        offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
        offs_k = tl.arange(0, BLOCK_K)
        a_ptrs = a_ptr + offs_m[:, None] * stride_am + offs_k[None, :] * stride_ak
        b_ptrs = b_ptr + offs_k[:, None] * stride_bk + offs_n[None, :] * stride_bn
        acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
        for _ in range(0, tl.cdiv(K, BLOCK_K)):
            acc = tl.dot(tl.load(a_ptrs), tl.load(b_ptrs), acc)
            a_ptrs += BLOCK_K * stride_ak
            b_ptrs += BLOCK_K * stride_bk
        c_ptrs = c_ptr + offs_m[:, None] * stride_cm + offs_n[None, :] * stride_cn
        tl.store(c_ptrs, acc.to(tl.bfloat16))


def triton_matmul(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    if triton is None:
        raise RuntimeError("triton is not installed")
    (M, K), (_, N) = a.shape, b.shape
    bm, bn, bk = 128, 128, 64
    assert M % bm == 0 and N % bn == 0 and K % bk == 0
    c = torch.empty(M, N, device=a.device, dtype=a.dtype)
    matmul_kernel[((M // bm) * (N // bn),)](a, b, c, M, N, K, a.stride(0), a.stride(1), b.stride(0), b.stride(1),
                                           c.stride(0), c.stride(1), BLOCK_M=bm, BLOCK_N=bn, BLOCK_K=bk, GROUP_M=8,
                                           num_warps=8, num_stages=3)
    return c


def sdpa(q, k, v, backend, required):
    """scaled_dot_product_attention restricted to one backend. When the backend cannot be chosen in this build:
    the default backend if not `required`, else RuntimeError (the case is skipped)."""
    if sdpa_kernel is None or not hasattr(SDPBackend, backend):
        if required:
            raise RuntimeError(f"SDPBackend.{backend} is not available")
        return F.scaled_dot_product_attention(q, k, v, is_causal=False)
    with sdpa_kernel(getattr(SDPBackend, backend)):
        return F.scaled_dot_product_attention(q, k, v, is_causal=False)


def attention_ref(q, k, v, rows=4):
    """Reference for the first `rows` queries of head (0, 0) of (b, h, s, d) or head 0 of (bh, s, d) tensors."""
    while q.dim() > 2:
        q, k, v = q[0], k[0], v[0]
    qf, kf, vf = q[:rows].float(), k.float(), v.float()
    return torch.softmax(qf @ kf.T / math.sqrt(qf.shape[-1]), -1) @ vf


def close(r, ref, atol, rtol=2e-2):
    return torch.allclose(r.float(), ref.float(), atol=atol, rtol=rtol)


def main() -> None:
    reps, check, dev, bf = arguments()
    f8 = getattr(torch, "float8_e4m3fn", None)

    g_a = torch.randn(8192, 8192, device=dev, dtype=bf)
    g_b = torch.randn(8192, 8192, device=dev, dtype=bf)
    lg_x = torch.randn(16384, 4096, device=dev, dtype=bf)
    lg_w = torch.randn(4096, 4096, device=dev, dtype=bf) / 64
    lg_b = torch.randn(4096, device=dev, dtype=bf)
    q, k, v = (torch.randn(8, 32, 4096, 128, device=dev, dtype=bf) for _ in range(3))
    uq, uk, uv = (torch.randn(64, 4096, 128, device=dev, dtype=bf) for _ in range(3))
    uq_scaled = uq * (128 ** -0.5)  # the softmax scale folded into q beforehand
    if f8 is not None:
        f8_a = torch.randn(8192, 8192, device=dev).to(f8)
        f8_b = torch.randn(8192, 8192, device=dev).to(f8).t()  # column-major, as _scaled_mm wants its second operand
    f8_sa = torch.tensor(0.5, device=dev)
    f8_sb = torch.tensor(0.25, device=dev)
    ln_x = torch.randn(16384, 4096, device=dev, dtype=bf)
    ln_g = torch.rand(4096, device=dev, dtype=bf) + 0.5
    ln_b = torch.randn(4096, device=dev, dtype=bf) * 0.1
    ln_w = torch.randn(4096, 4096, device=dev, dtype=bf) / 64
    tiny = torch.zeros(1024, device=dev)
    triton_ok = False
    if triton is not None:
        try:  # compile (and autotune nothing) outside the ranges
            triton_matmul(g_a[:256, :256].contiguous(), g_b[:256, :256].contiguous())
            triton_ok = True
        except Exception as e:  # noqa: BLE001 - any compile failure means the case is skipped
            print(f"triton_matmul_bf16: compile failed ({type(e).__name__}: {str(e)[:120]})", flush=True)
    torch.cuda.synchronize()

    def fp8_mm():
        if f8 is None:
            raise RuntimeError("torch.float8_e4m3fn is not available")
        return torch._scaled_mm(f8_a, f8_b, scale_a=f8_sa, scale_b=f8_sb, out_dtype=bf)

    def triton_mm():
        if not triton_ok:
            raise RuntimeError("the Triton matmul did not compile")
        return triton_matmul(g_a, g_b)

    def attention_unfused():
        s = torch.bmm(uq_scaled, uk.transpose(1, 2))  # bf16 scores, 2 GiB
        p = torch.softmax(s, dim=-1, dtype=torch.float32)  # fp32 probabilities, 4 GiB written, re-read below
        return torch.bmm(p.to(bf), uv)

    def many_tiny_syncs():
        tiny.zero_()
        value = 0.0
        for _ in range(2000):
            tiny.add_(1.0)
            value = tiny[0].item()  # a device-to-host copy: the host waits for the GPU every iteration
        return value

    cases = [
        ("gemm_bf16_cublaslt_8k", lambda: g_a @ g_b),
        ("linear_bf16_bias_gelu_unfused", lambda: F.gelu(F.linear(lg_x, lg_w, lg_b))),
        ("sdpa_flash_bf16", lambda: sdpa(q, k, v, "FLASH_ATTENTION", required=False)),
        ("sdpa_cudnn_bf16", lambda: sdpa(q, k, v, "CUDNN_ATTENTION", required=True)),
        ("attention_unfused_fp32_scores", attention_unfused),
        ("fp8_scaled_mm", fp8_mm),
        ("triton_matmul_bf16", triton_mm),
        ("layernorm_then_linear_bf16", lambda: F.linear(F.layer_norm(ln_x, (4096,), ln_g, ln_b), ln_w)),
        ("many_tiny_syncs", many_tiny_syncs),
    ]
    gemm_ref = lambda: g_a[:4].float() @ g_b[:, :4].float()  # noqa: E731
    run_and_check(cases, reps, check, {
        "gemm_bf16_cublaslt_8k": lambda r: close(r[:4, :4], gemm_ref(), atol=1.0),
        "linear_bf16_bias_gelu_unfused": lambda r: close(
            r[:4], F.gelu(lg_x[:4].float() @ lg_w.float().T + lg_b.float()), atol=5e-2),
        "sdpa_flash_bf16": lambda r: close(r[0, 0, :4], attention_ref(q, k, v), atol=2e-2),
        "sdpa_cudnn_bf16": lambda r: close(r[0, 0, :4], attention_ref(q, k, v), atol=2e-2),
        "attention_unfused_fp32_scores": lambda r: close(r[0, :4], attention_ref(uq, uk, uv), atol=2e-2),
        "fp8_scaled_mm": lambda r: close(r[:4, :4], (f8_a[:4].float() @ f8_b[:, :4].float()) * 0.125, atol=0.5),
        "triton_matmul_bf16": lambda r: close(r[:4, :4], gemm_ref(), atol=1.0),
        "layernorm_then_linear_bf16": lambda r: close(
            r[:4], F.layer_norm(ln_x[:4].float(), (4096,), ln_g.float(), ln_b.float()) @ ln_w.float().T, atol=5e-2),
        "many_tiny_syncs": lambda r: r == 2000.0,
    })


if __name__ == "__main__":
    main()
