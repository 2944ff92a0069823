"""Thirty-second held-out diagnosis set: 10 cases of PyTorch (one of them a hand-written Triton kernel) whose limiter is
one an expert would name from Nsight Compute's full report of the dominant kernel, or from the nsys timeline for the
program-level cases. Four are kernel-level: F.grid_sample of a dense 3-D feature volume (32 fp32 channels at 64^3, 32
MiB, NCDHW) at 2^19 uniformly random query points, a Triton count-min-sketch query of 2^25 random int32 keys against a 4
x 2^21 int32 sketch (32 MiB), a 2x trilinear F.interpolate of a 3-D U-Net bottleneck feature map (2 x 256 channels at
16^3, fp32), and a 7x7x7 depthwise F.conv3d (3D UX-Net style; 2 x 48 channels at 48^3, fp32, NCDHW). Six are
program-level. Two are eager chains of elementwise and reduction kernels whose intermediates are small enough to stay in
L2: YOLOv5's Detect-head decoding of three fp16 feature maps for a batch of 8 (permute, sigmoid, grid and anchor
arithmetic, concatenations, then xywh -> xyxy and class confidences), and nnU-Net v2's deep-supervision loss (soft Dice
on one-hot targets plus cross-entropy at three scales, batch 8, 9 classes, 256^2 / 128^2 / 64^2). Two are library
pipelines of kinds the earlier sets rarely took: nucleus (top-p) sampling over a 128256-token vocabulary for 64
sequences written as Hugging Face's TopPLogitsWarper (a sort of every row, softmax, cumsum, scatter back, masked fill,
multinomial), and a GCN layer (128 -> 16 features) whose sparse COO adjacency (2^18 nodes, 2^22 edges) is built with
torch.sparse_coo_tensor inside the forward and multiplied with torch.sparse.mm. Two do host work inside the range before
their first GPU launch: fastText-style subword hashing (character 3- to 6-grams, FNV-1a, in a Python loop) of 128
documents feeding F.embedding_bag and a linear classifier, and voxel-grid downsampling of a 2^20-point LiDAR sweep whose
voxel keys are deduplicated with np.unique on the host before the points are averaged per voxel on the GPU. None of
their operators, or not at these shapes and forms, in the earlier sets. Labels come from Nsight Compute's full report
(and the nsys timeline for the program-level cases) alone; the designer's intent is in diag_holdout32_design.md. Each
case runs REPS times in an NVTX range named after it; a case whose feature (Triton, NumPy, sparse COO matmul) is missing
in this build, or whose set-up or warm-up fails, is skipped with a message. Without a CUDA device the script says so and
exits 0.

    python3 diag_holdout32.py [reps] [nocheck]

Warmed up outside the ranges: the Triton kernel only (compiled by one launch with the same specialisation, on the
first 8192 keys). No other warm-up: the first repetition of the eager cases pays for library heuristics, lazy module
loading and first-time allocations (host time). The kernel-level cases come first. No torch.compile, no nested
ranges.
"""
import math
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
    import numpy as np
except ImportError:
    np = None

GS_C, GS_D, GS_P = 32, 64, 1 << 19
CM_DEPTH, CM_WBITS, CM_N, CM_STREAM, CM_BLOCK, CM_WARPS = 4, 21, 1 << 25, 1 << 24, 1024, 4
CM_MULS = (0x9E3779B1, 0x85EBCA77, 0xC2B2AE3D, 0xCC9E2D51)  # odd multipliers >= 2^31 (uint32 in Triton)
UP_N, UP_C, UP_S = 2, 256, 16
DW_N, DW_C, DW_S, DW_K = 2, 48, 48, 7
YO_B, YO_NC, YO_NA, YO_IMG, YO_DTYPE = 8, 80, 3, 640, torch.float16
YO_STRIDES = (8, 16, 32)
YO_ANCHORS = ((10, 13, 16, 30, 33, 23), (30, 61, 62, 45, 59, 119), (116, 90, 156, 198, 373, 326))  # pixels
DC_B, DC_C, DC_SIZES, DC_SMOOTH = 8, 9, (256, 128, 64), 1e-5
TP_BATCH, TP_VOCAB, TP_TEMP, TP_P = 64, 128256, 0.6, 0.9
GC_NODES, GC_EDGES, GC_IN, GC_HID = 1 << 18, 1 << 22, 128, 16
FT_DOCS, FT_WORDS, FT_VOCAB, FT_BUCKETS, FT_DIM, FT_LABELS, FT_MINN, FT_MAXN = 128, 32, 5000, 2000000, 64, 512, 3, 6
VX_N, VX_SIZE, VX_GRID, VX_ORIGIN = 1 << 20, 0.2, (512, 512, 40), (-51.2, -51.2, -3.0)

