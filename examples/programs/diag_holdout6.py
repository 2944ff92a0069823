"""Sixth held-out diagnosis set: 14 more library ops (PyTorch, cuFFT, cuDNN, cuBLAS/cuSOLVER batched LU), none in the
first five sets, captured after every rule change those sets prompted (the last: a cause that starves the tensor
pipe's operands explains an underfed tensor pipe), to score the rules on kernels they were not made for. Labels
(diag_holdout6_expected.toml) come from Nsight Compute's full report alone. Each case runs REPS times in an NVTX range
named after it; a case whose operator is missing in this PyTorch build is skipped with a message.

    python3 diag_holdout6.py [reps] [nocheck]
"""
import torch
import torch.nn.functional as F

from holdout_cases import arguments, run_and_check


def main() -> None:
    reps, check, dev, bf = arguments()
    half = torch.float16

    ei_x = torch.rand(128 << 20, device=dev) * 1.98 - 0.99
    fl_x = torch.randn(32, 64, 256, 256, device=dev)
    ro_x = torch.randn(32, 64, 256, 256, device=dev)
    tr_x = torch.randn(16384, 16384, device=dev)
    cd_x = torch.randn(32, 2048, 4096, device=dev, dtype=half)
    cd_w = torch.randn(2048, 1, 4, device=dev, dtype=half)
    in_x = torch.randn(32, 256, 128, 128, device=dev)
    ap_x = torch.randn(256, 2048, 14, 14, device=dev)
    st_x = torch.randn(64, 1 << 18, device=dev)
    st_win = torch.hann_window(1024, device=dev)
    ctc_lp = torch.randn(512, 64, 96, device=dev).log_softmax(2)
    ctc_tg = torch.randint(1, 96, (64, 128), device=dev)
    ctc_il = torch.full((64,), 512, dtype=torch.long, device=dev)
    ctc_tl = torch.full((64,), 128, dtype=torch.long, device=dev)
    nl_x = torch.randn(1 << 20, 1000, device=dev).log_softmax(1)
    nl_t = torch.randint(0, 1000, (1 << 20,), device=dev)
    lu_a = torch.randn(65536, 32, 32, device=dev)
    mn_p = torch.rand(8192, 32000, device=dev)
    cr_a = torch.randn(64 << 20, 3, device=dev)
    cr_b = torch.randn(64 << 20, 3, device=dev)
    torch.cuda.synchronize()

    cases = [
        ("erfinv_f32", lambda: torch.erfinv(ei_x)),
        ("flip_hw_f32", lambda: torch.flip(fl_x, dims=(2, 3))),
        ("roll_w_f32", lambda: torch.roll(ro_x, shifts=17, dims=3)),
        ("tril_f32", lambda: torch.tril(tr_x)),
        ("conv1d_dw_k4_fp16", lambda: F.conv1d(cd_x, cd_w, padding=3, groups=2048)),
        ("instance_norm_f32", lambda: F.instance_norm(in_x)),
        ("global_avgpool_f32", lambda: F.adaptive_avg_pool2d(ap_x, 1)),
        ("stft_f32", lambda: torch.stft(st_x, 1024, hop_length=256, window=st_win, return_complex=True)),
        ("ctc_loss_f32", lambda: F.ctc_loss(ctc_lp, ctc_tg, ctc_il, ctc_tl)),
        ("nll_loss_f32", lambda: F.nll_loss(nl_x, nl_t)),
        ("lu_factor_32x32_f32", lambda: torch.linalg.lu_factor(lu_a).LU),
        ("multinomial_f32", lambda: torch.multinomial(mn_p, 1)),
        ("cross_f32", lambda: torch.linalg.cross(cr_a, cr_b, dim=1)),
        ("bernoulli_f32", lambda: torch.bernoulli(ei_x.abs())),
    ]
    run_and_check(cases, reps, check, {
        "flip_hw_f32": lambda r: torch.equal(r[0, 0, 0, 0], fl_x[0, 0, -1, -1]),
        "roll_w_f32": lambda r: torch.equal(r[0, 0, 0, 17], ro_x[0, 0, 0, 0]),
        "global_avgpool_f32": lambda r: torch.allclose(r[:2, :8, 0, 0], ap_x[:2, :8].mean((2, 3)), atol=1e-5),
        "cross_f32": lambda r: torch.allclose(r[:4], torch.linalg.cross(cr_a[:4].cpu(), cr_b[:4].cpu()).to(dev)),
    })


if __name__ == "__main__":
    main()
