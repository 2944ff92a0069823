"""Nineteenth held-out diagnosis set: 12 pieces of a PyTorch 2.11 training or inference step, each with one clear
limiter. Four ranges wrap only a backward pass (torch.autograd.grad on a graph whose forward was built outside the
ranges, retain_graph=True so that every repetition replays the same backward): an RMS norm written by hand in bf16, a
ConvNeXt-style 7x7 depthwise convolution on NCHW bf16, attention on the cuDNN backend at a good shape, and a per-element
regression loss (reduction='none') reduced over the valid elements by boolean indexing. Three open nested ranges: two
pre-LN residual MLP blocks run in fp32 (`block0` and `block1`, each with `norm` and `mlp` inside), three linears
carrying an unmerged LoRA adapter (`stage1` ... `stage3`), and three steps of a sampler that draws its noise on the host
(`step0` ... `step2`). Three are library calls whose right first fix is in the call: a SimCLR similarity matrix by a
broadcast F.cosine_similarity, bag sums written as F.embedding(...).sum(1), and nn.MultiheadAttention called with its
default need_weights=True. Two sit at a roof: a 3-D activation times a 2-D weight through torch.matmul in bf16, and an
EMA of a flat fp32 parameter buffer by lerp_. None of their operators, or not at these shapes and forms, in the earlier
sets. Labels come from Nsight Compute's full report (and the nsys timeline for the program-level cases) alone; the
designer's intent is in diag_holdout19_design.md. Each case runs REPS times in an NVTX range named after it; a case
whose feature (torch.nn.attention, the cuDNN attention backend, fp32 matmuls without TF32) is missing in this build or
environment, or whose set-up fails, is skipped with a message.

    python3 diag_holdout19.py [reps] [nocheck]

The backward kernels are launched by autograd's device thread, not by the thread that opened the range. The forward
passes that build those graphs run once, outside the ranges; where a forward kernel is the same kernel at the same
launch shape as one in the backward, that launch outside the range is unavoidable: the hand-written RMS norm's two
broadcast multiplies (x * r and t * w, the same kernels and shapes as the backward's grad * r and grad * w) and the
masked loss's boolean indexing (its nonzero over the same mask, which the backward's index_put repeats). No other
warm-up of a case's kernels at their launch shape; the first repetition pays for library heuristics, lazy module
loading, cuBLAS/cuDNN plan building and the start of autograd's device thread (host time only). No torch.compile.
"""
import math

import torch
import torch.nn as nn
import torch.nn.functional as F

from holdout_cases import arguments, run_and_check

try:
    from torch.nn.attention import SDPBackend, sdpa_kernel
except ImportError:
    SDPBackend = None
    sdpa_kernel = None

RMS_EPS = 1e-6
LORA_RANK, LORA_SCALING = 16, 2.0  # r 16, alpha 32
SAMPLER_STEPS, SAMPLER_STEP, SAMPLER_SIGMA = 3, 0.05, 0.1
EMA_DECAY = 0.999


def nvtx(name):
    return torch.cuda.nvtx.range(name)


def guarded(what, fn):
    """fn, with any failure (a library's own exception types included) turned into a RuntimeError, which run_cases
    reports as a skipped case."""
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


def rel_err(r, ref):
    """Relative error of r against ref in the Frobenius norm."""
    r, ref = r.float(), ref.float()
    return float((r - ref).norm() / ref.norm().clamp_min(1e-30))


def tf32_matmuls_enabled():
    """Whether fp32 matmuls may run on TF32 tensor cores here (PyTorch's default is no)."""
    try:
        return bool(torch.backends.cuda.matmul.allow_tf32)
    except Exception:  # noqa: BLE001 - the legacy flag is gone: ask the newer API
        return torch.get_float32_matmul_precision() != "highest"


def rms_norm_by_hand(x, w):
    """An RMS norm as it is often written in model code, all in the activation dtype."""
    return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + RMS_EPS) * w