if triton is not None:

    @triton.jit
    def cms_query_kernel(keys_ptr, sketch_ptr, out_ptr, WIDTH: tl.constexpr, SHIFT: tl.constexpr, M0: tl.constexpr,
                         M1: tl.constexpr, M2: tl.constexpr, M3: tl.constexpr, BLOCK: tl.constexpr):
        """Count-min-sketch point query: out = min over the 4 rows r (WIDTH counters each) of sketch[r, (M_r * key mod
        2^32) >> SHIFT], multiply-shift hashing in uint32, BLOCK keys per program, no masks (the count is a multiple
        of BLOCK)."""
        pid = tl.program_id(0)
        offs = pid * BLOCK + tl.arange(0, BLOCK)
        k = tl.load(keys_ptr + offs).to(tl.uint32)
        h0 = ((k * M0) >> SHIFT).to(tl.int32)
        h1 = ((k * M1) >> SHIFT).to(tl.int32)
        h2 = ((k * M2) >> SHIFT).to(tl.int32)
        h3 = ((k * M3) >> SHIFT).to(tl.int32)
        row1 = sketch_ptr + WIDTH
        row2 = row1 + WIDTH
        row3 = row2 + WIDTH
        c0 = tl.load(sketch_ptr + h0)
        c1 = tl.load(row1 + h1)
        c2 = tl.load(row2 + h2)
        c3 = tl.load(row3 + h3)
        tl.store(out_ptr + offs, tl.minimum(tl.minimum(c0, c1), tl.minimum(c2, c3)))


