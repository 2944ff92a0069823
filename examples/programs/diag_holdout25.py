"""Twenty-fifth held-out diagnosis set: 12 cases of PyTorch (two of them hand-written Triton kernels) whose limiter is
one an expert would name from Nsight Compute's full report of the dominant kernel, or from the nsys timeline for the
program-level cases. Five are kernel-level: a 7x7 stride-1 box filter written as `F.avg_pool2d` (every input element
re-read 49 times, through L1), QAT fake quantisation (`torch.fake_quantize_per_tensor_affine`, a two-output kernel
already at the DRAM roof), Poisson shot-noise synthesis (`torch.poisson`, whose small-rate sampler loops once per
photon, so the lanes of a warp diverge), a Triton Parzen-window soft histogram that evaluates an exp2 for every value
and every one of 128 bins (the special-function unit is the limit), and a Triton port of exact t-SNE repulsion kept
in float64 (the FP64 pipe is the limit). Seven are program-level: torchvision's eager sigmoid focal loss (about 20
DRAM-bound elementwise kernels a single fused pass would replace), a "prefetch" of pinned batches issued on the
compute stream (copies and GEMMs strictly serialised), a collate that moves 128 small pageable tensors to the GPU one
by one, a per-clip `torch.fft.rfft` of clips whose lengths are new on every call (a cuFFT plan per clip), a training
step left under `torch.autograd.detect_anomaly()` (a host round trip per backward node), a greedy NMS loop in Python
whose boolean indexing syncs every iteration, and a hand-written per-parameter SGD-with-momentum step (80 tiny
launches). None of their operators, or not at these shapes and forms, in the earlier sets. Labels come from Nsight
Compute's full report (and the nsys timeline for the program-level cases) alone; the designer's intent is in
diag_holdout25_design.md. Each case runs REPS times in an NVTX range named after it; a case whose feature (Triton,
fake quantisation, cuFFT, pinned host memory, anomaly mode) is missing in this build, or whose set-up or warm-up
fails, is skipped with a message.

    python3 diag_holdout25.py [reps] [nocheck]

Warmed up outside the ranges: the two Triton kernels (compiled by one launch each on a slice with the same
specialisation: 16 chunks of the histogram's input, 4096 of the t-SNE points) and cuFFT (one rfft of 4096 samples,
a length the case never uses, so the library is loaded and its plan cache exists before the first range; the clip
lengths themselves are planned inside the range, which is the designed point). No other warm-up: the first repetition
of the eager cases pays for library heuristics, lazy module loading and first-time allocations (host time). The
rfft case takes 6 new lengths on every call (48 distinct 7-smooth lengths, so only calls 9 and later repeat a plan).
The SGD case updates its parameters in place, so every repetition is one more optimiser step. No torch.compile.
"""
import copy
import math
import warnings

import torch
import torch.nn as nn
import torch.nn.functional as F

from holdout_cases import arguments, run_and_check

try:
    import triton
    import triton.language as tl
except ImportError:
    triton = None

AP_SHAPE, AP_K = (8, 64, 256, 256), 7
FQ_SHAPE, FQ_SCALE, FQ_ZP, FQ_QMIN, FQ_QMAX = (8192, 8192), 0.05, 0, -128, 127
PS_SHAPE, PS_PEAK = (8, 1, 1024, 1024), 60.0
SH_N, SH_BINS, SH_BLOCK, SH_CHUNK, SH_WARPS = 1 << 24, 128, 32, 8192, 4
SH_K = 2.0  # Gaussian window exp(-k d^2) with d in bins: sigma = 0.5 bin
SH_NEG_K_LOG2E = -SH_K * math.log2(math.e)
TS_N, TS_BLOCK_I, TS_BLOCK_J, TS_WARPS, TS_CLUSTERS = 24576, 16, 64, 4, 30
FL_BATCH, FL_ANCHORS, FL_CLASSES, FL_ALPHA, FL_GAMMA = 8, 49104, 80, 0.25, 2.0
PF_STEPS, PF_ROWS, PF_DIM, PF_HID = 4, 8192, 2048, 6144
CL_SAMPLES, CL_IMG, CL_CLASSES = 64, 128, 21
RF_CLIPS, RF_CALLS, RF_MIN, RF_MAX = 6, 8, 96000, 192000
AN_TOKENS, AN_DIM, AN_HID = 4096, 1024, 4096
NM_BOXES, NM_OBJECTS, NM_THR = 4096, 5, 0.5
NM_OBJECT_BOXES = ((100, 100, 150, 120), (500, 120, 90, 200), (820, 400, 160, 160), (200, 600, 220, 130),
                   (600, 700, 120, 110))  # (x, y, w, h) of the five objects on a 1024 x 1024 image, disjoint
