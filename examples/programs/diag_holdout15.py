"""Fifteenth held-out diagnosis set: 12 cases, half of them hand-written Triton kernels with one designed bottleneck
each (a bf16 matmul on 32x32x32 tiles, a row softmax that walks each long row three times, a grid-stride cast on a
grid of 16 programs, a transpose that reads columns, a dropout that runs a full Philox generator per element, an RMS
norm of 16384-wide rows in one warp per row), half short PyTorch pipelines whose right fix crosses the kernel
boundary (Llama's eager RMSNorm, dynamic per-tensor FP8 quantisation before torch._scaled_mm, a matmul on a permuted
view, blocking copies from pageable host memory every step, convolution then eval-mode batch norm then ReLU, and
gather-scale-scatter message passing). None of their operators, or not at these shapes and forms, in the earlier
sets. Labels come from Nsight Compute's full report (and the nsys timeline for the pipelines) alone; the designer's
intent is in diag_holdout15_design.md. Each case runs REPS times in an NVTX range named after it; a case whose
feature (Triton, FP8, torch._scaled_mm) is missing in this build is skipped with a message.

    python3 diag_holdout15.py [reps] [nocheck]

No warm-up of a case's kernels at its launch shape outside the ranges (a launch of the same kernel and shape outside
them could be the one a counter run profiles); the Triton kernels are compiled outside the ranges on smaller grids
with the same specialisation, as diag_holdout8.py and diag_holdout11.py do. No torch.compile.
"""
import math

import torch
import torch.nn.functional as F

from holdout_cases import arguments, run_and_check

try:
    import triton
    import triton.language as tl
except ImportError:
    triton = None