def triton_cms_query(keys: torch.Tensor, sketch: torch.Tensor) -> torch.Tensor:
    """Count-min estimates of contiguous non-negative int32 keys (a multiple of CM_BLOCK of them) against a contiguous
    (CM_DEPTH, 2^CM_WBITS) int32 sketch: one program of CM_WARPS warps per CM_BLOCK keys."""
    if triton is None:
        raise RuntimeError("triton is not installed")
    n = keys.numel()
    assert keys.is_contiguous() and keys.dtype == torch.int32 and n % CM_BLOCK == 0
    assert sketch.is_contiguous() and sketch.dtype == torch.int32 and sketch.shape == (CM_DEPTH, 1 << CM_WBITS)
    out = torch.empty_like(keys)
    cms_query_kernel[(n // CM_BLOCK,)](keys, sketch, out, WIDTH=1 << CM_WBITS, SHIFT=32 - CM_WBITS, M0=CM_MULS[0],
                                       M1=CM_MULS[1], M2=CM_MULS[2], M3=CM_MULS[3], BLOCK=CM_BLOCK,
                                       num_warps=CM_WARPS)
    return out


def cms_hash(keys: torch.Tensor, row: int) -> torch.Tensor:
    """The sketch's row-`row` bucket of non-negative keys (< 2^31), in int64: (M_row * key mod 2^32) >> (32 -
    CM_WBITS)."""
    return ((keys.long() * CM_MULS[row]) & 0xFFFFFFFF) >> (32 - CM_WBITS)


def cms_query_reference(keys: torch.Tensor, sketch: torch.Tensor) -> torch.Tensor:
    est = None
    for r in range(CM_DEPTH):
        c = sketch[r][cms_hash(keys, r)]
        est = c if est is None else torch.minimum(est, c)
    return est


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


def trilinear_reference(vol: torch.Tensor, pts: torch.Tensor) -> torch.Tensor:
    """Trilinear samples (P, C) in float64 of a volume (C, D, H, W) at points (P, 3) = (x, y, z) in [-1, 1], as
    grid_sample with align_corners=True reads them (x along W, y along H, z along D)."""
    vol = vol.double()
    c, d, h, w = vol.shape
    p = pts.double()
    fx, fy, fz = (p[:, 0] + 1) / 2 * (w - 1), (p[:, 1] + 1) / 2 * (h - 1), (p[:, 2] + 1) / 2 * (d - 1)
    x0, y0, z0 = fx.floor().long(), fy.floor().long(), fz.floor().long()
    out = torch.zeros(p.shape[0], c, dtype=torch.float64, device=vol.device)
    for dz in (0, 1):
        for dy in (0, 1):
            for dx in (0, 1):
                xi, yi, zi = (x0 + dx).clamp(0, w - 1), (y0 + dy).clamp(0, h - 1), (z0 + dz).clamp(0, d - 1)
                wt = ((1 - (fx - (x0 + dx)).abs()).clamp(min=0) * (1 - (fy - (y0 + dy)).abs()).clamp(min=0)
                      * (1 - (fz - (z0 + dz)).abs()).clamp(min=0))
                out += vol[:, zi, yi, xi].t() * wt[:, None]
    return out


def yolo_grids(dtype, device):
    """YOLOv5 Detect's per-level cell grids (offset by -0.5) and pixel anchor grids, (1, na, ny, nx, 2) each; the
    anchor grids are broadcast views, as `_make_grid` returns them."""
    grids, anchor_grids = [], []
    for i, s in enumerate(YO_STRIDES):
        n = YO_IMG // s
        shape = (1, YO_NA, n, n, 2)
        yv, xv = torch.meshgrid(torch.arange(n, device=device, dtype=dtype),
                                torch.arange(n, device=device, dtype=dtype), indexing="ij")
        grids.append(torch.stack((xv, yv), 2).expand(shape) - 0.5)
        anchors = torch.tensor(YO_ANCHORS[i], device=device, dtype=dtype).view(1, YO_NA, 1, 1, 2)
        anchor_grids.append(anchors.expand(shape))
    return grids, anchor_grids


def yolo_decode(feats, grids, anchor_grids):
    """YOLOv5 Detect.forward at inference on the three head outputs (B, na * (nc + 5), ny, nx), then the vectorised
    first steps of non-max suppression: xywh -> xyxy boxes, class confidences obj * cls, best class and score."""
    no = YO_NC + 5
    z = []
    for i, x in enumerate(feats):
        bs, _, ny, nx = x.shape
        x = x.view(bs, YO_NA, no, ny, nx).permute(0, 1, 3, 4, 2).contiguous()
        y = x.sigmoid()
        xy, wh, conf = y.split((2, 2, YO_NC + 1), 4)
        xy = (xy * 2 + grids[i]) * YO_STRIDES[i]
        wh = (wh * 2) ** 2 * anchor_grids[i]
        y = torch.cat((xy, wh, conf), 4)
        z.append(y.view(bs, YO_NA * nx * ny, no))
    pred = torch.cat(z, 1)
    box = torch.cat((pred[..., :2] - pred[..., 2:4] / 2, pred[..., :2] + pred[..., 2:4] / 2), -1)
    cls_conf = pred[..., 5:] * pred[..., 4:5]
    score, cls = cls_conf.max(-1)
    return box, score, cls


def soft_dice_ce(logits: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
    """nnU-Net v2's default loss at one scale: cross-entropy plus batch soft Dice without the background class
    (`MemoryEfficientSoftDiceLoss`: softmax, a boolean one-hot by scatter_, per-class sums), target (B, 1, H, W)
    int64."""
    ce = F.cross_entropy(logits, target[:, 0])
    x = torch.softmax(logits, 1)
    axes = (2, 3)
    with torch.no_grad():
        y_onehot = torch.zeros(x.shape, device=x.device, dtype=torch.bool)
        y_onehot.scatter_(1, target, 1)
        y_onehot = y_onehot[:, 1:]
        sum_gt = y_onehot.sum(axes)
    x = x[:, 1:]
    intersect = (x * y_onehot).sum(axes)
    sum_pred = x.sum(axes)
    intersect, sum_pred, sum_gt = intersect.sum(0), sum_pred.sum(0), sum_gt.sum(0)
    dc = (2 * intersect + DC_SMOOTH) / torch.clip(sum_gt + sum_pred + DC_SMOOTH, 1e-8)
    return ce - dc.mean()


def deep_supervision_loss(outputs, targets) -> torch.Tensor:
    """nnU-Net's DeepSupervisionWrapper: weights 1, 1/2, 1/4 ... normalised to sum to 1."""
    w = [1 / (2 ** i) for i in range(len(outputs))]
    w = [v / sum(w) for v in w]
    loss = w[0] * soft_dice_ce(outputs[0], targets[0])
    for i in range(1, len(outputs)):
        loss = loss + w[i] * soft_dice_ce(outputs[i], targets[i])
    return loss


def dice_ce_reference(outputs, targets) -> float:
    """The same loss in float64 by another route: one_hot of the labels, per-class sums by bincount."""
    w = [1 / (2 ** i) for i in range(len(outputs))]
    total = 0.0
    for wi, logits, target in zip(w, outputs, targets):
        lg = logits.double()
        t = target[:, 0]
        logp = torch.log_softmax(lg, 1)
        ce = -logp.gather(1, t[:, None]).mean()
        p = logp.exp()
        c = lg.shape[1]
        oh = F.one_hot(t, c).permute(0, 3, 1, 2).double()
        inter = (p * oh).sum((0, 2, 3))
        gt = torch.bincount(t.reshape(-1), minlength=c).double()
        pred = p.sum((0, 2, 3))
        dc = (2 * inter + DC_SMOOTH) / (gt + pred + DC_SMOOTH)
        total += wi * float(ce - dc[1:].mean())
    return total / sum(w)


def top_p_sample(logits: torch.Tensor, temperature: float, top_p: float, min_tokens_to_keep: int = 1):
    """Temperature then nucleus filtering as Hugging Face's TemperatureLogitsWarper and TopPLogitsWarper write it,
    then a softmax and one multinomial draw per row (the sampling step of `generate`)."""
    scores = logits / temperature
    sorted_logits, sorted_indices = torch.sort(scores, descending=False)
    cumulative_probs = sorted_logits.softmax(dim=-1).cumsum(dim=-1)
    sorted_indices_to_remove = cumulative_probs <= (1 - top_p)
    sorted_indices_to_remove[..., -min_tokens_to_keep:] = 0
    indices_to_remove = sorted_indices_to_remove.scatter(1, sorted_indices, sorted_indices_to_remove)
    scores = scores.masked_fill(indices_to_remove, -float("inf"))
    probs = F.softmax(scores, dim=-1)
    next_tokens = torch.multinomial(probs, num_samples=1).squeeze(1)
    return next_tokens, scores


def gcn_layer(edge_index, edge_weight, x, w, n):
    """A GCN layer (Kipf & Welling) whose normalised adjacency is built as a sparse COO tensor in the forward, as
    plain-PyTorch GCN code does: relu(A (X W)), the product with torch.sparse.mm."""
    adj = torch.sparse_coo_tensor(edge_index, edge_weight, (n, n))
    return torch.relu(torch.sparse.mm(adj, x @ w))


def gcn_reference(edge_index, edge_weight, x, w, rows):
    """Rows `rows` of the GCN layer's output in float64, by index_add over the edges of those rows."""
    row, col = edge_index[0], edge_index[1]
    sel = torch.isin(row, rows) if hasattr(torch, "isin") else (row[:, None] == rows[None]).any(1)
    xw = x[col[sel]].double() @ w.double()
    out = torch.zeros(x.shape[0], w.shape[1], dtype=torch.float64, device=x.device)
    out.index_add_(0, row[sel], xw * edge_weight[sel].double()[:, None])
    return torch.relu(out[rows])


def fnv1a_32(s: str) -> int:
    """fastText's string hash (FNV-1a, 32 bits) of an ASCII string."""
    h = 2166136261
    for ch in s.encode():
        h = ((h ^ ch) * 16777619) & 0xFFFFFFFF
    return h


def subword_ids(word: str):
    """fastText's character n-gram ids (minn..maxn, the word wrapped in < >) of one word, hashed into the buckets
    that follow the vocabulary rows."""
    w = "<" + word + ">"
    ids = []
    for i in range(len(w)):
        for n in range(FT_MINN, FT_MAXN + 1):
            if i + n > len(w):
                break
            ids.append(FT_VOCAB + fnv1a_32(w[i:i + n]) % FT_BUCKETS)
    return ids


def fasttext_ids(docs, word_ids):
    """The flat input ids (each word's id, then its subword ids) and the bag offsets of a batch of documents."""
    ids, offsets = [], []
    for doc in docs:
        offsets.append(len(ids))
        for word in doc:
            ids.append(word_ids[word])
            ids.extend(subword_ids(word))
    return ids, offsets


def make_documents(rng: random.Random):
    """A synthetic lower-case vocabulary of FT_VOCAB words (3 to 10 letters) and FT_DOCS documents of FT_WORDS
    words each drawn with Zipf-like frequencies."""
    letters = "abcdefghijklmnopqrstuvwxyz"
    vocab = []
    seen = set()
    while len(vocab) < FT_VOCAB:
        word = "".join(rng.choice(letters) for _ in range(rng.randint(3, 10)))
        if word not in seen:
            seen.add(word)
            vocab.append(word)
    weights = [1.0 / (r + 1) for r in range(FT_VOCAB)]
    docs = [rng.choices(vocab, weights=weights, k=FT_WORDS) for _ in range(FT_DOCS)]
    return vocab, docs


def make_lidar_points(gen: torch.Generator):
    """A LiDAR-like sweep as a host float32 array (VX_N, 4) = x, y, z, intensity: 70% on a noisy ground plane, 30% on
    40 box-shaped objects, all inside the voxel grid."""
    n_ground = int(VX_N * 0.7)
    n_obj = VX_N - n_ground
    half = -VX_ORIGIN[0] - 0.5
    ground = torch.empty(n_ground, 4)
    ground[:, :2] = (torch.rand(n_ground, 2, generator=gen) * 2 - 1) * half
    ground[:, 2] = torch.randn(n_ground, generator=gen) * 0.05 - 1.7
    centres = (torch.rand(40, 3, generator=gen) * 2 - 1) * torch.tensor([half - 3, half - 3, 0.0])
    which = torch.randint(0, 40, (n_obj,), generator=gen)
    objs = torch.empty(n_obj, 4)
    objs[:, :2] = centres[which, :2] + (torch.rand(n_obj, 2, generator=gen) * 2 - 1) * 2.0
    objs[:, 2] = -1.7 + torch.rand(n_obj, generator=gen) * 3.0
    pts = torch.cat([ground, objs], 0)
    pts[:, 3] = torch.rand(VX_N, generator=gen)
    return pts[torch.randperm(VX_N, generator=gen)].numpy()


def voxel_keys_numpy(points):
    """Voxel keys of the points on the host and their deduplication with np.unique (a sort of VX_N int64 keys):
    the unique keys, each point's voxel (inverse index) and the points per voxel."""
    origin = np.asarray(VX_ORIGIN, dtype=np.float32)
    coords = np.floor((points[:, :3] - origin) / np.float32(VX_SIZE)).astype(np.int64)
    coords = np.clip(coords, 0, np.asarray(VX_GRID, dtype=np.int64) - 1)
    keys = (coords[:, 0] * VX_GRID[1] + coords[:, 1]) * VX_GRID[2] + coords[:, 2]
    uniq, inverse, counts = np.unique(keys, return_inverse=True, return_counts=True)
    return uniq, inverse.reshape(-1), counts


def main() -> None:
    reps, check, dev, bf = arguments()
    if not torch.cuda.is_available():
        print("diag_holdout32: no CUDA device is available; nothing to run", flush=True)
        return
    run_all(reps, check, dev)


def run_all(reps, check, dev) -> None:
    # grid_sample_3d_feature_volume_f32: a dense voxel feature grid (DVGO/TensoRF-style, 32 fp32 channels at 64^3,
    # NCDHW, 32 MiB) queried by trilinear grid_sample at 2^19 uniformly random points (a regulariser's free-space
    # samples); output (1, 32, 1, 1, 2^19), 64 MiB
    gs_vol = torch.randn(1, GS_C, GS_D, GS_D, GS_D, device=dev) * 0.1
    gs_pts = torch.rand(1, 1, 1, GS_P, 3, device=dev) * 2 - 1
    # triton_count_min_sketch_query_i32: point queries of 2^25 uniformly random int32 ids (128 MiB) against a
    # count-min sketch of depth 4 and width 2^21 (int32 counters, 32 MiB) filled from a heavy-tailed stream of 2^24 ids
    cm_sketch = torch.empty(CM_DEPTH, 1 << CM_WBITS, dtype=torch.int32, device=dev)
    cm_stream = (torch.exp(torch.rand(CM_STREAM, device=dev, dtype=torch.float64) * math.log(2.0 ** 30)) - 1).long()
    for r in range(CM_DEPTH):
        cm_sketch[r] = torch.bincount(cms_hash(cm_stream, r), minlength=1 << CM_WBITS).int()
    del cm_stream
    cm_keys = torch.randint(0, 2 ** 31 - 1, (CM_N,), device=dev, dtype=torch.int32)
    # upsample_trilinear3d_x2_256ch_f32: a 3-D U-Net decoder's 2x trilinear upsampling of the bottleneck features,
    # 2 x 256 channels at 16^3 -> 32^3, fp32 NCDHW (8 MiB in, 64 MiB out)
    up_x = torch.randn(UP_N, UP_C, UP_S, UP_S, UP_S, device=dev)
    # conv3d_depthwise_7x7x7_f32: a 3D UX-Net block's depthwise 7x7x7 convolution (groups = channels = 48, padding 3,
    # bias), 2 x 48 channels at 48^3, fp32 NCDHW (40.5 MiB in and out)
    dw_x = torch.randn(DW_N, DW_C, DW_S, DW_S, DW_S, device=dev)
    dw_w = torch.randn(DW_C, 1, DW_K, DW_K, DW_K, device=dev) / DW_K ** 1.5
    dw_b = torch.randn(DW_C, device=dev) * 0.1
    # yolov5_detect_head_decode_fp16: YOLOv5's Detect-head decoding at inference for a batch of 8 640x640 images
    # (80 classes, 3 anchors, strides 8/16/32), fp16 head outputs (25 MiB, 6 MiB, 1.6 MiB), then xyxy boxes and
    # class confidences for NMS
    yo_feats = [torch.randn(YO_B, YO_NA * (YO_NC + 5), YO_IMG // s, YO_IMG // s, device=dev, dtype=YO_DTYPE) * 2
                for s in YO_STRIDES]
    yo_grids, yo_anchor_grids = yolo_grids(YO_DTYPE, dev)
    # nnunet_dice_ce_deep_supervision_f32: nnU-Net v2's Dice + CE loss with deep supervision at three scales
    # (256^2, 128^2, 64^2), batch 8, 9 classes, fp32 logits (18 MiB at full scale), int64 labels (B, 1, H, W)
    dc_logits = [torch.randn(DC_B, DC_C, s, s, device=dev) * 2 for s in DC_SIZES]
    dc_full = torch.randint(0, DC_C, (DC_B, 1, DC_SIZES[0], DC_SIZES[0]), device=dev)
    dc_targets = [dc_full[:, :, ::DC_SIZES[0] // s, ::DC_SIZES[0] // s].contiguous() for s in DC_SIZES]
    # top_p_sampling_vocab128k_f32: one sampling step of `generate` for 64 sequences over Llama-3's 128256-token
    # vocabulary, temperature 0.6, top-p 0.9, fp32 logits (31 MiB)
    tp_logits = torch.randn(TP_BATCH, TP_VOCAB, device=dev) * 3
    # gcn_layer_sparse_coo_mm_f32: a GCN layer (128 -> 16 features, Kipf & Welling's hidden width) on 2^18 nodes
    # (128 MiB of fp32 features) and 2^22 random edges with symmetric normalisation weights; the adjacency is built
    # with sparse_coo_tensor in the forward
    gc_row = torch.randint(0, GC_NODES, (GC_EDGES,), device=dev)
    gc_col = torch.randint(0, GC_NODES, (GC_EDGES,), device=dev)
    gc_deg = torch.bincount(gc_row, minlength=GC_NODES).float().clamp(min=1)
    gc_ew = gc_deg[gc_row].rsqrt() * gc_deg[gc_col].rsqrt()
    gc_ei = torch.stack([gc_row, gc_col])
    del gc_row, gc_col, gc_deg
    gc_x = torch.randn(GC_NODES, GC_IN, device=dev)
    gc_w = torch.randn(GC_IN, GC_HID, device=dev) / GC_IN ** 0.5
    # fasttext_subword_hash_embedding_bag: a fastText-style classifier on 128 documents of 32 words: each word's id and
    # its hashed character 3..6-grams (FNV-1a into 2M buckets, in Python), then embedding_bag (mean) over a
    # (5000 + 2M) x 64 fp32 table, a linear layer to 512 labels and argmax
    rng = random.Random(0)
    ft_vocab, ft_docs = make_documents(rng)
    ft_word_ids = {w: i for i, w in enumerate(ft_vocab)}
    ft_table = torch.randn(FT_VOCAB + FT_BUCKETS, FT_DIM, device=dev) * 0.1
    ft_w = torch.randn(FT_LABELS, FT_DIM, device=dev) / FT_DIM ** 0.5
    ft_b = torch.zeros(FT_LABELS, device=dev)
    # voxel_downsample_numpy_unique_index_add: voxel-grid downsampling (0.2 m voxels, a 512 x 512 x 40 grid) of a
    # 2^20-point LiDAR sweep held in host memory (float32 x, y, z, intensity; 16 MiB): keys and np.unique on the host,
    # then per-voxel means with index_add_ on the GPU
    vx_points = make_lidar_points(torch.Generator().manual_seed(0)) if np is not None else None

    # warm-up outside the ranges: the Triton kernel's compilation
    ready = {}
    if triton is not None:
        try:
            triton_cms_query(cm_keys[: CM_BLOCK * 8], cm_sketch)
            ready["triton_count_min_sketch_query_i32"] = True
        except Exception as e:  # noqa: BLE001 - any compile failure means that case is skipped
            print(f"triton_count_min_sketch_query_i32: compile failed ({type(e).__name__}: {str(e)[:120]})",
                  flush=True)
    torch.cuda.synchronize()

    def needs(name):
        if not ready.get(name):
            raise RuntimeError("its feature is missing in this build or its set-up or warm-up failed")

    def volume_query():
        return F.grid_sample(gs_vol, gs_pts, mode="bilinear", padding_mode="border", align_corners=True)

    def sketch_query():
        needs("triton_count_min_sketch_query_i32")
        return triton_cms_query(cm_keys, cm_sketch)

    def unet_upsample():
        return F.interpolate(up_x, scale_factor=2, mode="trilinear", align_corners=False)

    def depthwise_conv3d():
        return F.conv3d(dw_x, dw_w, dw_b, padding=DW_K // 2, groups=DW_C)

    def yolo_step():
        return yolo_decode(yo_feats, yo_grids, yo_anchor_grids)

    def nnunet_loss():
        return deep_supervision_loss(dc_logits, dc_targets)

    def sample_step():
        return top_p_sample(tp_logits, TP_TEMP, TP_P)

    def gcn_step():
        return gcn_layer(gc_ei, gc_ew, gc_x, gc_w, GC_NODES)

    def fasttext_step():
        ids, offsets = fasttext_ids(ft_docs, ft_word_ids)  # host: Python hashing, before any GPU work
        ids_t = torch.tensor(ids, dtype=torch.int64).to(dev)
        offsets_t = torch.tensor(offsets, dtype=torch.int64).to(dev)
        emb = F.embedding_bag(ids_t, ft_table, offsets_t, mode="mean")
        return emb, F.linear(emb, ft_w, ft_b).argmax(-1)

    def voxel_step():
        if np is None:
            raise RuntimeError("numpy is not installed")
        uniq, inverse, counts = voxel_keys_numpy(vx_points)  # host: NumPy, before any GPU work
        pts = torch.from_numpy(vx_points).to(dev)
        inv = torch.from_numpy(inverse).to(dev)
        cnt = torch.from_numpy(counts).to(dev)
        sums = torch.zeros(uniq.shape[0], pts.shape[1], device=dev).index_add_(0, inv, pts)
        return torch.from_numpy(uniq).to(dev), sums / cnt[:, None]

    cases = [
        ("grid_sample_3d_feature_volume_f32", guarded("grid_sample", volume_query)),
        ("triton_count_min_sketch_query_i32", guarded("triton", sketch_query)),
        ("upsample_trilinear3d_x2_256ch_f32", guarded("interpolate", unet_upsample)),
        ("conv3d_depthwise_7x7x7_f32", guarded("conv3d", depthwise_conv3d)),
        ("yolov5_detect_head_decode_fp16", guarded("yolo decode", yolo_step)),
        ("nnunet_dice_ce_deep_supervision_f32", guarded("dice ce", nnunet_loss)),
        ("top_p_sampling_vocab128k_f32", guarded("top-p", sample_step)),
        ("gcn_layer_sparse_coo_mm_f32", guarded("sparse.mm", gcn_step)),
        ("fasttext_subword_hash_embedding_bag", guarded("embedding_bag", fasttext_step)),
        ("voxel_downsample_numpy_unique_index_add", guarded("numpy", voxel_step)),
    ]

    def volume_right(r):
        ref = trilinear_reference(gs_vol[0], gs_pts[0, 0, 0, :64])
        ref_last = trilinear_reference(gs_vol[0], gs_pts[0, 0, 0, -64:])
        return (r.shape == (1, GS_C, 1, 1, GS_P) and close(r[0, :, 0, 0, :64].t(), ref, atol=1e-5, rtol=1e-4)
                and close(r[0, :, 0, 0, -64:].t(), ref_last, atol=1e-5, rtol=1e-4))

    def sketch_right(r):
        return (r.shape == cm_keys.shape and torch.equal(r[:4096], cms_query_reference(cm_keys[:4096], cm_sketch))
                and torch.equal(r[-4096:], cms_query_reference(cm_keys[-4096:], cm_sketch)))

    def upsample_right(r):
        ref = F.interpolate(up_x[:1, :2].double(), scale_factor=2, mode="trilinear", align_corners=False)
        ref_last = F.interpolate(up_x[-1:, -2:].double(), scale_factor=2, mode="trilinear", align_corners=False)
        return (r.shape == (UP_N, UP_C, 2 * UP_S, 2 * UP_S, 2 * UP_S) and close(r[:1, :2], ref, atol=1e-5, rtol=1e-5)
                and close(r[-1:, -2:], ref_last, atol=1e-5, rtol=1e-5))

    def depthwise_right(r):
        ref = F.conv3d(dw_x[:1, :2].double(), dw_w[:2].double(), dw_b[:2].double(), padding=DW_K // 2, groups=2)
        ref_last = F.conv3d(dw_x[-1:, -2:].double(), dw_w[-2:].double(), dw_b[-2:].double(), padding=DW_K // 2,
                            groups=2)
        return (r.shape == dw_x.shape and close(r[:1, :2], ref, atol=1e-4, rtol=1e-4)
                and close(r[-1:, -2:], ref_last, atol=1e-4, rtol=1e-4))

    def yolo_entry(level, img, a, iy, ix):
        """The decoded box and best class score of one anchor, by the formula, in float32."""
        n = YO_IMG // YO_STRIDES[level]
        y = yo_feats[level][img].float().view(YO_NA, YO_NC + 5, n, n)[a, :, iy, ix].sigmoid()
        cell = torch.tensor([ix - 0.5, iy - 0.5], device=y.device)
        xy = (y[:2] * 2 + cell) * YO_STRIDES[level]
        wh = (y[2:4] * 2) ** 2 * torch.tensor(YO_ANCHORS[level][2 * a:2 * a + 2], device=y.device, dtype=y.dtype)
        index = sum(YO_NA * (YO_IMG // s) ** 2 for s in YO_STRIDES[:level]) + (a * n + iy) * n + ix
        return index, torch.cat([xy - wh / 2, xy + wh / 2]), (y[5:] * y[4]).max()

    def yolo_right(r):
        box, score, cls = r
        n_anchors = YO_NA * sum((YO_IMG // s) ** 2 for s in YO_STRIDES)
        ok = box.shape == (YO_B, n_anchors, 4) and score.shape == (YO_B, n_anchors) and cls.shape == score.shape
        last = [YO_IMG // s - 1 for s in YO_STRIDES]
        for level, img, a, iy, ix in ((0, 0, 0, 0, 0), (0, 0, 1, 3, 5), (1, YO_B - 1, 2, last[1], 1),
                                      (2, YO_B - 1, YO_NA - 1, last[2], last[2])):
            index, b, s = yolo_entry(level, img, a, iy, ix)
            ok = ok and close(box[img, index], b, atol=1.0, rtol=1e-2) and close(score[img, index], s, atol=2e-3,
                                                                                   rtol=1e-2)
        return ok and bool(torch.isfinite(box.float()).all()) and float(score.max()) <= 1.0

    def nnunet_right(r):
        return r.dim() == 0 and abs(float(r) - dice_ce_reference(dc_logits, dc_targets)) < 1e-4

    def sample_right(r):
        tokens, scores = r
        ok = tokens.shape == (TP_BATCH,) and scores.shape == tp_logits.shape
        for i in (0, 1, TP_BATCH - 1):
            p = torch.softmax(tp_logits[i].double() / TP_TEMP, -1)
            kept = torch.isfinite(scores[i])
            mass = float(p[kept].sum())
            smallest = float(p[kept].min())
            ok = (ok and bool(kept[tokens[i]]) and mass >= TP_P - 1e-3 and mass - smallest < TP_P + 1e-3
                  and (bool((~kept).sum() == 0) or float(p[kept].min()) >= float(p[~kept].max()) - 1e-9))
        return ok

    def gcn_right(r):
        rows = torch.cat([torch.arange(0, GC_NODES, GC_NODES // 16, device=r.device),
                          torch.tensor([1, GC_NODES - 1], device=r.device)])
        ref = gcn_reference(gc_ei, gc_ew, gc_x, gc_w, rows)
        return r.shape == (GC_NODES, GC_HID) and close(r[rows], ref, atol=1e-4, rtol=1e-3)

    def fasttext_right(r):
        emb, labels = r
        ok = emb.shape == (FT_DOCS, FT_DIM) and labels.shape == (FT_DOCS,)
        for i in (0, FT_DOCS - 1):
            ids, _ = fasttext_ids(ft_docs[i:i + 1], ft_word_ids)
            ref = ft_table[torch.tensor(ids, device=ft_table.device)].double().mean(0)
            ok = ok and close(emb[i], ref, atol=1e-5, rtol=1e-4)
        return ok and torch.equal(labels, F.linear(emb, ft_w, ft_b).argmax(-1))

    def voxel_right(r):
        keys, means = r
        uniq, inverse, counts = voxel_keys_numpy(vx_points)
        ok = keys.shape[0] == uniq.shape[0] == means.shape[0] and int(counts.sum()) == VX_N
        for v in (0, int(inverse[0]), uniq.shape[0] - 1):
            ref = vx_points[inverse == v].astype(np.float64).mean(0)
            ok = ok and int(keys[v]) == int(uniq[v]) and close(means[v].cpu(), torch.from_numpy(ref), atol=1e-4,
                                                                 rtol=1e-4)
        return ok

    run_and_check(cases, reps, check, safe_checks({
        "grid_sample_3d_feature_volume_f32": volume_right,
        "triton_count_min_sketch_query_i32": sketch_right,
        "upsample_trilinear3d_x2_256ch_f32": upsample_right,
        "conv3d_depthwise_7x7x7_f32": depthwise_right,
        "yolov5_detect_head_decode_fp16": yolo_right,
        "nnunet_dice_ce_deep_supervision_f32": nnunet_right,
        "top_p_sampling_vocab128k_f32": sample_right,
        "gcn_layer_sparse_coo_mm_f32": gcn_right,
        "fasttext_subword_hash_embedding_bag": fasttext_right,
        "voxel_downsample_numpy_unique_index_add": voxel_right,
    }))


if __name__ == "__main__":
    main()