def main() -> None:
    reps, check, dev, bf = arguments()
    built = {}  # case name -> the tensors its set-up (outside the ranges) produced

    def build(name, setup):
        try:
            built[name] = setup()
        except Exception as e:  # noqa: BLE001 - a set-up that fails means that case is skipped
            print(f"{name}: set-up failed ({type(e).__name__}: {str(e)[:120]})", flush=True)

    def needs(name):
        state = built.get(name)
        if state is None:
            raise RuntimeError("its set-up failed or its feature is missing in this build")
        return state

    # rmsnorm_by_hand_bwd_bf16: x * rsqrt(mean(x^2, -1) + eps) * w on 32768 tokens x 4096 bf16 (256 MiB), all in bf16
    def setup_rmsnorm():
        x = torch.randn(32768, 4096, device=dev, dtype=bf, requires_grad=True)
        w = (torch.rand(4096, device=dev, dtype=bf) + 0.5).requires_grad_()
        y = rms_norm_by_hand(x, w)
        g = torch.randn(32768, 4096, device=dev, dtype=bf)
        return x, w, y, g

    # dwconv7x7_nchw_bwd_bf16: a ConvNeXt block's depthwise conv, nn.Conv2d(192, 192, 7, padding=3, groups=192) with
    # bias, on 128 x 192 x 28 x 28 bf16 in the default (NCHW, contiguous) layout (37.6 MiB)
    def setup_dwconv():
        x = torch.randn(128, 192, 28, 28, device=dev, dtype=bf, requires_grad=True)
        w = (torch.randn(192, 1, 7, 7, device=dev, dtype=bf) / 7).requires_grad_()
        b = (torch.randn(192, device=dev, dtype=bf) * 0.1).requires_grad_()
        y = F.conv2d(x, w, b, padding=3, groups=192)
        g = torch.randn_like(y)
        return x, w, b, y, g

    # sdpa_cudnn_bwd_bf16: b 8, h 16, s 2048, d 128 bf16 self-attention, no mask, forward on the cuDNN backend
    # (275 GFLOP forward, ~690 GFLOP backward)
    def setup_sdpa_cudnn():
        if sdpa_kernel is None or not hasattr(SDPBackend, "CUDNN_ATTENTION"):
            raise RuntimeError("torch.nn.attention's cuDNN attention backend is not available")
        q, k, v = (torch.randn(8, 16, 2048, 128, device=dev, dtype=bf, requires_grad=True) for _ in range(3))
        with sdpa_kernel(SDPBackend.CUDNN_ATTENTION):
            out = F.scaled_dot_product_attention(q, k, v)
        g = torch.randn_like(out)
        return q, k, v, out, g

    # masked_index_loss_bwd_f32: a per-element smooth-L1 regression loss (reduction='none') over 32 M fp32 outputs
    # (128 MiB; a flattened batch of dense predictions), about 70% of them valid, averaged over the valid ones by
    # boolean indexing: loss[valid].mean()
    def setup_masked_loss():
        n = 1 << 25
        pred = torch.randn(n, device=dev, requires_grad=True)
        tgt = torch.randn(n, device=dev)
        valid = torch.rand(n, device=dev) < 0.7
        loss = F.smooth_l1_loss(pred, tgt, reduction="none")[valid].mean()
        return pred, tgt, valid, loss

    # fp32_mlp_blocks_no_tf32: two pre-LN residual MLP blocks (LayerNorm(1024) -> Linear(1024, 4096) -> GELU ->
    # Linear(4096, 1024) -> + residual) kept in fp32 on 4096 tokens, inference; fp32 matmuls at PyTorch's default
    # precision (no TF32); 69 GFLOP per block
    def setup_fp32_blocks():
        if tf32_matmuls_enabled():
            raise RuntimeError("TF32 is enabled for fp32 matmuls in this environment")
        params = []
        for _ in range(2):
            params.append((torch.rand(1024, device=dev) + 0.5, torch.randn(1024, device=dev) * 0.1,
                           torch.randn(4096, 1024, device=dev) / 32, torch.randn(4096, device=dev) * 0.1,
                           torch.randn(1024, 4096, device=dev) / 64, torch.randn(1024, device=dev) * 0.1))
        x = torch.randn(4096, 1024, device=dev)
        return params, x

    for name, setup in [
        ("rmsnorm_by_hand_bwd_bf16", setup_rmsnorm),
        ("dwconv7x7_nchw_bwd_bf16", setup_dwconv),
        ("sdpa_cudnn_bwd_bf16", setup_sdpa_cudnn),
        ("masked_index_loss_bwd_f32", setup_masked_loss),
        ("fp32_mlp_blocks_no_tf32", setup_fp32_blocks),
    ]:
        build(name, setup)

    # lora_unmerged_stages_bf16: 65536 tokens x 1024 bf16 (128 MiB) through three Linear(1024, 1024) layers (bias),
    # each carrying a rank-16 LoRA adapter (alpha 32) applied as PEFT does at inference without merging:
    # base(x) + lora_B(lora_A(x)) * scaling
    lo_x = torch.randn(65536, 1024, device=dev, dtype=bf)
    lo_params = [(torch.randn(1024, 1024, device=dev, dtype=bf) / 32, torch.randn(1024, device=dev, dtype=bf) * 0.1,
                  torch.randn(LORA_RANK, 1024, device=dev, dtype=bf) / 32,
                  torch.randn(1024, LORA_RANK, device=dev, dtype=bf) / 16) for _ in range(3)]
    # sampler_steps_host_noise_bf16: three steps of a Langevin-style sampler on a 4096 x 4096 bf16 state (32 MiB)
    # whose denoiser stand-in is one bias-free bf16 Linear(4096, 4096) (137 GFLOP per step), each step drawing its
    # noise on the host: torch.randn(x.shape).to(x)
    sp_x = torch.randn(4096, 4096, device=dev, dtype=bf)
    sp_w = torch.randn(4096, 4096, device=dev, dtype=bf) / 64
    # cosine_sim_broadcast_f32: the SimCLR similarity matrix of 2N = 1024 projections of 128 fp32, written as
    # F.cosine_similarity(z.unsqueeze(1), z.unsqueeze(0), dim=-1)
    cs_z = torch.randn(1024, 128, device=dev)
    # embedding_then_sum_f32: 65536 bags of 32 ids each into a 1 M x 128 fp32 table (512 MiB), summed per bag, written
    # as F.embedding(ids, table).sum(1)
    eb_table = torch.randn(1 << 20, 128, device=dev)
    eb_ids = torch.randint(0, 1 << 20, (65536, 32), device=dev)
    # mha_need_weights_default_bf16: nn.MultiheadAttention(1024, 16) in bf16 (batch_first=False), self-attention on
    # 2048 tokens x batch 8 (32 MiB), inference, called as mha(x, x, x) with the default need_weights=True
    mh_attn = nn.MultiheadAttention(1024, 16, device=dev, dtype=bf).eval()
    mh_x = torch.randn(2048, 8, 1024, device=dev, dtype=bf)
    # matmul_3d_weight_bf16: torch.matmul of a 8 x 2048 x 8192 bf16 activation (256 MiB) by an 8192 x 8192 bf16 weight
    # stored (in, out) (128 MiB): M 16384, N 8192, K 8192, 2.2 TFLOP
    mm_x = torch.randn(8, 2048, 8192, device=dev, dtype=bf)
    mm_w = torch.randn(8192, 8192, device=dev, dtype=bf) / 90
    # ema_lerp_flat_f32: an EMA of a flat fp32 parameter buffer of 128 M parameters (512 MiB each), decay 0.999
    em_p = torch.randn(1 << 27, device=dev)
    em_ema = em_p + torch.randn(1 << 27, device=dev) * 0.01
    em_ema0 = em_ema[:4096].clone()
    torch.cuda.synchronize()

    def rmsnorm_bwd():
        x, w, y, g = needs("rmsnorm_by_hand_bwd_bf16")
        return torch.autograd.grad(y, (x, w), g, retain_graph=True)

    def dwconv_bwd():
        x, w, b, y, g = needs("dwconv7x7_nchw_bwd_bf16")
        return torch.autograd.grad(y, (x, w, b), g, retain_graph=True)

    def sdpa_cudnn_bwd():
        q, k, v, out, g = needs("sdpa_cudnn_bwd_bf16")
        return torch.autograd.grad(out, (q, k, v), g, retain_graph=True)

    def masked_loss_bwd():
        pred, _, _, loss = needs("masked_index_loss_bwd_f32")
        return torch.autograd.grad(loss, pred, retain_graph=True)[0]

    def fp32_blocks():
        params, h = needs("fp32_mlp_blocks_no_tf32")
        with torch.no_grad():
            for i, (ln_w, ln_b, w1, b1, w2, b2) in enumerate(params):
                with nvtx(f"block{i}"):
                    with nvtx("norm"):
                        z = F.layer_norm(h, (1024,), ln_w, ln_b)
                    with nvtx("mlp"):
                        h = h + F.linear(F.gelu(F.linear(z, w1, b1)), w2, b2)
        return h

    def lora_stages():
        h = lo_x
        with torch.no_grad():
            for i, (w, b, lora_a, lora_b) in enumerate(lo_params, start=1):
                with nvtx(f"stage{i}"):
                    h = F.linear(h, w, b) + F.linear(F.linear(h, lora_a), lora_b) * LORA_SCALING
        return h

    def sampler_steps():
        x = sp_x
        noises = []
        with torch.no_grad():
            for i in range(SAMPLER_STEPS):
                with nvtx(f"step{i}"):
                    eps = F.linear(x, sp_w)
                    noise = torch.randn(x.shape)  # drawn by the host's generator, then copied over
                    noises.append(noise)
                    x = torch.add(x, eps, alpha=-SAMPLER_STEP).add_(noise.to(x), alpha=SAMPLER_SIGMA)
        return x, noises

    def mha_need_weights():
        with torch.no_grad():
            return mh_attn(mh_x, mh_x, mh_x)

    cases = [
        ("rmsnorm_by_hand_bwd_bf16", rmsnorm_bwd),
        ("dwconv7x7_nchw_bwd_bf16", dwconv_bwd),
        ("sdpa_cudnn_bwd_bf16", guarded("cuDNN attention backward", sdpa_cudnn_bwd)),
        ("masked_index_loss_bwd_f32", masked_loss_bwd),
        ("fp32_mlp_blocks_no_tf32", fp32_blocks),
        ("lora_unmerged_stages_bf16", lora_stages),
        ("sampler_steps_host_noise_bf16", sampler_steps),
        ("cosine_sim_broadcast_f32", lambda: F.cosine_similarity(cs_z.unsqueeze(1), cs_z.unsqueeze(0), dim=-1)),
        ("embedding_then_sum_f32", lambda: F.embedding(eb_ids, eb_table).sum(1)),
        ("mha_need_weights_default_bf16", guarded("nn.MultiheadAttention", mha_need_weights)),
        ("matmul_3d_weight_bf16", lambda: torch.matmul(mm_x, mm_w)),
        ("ema_lerp_flat_f32", lambda: em_ema.lerp_(em_p, 1.0 - EMA_DECAY)),
    ]

    def rmsnorm_right(r):
        x, w, _, g = built["rmsnorm_by_hand_bwd_bf16"]
        xs = x[:4].detach().float().requires_grad_()
        ref_x = torch.autograd.grad(rms_norm_by_hand(xs, w.detach().float()), xs, g[:4].float())[0]
        xf = x.detach().float()
        ref_w = (g.float() * xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + RMS_EPS)).sum(0)
        return rel_err(r[0][:4], ref_x) < 3e-2 and rel_err(r[1], ref_w) < 3e-2

    def dwconv_right(r):
        x, w, b, _, g = built["dwconv7x7_nchw_bwd_bf16"]
        x32, w32, b32 = (t.detach().float().requires_grad_() for t in (x, w, b))
        y32 = F.conv2d(x32, w32, b32, padding=3, groups=192)
        refs = torch.autograd.grad(y32, (x32, w32, b32), g.float())
        return all(rel_err(got, ref) < 2e-2 for got, ref in zip(r, refs))

    def sdpa_cudnn_right(r):
        q, k, v, _, g = built["sdpa_cudnn_bwd_bf16"]
        qs, ks, vs = (t[0, 0].detach().float().requires_grad_() for t in (q, k, v))
        o = torch.softmax(qs @ ks.T / math.sqrt(128), dim=-1) @ vs
        refs = torch.autograd.grad(o, (qs, ks, vs), g[0, 0].float())
        return all(rel_err(got[0, 0], ref) < 3e-2 for got, ref in zip(r, refs))

    def masked_loss_ref():
        pred, tgt, valid, _ = built["masked_index_loss_bwd_f32"]
        d = (pred.detach() - tgt).clamp(-1.0, 1.0)
        return torch.where(valid, d, torch.zeros_like(d)) / valid.sum()

    def fp32_blocks_right(r):
        params, x = built["fp32_mlp_blocks_no_tf32"]
        h = x[:4].double()
        for ln_w, ln_b, w1, b1, w2, b2 in params:
            z = F.layer_norm(h, (1024,), ln_w.double(), ln_b.double())
            h = h + F.linear(F.gelu(F.linear(z, w1.double(), b1.double())), w2.double(), b2.double())
        return rel_err(r[:4], h) < 1e-4

    def lora_right(r):
        h = lo_x[:4].float()
        for w, b, lora_a, lora_b in lo_params:
            h = h @ w.float().T + b.float() + (h @ lora_a.float().T) @ lora_b.float().T * LORA_SCALING
        return rel_err(r[:4], h) < 3e-2

    def sampler_right(r):
        x_out, noises = r
        h = sp_x[:4].float()
        for noise in noises:
            h = h - SAMPLER_STEP * (h @ sp_w.float().T) + SAMPLER_SIGMA * noise[:4].to(dev)
        return rel_err(x_out[:4], h) < 3e-2

    def cosine_ref():
        zn = F.normalize(cs_z, dim=-1)
        return zn[:4] @ zn.T

    def mha_right(r):
        out, weights = r
        with torch.no_grad():
            ref = mh_attn(mh_x, mh_x, mh_x, need_weights=False)[0]
        return rel_err(out[:, :2], ref[:, :2]) < 2e-2 and close(weights[0, :4].sum(-1), torch.ones(4, device=dev),
                                                               atol=2e-2)

    run_and_check(cases, reps, check, {
        "rmsnorm_by_hand_bwd_bf16": rmsnorm_right,
        "dwconv7x7_nchw_bwd_bf16": dwconv_right,
        "sdpa_cudnn_bwd_bf16": sdpa_cudnn_right,
        "masked_index_loss_bwd_f32": lambda r: rel_err(r, masked_loss_ref()) < 1e-4,
        "fp32_mlp_blocks_no_tf32": fp32_blocks_right,
        "lora_unmerged_stages_bf16": lora_right,
        "sampler_steps_host_noise_bf16": sampler_right,
        "cosine_sim_broadcast_f32": lambda r: close(r[:4], cosine_ref(), atol=1e-5, rtol=1e-4),
        "embedding_then_sum_f32": lambda r: close(r[:4], F.embedding_bag(eb_ids[:4], eb_table, mode="sum"),
                                                  atol=1e-4, rtol=1e-4),
        "mha_need_weights_default_bf16": mha_right,
        "matmul_3d_weight_bf16": lambda r: rel_err(r[0, :4], mm_x[0, :4].float() @ mm_w.float()) < 2e-2,
        "ema_lerp_flat_f32": lambda r: close(
            r[:4096], em_p[:4096] + (em_ema0 - em_p[:4096]) * EMA_DECAY ** reps, atol=1e-5, rtol=1e-5),
    })


if __name__ == "__main__":
    main()
