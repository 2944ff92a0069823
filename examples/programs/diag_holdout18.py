"""Eighteenth held-out diagnosis set: 12 cases of PyTorch 2.11 training-step pieces and library calls whose right
first fix is in the call. Eight ranges wrap only a backward pass (torch.autograd.grad on a graph whose forward was
built outside the ranges, retain_graph=True so that every repetition replays the same backward): an adaptive average
pool to 7x7, causal attention given as an explicit boolean mask on the memory-efficient backend, a cross-entropy loss
over a 151936-entry vocabulary, a GeGLU activation on a fused gate/up projection, a batched matmul against a weight
expanded over the batch, a layer norm over (C, H, W) of 64 samples, a dropout, and a four-layer MLP walked layer by
layer with one nested range per layer. Four are forward library calls: a four-layer KV-cache decode step that appends
with torch.cat (one nested range per layer), a gradient-magnitude threshold by torch.kthvalue over a flat vector, a
tied LM head that transposes the embedding table with .t().contiguous(), and a label-smoothed loss built from an int64
one_hot. None of their operators, or not at these shapes and forms, in the earlier sets. Labels come from Nsight
Compute's full report (and the nsys timeline for the program-level cases) alone; the designer's intent is in
diag_holdout18_design.md. Each case runs REPS times in an NVTX range named after it; a case whose feature
(torch.nn.attention, the memory-efficient attention backend, scaled_dot_product_attention) is missing in this build,
or whose set-up fails, is skipped with a message.

    python3 diag_holdout18.py [reps] [nocheck]

The backward kernels are launched by autograd's device thread, not by the thread that opened the range (the nested
`layerN` ranges of the MLP case are opened by the main thread around each torch.autograd.grad call). The forward
passes that build the graphs run once, outside the ranges; where a forward kernel is the same kernel at the same
launch shape as one in the backward that launch outside the range is unavoidable: the GeGLU forward multiply (gelu(gate)
* up, the same kernel and shape as the backward's grad * up), the expanded-weight bmm (the same cuBLAS shape as the
backward's grad @ W^T, other transpose), and the MLP's forward GEMMs, whose (M, N, K) equal two of the backward's but
with other operand layouts. No other warm-up of a case's kernels at their launch shape; the first repetition pays for
library heuristics, lazy module loading and the start of autograd's device thread (host time only). No torch.compile.
"""
import math

import torch
import torch.nn.functional as F

from holdout_cases import arguments, run_and_check

try:
    from torch.nn.attention import SDPBackend, sdpa_kernel
except ImportError:
    SDPBackend = None
    sdpa_kernel = None

# The MLP case's layers as (out_features, in_features): up, down, up, down (a two-block ReLU MLP of width 4096).
MLP_SHAPES = [(16384, 4096), (4096, 16384), (16384, 4096), (4096, 16384)]


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


