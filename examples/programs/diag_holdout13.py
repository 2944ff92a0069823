"""Thirteenth held-out diagnosis set: 11 library kernels and short library pipelines nobody here wrote (PyTorch,
cuBLAS/cuBLASLt, cuDNN, CUB, PyTorch's or cuDNN's attention), none of their operators, or not at these shapes,
dtypes and layouts, in the earlier sets: a skinny 16-row GEMM, a batched square fp16 GEMM, a strided transposed
convolution in channels_last bf16, a layer norm over 64-wide rows, a group norm on a channels_last bf16 tensor, a
row-wise integer scan, a top-k with a large k, an embedding backward through autograd, attention with 256-wide
heads, an unfused SwiGLU MLP, and 500 small launches from a Python loop with no host synchronisation. Labels come
from Nsight Compute's full report (and the timeline) alone; the designer's intent is in diag_holdout13_design.md.
Each case runs REPS times in an NVTX range named after it; a case whose operator or backend is missing in this
PyTorch build is skipped with a message.

    python3 diag_holdout13.py [reps] [nocheck]

No warm-up outside the ranges (a launch of the same kernel and shape outside them could be the one a counter run
profiles); the first repetition pays for library heuristics and lazy loading (host time only). No torch.compile.
"""
import math

import torch
import torch.nn.functional as F

from holdout_cases import arguments, run_and_check


def guarded(what, fn):
    """fn, with any failure turned into a RuntimeError, which run_cases reports as a skipped case."""
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


def attention_ref(q, k, v, rows=4):
    """Reference for the first `rows` queries of head (0, 0) of (b, h, s, d) tensors."""
    qf, kf, vf = q[0, 0, :rows].float(), k[0, 0].float(), v[0, 0].float()
    return torch.softmax(qf @ kf.T / math.sqrt(qf.shape[-1]), -1) @ vf


