"""Third held-out diagnosis set: 12 more library ops (PyTorch, cuBLAS, cuDNN, cuFFT), none in the first two sets,
captured after every rule change the first two prompted, to score the current rules on kernels they were not made
for. Labels (diag_holdout3_expected.toml) come from Nsight Compute's full report alone. Each case runs REPS times in
an NVTX range named after it; a case whose operator is missing in this PyTorch build is skipped with a message.

    python3 diag_holdout3.py [reps] [nocheck]
"""
import torch
import torch.nn.functional as F

from holdout_cases import arguments, run_cases
from holdout_cases import report as ok


def main() -> None:
    reps, check, dev, bf = arguments()

    sw_a = torch.randn(16384, 14336, device=dev, dtype=bf)
    sw_b = torch.randn(16384, 14336, device=dev, dtype=bf)
    cm_x = torch.randn(65536, 1024, device=dev)
    am_x = torch.randn(16384, 32000, device=dev)
    cat_xs = [torch.randn(4096, 1024 * (i + 1), device=dev, dtype=bf) for i in range(8)]
    wh_m = torch.rand(8192, 1, device=dev) > 0.5
    wh_a = torch.randn(8192, 8192, device=dev)
    wh_b = torch.randn(1, 8192, device=dev)
    dw_x = torch.randn(64, 256, 112, 112, device=dev, dtype=torch.float16).to(memory_format=torch.channels_last)
    dw_w = torch.randn(256, 1, 3, 3, device=dev, dtype=torch.float16).to(memory_format=torch.channels_last)
    li_x = torch.randn(8192, 1024, device=dev, dtype=bf)
    li_w = torch.randn(8192, 1024, device=dev, dtype=bf)
    bm_q = torch.randn(256, 2048, 64, device=dev, dtype=bf)
    bm_k = torch.randn(256, 64, 2048, device=dev, dtype=bf)
    q, k, v = (torch.randn(16, 16, 1024, 64, device=dev, dtype=bf) for _ in range(3))
    ff_x = torch.randn(1024, 65536, device=dev)
    sd_x = torch.randn(4096, 8192, device=dev)
    tf_x = torch.randn(256 << 20, device=dev, dtype=bf)
    torch.cuda.synchronize()

    cases = [
        ("swiglu_bf16", lambda: F.silu(sw_a) * sw_b),
        ("col_mean_f32", lambda: cm_x.mean(dim=0)),
        ("argmax_f32", lambda: am_x.argmax(dim=1)),
        ("cat_8_bf16", lambda: torch.cat(cat_xs, dim=1)),
        ("where_bcast_f32", lambda: torch.where(wh_m, wh_a, wh_b)),
        ("dwconv3x3_fp16_cudnn", lambda: F.conv2d(dw_x, dw_w, padding=1, groups=256)),
        ("linear_shortk_bf16", lambda: F.linear(li_x, li_w)),
        ("bmm_scores_bf16", lambda: torch.bmm(bm_q, bm_k)),
        ("sdpa_causal_d64_bf16", lambda: F.scaled_dot_product_attention(q, k, v, is_causal=True)),
        ("rfft_f32", lambda: torch.fft.rfft(ff_x, dim=1)),
        ("softmax_dim0_f32", lambda: torch.softmax(sd_x, dim=0)),
        ("to_float_bf16", lambda: tf_x.float()),
    ]
    results = run_cases(cases, reps)
    if not check:
        print("ok (not checked)")
        return

    ok("col_mean_f32", torch.allclose(results["col_mean_f32"], cm_x.double().mean(0).float(), atol=1e-4))
    ok("argmax_f32", torch.equal(results["argmax_f32"][:64], am_x[:64].max(dim=1).indices))
    ok("cat_8_bf16", torch.equal(results["cat_8_bf16"][:, :1024], cat_xs[0]))
    ok("softmax_dim0_f32", torch.allclose(results["softmax_dim0_f32"].sum(0), torch.ones(8192, device=dev), atol=1e-4))
    ok("rfft_f32", torch.allclose(results["rfft_f32"][:2, 0].real, ff_x[:2].sum(1), rtol=1e-3, atol=1e-1))
    ok("linear_shortk_bf16", torch.allclose(results["linear_shortk_bf16"][:16].float(),
                                            li_x[:16].float() @ li_w.float().t(), rtol=3e-2, atol=1.0))
    print("ok")


if __name__ == "__main__":
    main()
