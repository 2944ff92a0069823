"""Thirty-ninth held-out diagnosis set: 10 cases of LLM-inference and attention code paths in PyTorch 2.11 (cuBLAS,
FlexAttention compiled once through Inductor/Triton, PyTorch's own index_select, cat, embedding and softmax kernels,
the SDPA flash backend, one hand-written Triton kernel and the copy engines) whose limiter is one an expert would name
from Nsight Compute's full report of the dominant kernel, or from the nsys timeline plus counters for the
program-level cases. Six are kernel-level: a decode-time LM head (64 sequences, hidden 8192, vocabulary 128256, bf16)
by F.linear, the gate projection of a prefill MLP (2048 tokens, 4096 -> 14336) of a model left in fp32, a chunk of
chunked prefill (512 queries, 8 query heads sharing one KV head, against 32768 cached tokens) by flex_attention with a
BlockMask, the gather of 32 sequences' pages (512 pages of 16 tokens each) out of a paged fp8 KV cache stored as uint8,
by index_select, a prefill fused QKV projection (8192 tokens, 4096 -> 6144, bf16) by F.linear, and a hand-written
Triton GQA decode attention (16 sequences, 32 query heads over 4 KV heads, 16384 cached tokens). Four are
program-level: greedy decoding of a small bf16 model for 32 steps with an EOS check and incremental detokenisation on
the host after every step, an EAGLE-style draft head (6 residual MLP blocks, hidden 768, batch 1) drafting 16 tokens,
64 decode steps of one attention layer whose KV cache grows by torch.cat (batch 32, 32 heads, 512 cached tokens), and
6 decode steps that return the full fp32 log-probabilities (64 x 128256) to the CPU each step. Labels come from Nsight
Compute's full report (and the nsys timeline for the program-level cases) alone; the designer's intent is in
diag_holdout39_design.md. Each case runs REPS times in an NVTX range named after it; a case whose feature
(FlexAttention, Triton, the SDPA backend selector) is missing in this build, or whose set-up, compilation or warm-up
fails, is skipped with a message. Without a CUDA device the script says so and exits 0.

    python3 diag_holdout39.py [reps] [nocheck]

Warmed up outside the ranges, once: FlexAttention's compilation (torch.compile with mode left default, one call with
the case's own tensors and BlockMask, which is built on the CPU and moved to the device), the Triton kernel's
compilation (one call on the case's tensors), and one call of every other case (cuBLAS handles and heuristics, lazy
module loading, the caching allocator's first segments). No CUDA graphs, no max-autotune, no nested ranges. The
kernel-level cases come first.
"""
import random

import torch
import torch.nn.functional as F

from holdout_cases import arguments, run_and_check

try:
    import triton
    import triton.language as tl
except ImportError:
    triton = None

try:
    from torch.nn.attention.flex_attention import create_block_mask, flex_attention
except ImportError:
    create_block_mask = flex_attention = None

try:
    from torch.nn.attention import SDPBackend, sdpa_kernel
except ImportError:
    SDPBackend = sdpa_kernel = None