def main() -> None:
    reps, check, dev, bf = arguments()
    half = torch.float16
    cl = torch.channels_last
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    torch.backends.cudnn.benchmark = False

    # linear_m16_bf16: 16 tokens through a 8192 -> 28672 projection (448 MiB of weights read once, 0.8 MiB out)
    sk_x = torch.randn(16, 8192, device=dev, dtype=bf)
    sk_w = (torch.randn(28672, 8192, device=dev) / 90.0).to(bf)
    # bmm_512cube_fp16: 512 independent 512 x 512 x 512 products (137 GFLOP; 768 MiB in and out)
    bm_a = (torch.randn(512, 512, 512, device=dev) / 8.0).to(half)
    bm_b = (torch.randn(512, 512, 512, device=dev) / 8.0).to(half)
    # conv_transpose_s2_bf16_cl: 64x128x64x64 -> 64x64x128x128, 4x4 kernel, stride 2, pad 1, NHWC (69 GFLOP)
    ct_x = torch.randn(64, 128, 64, 64, device=dev, dtype=bf).to(memory_format=cl)
    ct_w = (torch.randn(128, 64, 4, 4, device=dev) / math.sqrt(128 * 4)).to(bf).to(memory_format=cl)
    # layer_norm_d64_bf16: 1 M rows of 64 (128 MiB in, 128 MiB out)
    ln_x = torch.randn(1 << 20, 64, device=dev, dtype=bf)
    ln_g = torch.rand(64, device=dev, dtype=bf) + 0.5
    ln_b = torch.randn(64, device=dev, dtype=bf) * 0.1
    # group_norm_bf16_channels_last: 32x512x64x64 NHWC bf16 (128 MiB), 32 groups, affine
    gn_x = torch.randn(32, 512, 64, 64, device=dev, dtype=bf).to(memory_format=cl)
    gn_w = torch.rand(512, device=dev, dtype=bf) + 0.5
    gn_b = torch.randn(512, device=dev, dtype=bf) * 0.1
    # cumsum_rows_int32: 4096 rows of 16384 int32 (256 MiB in); the default result dtype is int64 (512 MiB out)
    cs_x = torch.randint(0, 100, (4096, 16384), device=dev, dtype=torch.int32)
    # topk_k1000_bf16: the 1000 largest of each of 16384 rows of 8192 bf16 (256 MiB), sorted
    tk_x = torch.randn(16384, 8192, device=dev, dtype=bf)
    # embedding_bwd_bf16: dense gradient of a 50304 x 2048 bf16 table from 32768 lookups (128 MiB of output grads)
    eb_w = torch.randn(50304, 2048, device=dev, dtype=bf, requires_grad=True)
    eb_i = torch.randint(0, 50304, (32768,), device=dev)
    eb_g = torch.randn(32768, 2048, device=dev, dtype=bf)
    eb_out = F.embedding(eb_i, eb_w)  # the forward outside the ranges; each case call runs only the backward
    # sdpa_d256_bf16: b 8, h 16, s 2048, d 256, no mask (550 GFLOP), default backend choice
    sd_q, sd_k, sd_v = (torch.randn(8, 16, 2048, 256, device=dev, dtype=bf) for _ in range(3))
    # mlp_swiglu_fp16: 4096 tokens, 4096 -> 2 x 14336 (gate and up in one weight) -> SiLU(gate) * up -> 4096
    ml_x = torch.randn(4096, 4096, device=dev, dtype=half)
    ml_up = (torch.randn(28672, 4096, device=dev) / 64.0).to(half)
    ml_down = (torch.randn(4096, 14336, device=dev) / 120.0).to(half)
    # launch_bound_500_ops: 500 in-place ops on 4096 floats, queued from Python without a host synchronisation
    lb_t = torch.zeros(4096, device=dev)
    torch.cuda.synchronize()

    def embedding_backward():
        return torch.autograd.grad(eb_out, eb_w, eb_g, retain_graph=True)[0]

    def mlp_swiglu():
        h = F.linear(ml_x, ml_up)
        gate, up = h.chunk(2, dim=-1)
        return F.linear(F.silu(gate) * up, ml_down)

    def launch_bound():
        lb_t.zero_()
        for _ in range(250):
            lb_t.mul_(0.5)
            lb_t.add_(1.0)
        return lb_t

    cases = [
        ("linear_m16_bf16", lambda: F.linear(sk_x, sk_w)),
        ("bmm_512cube_fp16", lambda: torch.bmm(bm_a, bm_b)),
        ("conv_transpose_s2_bf16_cl", lambda: F.conv_transpose2d(ct_x, ct_w, stride=2, padding=1)),
        ("layer_norm_d64_bf16", lambda: F.layer_norm(ln_x, (64,), ln_g, ln_b)),
        ("group_norm_bf16_channels_last", lambda: F.group_norm(gn_x, 32, gn_w, gn_b)),
        ("cumsum_rows_int32", lambda: torch.cumsum(cs_x, dim=-1)),
        ("topk_k1000_bf16", lambda: torch.topk(tk_x, 1000, dim=1)),
        ("embedding_bwd_bf16", guarded("embedding backward", embedding_backward)),
        ("sdpa_d256_bf16", guarded("scaled_dot_product_attention",
                                   lambda: F.scaled_dot_product_attention(sd_q, sd_k, sd_v))),
        ("mlp_swiglu_fp16", mlp_swiglu),
        ("launch_bound_500_ops", launch_bound),
    ]

    def mlp_ref():
        h = ml_x[:2].float() @ ml_up.float().T
        return (F.silu(h[:, :14336]) * h[:, 14336:]) @ ml_down.float().T

    def embedding_ref():
        m = eb_i < 4
        return torch.zeros(4, 2048, device=dev, dtype=torch.float64).index_add_(0, eb_i[m], eb_g[m].double())

    def topk_right(r):
        ref = torch.sort(tk_x[:4].float().cpu(), dim=1, descending=True).values[:, :1000]
        return (torch.equal(r.values[:, 0], tk_x.max(dim=1).values)
                and torch.equal(r.values[:4].float().cpu(), ref)
                and torch.equal(tk_x[:4].gather(1, r.indices[:4]), r.values[:4]))

    run_and_check(cases, reps, check, {
        "linear_m16_bf16": lambda r: close(r[:, :4], sk_x.float() @ sk_w[:4].float().T, atol=5e-2),
        "bmm_512cube_fp16": lambda r: close(r[:2], bm_a[:2].float() @ bm_b[:2].float(), atol=2e-2),
        "conv_transpose_s2_bf16_cl": lambda r: close(
            r[:1], F.conv_transpose2d(ct_x[:1].float(), ct_w.float(), stride=2, padding=1), atol=5e-2),
        "layer_norm_d64_bf16": lambda r: close(
            r[:256], F.layer_norm(ln_x[:256].float(), (64,), ln_g.float(), ln_b.float()), atol=5e-2),
        "group_norm_bf16_channels_last": lambda r: close(
            r[:1], F.group_norm(gn_x[:1].float().contiguous(), 32, gn_w.float(), gn_b.float()), atol=5e-2),
        "cumsum_rows_int32": lambda r: torch.equal(r[:, -1], cs_x.sum(dim=-1, dtype=torch.int64))
        and torch.equal(r[:2, :8], cs_x[:2, :8].long().cpu().cumsum(-1).to(dev)),
        "topk_k1000_bf16": topk_right,
        "embedding_bwd_bf16": lambda r: close(r[:4], embedding_ref(), atol=0.1),
        "sdpa_d256_bf16": lambda r: close(r[0, 0, :4], attention_ref(sd_q, sd_k, sd_v), atol=2e-2),
        "mlp_swiglu_fp16": lambda r: close(r[:2], mlp_ref(), atol=5e-2),
        "launch_bound_500_ops": lambda r: abs(float(r[0]) - 2.0) < 1e-3,
    })


if __name__ == "__main__":
    main()
