"""Fourth held-out diagnosis set: 15 more library ops (PyTorch, cuBLAS, cuBLASLt, cuDNN, cuFFT, CUB), none in the
first three sets, captured after every rule change those sets prompted (the last: Nsight Compute's occupancy rules
weighed down unless kprof finds an occupancy cause), to score the current rules on kernels they were not made for.
Labels (diag_holdout4_expected.toml) come from Nsight Compute's full report alone. Each case runs REPS times in an
NVTX range named after it; a case whose operator is missing in this PyTorch build is skipped with a message.

    python3 diag_holdout4.py [reps] [nocheck]
"""
import torch
import torch.nn.functional as F

from holdout_cases import arguments, run_cases
from holdout_cases import report as ok


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
    results = run_cases(cases, reps)
    if not check:
        print("ok (not checked)")
        return

    def have(name):
        return not isinstance(results.get(name), str)

    if have("gather_dim1_f32"):
        ok("gather_dim1_f32", torch.equal(results["gather_dim1_f32"][:4], ga_x[:4].gather(1, ga_i[:4])))
    if have("logsumexp_f32"):
        ok("logsumexp_f32", torch.allclose(results["logsumexp_f32"][:64],
                                           lse_x[:64].double().exp().sum(1).log().float(), atol=1e-4))
    if have("var_mean_f32"):
        var, mean = results["var_mean_f32"]
        ok("var_mean_f32", torch.allclose(mean[:64], vm_x[:64].double().mean(1).float(), atol=1e-5)
           and torch.allclose(var[:64], vm_x[:64].double().var(1).float(), rtol=1e-4))
    if have("cdist_p1_f32"):
        ok("cdist_p1_f32", torch.allclose(results["cdist_p1_f32"][:8, :8],
                                          (cd_a[:8, None] - cd_b[None, :8]).abs().sum(-1), rtol=1e-4))
    if have("int8_mm"):
        ok("int8_mm", torch.equal(results["int8_mm"][:4, :4].cpu().long(),
                                   i8_a[:4].cpu().long() @ i8_b[:, :4].cpu().long()))
    if have("nonzero_bool"):
        ok("nonzero_bool", results["nonzero_bool"].shape[0] == int(nz_x.sum()))
    if have("scatter_add_1m_f32"):
        ok("scatter_add_1m_f32", abs(float(results["scatter_add_1m_f32"].sum()) - float(sa_src.sum())) < 1.0)
    print("ok")


if __name__ == "__main__":
    main()