# decode LM head (bf16): 64 sequences x 8192 hidden -> 128256 logits; also the weight of the log-prob loop below
LH_SEQS, LH_DIM, LH_VOCAB = 64, 8192, 128256
# prefill MLP gate projection of a model left in fp32
FP_TOKENS, FP_DIM, FP_FFN = 2048, 4096, 14336
# chunked prefill by flex_attention: one 512-token chunk of one sequence against a 32768-token cached prefix
FX_HQ, FX_HKV, FX_D, FX_CHUNK, FX_PREFIX = 8, 1, 128, 512, 32768
# paged fp8 KV cache held as uint8: 32768 pages of 16 tokens x 8 KV heads x 128; 32 sequences of 512 pages each
PG_PAGES, PG_PAGE, PG_HKV, PG_D, PG_SEQS, PG_MAXP = 32768, 16, 8, 128, 32, 512
# prefill fused QKV projection (GQA: 32 query heads + 2 x 8 KV heads of 128 -> 6144 outputs)
QKV_TOKENS, QKV_DIM, QKV_OUT = 8192, 4096, 6144
# hand-written Triton GQA decode attention
GQ_B, GQ_HQ, GQ_HKV, GQ_T, GQ_D, GQ_BLOCK_N, GQ_WARPS = 16, 32, 4, 16384, 128, 32, 4
# greedy decoding with a stop check and detokenisation on the host
GD_STEPS, GD_DIM, GD_FFN, GD_LAYERS, GD_VOCAB, GD_PROMPT, GD_EOS = 32, 4096, 11008, 2, 32000, 3072, 2
GD_STOPS = ("</s>", "\n\nUser:", "<|eot_id|>")
# EAGLE-style draft head
DR_TOKENS, DR_DIM, DR_FFN, DR_LAYERS, DR_VOCAB, DR_TOK0 = 16, 768, 2048, 6, 16384, 1234
# KV cache grown by torch.cat, one attention layer (MHA, Llama-2-7B-like heads)
KC_STEPS, KC_B, KC_H, KC_T0, KC_D = 64, 32, 32, 512, 128
# full log-probabilities to the host each step (shares the LM head of the first case)
LP_STEPS = 6

if triton is not None:

    @triton.jit
    def gqa_decode_kernel(q_ptr, k_ptr, v_ptr, o_ptr, seq_len, sm_scale,
                          stride_qb, stride_qh, stride_kb, stride_kh, stride_kt, stride_ob, stride_oh,
                          GROUP: tl.constexpr, HEAD_DIM: tl.constexpr, BLOCK_N: tl.constexpr):
        """One decode query per (query head, sequence): program (h, b) streams its KV head h // GROUP of sequence b
        BLOCK_N tokens at a time with an online softmax (fp32 math, bf16 in and out). seq_len is a multiple of
        BLOCK_N."""
        h = tl.program_id(0)
        b = tl.program_id(1)
        kvh = h // GROUP
        offs_d = tl.arange(0, HEAD_DIM)
        offs_n = tl.arange(0, BLOCK_N)
        q = tl.load(q_ptr + b * stride_qb + h * stride_qh + offs_d).to(tl.float32) * sm_scale
        kv_base = b.to(tl.int64) * stride_kb + kvh.to(tl.int64) * stride_kh
        k_ptrs = k_ptr + kv_base + offs_n[:, None] * stride_kt + offs_d[None, :]
        v_ptrs = v_ptr + kv_base + offs_n[:, None] * stride_kt + offs_d[None, :]
        m_i = tl.max(tl.full([BLOCK_N], float("-inf"), tl.float32), axis=0)
        l_i = tl.sum(tl.zeros([BLOCK_N], tl.float32), axis=0)
        acc = tl.zeros([HEAD_DIM], tl.float32)
        for start in range(0, seq_len, BLOCK_N):  # noqa: B007 - the pointers advance instead
            k = tl.load(k_ptrs).to(tl.float32)
            s = tl.sum(k * q[None, :], axis=1)
            m_new = tl.maximum(m_i, tl.max(s, axis=0))
            alpha = tl.exp(m_i - m_new)
            p = tl.exp(s - m_new)
            l_i = l_i * alpha + tl.sum(p, axis=0)
            v = tl.load(v_ptrs).to(tl.float32)
            acc = acc * alpha + tl.sum(p[:, None] * v, axis=0)
            m_i = m_new
            k_ptrs += BLOCK_N * stride_kt
            v_ptrs += BLOCK_N * stride_kt
        tl.store(o_ptr + b * stride_ob + h * stride_oh + offs_d, (acc / l_i).to(tl.bfloat16))


