"""Fifth held-out diagnosis set: 15 more library ops (PyTorch, cuBLAS FP64/complex, cuDNN 2-D/3-D conv, cuSPARSE,
memory-efficient attention, CUB), none in the first four sets, captured after the rule changes the fourth set
prompted (bank conflicts bounded by shared-memory stalls, idle SMs explaining an underfed tensor pipe, ncu's
partial-wave estimate weighed down without a tail), to score them on kernels they were not made for. Labels
(diag_holdout5_expected.toml) come from Nsight Compute's full report alone. Each case runs REPS times in an NVTX
range named after it; a case whose operator is missing in this PyTorch build is skipped with a message.

    python3 diag_holdout5.py [reps] [nocheck]
"""
import torch
import torch.nn.functional as F

from holdout_cases import arguments, run_and_check


def main() -> None:
    reps, check, dev, bf = arguments()
    half = torch.float16
    cl = torch.channels_last

    c7_x = torch.randn(64, 3, 224, 224, device=dev, dtype=half).to(memory_format=cl)
    c7_w = torch.randn(64, 3, 7, 7, device=dev, dtype=half).to(memory_format=cl)
    c3_x = torch.randn(8, 64, 32, 64, 64, device=dev, dtype=half)
    c3_w = torch.randn(64, 64, 3, 3, 3, device=dev, dtype=half)
    dg_a = torch.randn(4096, 4096, device=dev, dtype=torch.float64)
    dg_b = torch.randn(4096, 4096, device=dev, dtype=torch.float64)
    cg_a = torch.randn(4096, 4096, device=dev, dtype=torch.complex64)
    cg_b = torch.randn(4096, 4096, device=dev, dtype=torch.complex64)
    sp_dense = torch.rand(16384, 16384, device=dev)
    sp_a = (sp_dense * (sp_dense < 0.01)).to_sparse_csr()
    del sp_dense
    sp_b = torch.randn(16384, 256, device=dev)
    q, k, v = (torch.randn(8, 16, 1024, 64, device=dev) for _ in range(3))
    do_x = torch.randn(128 << 20, device=dev)
    ss_b = torch.sort(torch.randn(1 << 20, device=dev)).values
    ss_v = torch.randn(64 << 20, device=dev)
    md_x = torch.randn(16384, 1024, device=dev)
    uf_x = torch.randn(32, 64, 128, 128, device=dev)
    bc_x = torch.randn(16, 64, 128, 128, device=dev)
    eb_w = torch.randn(1 << 20, 128, device=dev)
    eb_i = torch.randint(0, 1 << 20, (1 << 17, 32), device=dev)
    oh_l = torch.randint(0, 64, (4 << 20,), device=dev)
    ps_x = torch.randn(32, 256, 128, 128, device=dev)
    vn_x = torch.randn(8192, 8192, device=dev)
    torch.cuda.synchronize()

    cases = [
        ("conv7x7_s2_fp16_cudnn", lambda: F.conv2d(c7_x, c7_w, stride=2, padding=3)),
        ("conv3d_fp16_cudnn", lambda: F.conv3d(c3_x, c3_w, padding=1)),
        ("dgemm_f64", lambda: dg_a @ dg_b),
        ("cgemm_c64", lambda: cg_a @ cg_b),
        ("spmm_csr_f32", lambda: sp_a @ sp_b),
        ("sdpa_efficient_f32", lambda: F.scaled_dot_product_attention(q, k, v)),
        ("dropout_f32", lambda: F.dropout(do_x, 0.1, training=True)),
        ("searchsorted_f32", lambda: torch.searchsorted(ss_b, ss_v)),
        ("median_dim1_f32", lambda: torch.median(md_x, dim=1).values),
        ("unfold_3x3_f32", lambda: F.unfold(uf_x, kernel_size=3, padding=1)),
        ("bicubic_up2_f32", lambda: F.interpolate(bc_x, scale_factor=2, mode="bicubic", align_corners=False)),
        ("embedding_bag_sum_f32", lambda: F.embedding_bag(eb_i, eb_w, mode="sum")),
        ("one_hot_64", lambda: F.one_hot(oh_l, 64)),
        ("pixel_shuffle_f32", lambda: F.pixel_shuffle(ps_x, 2)),
        ("vector_norm_f32", lambda: torch.linalg.vector_norm(vn_x, dim=1)),
    ]
    run_and_check(cases, reps, check, {
        "dgemm_f64": lambda r: torch.allclose(r[:4, :4], dg_a[:4] @ dg_b[:, :4]),
        "median_dim1_f32": lambda r: torch.equal(r[:16], md_x[:16].cpu().median(dim=1).values.to(dev)),
        "vector_norm_f32": lambda r: torch.allclose(r[:16], vn_x[:16].double().pow(2).sum(1).sqrt().float(), rtol=1e-4),
        "embedding_bag_sum_f32": lambda r: torch.allclose(r[:4], eb_w[eb_i[:4]].sum(1), atol=1e-4),
        "searchsorted_f32": lambda r: torch.equal(r[:1024].cpu(), torch.searchsorted(ss_b.cpu(), ss_v[:1024].cpu())),
    })


if __name__ == "__main__":
    main()