SG_BLOCKS, SG_WIDE, SG_NARROW, SG_LR, SG_MOM, SG_WD = 5, 512, 128, 0.01, 0.9, 1e-4

if triton is not None:

    @triton.jit
    def soft_histogram_kernel(x_ptr, part_ptr, lo, inv_width, neg_k_log2e,
                              CHUNK: tl.constexpr, BLOCK: tl.constexpr, BINS: tl.constexpr):
        """Parzen-window (Gaussian) soft histogram of fp32 values: program p walks its CHUNK values BLOCK at a time and
        adds exp2(neg_k_log2e * (t - c_b)^2) for every value and every bin centre c_b = b + 0.5 (t = (x - lo) *
        inv_width in bin units) into a [BLOCK, BINS] accumulator, then writes one row of BINS partial sums."""
        pid = tl.program_id(0)
        centers = tl.arange(0, BINS).to(tl.float32) + 0.5
        acc = tl.zeros([BLOCK, BINS], dtype=tl.float32)
        base = pid * CHUNK
        for start in range(0, CHUNK, BLOCK):
            x = tl.load(x_ptr + base + start + tl.arange(0, BLOCK))
            t = (x - lo) * inv_width
            d = t[:, None] - centers[None, :]
            acc += tl.exp2(neg_k_log2e * (d * d))
        tl.store(part_ptr + pid * BINS + tl.arange(0, BINS), tl.sum(acc, axis=0))

    @triton.jit
    def tsne_repulsion_kernel(y_ptr, z_ptr, f_ptr, n, BLOCK_I: tl.constexpr, BLOCK_J: tl.constexpr):
        """Exact t-SNE repulsion for a 2-D float64 embedding y (n x 2, row-major): for each point i of the program's
        BLOCK_I, z[i] = sum_{j != i} w_ij and f[i] = sum_j w_ij^2 (y_i - y_j), w_ij = 1 / (1 + |y_i - y_j|^2), all in
        float64, the j loop in tiles of BLOCK_J with [BLOCK_I, BLOCK_J] accumulators reduced once at the end."""
        offs_i = tl.program_id(0) * BLOCK_I + tl.arange(0, BLOCK_I)
        yi0 = tl.load(y_ptr + 2 * offs_i)
        yi1 = tl.load(y_ptr + 2 * offs_i + 1)
        acc_z = tl.zeros([BLOCK_I, BLOCK_J], dtype=tl.float64)
        acc_f0 = tl.zeros([BLOCK_I, BLOCK_J], dtype=tl.float64)
        acc_f1 = tl.zeros([BLOCK_I, BLOCK_J], dtype=tl.float64)
        for start in range(0, n, BLOCK_J):
            offs_j = start + tl.arange(0, BLOCK_J)
            yj0 = tl.load(y_ptr + 2 * offs_j)
            yj1 = tl.load(y_ptr + 2 * offs_j + 1)
            d0 = yi0[:, None] - yj0[None, :]
            d1 = yi1[:, None] - yj1[None, :]
            w = 1.0 / (1.0 + d0 * d0 + d1 * d1)
            w2 = w * w
            acc_z += w
            acc_f0 += w2 * d0
            acc_f1 += w2 * d1
        tl.store(z_ptr + offs_i, tl.sum(acc_z, axis=1) - 1.0)  # minus the self term w_ii = 1
        tl.store(f_ptr + 2 * offs_i, tl.sum(acc_f0, axis=1))
        tl.store(f_ptr + 2 * offs_i + 1, tl.sum(acc_f1, axis=1))


def triton_soft_histogram(x: torch.Tensor) -> torch.Tensor:
    """Gaussian soft histogram of contiguous fp32 values in [0, 1) over SH_BINS bins (sigma half a bin): one program
    per SH_CHUNK values (4 warps), then the per-program rows summed with torch."""
    if triton is None:
        raise RuntimeError("triton is not installed")
    n = x.numel()
    assert x.is_contiguous() and x.dtype == torch.float32 and n % SH_CHUNK == 0
    progs = n // SH_CHUNK
    part = torch.empty(progs, SH_BINS, device=x.device, dtype=torch.float32)
    soft_histogram_kernel[(progs,)](x, part, 0.0, float(SH_BINS), SH_NEG_K_LOG2E,
                                    CHUNK=SH_CHUNK, BLOCK=SH_BLOCK, BINS=SH_BINS, num_warps=SH_WARPS)
    return part.sum(0)


