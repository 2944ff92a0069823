"""Twenty-ninth held-out diagnosis set: 10 cases of PyTorch (two of them hand-written Triton kernels) whose limiter is
one an expert would name from Nsight Compute's full report of the dominant kernel, or from the nsys timeline for the
program-level cases. Six are kernel-level. Three are library calls whose kernel already runs on the tensor cores but
whose call is the problem: a Llama LM head over a vocabulary of 32001 (a pad token added, so the logits' rows are an
odd number of elements apart and cuBLAS cannot use its Hopper kernels), a Stable-Diffusion VAE mid-block attention
through `F.scaled_dot_product_attention` with a single head of 512 (too wide for flash and cuDNN attention, so the
memory-efficient kernel runs with its output accumulated in global memory), and a 3x3 convolution kept in fp32 with
channels_last (cuDNN runs it on TF32 tensor cores, at half the bf16 rate). One is at the DRAM roof with nothing to
gain: an in-place `clamp_` of a 768 MiB flat fp32 gradient buffer. Two are hand-written Triton kernels: MinHash
signatures of 4096 documents with 128 murmur3-mixed hashes per shingle (the integer ALU pipe is the limit), and the
tutorial's 128x256x64 matmul on a shape that makes 144 tiles of one CTA per SM each (132 SMs: a second wave of 12).
Four are program-level: GPT-2's eager `NewGELUActivation` (8 DRAM-bound elementwise kernels where one would do),
label-smoothed targets built densely on the host and copied from pageable memory every step (31 MiB where 64 KiB of
labels would do), CleanRL's generalised-advantage-estimation loop over 16 time steps in Python (~146 tiny operations),
and a greedy decode loop that checks `finished.all()` on the host after every step (a device-to-host round trip that
drains the queue). None of their operators, or not at these shapes and forms, in the earlier sets. Labels come from
Nsight Compute's full report (and the nsys timeline for the program-level cases) alone; the designer's intent is in
diag_holdout29_design.md. Each case runs REPS times in an NVTX range named after it; a case whose feature (Triton,
scaled_dot_product_attention) is missing in this build, or whose set-up or warm-up fails, is skipped with a message.
Without a CUDA device the script says so and exits 0.

    python3 diag_holdout29.py [reps] [nocheck]

Warmed up outside the ranges: the two Triton kernels only (compiled by one launch each with the same specialisation:
the MinHash kernel on the first 16 documents, the matmul on its full operands with a grid of 8 programs). No other
warm-up: the first repetition of the eager cases pays for library heuristics, lazy module loading and first-time
allocations (host time). The clamp updates its buffer in place, so every repetition after the first clamps an
already clamped buffer (the same kernel and the same bytes). No torch.compile, no nested ranges.
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

LM_TOKENS, LM_DIM, LM_VOCAB = 2048, 4096, 32001
VA_BATCH, VA_TOKENS, VA_DIM = 4, 4096, 512
CV_BATCH, CV_CH, CV_HW = 16, 192, 96
CG_N, CG_CLIP = 3 << 26, 1.0
MH_DOCS, MH_SHINGLES, MH_PERM, MH_BLOCK, MH_WARPS = 4096, 2048, 128, 32, 4
MH_MUL1, MH_MUL2 = 0x85EBCA6B, 0xC2B2AE35  # murmur3's fmix32 multipliers (the kernel writes them as int32)
TM_M, TM_N, TM_K = 2304, 2048, 16384
TM_BM, TM_BN, TM_BK, TM_GROUP, TM_WARPS, TM_STAGES = 128, 256, 64, 8, 8, 3
GN_SHAPE = (8192, 16384)
LS_STEPS, LS_BATCH, LS_CLASSES, LS_EPS = 2, 8192, 1000, 0.1
GA_STEPS, GA_ENVS, GA_GAMMA, GA_LAMBDA, GA_DONE_P = 16, 4096, 0.99, 0.95, 0.02
GD_BATCH, GD_DIM, GD_HID, GD_VOCAB, GD_STEPS, GD_EOS, GD_PAD = 128, 2048, 8192, 32000, 3, 2, 0

if triton is not None:

    @triton.jit
    def minhash_kernel(shingle_ptr, seed_ptr, sig_ptr, n_shingles, NUM_PERM: tl.constexpr, BLOCK_S: tl.constexpr):
        """MinHash signature of one document per program: for each of NUM_PERM seeds k, the minimum over the
        document's shingles s (32-bit hashes, int32 bit patterns) of fmix32(s ^ seed_k), murmur3's finaliser
        (xor-shift, multiply, xor-shift, multiply, xor-shift), taken as a signed int32. The shingles are walked
        BLOCK_S at a time with a [BLOCK_S, NUM_PERM] running minimum, reduced once at the end."""
        doc = tl.program_id(0)
        perm = tl.arange(0, NUM_PERM)
        seed = tl.load(seed_ptr + perm)
        acc = tl.full([BLOCK_S, NUM_PERM], 2147483647, tl.int32)
        row_ptr = shingle_ptr + doc * n_shingles
        for start in range(0, n_shingles, BLOCK_S):
            x = tl.load(row_ptr + start + tl.arange(0, BLOCK_S))
            h = x[:, None] ^ seed[None, :]
            h = h ^ ((h >> 16) & 0xFFFF)  # logical shift of the 32-bit pattern
            h = h * -2048144789  # 0x85EBCA6B as int32: the product wraps mod 2^32 like uint32
            h = h ^ ((h >> 13) & 0x7FFFF)
            h = h * -1028477387  # 0xC2B2AE35 as int32
            h = h ^ ((h >> 16) & 0xFFFF)
            acc = tl.minimum(acc, h)
        tl.store(sig_ptr + doc * NUM_PERM + perm, tl.min(acc, axis=0))

    @triton.jit
    def matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
                      BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr):
        """C = A @ B in bf16 with fp32 accumulation, as Triton's matmul tutorial writes it (grouped tile order, one
        BLOCK_M x BLOCK_N tile per program); no masks: M, N and K are multiples of the tiles."""
        pid = tl.program_id(0)
        num_pid_m = tl.cdiv(M, BLOCK_M)
        num_pid_n = tl.cdiv(N, BLOCK_N)
        num_pid_in_group = GROUP_M * num_pid_n
        group_id = pid // num_pid_in_group
        first_pid_m = group_id * GROUP_M
        group_size_m = min(num_pid_m - first_pid_m, GROUP_M)
        pid_m = first_pid_m + ((pid % num_pid_in_group) % group_size_m)
        pid_n = (pid % num_pid_in_group) // group_size_m
        offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
        offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
        offs_k = tl.arange(0, BLOCK_K)
        a_ptrs = a_ptr + (offs_m[:, None] * stride_am + offs_k[None, :] * stride_ak)
        b_ptrs = b_ptr + (offs_k[:, None] * stride_bk + offs_n[None, :] * stride_bn)
        acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
        for _ in range(0, K, BLOCK_K):
            a = tl.load(a_ptrs)
            b = tl.load(b_ptrs)
            acc = tl.dot(a, b, acc)
            a_ptrs += BLOCK_K * stride_ak
            b_ptrs += BLOCK_K * stride_bk
        c_ptrs = c_ptr + (offs_m[:, None] * stride_cm + offs_n[None, :] * stride_cn)
        tl.store(c_ptrs, acc.to(tl.bfloat16))


def triton_minhash(shingles: torch.Tensor, seeds: torch.Tensor) -> torch.Tensor:
    """(docs, MH_PERM) int32 MinHash signatures of contiguous int32 shingle hashes (docs, n), n a multiple of
    MH_BLOCK: one program of MH_WARPS warps per document."""
    if triton is None:
        raise RuntimeError("triton is not installed")
    docs, n = shingles.shape
    assert shingles.is_contiguous() and shingles.dtype == torch.int32 and n % MH_BLOCK == 0
    assert seeds.is_contiguous() and seeds.dtype == torch.int32 and seeds.numel() == MH_PERM
    sig = torch.empty(docs, MH_PERM, device=shingles.device, dtype=torch.int32)
    minhash_kernel[(docs,)](shingles, seeds, sig, n, NUM_PERM=MH_PERM, BLOCK_S=MH_BLOCK, num_warps=MH_WARPS)
    return sig


def triton_matmul(a: torch.Tensor, b: torch.Tensor, programs=None) -> torch.Tensor:
    """a @ b for contiguous bf16 a (M, K) and b (K, N) with the tutorial's first configuration (128 x 256 x 64 tiles,
    8 warps, 3 stages, GROUP_M 8): one program per output tile, or only the first `programs` tiles (warm-up)."""
    if triton is None:
        raise RuntimeError("triton is not installed")
    m, k = a.shape
    k2, n = b.shape
    assert k == k2 and a.dtype == b.dtype == torch.bfloat16 and a.is_contiguous() and b.is_contiguous()
    assert m % TM_BM == 0 and n % TM_BN == 0 and k % TM_BK == 0
    c = torch.empty(m, n, device=a.device, dtype=torch.bfloat16)
    grid = (m // TM_BM) * (n // TM_BN) if programs is None else programs
    matmul_kernel[(grid,)](a, b, c, m, n, k, a.stride(0), a.stride(1), b.stride(0), b.stride(1),
                           c.stride(0), c.stride(1), BLOCK_M=TM_BM, BLOCK_N=TM_BN, BLOCK_K=TM_BK,
                           GROUP_M=TM_GROUP, num_warps=TM_WARPS, num_stages=TM_STAGES)
    return c


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


def mul32(h, c):
    """(h * c) mod 2^32 for int64 tensors h in [0, 2^32) and a constant c < 2^32, without int64 overflow."""
    return (((h & 0xFFFF) * c) + ((((h >> 16) * c) & 0xFFFF) << 16)) & 0xFFFFFFFF


def minhash_reference(shingles_row: torch.Tensor, seeds: torch.Tensor) -> torch.Tensor:
    """minhash_kernel's signature of one document, in int64 arithmetic on the unsigned 32-bit values."""
    x = shingles_row.long() & 0xFFFFFFFF
    s = seeds.long() & 0xFFFFFFFF
    h = x[:, None] ^ s[None, :]
    h = h ^ (h >> 16)
    h = mul32(h, MH_MUL1)
    h = h ^ (h >> 13)
    h = mul32(h, MH_MUL2)
    h = h ^ (h >> 16)
    h = torch.where(h >= (1 << 31), h - (1 << 32), h)  # the kernel's minimum is over signed int32
    return h.min(0).values