if triton is not None:

    @triton.jit
    def matmul_tile32_kernel(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn, stride_cm,
                             stride_cn, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
        """C = A @ B, bf16 in and out, fp32 accumulation; one BLOCK_M x BLOCK_N tile of C per program, programs in
        plain row-major tile order; M, N, K multiples of the blocks."""
        pid_m = tl.program_id(0)
        pid_n = tl.program_id(1)
        offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
        offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
        offs_k = tl.arange(0, BLOCK_K)
        a_ptrs = a_ptr + offs_m[:, None] * stride_am + offs_k[None, :] * stride_ak
        b_ptrs = b_ptr + offs_k[:, None] * stride_bk + offs_n[None, :] * stride_bn
        acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
        for _ in range(0, K, BLOCK_K):
            acc = tl.dot(tl.load(a_ptrs), tl.load(b_ptrs), acc)
            a_ptrs += BLOCK_K * stride_ak
            b_ptrs += BLOCK_K * stride_bk
        c_ptrs = c_ptr + offs_m[:, None] * stride_cm + offs_n[None, :] * stride_cn
        tl.store(c_ptrs, acc.to(tl.bfloat16))

    @triton.jit
    def softmax_3pass_kernel(x_ptr, y_ptr, n_cols, stride, BLOCK: tl.constexpr):
        """y[row] = softmax(x[row]) for rows longer than BLOCK: one program per row, three loops over the row (the
        maximum, the sum of exponentials, the normalised output), each loading the row again from global memory."""
        row = tl.program_id(0).to(tl.int64)
        x_row = x_ptr + row * stride
        y_row = y_ptr + row * stride
        m = tl.full((BLOCK,), float("-inf"), tl.float32)
        for start in range(0, n_cols, BLOCK):
            cols = start + tl.arange(0, BLOCK)
            m = tl.maximum(m, tl.load(x_row + cols, mask=cols < n_cols, other=float("-inf")))
        row_max = tl.max(m, axis=0)
        s = tl.zeros((BLOCK,), dtype=tl.float32)
        for start in range(0, n_cols, BLOCK):
            cols = start + tl.arange(0, BLOCK)
            x = tl.load(x_row + cols, mask=cols < n_cols, other=float("-inf"))
            s += tl.exp(x - row_max)
        inv = 1.0 / tl.sum(s, axis=0)
        for start in range(0, n_cols, BLOCK):
            cols = start + tl.arange(0, BLOCK)
            x = tl.load(x_row + cols, mask=cols < n_cols, other=float("-inf"))
            tl.store(y_row + cols, tl.exp(x - row_max) * inv, mask=cols < n_cols)

    @triton.jit
    def scale_cast_grid_kernel(x_ptr, y_ptr, scale, n, BLOCK: tl.constexpr):
        """y = bf16(x * scale) as a grid-stride loop: program p handles blocks p, p + P, p + 2P, ... of BLOCK
        elements, P the number of programs launched."""
        step = tl.num_programs(0) * BLOCK
        for start in range(tl.program_id(0) * BLOCK, n, step):
            offs = start + tl.arange(0, BLOCK)
            mask = offs < n
            x = tl.load(x_ptr + offs, mask=mask, other=0.0)
            tl.store(y_ptr + offs, (x * scale).to(tl.bfloat16), mask=mask)

    @triton.jit
    def transpose_strided_kernel(x_ptr, y_ptr, R, stride_x, stride_y, BLOCK: tl.constexpr):
        """y = x.T for x of R rows: program (b, c) writes y[c, b*BLOCK:(b+1)*BLOCK] contiguously, reading column c
        of x (neighbouring lanes a whole row of x apart)."""
        c = tl.program_id(1)
        rows = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        mask = rows < R
        v = tl.load(x_ptr + rows * stride_x + c, mask=mask)
        tl.store(y_ptr + c * stride_y + rows, v, mask=mask)

    @triton.jit
    def dropout_rand_kernel(x_ptr, y_ptr, n, p, seed, BLOCK: tl.constexpr):
        """Seeded dropout (the mask is regenerated from seed and offset, never stored): one tl.rand, i.e. one full
        10-round Philox-4x32 evaluation whose other three outputs are thrown away, per element."""
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        mask = offs < n
        x = tl.load(x_ptr + offs, mask=mask, other=0.0).to(tl.float32)
        keep = tl.rand(seed, offs) > p
        y = tl.where(keep, x / (1.0 - p), 0.0)
        tl.store(y_ptr + offs, y.to(tl.bfloat16), mask=mask)

    @triton.jit
    def rmsnorm_row_kernel(x_ptr, w_ptr, y_ptr, n_cols, stride, eps, BLOCK: tl.constexpr):
        """y[row] = x[row] / sqrt(mean(x[row]^2) + eps) * w, the whole row held in the program's registers."""
        row = tl.program_id(0).to(tl.int64)
        cols = tl.arange(0, BLOCK)
        mask = cols < n_cols
        x = tl.load(x_ptr + row * stride + cols, mask=mask, other=0.0).to(tl.float32)
        rstd = 1.0 / tl.sqrt(tl.sum(x * x, axis=0) / n_cols + eps)
        w = tl.load(w_ptr + cols, mask=mask, other=0.0).to(tl.float32)
        tl.store(y_ptr + row * stride + cols, (x * rstd * w).to(tl.bfloat16), mask=mask)


def need_triton():
    if triton is None:
        raise RuntimeError("triton is not installed")


def triton_matmul_tile32(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    """bf16 matmul on 32 x 32 x 32 tiles, 4 warps, 2 stages (a newcomer's first configuration)."""
    need_triton()
    (M, K), (_, N) = a.shape, b.shape
    bm = bn = bk = 32
    assert M % bm == 0 and N % bn == 0 and K % bk == 0
    c = torch.empty(M, N, device=a.device, dtype=torch.bfloat16)
    matmul_tile32_kernel[(M // bm, N // bn)](a, b, c, M, N, K, a.stride(0), a.stride(1), b.stride(0), b.stride(1),
                                             c.stride(0), c.stride(1), BLOCK_M=bm, BLOCK_N=bn, BLOCK_K=bk,
                                             num_warps=4, num_stages=2)
    return c


def triton_softmax_3pass(x: torch.Tensor) -> torch.Tensor:
    need_triton()
    rows, cols = x.shape
    y = torch.empty_like(x)
    softmax_3pass_kernel[(rows,)](x, y, cols, x.stride(0), BLOCK=1024, num_warps=4)
    return y


def triton_scale_cast(x: torch.Tensor, scale: float, programs: int = 16) -> torch.Tensor:
    """A 'persistent' grid-stride kernel whose author fixed the grid at 16 programs."""
    need_triton()
    y = torch.empty(x.shape, device=x.device, dtype=torch.bfloat16)
    scale_cast_grid_kernel[(programs,)](x, y, scale, x.numel(), BLOCK=2048, num_warps=8)
    return y


def triton_transpose(x: torch.Tensor) -> torch.Tensor:
    need_triton()
    R, C = x.shape
    y = torch.empty(C, R, device=x.device, dtype=x.dtype)
    block = 1024
    transpose_strided_kernel[(triton.cdiv(R, block), C)](x, y, R, x.stride(0), y.stride(0), BLOCK=block,
                                                         num_warps=4)
    return y


def triton_dropout(x: torch.Tensor, p: float, seed: int) -> torch.Tensor:
    need_triton()
    y = torch.empty_like(x)
    block = 1024
    dropout_rand_kernel[(triton.cdiv(x.numel(), block),)](x, y, x.numel(), p, seed, BLOCK=block, num_warps=4)
    return y


def triton_rmsnorm_1warp(x: torch.Tensor, w: torch.Tensor, eps: float) -> torch.Tensor:
    """One program of one warp per row, the whole 16384-wide row in registers (512 values per thread)."""
    need_triton()
    rows, cols = x.shape
    y = torch.empty_like(x)
    rmsnorm_row_kernel[(rows,)](x, w, y, cols, x.stride(0), eps, BLOCK=triton.next_power_of_2(cols), num_warps=1)
    return y


def llama_rmsnorm(x: torch.Tensor, w: torch.Tensor, eps: float) -> torch.Tensor:
    """LlamaRMSNorm.forward as the reference implementation writes it, in eager mode."""
    h = x.to(torch.float32)
    variance = h.pow(2).mean(-1, keepdim=True)
    h = h * torch.rsqrt(variance + eps)
    return w * h.to(x.dtype)


def guarded(what, fn):
    """fn, with any failure (a compiler's own exception types included) turned into a RuntimeError, which
    run_cases reports as a skipped case."""
    def run():
        try:
            return fn()
        except RuntimeError:
            raise
        except Exception as e:  # noqa: BLE001 - any failure of an optional feature means the case is skipped
            raise RuntimeError(f"{what}: {type(e).__name__}: {str(e)[:160]}") from e
    return run


def close(r, ref, atol, rtol=2e-2):
    return torch.allclose(r.float(), ref.float(), atol=atol, rtol=rtol)


def rms_ref(x, w, eps):
    xf = x.float()
    return xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + eps) * w.float()


def main() -> None:
    reps, check, dev, bf = arguments()
    half = torch.float16
    cl = torch.channels_last
    f8 = getattr(torch, "float8_e4m3fn", None)
    eps = 1e-6

    # triton_matmul_bf16_tile32: 4096 x 4096 x 4096 bf16 (137 GFLOP), 128 x 128 programs of 32 x 32 tiles
    mm_a = (torch.randn(4096, 4096, device=dev) / 8).to(bf)
    mm_b = (torch.randn(4096, 4096, device=dev) / 8).to(bf)
    # triton_softmax_3pass_f32: 8192 rows of 16384 fp32 (512 MiB in, 512 MiB out; 64 KiB rows read three times)
    sm_x = torch.randn(8192, 16384, device=dev)
    # triton_cast_grid16_f32: 32 M fp32 (128 MiB) -> bf16 (64 MiB) on 16 programs of 8 warps
    sc_x = torch.randn(32 << 20, device=dev)
    sc_scale = 0.125
    # triton_transpose_strided_bf16: 16384 x 8192 bf16 (256 MiB) -> 8192 x 16384
    tr_x = torch.randn(16384, 8192, device=dev, dtype=bf)
    # triton_dropout_rand_per_elem_bf16: 192 M bf16 (384 MiB in, 384 MiB out), p = 0.1
    do_x = torch.randn(3 << 26, device=dev, dtype=bf)
    do_p, do_seed = 0.1, 1234
    # triton_rmsnorm_1warp_16k_bf16: 8192 rows of 16384 bf16 (256 MiB in and out), one 32-thread program per row
    rn_x = torch.randn(8192, 16384, device=dev, dtype=bf)
    rn_w = torch.rand(16384, device=dev, dtype=bf) + 0.5
    # rmsnorm_eager_llama_bf16: 16384 tokens x 4096 hidden bf16 (128 MiB), the fp32 round trips in between
    ll_x = torch.randn(16384, 4096, device=dev, dtype=bf)
    ll_w = torch.rand(4096, device=dev, dtype=bf) + 0.5
    # fp8_dynamic_quant_linear: bf16 activations 16384 x 4096 quantised per call to e4m3 with a per-tensor scale,
    # then 16384 x 4096 x 4096 by a pre-quantised e4m3 weight (0.55 TFLOP), bf16 out
    fq_x = torch.randn(16384, 4096, device=dev, dtype=bf)
    fq_w = torch.randn(4096, 4096, device=dev, dtype=bf) / 64
    fq_w_scale = (fq_w.abs().amax().float() / 448.0).clamp(min=1e-12)
    if f8 is not None:
        fq_wq = (fq_w / fq_w_scale).clamp(-448.0, 448.0).to(f8).t()  # column-major, as _scaled_mm wants it
    # matmul_permuted_view_bf16: x (b 32, s 3072, h 16, d 128) bf16 (384 MiB), each head vector rotated by a shared
    # 128 x 128 matrix after moving the heads to dim 1
    pv_x = torch.randn(32, 3072, 16, 128, device=dev, dtype=bf)
    pv_w = (torch.randn(128, 128, device=dev) / math.sqrt(128)).to(bf)
    # h2d_pageable_per_step: 4 chunks of 1024 x 2048 bf16 (4 MiB each) in ordinary (pageable) host memory, each
    # copied with a blocking .to("cuda") and multiplied by a 2048 x 2048 weight
    hd_chunks = [torch.randn(1024, 2048).to(bf) for _ in range(4)]
    hd_w = (torch.randn(2048, 2048, device=dev) / math.sqrt(2048)).to(bf)
    # conv_bn_relu_eval_fp16_cl: 128 x 64 x 112 x 112 fp16 NHWC, 64 filters 3 x 3 pad 1 (118 GFLOP), eval-mode
    # batch norm with fp32 statistics and affine parameters, then ReLU; 196 MiB per activation tensor
    cb_x = torch.randn(128, 64, 112, 112, device=dev, dtype=half).to(memory_format=cl)
    cb_w = (torch.randn(64, 64, 3, 3, device=dev) / 24).to(half).to(memory_format=cl)
    cb_mean = torch.randn(64, device=dev) * 0.1
    cb_var = torch.rand(64, device=dev) + 0.5
    cb_gamma = torch.rand(64, device=dev) + 0.5
    cb_beta = torch.randn(64, device=dev) * 0.1
    # gnn_message_passing_f32: 131072 nodes x 64 fp32 features (32 MiB), 2 M weighted edges
    gn_x = torch.randn(131072, 64, device=dev)
    gn_src = torch.randint(0, 131072, (1 << 21,), device=dev)
    gn_dst = torch.randint(0, 131072, (1 << 21,), device=dev)
    gn_ew = torch.rand(1 << 21, 1, device=dev)

    compiled = {}  # Triton case name -> whether its kernel compiled
    if triton is not None:
        warmups = [  # compile outside the ranges, on smaller grids (other launch shapes), same specialisation
            ("triton_matmul_bf16_tile32", lambda: triton_matmul_tile32(mm_a[:256], mm_b[:, :256])),
            ("triton_softmax_3pass_f32", lambda: triton_softmax_3pass(sm_x[:64])),
            ("triton_cast_grid16_f32", lambda: triton_scale_cast(sc_x[:1 << 16], sc_scale, programs=2)),
            ("triton_transpose_strided_bf16", lambda: triton_transpose(tr_x[:1024, :64])),
            ("triton_dropout_rand_per_elem_bf16", lambda: triton_dropout(do_x[:1 << 16], do_p, do_seed)),
            ("triton_rmsnorm_1warp_16k_bf16", lambda: triton_rmsnorm_1warp(rn_x[:64], rn_w, eps)),
        ]
        for name, warm in warmups:
            try:
                warm()
                compiled[name] = True
            except Exception as e:  # noqa: BLE001 - any compile failure means that case is skipped
                print(f"{name}: compile failed ({type(e).__name__}: {str(e)[:120]})", flush=True)
    torch.cuda.synchronize()

    def with_triton(name, fn):
        def run():
            if not compiled.get(name):
                raise RuntimeError("triton is not installed or its kernel did not compile")
            return fn()
        return name, guarded("triton", run)

    def fp8_dynamic_quant_linear():
        if f8 is None or not hasattr(torch, "_scaled_mm"):
            raise RuntimeError("torch.float8_e4m3fn or torch._scaled_mm is not available")
        scale = (fq_x.abs().amax().float() / 448.0).clamp(min=1e-12)
        xq = (fq_x / scale).clamp(-448.0, 448.0).to(f8)
        return torch._scaled_mm(xq, fq_wq, scale_a=scale, scale_b=fq_w_scale, out_dtype=bf)

    def h2d_pageable_per_step():
        outs = []
        for chunk in hd_chunks:
            d = chunk.to(dev)  # pageable source: a staged, blocking copy; nothing else runs on the GPU meanwhile
            outs.append(F.linear(d, hd_w))
        return outs

    def conv_bn_relu():
        y = F.conv2d(cb_x, cb_w, padding=1)
        y = F.batch_norm(y, cb_mean, cb_var, cb_gamma, cb_beta, training=False, eps=1e-5)
        return F.relu(y)

    def message_passing():
        msg = gn_x.index_select(0, gn_src) * gn_ew  # 2 M x 64 messages (512 MiB), gathered then scaled
        return torch.zeros_like(gn_x).index_add_(0, gn_dst, msg)

    cases = [
        with_triton("triton_matmul_bf16_tile32", lambda: triton_matmul_tile32(mm_a, mm_b)),
        with_triton("triton_softmax_3pass_f32", lambda: triton_softmax_3pass(sm_x)),
        with_triton("triton_cast_grid16_f32", lambda: triton_scale_cast(sc_x, sc_scale, programs=16)),
        with_triton("triton_transpose_strided_bf16", lambda: triton_transpose(tr_x)),
        with_triton("triton_dropout_rand_per_elem_bf16", lambda: triton_dropout(do_x, do_p, do_seed)),
        with_triton("triton_rmsnorm_1warp_16k_bf16", lambda: triton_rmsnorm_1warp(rn_x, rn_w, eps)),
        ("rmsnorm_eager_llama_bf16", lambda: llama_rmsnorm(ll_x, ll_w, eps)),
        ("fp8_dynamic_quant_linear", guarded("torch._scaled_mm", fp8_dynamic_quant_linear)),
        ("matmul_permuted_view_bf16", lambda: torch.matmul(pv_x.transpose(1, 2), pv_w)),
        ("h2d_pageable_per_step", h2d_pageable_per_step),
        ("conv_bn_relu_eval_fp16_cl", conv_bn_relu),
        ("gnn_message_passing_f32", message_passing),
    ]

    def dropout_right(r):
        x, y = do_x[:1 << 20].float(), r[:1 << 20].float()
        kept = y != 0
        dropped = 1.0 - float(kept.float().mean())
        return abs(dropped - do_p) < 0.01 and close(y[kept], x[kept] / (1.0 - do_p), atol=1e-2)

    def fp8_ref():
        return fq_x[:4].float() @ fq_w[:8].float().T

    def permuted_ref():
        return (pv_x[0, :4, :2].float() @ pv_w.float()).transpose(0, 1)

    def h2d_ref():
        return hd_chunks[-1][:2].to(dev).float() @ hd_w[:4].float().T

    def conv_bn_relu_ref():
        y = F.conv2d(cb_x[:1].float(), cb_w.float(), padding=1)
        return F.relu(F.batch_norm(y, cb_mean, cb_var, cb_gamma, cb_beta, training=False, eps=1e-5))

    def message_ref():
        m = gn_dst < 4
        msg = (gn_x.index_select(0, gn_src[m]) * gn_ew[m]).double()
        return torch.zeros(4, 64, device=dev, dtype=torch.float64).index_add_(0, gn_dst[m], msg)

    run_and_check(cases, reps, check, {
        "triton_matmul_bf16_tile32": lambda r: close(r[:4, :4], mm_a[:4].float() @ mm_b[:, :4].float(), atol=5e-2),
        "triton_softmax_3pass_f32": lambda r: close(r[:4], torch.softmax(sm_x[:4], -1), atol=1e-6, rtol=1e-3)
        and close(r[-4:].sum(-1), torch.ones(4, device=dev), atol=1e-4),
        "triton_cast_grid16_f32": lambda r: close(r[:8], sc_x[:8] * sc_scale, atol=1e-2)
        and close(r[-8:], sc_x[-8:] * sc_scale, atol=1e-2),
        "triton_transpose_strided_bf16": lambda r: torch.equal(r[:4, :8], tr_x[:8, :4].t())
        and torch.equal(r[-4:, -8:], tr_x[-8:, -4:].t()),
        "triton_dropout_rand_per_elem_bf16": dropout_right,
        "triton_rmsnorm_1warp_16k_bf16": lambda r: close(r[:4], rms_ref(rn_x[:4], rn_w, eps), atol=5e-2),
        "rmsnorm_eager_llama_bf16": lambda r: close(r[:4], rms_ref(ll_x[:4], ll_w, eps), atol=5e-2),
        "fp8_dynamic_quant_linear": lambda r: close(r[:4, :8], fp8_ref(), atol=0.25, rtol=5e-2),
        "matmul_permuted_view_bf16": lambda r: close(r[0, :2, :4], permuted_ref(), atol=5e-2),
        "h2d_pageable_per_step": lambda r: close(r[-1][:2, :4], h2d_ref(), atol=5e-2),
        "conv_bn_relu_eval_fp16_cl": lambda r: close(r[:1], conv_bn_relu_ref(), atol=5e-2),
        "gnn_message_passing_f32": lambda r: close(r[:4], message_ref(), atol=1e-4, rtol=1e-4),
    })


if __name__ == "__main__":
    main()