def triton_tsne_repulsion(y: torch.Tensor):
    """(z, f) of tsne_repulsion_kernel for a contiguous float64 (n, 2) embedding, n a multiple of the tiles."""
    if triton is None:
        raise RuntimeError("triton is not installed")
    n = y.shape[0]
    assert y.is_contiguous() and y.dtype == torch.float64 and y.shape[1] == 2
    assert n % TS_BLOCK_I == 0 and n % TS_BLOCK_J == 0
    z = torch.empty(n, device=y.device, dtype=torch.float64)
    f = torch.empty_like(y)
    tsne_repulsion_kernel[(n // TS_BLOCK_I,)](y, z, f, n, BLOCK_I=TS_BLOCK_I, BLOCK_J=TS_BLOCK_J,
                                             num_warps=TS_WARPS)
    return z, f


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


def smooth_lengths(lo, hi, count):
    """count 7-smooth integers (no prime factor above 7, so cuFFT needs no Bluestein) spread over [lo, hi)."""
    found = []
    for n in range(lo, hi):
        m = n
        for p in (2, 3, 5, 7):
            while m % p == 0:
                m //= p
        if m == 1:
            found.append(n)
    step = max(1, len(found) // count)
    picked = found[::step][:count]
    while len(picked) < count:  # not reached for the constants above (146 candidates)
        picked.append(picked[len(picked) % len(found)])
    return picked


def sigmoid_focal_loss(inputs, targets, num_pos, alpha=FL_ALPHA, gamma=FL_GAMMA):
    """RetinaNet's focal loss as torchvision.ops.sigmoid_focal_loss writes it (eager), summed and divided by the
    number of positive anchors."""
    p = torch.sigmoid(inputs)
    ce_loss = F.binary_cross_entropy_with_logits(inputs, targets, reduction="none")
    p_t = p * targets + (1 - p) * (1 - targets)
    loss = ce_loss * ((1 - p_t) ** gamma)
    alpha_t = alpha * targets + (1 - alpha) * (1 - targets)
    loss = alpha_t * loss
    return loss.sum() / num_pos


def nms_greedy(boxes, scores, thr):
    """Greedy non-maximum suppression as tutorials and older detection code write it: take the best remaining box,
    drop every remaining box that overlaps it by more than thr (boolean indexing), repeat."""
    areas = (boxes[:, 2] - boxes[:, 0]) * (boxes[:, 3] - boxes[:, 1])
    order = scores.argsort(descending=True)
    keep = []
    while order.numel() > 0:
        top, rest = order[:1], order[1:]
        keep.append(top)
        if rest.numel() == 0:
            break
        cand, others = boxes[top], boxes[rest]
        lt = torch.maximum(cand[:, :2], others[:, :2])
        rb = torch.minimum(cand[:, 2:], others[:, 2:])
        wh = (rb - lt).clamp_(min=0)
        inter = wh[:, 0] * wh[:, 1]
        iou = inter / (areas[top] + areas[rest] - inter)
        order = rest[iou <= thr]  # nonzero: the new length is read back to the host before the next iteration
    return torch.cat(keep)


def main() -> None:
    reps, check, dev, bf = arguments()
    gen = torch.Generator().manual_seed(25)  # host-side draws (boxes, embedding clusters)

    # avg_pool_box7_stride1_f32: a local-mean (box) filter, 7 x 7, stride 1, 'same' padding, mean over the in-image
    # part of the window, on 8 x 64 x 256 x 256 fp32 feature maps (128 MiB) -- guided filters, local contrast
    # normalisation
    ap_x = torch.randn(*AP_SHAPE, device=dev)
    # fake_quant_per_tensor_f32: QAT fake quantisation of 8192 x 8192 fp32 activations (256 MiB) to int8 levels
    fq_x = torch.randn(*FQ_SHAPE, device=dev) * 2
    # poisson_shot_noise_f32: shot-noise synthesis for a low-light denoiser's batch: 8 raw 1024 x 1024 frames of
    # expected photon counts lambda = 60 u^2 (mostly dark, mean 20, max 60)
    ps_rate = torch.rand(*PS_SHAPE, device=dev).square_().mul_(PS_PEAK)
    # triton_soft_histogram_128bins_f32: a mutual-information loss's Parzen-window histogram of a 256^3 CT volume's
    # normalised intensities (16 M fp32, 64 MiB; four tissue classes), 128 bins, Gaussian window of half a bin
    sh_means = torch.tensor([0.12, 0.34, 0.56, 0.81], device=dev)
    sh_x = (sh_means[torch.randint(0, 4, (SH_N,), device=dev)]
            + 0.05 * torch.randn(SH_N, device=dev)).clamp_(0.0, 0.999)
    # triton_tsne_repulsion_fp64: exact t-SNE repulsion of 24576 points of a 2-D embedding kept in float64 (the
    # precision CPU t-SNE codes use), 30 clusters
    ts_centers = torch.randn(TS_CLUSTERS, 2, generator=gen, dtype=torch.float64) * 25
    ts_lab = torch.randint(0, TS_CLUSTERS, (TS_N,), generator=gen)
    ts_y = (ts_centers[ts_lab] + torch.randn(TS_N, 2, generator=gen, dtype=torch.float64) * 2).to(dev).contiguous()
    # sigmoid_focal_loss_eager_f32: RetinaNet's classification loss over 8 images x 49104 anchors x 80 classes fp32
    # (31.4 M elements, 120 MiB per tensor), ~1% positive anchors
    fl_n = FL_BATCH * FL_ANCHORS
    fl_logits = torch.randn(fl_n, FL_CLASSES, device=dev) * 1.5 - 3.0
    fl_targets = torch.zeros(fl_n, FL_CLASSES, device=dev)
    fl_pos = (torch.rand(fl_n, device=dev) < 0.01).nonzero().squeeze(1)
    fl_targets[fl_pos, torch.randint(0, FL_CLASSES, (fl_pos.numel(),), device=dev)] = 1.0
    fl_num_pos = float(max(1, fl_pos.numel()))
    # prefetch_pinned_same_stream_bf16: 4 steps of an MLP (2048 -> 6144 -> GELU -> 2048, bf16) on 8192-row batches
    # (32 MiB each) that sit in pinned host memory and are "prefetched" one step ahead with non_blocking copies
    pf_w1 = torch.randn(PF_HID, PF_DIM, device=dev, dtype=bf) / PF_DIM ** 0.5
    pf_w2 = torch.randn(PF_DIM, PF_HID, device=dev, dtype=bf) / PF_HID ** 0.5
    ready = {}
    pf_host = []
    try:
        for _ in range(PF_STEPS):
            buf = torch.empty(PF_ROWS, PF_DIM, dtype=bf, pin_memory=True)
            buf.copy_(torch.randn(PF_ROWS, PF_DIM))
            pf_host.append(buf)
        ready["prefetch_pinned_same_stream_bf16"] = True
    except RuntimeError as e:
        print(f"prefetch_pinned_same_stream_bf16: pinned allocation failed ({str(e)[:120]})", flush=True)
    # collate_per_sample_to_cuda: a segmentation batch of 64 samples, each a 3 x 128 x 128 fp32 image (192 KiB) and a
    # 128 x 128 int64 label map (128 KiB) in ordinary (pageable) host memory, moved to the GPU sample by sample
    cl_imgs = [torch.randn(3, CL_IMG, CL_IMG) for _ in range(CL_SAMPLES)]
    cl_masks = [torch.randint(0, CL_CLASSES, (CL_IMG, CL_IMG)) for _ in range(CL_SAMPLES)]
    # rfft_per_clip_new_lengths_f32: magnitude spectra of 6 audio clips per call, each transformed at its own length
    # (96000 ... 190512 samples, 7-smooth, new lengths on every call), from a 6 x 192000 fp32 buffer
    rf_lengths = smooth_lengths(RF_MIN, RF_MAX, RF_CLIPS * RF_CALLS)
    rf_audio = torch.randn(RF_CLIPS, RF_MAX, device=dev)
    rf_state = {"calls": 0, "last": None}
    # detect_anomaly_train_step_bf16: forward and backward of a bf16 MLP block (1024 -> 4096 -> GELU -> 1024) on 4096
    # tokens with an MSE loss, run under torch.autograd.detect_anomaly() (left on from a debugging session)
    an_net = nn.Sequential(nn.Linear(AN_DIM, AN_HID), nn.GELU(), nn.Linear(AN_HID, AN_DIM)).to(dev, bf)
    an_x = torch.randn(AN_TOKENS, AN_DIM, device=dev, dtype=bf)
    an_y = torch.randn(AN_TOKENS, AN_DIM, device=dev, dtype=bf)
    # nms_greedy_bool_index_loop: 4096 candidate boxes of one image around 5 objects (jittered by +-2%, so every
    # candidate overlaps its object's best box by IoU > 0.8 and no other object), greedy NMS at IoU 0.5
    nm_obj = torch.arange(NM_BOXES) % NM_OBJECTS
    nm_base = torch.tensor(NM_OBJECT_BOXES, dtype=torch.float32)[nm_obj]
    nm_jit = (torch.rand(NM_BOXES, 4, generator=gen) - 0.5) * 0.04
    nm_x1 = nm_base[:, 0] + nm_jit[:, 0] * nm_base[:, 2]
    nm_y1 = nm_base[:, 1] + nm_jit[:, 1] * nm_base[:, 3]
    nm_w = nm_base[:, 2] * (1 + nm_jit[:, 2])
    nm_h = nm_base[:, 3] * (1 + nm_jit[:, 3])
    nm_scores_cpu = torch.rand(NM_BOXES, generator=gen)
    nm_boxes = torch.stack([nm_x1, nm_y1, nm_x1 + nm_w, nm_y1 + nm_h], 1).to(dev)
    nm_scores = nm_scores_cpu.to(dev)
    nm_best = [int(torch.nonzero(nm_obj == o).squeeze(1)[nm_scores_cpu[nm_obj == o].argmax()])
               for o in range(NM_OBJECTS)]
    nm_expected = sorted(nm_best, key=lambda i: -float(nm_scores_cpu[i]))
    # sgd_momentum_per_param_loop_f32: a hand-written SGD step (momentum 0.9, weight decay 1e-4) over the 20
    # parameters of a small 5-block MLP (512 x 128 and 128 x 512 weights, biases), one parameter at a time
    sg_params, sg_grads, sg_bufs = [], [], []
    for _ in range(SG_BLOCKS):
        for shape in ((SG_WIDE, SG_NARROW), (SG_WIDE,), (SG_NARROW, SG_WIDE), (SG_NARROW,)):
            sg_params.append(torch.randn(shape, device=dev) * 0.05)
            sg_grads.append(torch.randn(shape, device=dev) * 1e-3)
            sg_bufs.append(torch.randn(shape, device=dev) * 1e-3)  # momentum buffers of a run already under way
    sg_ref0 = tuple(t[1].double().cpu() for t in (sg_params, sg_bufs, sg_grads))

    # warm-ups outside the ranges: the Triton kernels' compilation, cuFFT's library load (at an unused length)
    if triton is not None:
        for name, warm in (("triton_soft_histogram_128bins_f32", lambda: triton_soft_histogram(sh_x[:16 * SH_CHUNK])),
                           ("triton_tsne_repulsion_fp64", lambda: triton_tsne_repulsion(ts_y[:4096]))):
            try:
                warm()
                ready[name] = True
            except Exception as e:  # noqa: BLE001 - any compile failure means that case is skipped
                print(f"{name}: compile failed ({type(e).__name__}: {str(e)[:120]})", flush=True)
    try:
        torch.fft.rfft(torch.randn(4096, device=dev)).abs()
        ready["rfft_per_clip_new_lengths_f32"] = True
    except Exception as e:  # noqa: BLE001 - no usable cuFFT: that case is skipped
        print(f"rfft_per_clip_new_lengths_f32: warm-up failed ({type(e).__name__}: {str(e)[:120]})", flush=True)
    torch.cuda.synchronize()

    def needs(name):
        if not ready.get(name):
            raise RuntimeError("its feature is missing in this build or its set-up or warm-up failed")

    def box_mean():
        return F.avg_pool2d(ap_x, AP_K, stride=1, padding=AP_K // 2, count_include_pad=False)

    def fake_quant():
        return torch.fake_quantize_per_tensor_affine(fq_x, FQ_SCALE, FQ_ZP, FQ_QMIN, FQ_QMAX)

    def soft_histogram():
        needs("triton_soft_histogram_128bins_f32")
        return triton_soft_histogram(sh_x)

    def tsne_repulsion():
        needs("triton_tsne_repulsion_fp64")
        return triton_tsne_repulsion(ts_y)

    def prefetch_steps():
        needs("prefetch_pinned_same_stream_bf16")
        nxt = pf_host[0].to(dev, non_blocking=True)
        out = None
        for s in range(PF_STEPS):
            cur = nxt
            if s + 1 < PF_STEPS:
                nxt = pf_host[s + 1].to(dev, non_blocking=True)  # the next batch, issued on the current stream
            out = F.linear(F.gelu(F.linear(cur, pf_w1)), pf_w2)
        return out

    def collate_to_gpu():
        imgs = torch.stack([im.to(dev) for im in cl_imgs])
        masks = torch.stack([m.to(dev) for m in cl_masks])
        return imgs, masks

    def per_clip_spectra():
        needs("rfft_per_clip_new_lengths_f32")
        call = rf_state["calls"] % RF_CALLS
        rf_state["calls"] += 1
        lens = rf_lengths[call::RF_CALLS][:RF_CLIPS]  # 6 lengths spread over the range, new for each call
        rf_state["last"] = lens
        return [torch.fft.rfft(rf_audio[i, :n]).abs() for i, n in enumerate(lens)]

    def anomaly_step():
        for p in an_net.parameters():
            p.grad = None
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # detect_anomaly warns that it slows the run down
            with torch.autograd.detect_anomaly():
                loss = F.mse_loss(an_net(an_x), an_y)
                loss.backward()
        return loss.detach(), an_net[0].weight.grad

    def sgd_step():
        with torch.no_grad():
            for p, g, buf in zip(sg_params, sg_grads, sg_bufs):
                d_p = g.add(p, alpha=SG_WD)
                buf.mul_(SG_MOM).add_(d_p)
                p.add_(buf, alpha=-SG_LR)
        return sg_params[1]

    cases = [
        ("avg_pool_box7_stride1_f32", box_mean),
        ("fake_quant_per_tensor_f32", guarded("fake_quantize_per_tensor_affine", fake_quant)),
        ("poisson_shot_noise_f32", guarded("torch.poisson", lambda: torch.poisson(ps_rate))),
        ("triton_soft_histogram_128bins_f32", guarded("triton", soft_histogram)),
        ("triton_tsne_repulsion_fp64", guarded("triton", tsne_repulsion)),
        ("sigmoid_focal_loss_eager_f32", lambda: sigmoid_focal_loss(fl_logits, fl_targets, fl_num_pos)),
        ("prefetch_pinned_same_stream_bf16", prefetch_steps),
        ("collate_per_sample_to_cuda", collate_to_gpu),
        ("rfft_per_clip_new_lengths_f32", guarded("torch.fft", per_clip_spectra)),
        ("detect_anomaly_train_step_bf16", guarded("detect_anomaly", anomaly_step)),
        ("nms_greedy_bool_index_loop", lambda: nms_greedy(nm_boxes, nm_scores, NM_THR)),
        ("sgd_momentum_per_param_loop_f32", sgd_step),
    ]

    def box_mean_right(r):
        ref = F.avg_pool2d(ap_x[:1, :2].double().cpu(), AP_K, stride=1, padding=AP_K // 2, count_include_pad=False)
        return r.shape == ap_x.shape and close(r[:1, :2].cpu(), ref, atol=1e-5, rtol=1e-4)

    def fake_quant_right(r):
        x = fq_x[:64]
        inv = (1.0 / torch.tensor(FQ_SCALE, dtype=torch.float32)).to(dev)  # the kernel multiplies by a float 1/scale
        ref = (torch.clamp(torch.round(x * inv), FQ_QMIN, FQ_QMAX) - FQ_ZP) * FQ_SCALE
        return r.shape == fq_x.shape and close(r[:64], ref, atol=1e-5, rtol=1e-5)

    def poisson_right(r):
        lam, k = ps_rate.double(), r.double()
        m = float(lam.mean())
        return (bool((k >= 0).all()) and torch.equal(k, k.round()) and abs(float(k.mean()) - m) < 0.01 * m
                and abs(float((k - lam).var()) - m) < 0.03 * m)

    def soft_histogram_right(r):
        sub = sh_x[:16 * SH_CHUNK]
        part = triton_soft_histogram(sub)
        d = sub.double()[:, None] * SH_BINS - (torch.arange(SH_BINS, device=dev, dtype=torch.float64) + 0.5)
        ref = torch.exp(-SH_K * d * d).sum(0)
        scale = sh_x.numel() / sub.numel()
        return (r.shape == (SH_BINS,) and close(part, ref, atol=1e-3 * float(ref.max()), rtol=1e-3)
                and abs(float(r.sum()) / (float(ref.sum()) * scale) - 1) < 0.02)

    def tsne_right(r):
        z, f = r
        d = ts_y[:64, None, :] - ts_y[None, :, :]
        w = 1.0 / (1.0 + (d * d).sum(-1))
        z_ref = w.sum(1) - 1.0
        f_ref = ((w * w)[..., None] * d).sum(1)
        return (torch.allclose(z[:64], z_ref, rtol=1e-9, atol=1e-12)
                and torch.allclose(f[:64], f_ref, rtol=1e-7, atol=1e-9 * float(f_ref.abs().max())))

    def focal_right(r):
        total = 0.0
        for xs, ts in zip(fl_logits.split(1 << 16), fl_targets.split(1 << 16)):
            x, t = xs.double(), ts.double()
            p = torch.sigmoid(x)
            ce = F.softplus(x) - x * t
            p_t = p * t + (1 - p) * (1 - t)
            a_t = FL_ALPHA * t + (1 - FL_ALPHA) * (1 - t)
            total += float((a_t * ce * (1 - p_t) ** FL_GAMMA).sum())
        ref = total / fl_num_pos
        return abs(float(r) - ref) <= 1e-3 * abs(ref)

    def prefetch_right(r):
        x = pf_host[-1][:4].to(dev).float()
        ref = F.linear(F.gelu(F.linear(x, pf_w1.float())), pf_w2.float())
        return r.shape == (PF_ROWS, PF_DIM) and close(r[:4], ref, atol=5e-2, rtol=5e-2)

    def collate_right(r):
        imgs, masks = r
        return (imgs.shape == (CL_SAMPLES, 3, CL_IMG, CL_IMG) and torch.equal(imgs[5].cpu(), cl_imgs[5])
                and torch.equal(masks[-1].cpu(), cl_masks[-1]))

    def rfft_right(r):
        lens = rf_state["last"]
        i = len(lens) - 1
        ref = torch.fft.rfft(rf_audio[i, :lens[i]].double().cpu()).abs()
        return (len(r) == RF_CLIPS and all(s.shape[0] == n // 2 + 1 for s, n in zip(r, lens))
                and close(r[i][:64].cpu(), ref[:64], atol=1e-2 * math.sqrt(lens[i]), rtol=1e-3))

    def anomaly_right(r):
        loss, g = r
        with torch.no_grad():
            ref = F.mse_loss(copy.deepcopy(an_net).float()(an_x.float()), an_y.float())
        return (g is not None and g.shape == an_net[0].weight.shape and bool(torch.isfinite(g).all())
                and abs(float(loss) - float(ref)) < 2e-2 * float(ref))

    def nms_right(r):
        return r.tolist() == nm_expected

    def sgd_right(r):
        p, b, g = (t.clone() for t in sg_ref0)
        for _ in range(reps):
            b = SG_MOM * b + (g + SG_WD * p)
            p = p - SG_LR * b
        return torch.allclose(r.double().cpu(), p, rtol=1e-5, atol=1e-7)

    run_and_check(cases, reps, check, {
        "avg_pool_box7_stride1_f32": box_mean_right,
        "fake_quant_per_tensor_f32": fake_quant_right,
        "poisson_shot_noise_f32": poisson_right,
        "triton_soft_histogram_128bins_f32": soft_histogram_right,
        "triton_tsne_repulsion_fp64": tsne_right,
        "sigmoid_focal_loss_eager_f32": focal_right,
        "prefetch_pinned_same_stream_bf16": prefetch_right,
        "collate_per_sample_to_cuda": collate_right,
        "rfft_per_clip_new_lengths_f32": rfft_right,
        "detect_anomaly_train_step_bf16": anomaly_right,
        "nms_greedy_bool_index_loop": nms_right,
        "sgd_momentum_per_param_loop_f32": sgd_right,
    })


if __name__ == "__main__":
    main()