def triton_gqa_decode(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, out: torch.Tensor) -> torch.Tensor:
    """Decode attention of q (batch, query heads, D) over a contiguous KV cache k, v (batch, KV heads, T, D), bf16."""
    if triton is None:
        raise RuntimeError("triton is not installed")
    b, hq, d = q.shape
    _, hkv, t, _ = k.shape
    assert q.is_contiguous() and k.is_contiguous() and v.is_contiguous() and out.is_contiguous()
    assert k.shape == v.shape and hq % hkv == 0 and t % GQ_BLOCK_N == 0 and out.shape == q.shape
    gqa_decode_kernel[(hq, b)](q, k, v, out, t, 1.0 / d ** 0.5,
                               q.stride(0), q.stride(1), k.stride(0), k.stride(1), k.stride(2),
                               out.stride(0), out.stride(1),
                               GROUP=hq // hkv, HEAD_DIM=d, BLOCK_N=GQ_BLOCK_N, num_warps=GQ_WARPS)
    return out


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


def safe_checks(checks):
    """Each check, with a failure to run reported and counted as a mismatch instead of ending the program."""
    def wrap(name, right):
        def run(r):
            try:
                return bool(right(r))
            except Exception as e:  # noqa: BLE001 - a check that cannot run is a mismatch, not a crash
                print(f"{name}: check could not run ({type(e).__name__}: {str(e)[:120]})", flush=True)
                return False
        return run
    return {name: wrap(name, right) for name, right in checks.items()}


def close(r, ref, atol, rtol=2e-2):
    return torch.allclose(r.float(), ref.float(), atol=atol, rtol=rtol)


def near(r, ref, frac):
    """Whether r is within frac of ref's largest magnitude everywhere (for results rounded to 16-bit floats)."""
    ref = ref.double()
    return r.shape == ref.shape and float((r.double() - ref).abs().max()) <= frac * float(ref.abs().max()) + 1e-6


def dev_normal(shape, dev, dtype, std=1.0):
    """A large random tensor drawn on the device directly in its dtype (one RNG launch, no conversion pass)."""
    return torch.empty(shape, device=dev, dtype=dtype).normal_(0.0, std)


def host_normal(shape, gen, dtype, dev, std=1.0):
    """A small random tensor drawn and converted on the host, then copied (no kernel on the device)."""
    return (std * torch.randn(shape, generator=gen)).to(dtype).to(dev)


# ----------------------------------------------------------------------------------------------------------------
# program-level helpers


def make_pieces(n, seed):
    """A synthetic byte-level vocabulary: lower-case word pieces, some with a leading space (no '<', no newline)."""
    rng = random.Random(seed)
    letters = "abcdefghijklmnopqrstuvwxyz"
    pieces = []
    for i in range(n):
        word = "".join(rng.choice(letters) for _ in range(rng.randint(1, 7)))
        pieces.append(((" " if i % 3 == 0 else "") + word).encode())
    return pieces


def detokenize(ids, pieces):
    return b"".join([pieces[i] for i in ids]).decode("utf-8", errors="replace")


def mlp_stack(h, blocks):
    """Residual bias-free MLP blocks, h + W_down silu(W_up h)."""
    for w_up, w_down in blocks:
        h = h + F.linear(F.silu(F.linear(h, w_up)), w_down)
    return h


def target_step(tok, emb, blocks, lm):
    """One greedy decode step of the small target model for one sequence: the next token, on the device."""
    return F.linear(mlp_stack(F.embedding(tok, emb), blocks), lm).argmax(-1)


def greedy_decode_host_stop(tok, emb, blocks, lm, prompt_ids, pieces, steps):
    """Greedy decoding with the usual host-side loop: after every step the token is read back, appended to the id
    list, the text is re-detokenised (whole sequence, and all but the last token to find the new piece to stream)
    and EOS and the stop strings are checked."""
    ids = list(prompt_ids)
    streamed = []
    for _ in range(steps):
        tok = target_step(tok, emb, blocks, lm)
        t = tok.item()
        ids.append(t)
        text = detokenize(ids, pieces)
        streamed.append(text[len(detokenize(ids[:-1], pieces)):])
        if t == GD_EOS or any(s in text[-64:] for s in GD_STOPS):
            break
    return ids[len(prompt_ids):], "".join(streamed)


def draft_tokens(tok, feat, emb, blocks, lm, n):
    """EAGLE-style drafting for one sequence: the next feature is an MLP of (previous feature + token embedding), the
    next draft token its greedy choice over the draft vocabulary; n tokens, all on the device."""
    toks = []
    for _ in range(n):
        feat = mlp_stack(F.embedding(tok, emb) + feat, blocks)
        tok = F.linear(feat, lm).argmax(-1)
        toks.append(tok)
    return toks


def cat_cache_decode(k0, v0, q_steps, k_steps, v_steps):
    """Decode steps of one attention layer with a DynamicCache-style KV cache: each step's key and value are appended
    by torch.cat along the sequence axis, then the step's query attends over the whole cache (SDPA, flash backend)."""
    k, v, o = k0, v0, None
    with sdpa_kernel(SDPBackend.FLASH_ATTENTION):
        for s in range(q_steps.shape[0]):
            k = torch.cat([k, k_steps[s]], dim=2)
            v = torch.cat([v, v_steps[s]], dim=2)
            o = F.scaled_dot_product_attention(q_steps[s], k, v)
    return o, k, v


def logprobs_to_host(tok, emb, lm, n):
    """Decode steps of a serving loop that returns full log-probabilities: embedding, LM head, fp32 log_softmax,
    greedy next token on the device, and the (sequences x vocabulary) fp32 log-probabilities copied to the CPU."""
    host = []
    for _ in range(n):
        logp = torch.log_softmax(F.linear(F.embedding(tok, emb), lm).float(), dim=-1)
        tok = logp.argmax(-1)
        host.append(logp.cpu())
    return host, tok


def reference_first_token(tok0, emb, blocks, lm, feat=None):
    """float64 logits of the first step (target model, or draft head when feat is given) for one sequence."""
    h = emb[tok0].double()
    if feat is not None:
        h = h + feat.double()
    for w_up, w_down in blocks:
        h = h + F.silu(h @ w_up.double().t()) @ w_down.double().t()
    return (h @ lm.double().t()).reshape(-1)


def main() -> None:
    reps, check, dev, bf = arguments()
    if not torch.cuda.is_available():
        print("diag_holdout39: no CUDA device is available; nothing to run", flush=True)
        return
    run_all(reps, check, dev, bf)


def run_all(reps, check, dev, bf) -> None:
    ready = {}
    gen = torch.Generator().manual_seed(39)

    def setup(name, fn):
        """Runs a case's set-up; a failure marks the case as not ready instead of ending the program."""
        try:
            return fn()
        except Exception as e:  # noqa: BLE001 - a set-up failure means that case is skipped
            print(f"{name}: set-up failed ({type(e).__name__}: {str(e)[:120]})", flush=True)
            ready[name] = False
            return None

    n_lm = "decode_lm_head_linear_bf16_64seq_8192_to_128256"
    n_fp = "prefill_mlp_gate_proj_linear_fp32_2048tok_4096_to_14336"
    n_fx = "flex_attention_chunked_prefill_q512_kv33280_8qh_1kvh_bf16"
    n_pg = "paged_fp8_kv_cache_index_select_32seq_x_512pages_u8"
    n_qkv = "prefill_fused_qkv_proj_linear_bf16_8192tok_4096_to_6144"
    n_gq = "triton_gqa_decode_attention_16seq_32qh_4kvh_ctx16384_bf16"
    n_gd = "greedy_decode_stop_check_detok_32_steps_2x4096d_vocab32000"
    n_dr = "eagle_style_draft_head_16_tokens_6x768d_batch1"
    n_kc = "kv_cache_cat_append_decode_64_steps_b32_h32_ctx512"
    n_lp = "decode_full_logprobs_to_cpu_6_steps_64seq_vocab128256"

    # decode_lm_head_linear_bf16_64seq_8192_to_128256: the output projection of a 128k-vocabulary model with hidden
    # 8192 for one decode step of 64 sequences (bf16 weight, 2.1 GB, no bias)
    lm_w = dev_normal((LH_VOCAB, LH_DIM), dev, bf, LH_DIM ** -0.5)
    lm_h = dev_normal((LH_SEQS, LH_DIM), dev, bf)
    # prefill_mlp_gate_proj_linear_fp32_2048tok_4096_to_14336: the gate projection of a Llama-style MLP for a
    # 2048-token prefill, with the checkpoint loaded in its stored fp32 (no torch_dtype given)
    fp_x = dev_normal((FP_TOKENS, FP_DIM), dev, torch.float32)
    fp_w = dev_normal((FP_FFN, FP_DIM), dev, torch.float32, FP_DIM ** -0.5)
    # flex_attention_chunked_prefill_q512_kv33280_8qh_1kvh_bf16: one 512-token chunk of a chunked prefill for a
    # single sequence whose first 32768 tokens are already cached; a tensor-parallel shard's 8 query heads share
    # one KV head (enable_gqa); BlockMask = causal with the chunk's offset, built once
    fx_q = dev_normal((1, FX_HQ, FX_CHUNK, FX_D), dev, bf)
    fx_k = dev_normal((1, FX_HKV, FX_PREFIX + FX_CHUNK, FX_D), dev, bf)
    fx_v = dev_normal((1, FX_HKV, FX_PREFIX + FX_CHUNK, FX_D), dev, bf)

    def make_flex():
        if flex_attention is None or create_block_mask is None:
            raise RuntimeError("torch.nn.attention.flex_attention is missing in this build")
        prefix = FX_PREFIX

        def chunk_causal(b, h, q_idx, kv_idx):
            return kv_idx <= q_idx + prefix

        bm = create_block_mask(chunk_causal, None, None, FX_CHUNK, FX_PREFIX + FX_CHUNK, device="cpu")
        return torch.compile(flex_attention), bm.to(dev)

    fx = setup(n_fx, make_flex)
    # paged_fp8_kv_cache_index_select_32seq_x_512pages_u8: gathering the pages of 32 sequences (512 pages of 16
    # tokens, 8192 tokens each) out of a paged fp8 KV cache that is stored as uint8 (32768 pages x 16 x 8 heads x
    # 128, 512 MiB each for K and V), to run a dense attention over contiguous per-sequence K and V
    pg_k = torch.randint(0, 256, (PG_PAGES, PG_PAGE, PG_HKV, PG_D), device=dev, dtype=torch.uint8)
    pg_v = torch.randint(0, 256, (PG_PAGES, PG_PAGE, PG_HKV, PG_D), device=dev, dtype=torch.uint8)
    pg_table = torch.randperm(PG_PAGES, generator=gen)[:PG_SEQS * PG_MAXP].view(PG_SEQS, PG_MAXP).to(dev)
    # prefill_fused_qkv_proj_linear_bf16_8192tok_4096_to_6144: the fused Q/K/V projection of a GQA model (32 query
    # heads and 8 KV heads of 128) for a prefill batch of 8192 tokens, bf16
    qkv_x = dev_normal((QKV_TOKENS, QKV_DIM), dev, bf)
    qkv_w = dev_normal((QKV_OUT, QKV_DIM), dev, bf, QKV_DIM ** -0.5)
    # triton_gqa_decode_attention_16seq_32qh_4kvh_ctx16384_bf16: one decode step of attention for 16 sequences with
    # 16384 cached tokens each, 32 query heads over 4 KV heads (groups of 8), by a hand-written Triton kernel
    gq_q = host_normal((GQ_B, GQ_HQ, GQ_D), gen, bf, dev)
    gq_k = dev_normal((GQ_B, GQ_HKV, GQ_T, GQ_D), dev, bf)
    gq_v = dev_normal((GQ_B, GQ_HKV, GQ_T, GQ_D), dev, bf)
    gq_out = torch.empty_like(gq_q)
    # greedy_decode_stop_check_detok_32_steps_2x4096d_vocab32000: greedy decoding of one sequence for 32 new tokens
    # by a small bf16 model (embedding, 2 residual MLP blocks 4096 -> 11008 -> 4096, LM head to 32000), with EOS,
    # stop strings and streaming detokenisation handled on the host after every step (3072-token prompt)
    gd_emb = dev_normal((GD_VOCAB, GD_DIM), dev, bf)
    gd_blocks = [(dev_normal((GD_FFN, GD_DIM), dev, bf, GD_DIM ** -0.5),
                  dev_normal((GD_DIM, GD_FFN), dev, bf, 0.5 * GD_FFN ** -0.5)) for _ in range(GD_LAYERS)]
    gd_lm = dev_normal((GD_VOCAB, GD_DIM), dev, bf, GD_DIM ** -0.5)
    gd_lm[GD_EOS].copy_(torch.zeros(GD_DIM, dtype=bf))  # EOS never wins: fixed step count (a copy, no kernel)
    gd_pieces = make_pieces(GD_VOCAB, 39)
    gd_prompt = torch.randint(3, GD_VOCAB, (GD_PROMPT,), generator=gen).tolist()
    gd_tok0 = torch.tensor([gd_prompt[-1]]).to(dev)
    # eagle_style_draft_head_16_tokens_6x768d_batch1: an EAGLE-style draft head (token embedding + feature, 6
    # residual MLP blocks 768 -> 2048 -> 768, a 16384-token draft vocabulary) drafting 16 tokens for one sequence
    dr_emb = dev_normal((DR_VOCAB, DR_DIM), dev, bf)
    dr_blocks = [(dev_normal((DR_FFN, DR_DIM), dev, bf, DR_DIM ** -0.5),
                  dev_normal((DR_DIM, DR_FFN), dev, bf, 0.5 * DR_FFN ** -0.5)) for _ in range(DR_LAYERS)]
    dr_lm = dev_normal((DR_VOCAB, DR_DIM), dev, bf, DR_DIM ** -0.5)
    dr_feat = host_normal((1, DR_DIM), gen, bf, dev)
    dr_tok0 = torch.tensor([DR_TOK0]).to(dev)
    # kv_cache_cat_append_decode_64_steps_b32_h32_ctx512: 64 decode steps of one attention layer (32 sequences, 32
    # heads of 128, 512 cached tokens at the start) with the cache grown by torch.cat every step
    kc_k0 = dev_normal((KC_B, KC_H, KC_T0, KC_D), dev, bf)
    kc_v0 = dev_normal((KC_B, KC_H, KC_T0, KC_D), dev, bf)
    kc_q = dev_normal((KC_STEPS, KC_B, KC_H, 1, KC_D), dev, bf)
    kc_knew = dev_normal((KC_STEPS, KC_B, KC_H, 1, KC_D), dev, bf)
    kc_vnew = dev_normal((KC_STEPS, KC_B, KC_H, 1, KC_D), dev, bf)
    # decode_full_logprobs_to_cpu_6_steps_64seq_vocab128256: 6 decode steps of 64 sequences in a serving loop that
    # returns the full fp32 log-probability rows to the client (embedding table 128256 x 8192, the LM head above)
    lp_emb = dev_normal((LH_VOCAB, LH_DIM), dev, bf)
    lp_tok0 = torch.randint(0, LH_VOCAB, (LH_SEQS,), generator=gen).to(dev)
    torch.cuda.synchronize()

    # the cases' bodies
    def lm_head():
        return F.linear(lm_h, lm_w)

    def fp32_gate():
        return F.linear(fp_x, fp_w)

    def flex_chunk():
        compiled, bm = fx
        return compiled(fx_q, fx_k, fx_v, block_mask=bm, enable_gqa=True)

    def paged_gather():
        pages = pg_table.view(-1)
        return pg_k.index_select(0, pages), pg_v.index_select(0, pages)

    def qkv_proj():
        return F.linear(qkv_x, qkv_w)

    def gqa_decode():
        return triton_gqa_decode(gq_q, gq_k, gq_v, gq_out)

    def greedy():
        return greedy_decode_host_stop(gd_tok0, gd_emb, gd_blocks, gd_lm, gd_prompt, gd_pieces, GD_STEPS)

    def draft():
        return draft_tokens(dr_tok0, dr_feat, dr_emb, dr_blocks, dr_lm, DR_TOKENS)

    def cat_decode():
        if sdpa_kernel is None:
            raise RuntimeError("torch.nn.attention.sdpa_kernel is missing in this build")
        return cat_cache_decode(kc_k0, kc_v0, kc_q, kc_knew, kc_vnew)

    def logprobs():
        return logprobs_to_host(lp_tok0, lp_emb, lm_w, LP_STEPS)

    bodies = [(n_lm, lm_head), (n_fp, fp32_gate), (n_fx, flex_chunk), (n_pg, paged_gather), (n_qkv, qkv_proj),
              (n_gq, gqa_decode), (n_gd, greedy), (n_dr, draft), (n_kc, cat_decode), (n_lp, logprobs)]

    # warm-up outside the ranges, once per case: FlexAttention's and the Triton kernel's compilation, and the first
    # call of every library path (cuBLAS handles and heuristics, module loading, allocator segments)
    for name, fn in bodies:
        if ready.get(name) is False:
            continue
        try:
            fn()
            torch.cuda.synchronize()
            ready[name] = True
        except Exception as e:  # noqa: BLE001 - a compile or warm-up failure means that case is skipped
            print(f"{name}: warm-up failed ({type(e).__name__}: {str(e)[:160]})", flush=True)
            ready[name] = False
    torch.cuda.synchronize()

    def gated(name, fn):
        def run():
            if not ready.get(name):
                raise RuntimeError("its feature is missing in this build or its set-up or warm-up failed")
            return fn()
        return guarded(name, run)

    cases = [(name, gated(name, fn)) for name, fn in bodies]

    # checks (run only when `check` is true)
    def lm_head_right(r):
        ok = r.shape == (LH_SEQS, LH_VOCAB) and r.dtype == torch.bfloat16
        for rows, cols in ((slice(0, 2), slice(0, 4096)), (slice(LH_SEQS - 2, LH_SEQS),
                                                            slice(LH_VOCAB - 4096, LH_VOCAB))):
            ref = lm_h[rows].double() @ lm_w[cols].double().t()
            ok = ok and near(r[rows, cols], ref, 0.02)
        return ok

    def fp32_gate_right(r):
        ok = r.shape == (FP_TOKENS, FP_FFN) and r.dtype == torch.float32
        for rows in (slice(0, 2), slice(FP_TOKENS - 2, FP_TOKENS)):
            ref = fp_x[rows].double() @ fp_w.double().t()
            ok = ok and close(r[rows], ref, atol=1e-3, rtol=1e-3)
        return ok

    def flex_right(r):
        ok = r.shape == fx_q.shape and r.dtype == torch.bfloat16
        scale = FX_D ** -0.5
        for h, i in ((0, 0), (FX_HQ - 1, FX_CHUNK - 1), (3, 200)):
            n = FX_PREFIX + i + 1
            kk, vv = fx_k[0, 0, :n].double(), fx_v[0, 0, :n].double()
            p = torch.softmax(kk @ (fx_q[0, h, i].double() * scale), 0)
            ok = ok and near(r[0, h, i], p @ vv, 0.03)
        return ok

    def paged_right(r):
        gk, gv = r
        ok = gk.shape == (PG_SEQS * PG_MAXP, PG_PAGE, PG_HKV, PG_D) and gv.shape == gk.shape
        for s in (0, PG_SEQS - 1):
            rows = slice(s * PG_MAXP, (s + 1) * PG_MAXP)
            ok = ok and torch.equal(gk[rows], pg_k[pg_table[s]]) and torch.equal(gv[rows], pg_v[pg_table[s]])
        return ok

    def qkv_right(r):
        ok = r.shape == (QKV_TOKENS, QKV_OUT) and r.dtype == torch.bfloat16
        for rows in (slice(0, 2), slice(QKV_TOKENS - 2, QKV_TOKENS)):
            ref = qkv_x[rows].double() @ qkv_w.double().t()
            ok = ok and near(r[rows], ref, 0.02)
        return ok

    def gqa_right(r):
        ok = r.shape == (GQ_B, GQ_HQ, GQ_D) and r.dtype == torch.bfloat16
        group = GQ_HQ // GQ_HKV
        for b, h in ((0, 0), (0, 9), (GQ_B - 1, GQ_HQ - 1)):
            kk, vv = gq_k[b, h // group].double(), gq_v[b, h // group].double()
            p = torch.softmax(kk @ (gq_q[b, h].double() * GQ_D ** -0.5), 0)
            ok = ok and near(r[b, h], p @ vv, 0.03)
        return ok

    def greedy_right(r):
        toks, text = r
        ok = len(toks) == GD_STEPS and all(0 <= t < GD_VOCAB and t != GD_EOS for t in toks) and len(text) > 0
        ref = reference_first_token(gd_tok0, gd_emb, gd_blocks, gd_lm)
        ok = ok and toks[0] in ref.topk(5).indices.tolist()
        tok, replay = gd_tok0, []
        for _ in range(4):
            tok = target_step(tok, gd_emb, gd_blocks, gd_lm)
            replay.append(int(tok))
        return ok and replay == toks[:4]

    def draft_right(r):
        toks = [int(t) for t in r]
        ok = len(toks) == DR_TOKENS and all(0 <= t < DR_VOCAB for t in toks)
        ref = reference_first_token(dr_tok0, dr_emb, dr_blocks, dr_lm, feat=dr_feat)
        ok = ok and toks[0] in ref.topk(5).indices.tolist()
        replay = [int(t) for t in draft_tokens(dr_tok0, dr_feat, dr_emb, dr_blocks, dr_lm, 4)]
        return ok and replay == toks[:4]

    def cat_right(r):
        o, k, v = r
        t = KC_T0 + KC_STEPS
        ok = o.shape == (KC_B, KC_H, 1, KC_D) and k.shape == (KC_B, KC_H, t, KC_D) and v.shape == k.shape
        ok = ok and torch.equal(k[:, :, :KC_T0], kc_k0)
        ok = ok and torch.equal(v[:, :, KC_T0:], kc_vnew[:, :, :, 0].permute(1, 2, 0, 3))
        for b, h in ((0, 0), (KC_B - 1, KC_H - 1)):
            p = torch.softmax(k[b, h].double() @ (kc_q[-1, b, h, 0].double() * KC_D ** -0.5), 0)
            ok = ok and near(o[b, h, 0], p @ v[b, h].double(), 0.03)
        return ok

    def logprobs_right(r):
        host, tok = r
        ok = len(host) == LP_STEPS and host[-1].shape == (LH_SEQS, LH_VOCAB) and host[-1].dtype == torch.float32
        for row in (0, LH_SEQS - 1):
            ok = ok and abs(float(torch.logsumexp(host[-1][row].double(), 0))) < 1e-3
        return ok and torch.equal(host[-1].argmax(-1), tok.cpu())

    run_and_check(cases, reps, check, safe_checks({
        n_lm: lm_head_right,
        n_fp: fp32_gate_right,
        n_fx: flex_right,
        n_pg: paged_right,
        n_qkv: qkv_right,
        n_gq: gqa_right,
        n_gd: greedy_right,
        n_dr: draft_right,
        n_kc: cat_right,
        n_lp: logprobs_right,
    }))


if __name__ == "__main__":
    main()