def main() -> None:
    reps, check, dev, bf = arguments()
    built = {}  # case name -> the tensors its set-up (the forward pass, outside the ranges) produced

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

    # adaptive_avgpool7_bwd_f32: AdaptiveAvgPool2d((7, 7)) on 64 x 512 x 56 x 56 fp32 NCHW feature maps (392 MiB);
    # 56 = 7 x 8, so every output averages one 8 x 8 window and no two windows overlap
    def setup_adaptive_pool():
        x = torch.randn(64, 512, 56, 56, device=dev, requires_grad=True)
        y = F.adaptive_avg_pool2d(x, (7, 7))
        g = torch.randn(64, 512, 7, 7, device=dev)
        return x, y, g

    # sdpa_causal_mask_bwd_bf16: b 4, h 16, s 2048, d 128 bf16 self-attention whose causality is given as an explicit
    # 2048 x 2048 boolean lower-triangular mask, forward on the memory-efficient backend
    def setup_sdpa_mask():
        if sdpa_kernel is None:
            raise RuntimeError("torch.nn.attention.sdpa_kernel is not available")
        q, k, v = (torch.randn(4, 16, 2048, 128, device=dev, dtype=bf, requires_grad=True) for _ in range(3))
        mask = torch.ones(2048, 2048, device=dev, dtype=torch.bool).tril()
        with sdpa_kernel(SDPBackend.EFFICIENT_ATTENTION):
            out = F.scaled_dot_product_attention(q, k, v, attn_mask=mask)
        g = torch.randn(4, 16, 2048, 128, device=dev, dtype=bf)
        return q, k, v, mask, out, g

    # cross_entropy_bwd_v152k_bf16: F.cross_entropy over 1024 tokens of bf16 logits on a 151936-entry vocabulary
    # (297 MiB; the saved bf16 log-probabilities another 297 MiB), mean reduction
    def setup_cross_entropy():
        logits = (torch.randn(1024, 151936, device=dev, dtype=bf) * 2).requires_grad_()
        tgt = torch.randint(0, 151936, (1024,), device=dev)
        loss = F.cross_entropy(logits, tgt)
        return logits, tgt, loss

    # geglu_bwd_chain_bf16: 16384 tokens, a fused gate/up projection output 16384 x 16384 bf16 (512 MiB) split in two
    # halves of 8192, gelu_tanh(gate) * up; output gradient 16384 x 8192 bf16 (256 MiB)
    def setup_geglu():
        h = torch.randn(16384, 16384, device=dev, dtype=bf, requires_grad=True)
        gate, up = h.chunk(2, dim=-1)
        y = F.gelu(gate, approximate="tanh") * up
        g = torch.randn(16384, 8192, device=dev, dtype=bf)
        return h, y, g

    # bmm_expand_weight_bwd_bf16: 512 samples of 64 tokens x 1024 (64 MiB) through one shared 1024 x 1024 bf16 weight
    # written as torch.bmm(x, w.unsqueeze(0).expand(512, -1, -1))
    def setup_bmm_expand():
        x = torch.randn(512, 64, 1024, device=dev, dtype=bf, requires_grad=True)
        w = (torch.randn(1024, 1024, device=dev, dtype=bf) / 32).requires_grad_()
        y = torch.bmm(x, w.unsqueeze(0).expand(512, -1, -1))
        g = torch.randn(512, 64, 1024, device=dev, dtype=bf)
        return x, w, y, g

    # layer_norm_chw_bwd_bf16: nn.LayerNorm([256, 32, 32]) (per-element affine) on 64 x 256 x 32 x 32 bf16 (32 MiB):
    # 64 rows of 262144
    def setup_layer_norm_chw():
        x = torch.randn(64, 256, 32, 32, device=dev, dtype=bf, requires_grad=True)
        w = (torch.rand(256, 32, 32, device=dev, dtype=bf) + 0.5).requires_grad_()
        b = (torch.randn(256, 32, 32, device=dev, dtype=bf) * 0.1).requires_grad_()
        y = F.layer_norm(x, (256, 32, 32), w, b)
        g = torch.randn(64, 256, 32, 32, device=dev, dtype=bf)
        return x, w, b, y, g

    # dropout_bwd_bf16: F.dropout(p=0.1) in training on 16384 x 8192 bf16 activations (256 MiB; bool mask 128 MiB)
    def setup_dropout():
        x = torch.randn(16384, 8192, device=dev, dtype=bf, requires_grad=True)
        y = F.dropout(x, p=0.1, training=True)
        g = torch.randn(16384, 8192, device=dev, dtype=bf)
        return x, y, g

    # mlp_layerwise_bwd_bf16: 8192 tokens through four bias-free bf16 linears (4096 -> 16384 -> 4096 -> 16384 -> 4096,
    # 128 MiB of weights each) with a ReLU after each; every layer's input is a detached leaf, so the backward can be
    # walked one layer at a time (as a pipeline stage or a checkpointed block does), one nested range per layer
    def setup_mlp():
        ws = [(torch.randn(o, i, device=dev, dtype=bf) / math.sqrt(i)).requires_grad_() for o, i in MLP_SHAPES]
        h = torch.randn(8192, 4096, device=dev, dtype=bf)
        ins, outs = [], []
        for w in ws:
            inp = h.detach().requires_grad_()
            out = F.relu(F.linear(inp, w))
            ins.append(inp)
            outs.append(out)
            h = out
        g = torch.randn(8192, 4096, device=dev, dtype=bf)
        return ws, ins, outs, g

    # kv_cache_cat_decode_bf16: one decode step of four attention layers, b 16, 16 heads, d 128; per layer K and V
    # caches of 4096 past tokens (256 MiB each, 2 GiB in all) and the new token's q, k, v
    def setup_kv_cache():
        caches = [(torch.randn(16, 16, 4096, 128, device=dev, dtype=bf),
                   torch.randn(16, 16, 4096, 128, device=dev, dtype=bf)) for _ in range(4)]
        q = torch.randn(4, 16, 16, 1, 128, device=dev, dtype=bf)
        k_new = torch.randn(4, 16, 16, 1, 128, device=dev, dtype=bf)
        v_new = torch.randn(4, 16, 16, 1, 128, device=dev, dtype=bf)
        return caches, q, k_new, v_new

    for name, setup in [
        ("adaptive_avgpool7_bwd_f32", setup_adaptive_pool),
        ("sdpa_causal_mask_bwd_bf16", setup_sdpa_mask),
        ("cross_entropy_bwd_v152k_bf16", setup_cross_entropy),
        ("geglu_bwd_chain_bf16", setup_geglu),
        ("bmm_expand_weight_bwd_bf16", setup_bmm_expand),
        ("layer_norm_chw_bwd_bf16", setup_layer_norm_chw),
        ("dropout_bwd_bf16", setup_dropout),
        ("mlp_layerwise_bwd_bf16", setup_mlp),
        ("kv_cache_cat_decode_bf16", setup_kv_cache),
    ]:
        build(name, setup)

    # kthvalue_grad_threshold_f32: the 90th percentile of |g| over a flattened 4 M fp32 gradient (16 MiB), the
    # threshold of top-10% gradient sparsification (or magnitude pruning)
    kt_g = torch.randn(1 << 22, device=dev)
    kt_k = (9 * kt_g.numel()) // 10
    # tied_lm_head_t_contiguous_bf16: 256 tokens x 4096 through an LM head tied to a 65536 x 4096 bf16 embedding
    # table (512 MiB), written as h @ E.t().contiguous()
    th_e = torch.randn(65536, 4096, device=dev, dtype=bf) / 64
    th_h = torch.randn(256, 4096, device=dev, dtype=bf)
    # label_smoothing_onehot_i64: 2048 tokens of bf16 logits over a 32000-entry vocabulary (125 MiB), label
    # smoothing 0.1 written by hand from an int64 one-hot target
    ls_logits = torch.randn(2048, 32000, device=dev, dtype=bf) * 2
    ls_tgt = torch.randint(0, 32000, (2048,), device=dev)
    torch.cuda.synchronize()

    def adaptive_pool_bwd():
        x, y, g = needs("adaptive_avgpool7_bwd_f32")
        return torch.autograd.grad(y, x, g, retain_graph=True)[0]

    def sdpa_mask_bwd():
        q, k, v, _, out, g = needs("sdpa_causal_mask_bwd_bf16")
        return torch.autograd.grad(out, (q, k, v), g, retain_graph=True)

    def cross_entropy_bwd():
        logits, _, loss = needs("cross_entropy_bwd_v152k_bf16")
        return torch.autograd.grad(loss, logits, retain_graph=True)[0]

    def geglu_bwd():
        h, y, g = needs("geglu_bwd_chain_bf16")
        return torch.autograd.grad(y, h, g, retain_graph=True)[0]

    def bmm_expand_bwd():
        x, w, y, g = needs("bmm_expand_weight_bwd_bf16")
        return torch.autograd.grad(y, (x, w), g, retain_graph=True)

    def layer_norm_chw_bwd():
        x, w, b, y, g = needs("layer_norm_chw_bwd_bf16")
        return torch.autograd.grad(y, (x, w, b), g, retain_graph=True)

    def dropout_bwd():
        x, y, g = needs("dropout_bwd_bf16")
        return torch.autograd.grad(y, x, g, retain_graph=True)[0]

    def mlp_layerwise_bwd():
        ws, ins, outs, g = needs("mlp_layerwise_bwd_bf16")
        grad_ws = [None] * len(ws)
        for i in reversed(range(len(ws))):
            with torch.cuda.nvtx.range(f"layer{i}"):
                g, grad_ws[i] = torch.autograd.grad(outs[i], (ins[i], ws[i]), g, retain_graph=True)
        return g, grad_ws

    def kv_cache_cat_decode():
        caches, q, k_new, v_new = needs("kv_cache_cat_decode_bf16")
        outs = []
        for i, (k_cache, v_cache) in enumerate(caches):
            with torch.cuda.nvtx.range(f"layer{i}"):
                k = torch.cat([k_cache, k_new[i]], dim=2)
                v = torch.cat([v_cache, v_new[i]], dim=2)
                outs.append(F.scaled_dot_product_attention(q[i], k, v))
        return outs

    def label_smoothing_onehot():
        soft = F.one_hot(ls_tgt, 32000) * 0.9 + 0.1 / 32000
        logp = F.log_softmax(ls_logits, dim=-1)
        return -(soft * logp).sum(dim=-1).mean()

    cases = [
        ("adaptive_avgpool7_bwd_f32", adaptive_pool_bwd),
        ("sdpa_causal_mask_bwd_bf16", guarded("memory-efficient attention backward", sdpa_mask_bwd)),
        ("cross_entropy_bwd_v152k_bf16", cross_entropy_bwd),
        ("geglu_bwd_chain_bf16", geglu_bwd),
        ("bmm_expand_weight_bwd_bf16", bmm_expand_bwd),
        ("layer_norm_chw_bwd_bf16", layer_norm_chw_bwd),
        ("dropout_bwd_bf16", dropout_bwd),
        ("mlp_layerwise_bwd_bf16", mlp_layerwise_bwd),
        ("kv_cache_cat_decode_bf16", guarded("scaled_dot_product_attention", kv_cache_cat_decode)),
        ("kthvalue_grad_threshold_f32", lambda: torch.kthvalue(kt_g.abs(), kt_k)),
        ("tied_lm_head_t_contiguous_bf16", lambda: th_h @ th_e.t().contiguous()),
        ("label_smoothing_onehot_i64", label_smoothing_onehot),
    ]

    def adaptive_pool_ref():
        _, _, g = built["adaptive_avgpool7_bwd_f32"]
        return (g[:2] / 64).repeat_interleave(8, dim=2).repeat_interleave(8, dim=3)

    def sdpa_mask_right(r):
        q, k, v, mask, _, g = built["sdpa_causal_mask_bwd_bf16"]
        qf, kf, vf = (t[0, 0].detach().float().requires_grad_() for t in (q, k, v))
        s = (qf @ kf.T / math.sqrt(128)).masked_fill(~mask, float("-inf"))
        o = torch.softmax(s, dim=-1) @ vf
        refs = torch.autograd.grad(o, (qf, kf, vf), g[0, 0].float())
        return all(rel_err(ri[0, 0], ref) < 3e-2 for ri, ref in zip(r, refs))

    def cross_entropy_ref():
        logits, tgt, _ = built["cross_entropy_bwd_v152k_bf16"]
        p = torch.softmax(logits[:4].detach().float(), dim=-1)
        p[torch.arange(4, device=dev), tgt[:4]] -= 1.0
        return p / 1024

    def geglu_ref():
        h, _, g = built["geglu_bwd_chain_bf16"]
        h2 = h[:2].detach().float().requires_grad_()
        gate, up = h2.chunk(2, dim=-1)
        y = F.gelu(gate, approximate="tanh") * up
        return torch.autograd.grad(y, h2, g[:2].float())[0]

    def bmm_expand_right(r):
        x, w, _, g = built["bmm_expand_weight_bwd_bf16"]
        xs, gs = x.detach().reshape(-1, 1024), g.reshape(-1, 1024)
        ref_w = xs[:, :4].float().T @ gs.float()
        ref_x = g[0].float() @ w.detach().float().T
        return rel_err(r[1][:4], ref_w) < 2e-2 and rel_err(r[0][0], ref_x) < 2e-2

    def layer_norm_chw_right(r):
        x, w, b, _, g = built["layer_norm_chw_bwd_bf16"]
        x0 = x[:1].detach().float().requires_grad_()
        y0 = F.layer_norm(x0, (256, 32, 32), w.detach().float(), b.detach().float())
        ref_x = torch.autograd.grad(y0, x0, g[:1].float())[0]
        return rel_err(r[0][:1], ref_x) < 3e-2 and rel_err(r[2], g.float().sum(0)) < 1e-2

    def dropout_ref():
        _, y, g = built["dropout_bwd_bf16"]
        return g[:4].float() * (y[:4] != 0).float() / 0.9

    def mlp_right(r):
        ws, ins, outs, g = built["mlp_layerwise_bwd_bf16"]
        gx = g[:2].float()
        for i in reversed(range(len(ws))):
            gx = (gx * (outs[i][:2] > 0).float()) @ ws[i].detach().float()
        g3 = g.float() * (outs[3] > 0).float()
        ref_w3 = g3[:, :4].T @ ins[3].detach().float()
        return rel_err(r[0][:2], gx) < 5e-2 and rel_err(r[1][3][:4], ref_w3) < 3e-2

    def kv_cache_right(r):
        caches, q, k_new, v_new = built["kv_cache_cat_decode_bf16"]
        ok = True
        for i in (0, len(caches) - 1):
            k = torch.cat([caches[i][0][0, 0], k_new[i][0, 0]]).float()
            v = torch.cat([caches[i][1][0, 0], v_new[i][0, 0]]).float()
            ref = torch.softmax(k @ q[i][0, 0, 0].float() / math.sqrt(128), dim=-1) @ v
            ok = ok and rel_err(r[i][0, 0, 0], ref) < 2e-2
        return ok

    run_and_check(cases, reps, check, {
        "adaptive_avgpool7_bwd_f32": lambda r: close(r[:2], adaptive_pool_ref(), atol=1e-6, rtol=1e-5),
        "sdpa_causal_mask_bwd_bf16": sdpa_mask_right,
        "cross_entropy_bwd_v152k_bf16": lambda r: rel_err(r[:4], cross_entropy_ref()) < 3e-2,
        "geglu_bwd_chain_bf16": lambda r: rel_err(r[:2], geglu_ref()) < 2e-2,
        "bmm_expand_weight_bwd_bf16": bmm_expand_right,
        "layer_norm_chw_bwd_bf16": layer_norm_chw_right,
        "dropout_bwd_bf16": lambda r: close(r[:4], dropout_ref(), atol=1e-2),
        "mlp_layerwise_bwd_bf16": mlp_right,
        "kv_cache_cat_decode_bf16": kv_cache_right,
        "kthvalue_grad_threshold_f32": lambda r: torch.equal(r.values, torch.sort(kt_g.abs()).values[kt_k - 1]),
        "tied_lm_head_t_contiguous_bf16": lambda r: rel_err(r[:, :8], th_h.float() @ th_e[:8].float().T) < 2e-2,
        "label_smoothing_onehot_i64": lambda r: math.isclose(
            float(r), float(F.cross_entropy(ls_logits.float(), ls_tgt, label_smoothing=0.1)), rel_tol=2e-3),
    })


if __name__ == "__main__":
    main()
