"""Fourth held-out diagnosis set: 15 more library ops (PyTorch, cuBLAS, cuBLASLt, cuDNN, cuFFT, CUB), none in the
first three sets, captured after every rule change those sets prompted (the last: Nsight Compute's occupancy rules
weighed down unless kprof finds an occupancy cause), to score the current rules on kernels they were not made for.
Labels (diag_holdout4_expected.toml) come from Nsight Compute's full report alone. Each case runs REPS times in an
NVTX range named after it; a case whose operator is missing in this PyTorch build is skipped with a message.

    python3 diag_holdout4.py [reps] [nocheck]
"""
import torch
import torch.nn.functional as F

from holdout_cases import arguments, run_and_check


def main() -> None:
    reps, check, dev, bf = arguments()
    half = torch.float16

    ga_x = torch.randn(8192, 8192, device=dev)
    ga_i = torch.randint(0, 8192, (8192, 8192), device=dev)
    sa_src = torch.randn(64 << 20, device=dev)
    sa_idx = torch.randint(0, 1 << 20, (64 << 20,), device=dev)
    sa_out = torch.zeros(1 << 20, device=dev)
    ct_x = torch.randn(32, 256, 64, 64, device=dev, dtype=half)
    ct_w = torch.randn(256, 128, 4, 4, device=dev, dtype=half)
    lstm = torch.nn.LSTM(1024, 1024, batch_first=True).to(dev, half)
    ls_x = torch.randn(64, 64, 1024, device=dev, dtype=half)
    ff_x = torch.randn(4096, 4096, device=dev, dtype=torch.complex64)
    tf_a = torch.randn(8192, 8192, device=dev)
    tf_b = torch.randn(8192, 8192, device=dev)
    rp_x = torch.randn(32, 64, 256, 256, device=dev)
    lse_x = torch.randn(16384, 8192, device=dev)
    vm_x = torch.randn(32768, 4096, device=dev)
    cd_a = torch.randn(4096, 128, device=dev)
    cd_b = torch.randn(4096, 128, device=dev)
    lg_x = torch.rand(128 << 20, device=dev) * 10 + 0.1
    gs_x = torch.randn(16, 64, 256, 256, device=dev)
    gs_g = torch.rand(16, 256, 256, 2, device=dev) * 2 - 1
    i8_a = torch.randint(-128, 127, (8192, 8192), device=dev, dtype=torch.int8)
    i8_b = torch.randint(-128, 127, (8192, 8192), device=dev, dtype=torch.int8)
    lb_x = torch.randn(16384, 4096, device=dev, requires_grad=True)
    lb_ln = torch.nn.LayerNorm(4096).to(dev)
    lb_g = torch.randn(16384, 4096, device=dev)
    nz_x = torch.rand(256 << 20, device=dev) > 0.5
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.cuda.synchronize()

    def tf32_mm():
        torch.backends.cuda.matmul.allow_tf32 = True
        try:
            return tf_a @ tf_b
        finally:
            torch.backends.cuda.matmul.allow_tf32 = False

    def layer_norm_backward():
        lb_x.grad = None
        lb_ln.zero_grad(set_to_none=True)
        lb_ln(lb_x).backward(lb_g)
        return lb_x.grad

    cases = [
        ("gather_dim1_f32", lambda: torch.gather(ga_x, 1, ga_i)),
        ("scatter_add_1m_f32", lambda: sa_out.zero_().scatter_add_(0, sa_idx, sa_src)),
        ("conv_transpose_fp16_cudnn", lambda: F.conv_transpose2d(ct_x, ct_w, stride=2, padding=1)),
        ("lstm_fp16_cudnn", lambda: lstm(ls_x)[0]),
        ("fft2_c64", lambda: torch.fft.fft2(ff_x)),
        ("matmul_tf32", tf32_mm),
        ("reflect_pad_f32", lambda: F.pad(rp_x, (3, 3, 3, 3), mode="reflect")),
        ("logsumexp_f32", lambda: torch.logsumexp(lse_x, dim=1)),
        ("var_mean_f32", lambda: torch.var_mean(vm_x, dim=1)),
        ("cdist_p1_f32", lambda: torch.cdist(cd_a, cd_b, p=1.0)),
        ("lgamma_f32", lambda: torch.lgamma(lg_x)),
        ("grid_sample_f32", lambda: F.grid_sample(gs_x, gs_g, mode="bilinear", align_corners=False)),
        ("int8_mm", lambda: torch._int_mm(i8_a, i8_b)),
        ("layer_norm_bwd_f32", layer_norm_backward),
        ("nonzero_bool", lambda: torch.nonzero(nz_x)),
    ]
    run_and_check(cases, reps, check, {
        "gather_dim1_f32": lambda r: torch.equal(r[:4], ga_x[:4].gather(1, ga_i[:4])),
        "logsumexp_f32": lambda r: torch.allclose(r[:64], lse_x[:64].double().exp().sum(1).log().float(), atol=1e-4),
        "var_mean_f32": lambda r: torch.allclose(r[1][:64], vm_x[:64].double().mean(1).float(), atol=1e-5)
        and torch.allclose(r[0][:64], vm_x[:64].double().var(1).float(), rtol=1e-4),
        "cdist_p1_f32": lambda r: torch.allclose(r[:8, :8], (cd_a[:8, None] - cd_b[None, :8]).abs().sum(-1), rtol=1e-4),
        "int8_mm": lambda r: torch.equal(r[:4, :4].cpu().long(), i8_a[:4].cpu().long() @ i8_b[:, :4].cpu().long()),
        "nonzero_bool": lambda r: r.shape[0] == int(nz_x.sum()),
        "scatter_add_1m_f32": lambda r: abs(float(r.sum()) - float(sa_src.sum())) < 1.0,
    })


if __name__ == "__main__":
    main()