def gelu_new(x):
    """GPT-2's GELU as Hugging Face's NewGELUActivation writes it (eager, tanh approximation)."""
    return 0.5 * x * (1.0 + torch.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * torch.pow(x, 3.0))))


def smoothed_targets(labels: torch.Tensor) -> torch.Tensor:
    """Dense label-smoothed targets on the host, as a collate function builds them: eps / C everywhere and
    1 - eps + eps / C at the label."""
    t = torch.full((labels.numel(), LS_CLASSES), LS_EPS / LS_CLASSES)
    t.scatter_(1, labels[:, None], 1.0 - LS_EPS + LS_EPS / LS_CLASSES)
    return t


def main() -> None:
    reps, check, dev, bf = arguments()
    if not torch.cuda.is_available():
        print("diag_holdout29: no CUDA device is available; nothing to run", flush=True)
        return
    gen = torch.Generator().manual_seed(29)  # host-side draws (labels)

    # lm_head_vocab32001_bf16: the LM head of a Llama-2-7B fine-tune whose tokenizer gained a [PAD] token (embeddings
    # resized to 32001): 2048 tokens (4 x 512) x 4096 hidden -> 32001 logits, bf16, no bias
    lm_h = torch.randn(LM_TOKENS, LM_DIM, device=dev, dtype=bf)
    lm_w = torch.randn(LM_VOCAB, LM_DIM, device=dev, dtype=bf) / LM_DIM ** 0.5
    # sdpa_vae_single_head_d512_bf16: the mid-block self-attention of Stable Diffusion's VAE decoder (one head of 512
    # channels) on a 64 x 64 latent (4096 tokens), batch 4, bf16, q/k/v as (B, 1, S, 512)
    va_q, va_k, va_v = (torch.randn(VA_BATCH, 1, VA_TOKENS, VA_DIM, device=dev, dtype=bf) for _ in range(3))
    # conv3x3_f32_channels_last_tf32: a U-Net stage's 3x3 conv, 192 -> 192 channels at 96 x 96, batch 16, kept in fp32
    # (no autocast) but moved to channels_last; PyTorch's default lets cuDNN use TF32
    cv_x = torch.randn(CV_BATCH, CV_CH, CV_HW, CV_HW, device=dev).to(memory_format=torch.channels_last)
    cv_w = (torch.randn(CV_CH, CV_CH, 3, 3, device=dev) / (CV_CH * 9) ** 0.5).to(memory_format=torch.channels_last)
    # flat_grad_clamp_inplace_f32: gradient value clipping to [-1, 1] of a 201 M-parameter model's flat fp32 gradient
    # buffer (768 MiB), in place
    cg_grad = torch.randn(CG_N, device=dev) * 0.75
    cg_head = cg_grad[:4096].clone()
    # triton_minhash_128perm_i32: MinHash signatures (128 hashes) of 4096 documents of 2048 shingles each, the shingles
    # already hashed to 32 bits (int32 bit patterns, 32 MiB) -- near-duplicate detection for a training corpus
    mh_shingles = (torch.randint(0, 1 << 32, (MH_DOCS, MH_SHINGLES), device=dev, dtype=torch.int64)
                   - (1 << 31)).to(torch.int32)
    mh_seeds = (torch.randint(0, 1 << 32, (MH_PERM,), device=dev, dtype=torch.int64) - (1 << 31)).to(torch.int32)
    # triton_matmul_144tiles_k16384_bf16: a down projection, 2304 tokens x 16384 -> 2048, bf16, written with Triton's
    # tutorial kernel and its first configuration (128 x 256 x 64 tiles): 18 x 8 = 144 tiles
    tm_a = torch.randn(TM_M, TM_K, device=dev, dtype=bf)
    tm_b = torch.randn(TM_K, TM_N, device=dev, dtype=bf) / TM_K ** 0.5
    # gelu_new_eager_tanh_bf16: GPT-2's MLP activation (NewGELUActivation, eager) on 8192 tokens x 16384 bf16 (256 MiB)
    gn_x = torch.randn(*GN_SHAPE, device=dev, dtype=bf)
    # label_smoothed_targets_host_built: 2 steps of a classifier's loss on 8192-sample batches over 1000 classes, the
    # label-smoothed (eps 0.1) targets built densely by the collate function on the host (8192 x 1000 fp32, 31 MiB) and
    # moved with .to('cuda') from pageable memory; the logits are the model's fp32 output
    ls_labels = [torch.randint(0, LS_CLASSES, (LS_BATCH,), generator=gen) for _ in range(LS_STEPS)]
    ls_logits = torch.randn(LS_BATCH, LS_CLASSES, device=dev) * 2
    # gae_python_loop_16steps: generalised advantage estimation of a PPO rollout (16 steps x 4096 GPU-simulated
    # environments, fp32), CleanRL's reversed Python loop over the time steps
    ga_rewards = torch.randn(GA_STEPS, GA_ENVS, device=dev)
    ga_values = torch.randn(GA_STEPS, GA_ENVS, device=dev)
    ga_dones = (torch.rand(GA_STEPS, GA_ENVS, device=dev) < GA_DONE_P).float()
    ga_next_value = torch.randn(GA_ENVS, device=dev)
    ga_next_done = (torch.rand(GA_ENVS, device=dev) < GA_DONE_P).float()
    # greedy_decode_eos_check_per_step: 3 greedy decode steps for 128 sequences of a small decoder stand-in
    # (embedding 32000 x 2048, an MLP 2048 -> 8192 -> 2048, LM head 32000 x 2048, bf16) with Hugging Face's stopping
    # logic: pad finished rows, mark rows that emitted EOS, and stop when all are finished -- checked on the host after
    # every step. The EOS row of the head is zero, so its logit (0) never wins and all 3 steps run.
    gd_emb = torch.randn(GD_VOCAB, GD_DIM, device=dev, dtype=bf)
    gd_w1 = torch.randn(GD_HID, GD_DIM, device=dev, dtype=bf) / GD_DIM ** 0.5
    gd_w2 = torch.randn(GD_DIM, GD_HID, device=dev, dtype=bf) / GD_HID ** 0.5
    gd_head = torch.randn(GD_VOCAB, GD_DIM, device=dev, dtype=bf) / GD_DIM ** 0.5
    gd_head[GD_EOS].zero_()
    gd_tok0 = torch.randint(3, GD_VOCAB, (GD_BATCH,), device=dev)

    # warm-ups outside the ranges: the Triton kernels' compilation
    ready = {}
    if triton is not None:
        for name, warm in (("triton_minhash_128perm_i32", lambda: triton_minhash(mh_shingles[:16], mh_seeds)),
                           ("triton_matmul_144tiles_k16384_bf16", lambda: triton_matmul(tm_a, tm_b, programs=8))):
            try:
                warm()
                ready[name] = True
            except Exception as e:  # noqa: BLE001 - any compile failure means that case is skipped
                print(f"{name}: compile failed ({type(e).__name__}: {str(e)[:120]})", flush=True)
    torch.cuda.synchronize()

    def needs(name):
        if not ready.get(name):
            raise RuntimeError("its feature is missing in this build or its set-up or warm-up failed")

    def lm_head():
        return F.linear(lm_h, lm_w)

    def vae_attention():
        return F.scaled_dot_product_attention(va_q, va_k, va_v)

    def conv_f32():
        return F.conv2d(cv_x, cv_w, padding=1)

    def clamp_grads():
        return cg_grad.clamp_(-CG_CLIP, CG_CLIP)

    def minhash():
        needs("triton_minhash_128perm_i32")
        return triton_minhash(mh_shingles, mh_seeds)

    def matmul_144():
        needs("triton_matmul_144tiles_k16384_bf16")
        return triton_matmul(tm_a, tm_b)

    def soft_target_loss():
        losses = []
        for labels in ls_labels:
            t = smoothed_targets(labels).to(dev)
            losses.append(torch.sum(-t * F.log_softmax(ls_logits, dim=-1), dim=-1).mean())
        return torch.stack(losses)

    def gae():
        advantages = torch.zeros_like(ga_rewards)
        lastgaelam = 0
        for t in reversed(range(GA_STEPS)):
            if t == GA_STEPS - 1:
                nextnonterminal = 1.0 - ga_next_done
                nextvalues = ga_next_value
            else:
                nextnonterminal = 1.0 - ga_dones[t + 1]
                nextvalues = ga_values[t + 1]
            delta = ga_rewards[t] + GA_GAMMA * nextvalues * nextnonterminal - ga_values[t]
            advantages[t] = lastgaelam = delta + GA_GAMMA * GA_LAMBDA * nextnonterminal * lastgaelam
        returns = advantages + ga_values
        return advantages, returns

    def greedy_decode():
        tok = gd_tok0
        finished = torch.zeros(GD_BATCH, dtype=torch.bool, device=dev)
        out = []
        for _ in range(GD_STEPS):
            x = F.embedding(tok, gd_emb)
            h = F.linear(F.gelu(F.linear(x, gd_w1)), gd_w2)
            nxt = F.linear(h, gd_head).argmax(dim=-1)
            nxt = nxt.masked_fill(finished, GD_PAD)
            finished |= nxt == GD_EOS
            out.append(nxt)
            tok = nxt
            if bool(finished.all()):  # the stopping check: a device-to-host read every step
                break
        return torch.stack(out, 1)

    cases = [
        ("lm_head_vocab32001_bf16", lm_head),
        ("sdpa_vae_single_head_d512_bf16", guarded("scaled_dot_product_attention", vae_attention)),
        ("conv3x3_f32_channels_last_tf32", conv_f32),
        ("flat_grad_clamp_inplace_f32", clamp_grads),
        ("triton_minhash_128perm_i32", guarded("triton", minhash)),
        ("triton_matmul_144tiles_k16384_bf16", guarded("triton", matmul_144)),
        ("gelu_new_eager_tanh_bf16", lambda: gelu_new(gn_x)),
        ("label_smoothed_targets_host_built", soft_target_loss),
        ("gae_python_loop_16steps", gae),
        ("greedy_decode_eos_check_per_step", greedy_decode),
    ]

    def lm_head_right(r):
        ref = lm_h[:4].float() @ lm_w.float().t()
        return r.shape == (LM_TOKENS, LM_VOCAB) and close(r[:4], ref, atol=3e-2, rtol=3e-2)

    def vae_attention_right(r):
        s = (va_q[0, 0, :8].float() @ va_k[0, 0].float().t()) / math.sqrt(VA_DIM)
        ref = torch.softmax(s, dim=-1) @ va_v[0, 0].float()
        return r.shape == va_q.shape and close(r[0, 0, :8], ref, atol=2e-3, rtol=2e-2)

    def conv_right(r):
        ref = F.conv2d(cv_x[:1, :, :5, :5].double().cpu(), cv_w.double().cpu(), padding=1)[..., :4, :4]
        return r.shape == cv_x.shape and close(r[:1, :, :4, :4].cpu(), ref, atol=1e-2, rtol=1e-2)

    def clamp_right(r):
        return (r.data_ptr() == cg_grad.data_ptr() and torch.equal(r[:4096], cg_head.clamp(-CG_CLIP, CG_CLIP))
                and float(r[-(1 << 20):].abs().max()) <= CG_CLIP)

    def minhash_right(r):
        ref = torch.stack([minhash_reference(mh_shingles[i], mh_seeds) for i in range(2)]).to(torch.int32)
        return r.shape == (MH_DOCS, MH_PERM) and torch.equal(r[:2], ref)

    def matmul_right(r):
        ref = tm_a[:64].float() @ tm_b[:, :64].float()
        ref_last = tm_a[-64:].float() @ tm_b[:, -64:].float()
        return (r.shape == (TM_M, TM_N) and close(r[:64, :64], ref, atol=3e-2, rtol=3e-2)
                and close(r[-64:, -64:], ref_last, atol=3e-2, rtol=3e-2))

    def gelu_right(r):
        ref = F.gelu(gn_x[:64].float(), approximate="tanh")
        return r.shape == gn_x.shape and r.dtype == bf and close(r[:64], ref, atol=2e-2, rtol=2e-2)

    def soft_target_right(r):
        ref = torch.stack([F.cross_entropy(ls_logits, labels.to(dev), label_smoothing=LS_EPS) for labels in ls_labels])
        return r.shape == (LS_STEPS,) and torch.allclose(r, ref, rtol=1e-4, atol=1e-4)

    def gae_right(r):
        adv, ret = r
        rw, vl, dn = (t.double().cpu() for t in (ga_rewards, ga_values, ga_dones))
        nv, nd = ga_next_value.double().cpu(), ga_next_done.double().cpu()
        ref = torch.zeros_like(rw)
        last = torch.zeros(GA_ENVS, dtype=torch.float64)
        for t in reversed(range(GA_STEPS)):
            nnt = 1.0 - (nd if t == GA_STEPS - 1 else dn[t + 1])
            nval = nv if t == GA_STEPS - 1 else vl[t + 1]
            last = rw[t] + GA_GAMMA * nval * nnt - vl[t] + GA_GAMMA * GA_LAMBDA * nnt * last
            ref[t] = last
        return (torch.allclose(adv.double().cpu(), ref, atol=1e-4, rtol=1e-4)
                and torch.allclose(ret.double().cpu(), ref + vl, atol=1e-4, rtol=1e-4))

    def decode_right(r):
        x = F.embedding(gd_tok0, gd_emb)
        first = F.linear(F.linear(F.gelu(F.linear(x, gd_w1)), gd_w2), gd_head).argmax(dim=-1)
        return (r.shape == (GD_BATCH, GD_STEPS) and not bool((r == GD_EOS).any())
                and float((r[:, 0] == first).float().mean()) >= 0.99)

    run_and_check(cases, reps, check, {
        "lm_head_vocab32001_bf16": lm_head_right,
        "sdpa_vae_single_head_d512_bf16": vae_attention_right,
        "conv3x3_f32_channels_last_tf32": conv_right,
        "flat_grad_clamp_inplace_f32": clamp_right,
        "triton_minhash_128perm_i32": minhash_right,
        "triton_matmul_144tiles_k16384_bf16": matmul_right,
        "gelu_new_eager_tanh_bf16": gelu_right,
        "label_smoothed_targets_host_built": soft_target_right,
        "gae_python_loop_16steps": gae_right,
        "greedy_decode_eos_check_per_step": decode_right,
    })


if __name__ == "__main__":
    main()
