"""Second held-out diagnosis set: library kernels nobody here wrote (PyTorch, cuBLAS/cuBLASLt, cuDNN, CUB), none of
them in the first set (diag_holdout.py) nor used while the diagnosis rules were written or changed. Captured after
the rule changes that the first set prompted, to score those changes on kernels they were not made for. Labels
(diag_holdout2_expected.toml) come from Nsight Compute's full report alone. Each case runs REPS times in an NVTX
range named after it; a case whose operator is missing in this PyTorch build is skipped with a message.

    python3 diag_holdout2.py [reps] [nocheck]
"""
import torch
import torch.nn.functional as F

from holdout_cases import arguments, run_cases
from holdout_cases import report as ok


def main() -> None:
    reps, check, dev, bf = arguments()

    rms_x = torch.randn(32768, 4096, device=dev, dtype=bf)
    rms_w = torch.randn(4096, device=dev, dtype=bf)
    gelu_x = torch.randn(256 << 20, device=dev, dtype=bf)
    ce_logits = torch.randn(8192, 32000, device=dev)
    ce_target = torch.randint(0, 32000, (8192,), device=dev)
    sort_x = torch.randn(32 << 20, device=dev)
    topk_x = torch.randn(4096, 32000, device=dev)
    params = [torch.randn(25 << 20, device=dev, requires_grad=True) for _ in range(4)]
    for p in params:
        p.grad = torch.randn_like(p)
    opt = torch.optim.AdamW(params, lr=1e-3, fused=True)
    c1_x = torch.randn(64, 512, 28, 28, device=dev, dtype=bf).to(memory_format=torch.channels_last)
    c1_w = torch.randn(2048, 512, 1, 1, device=dev, dtype=bf).to(memory_format=torch.channels_last)
    mp_x = torch.randn(64, 256, 112, 112, device=dev)
    up_x = torch.randn(32, 128, 128, 128, device=dev)
    gn_x = torch.randn(64, 512, 32, 32, device=dev)
    bc_x = torch.randint(0, 256, (16 << 20,), device=dev)
    sk_a = torch.randn(65536, 4096, device=dev, dtype=bf)
    sk_b = torch.randn(4096, 64, device=dev, dtype=bf)
    f8_a = torch.randn(8192, 8192, device=dev).to(torch.float8_e4m3fn)
    f8_b = torch.randn(8192, 8192, device=dev).to(torch.float8_e4m3fn).t()
    one = torch.tensor(1.0, device=dev)
    torch.cuda.synchronize()

    cases = [
        ("rms_norm_bf16", lambda: F.rms_norm(rms_x, (4096,), rms_w)),
        ("gelu_bf16", lambda: F.gelu(gelu_x)),
        ("cross_entropy_f32", lambda: F.cross_entropy(ce_logits, ce_target)),
        ("sort_f32", lambda: torch.sort(sort_x)),
        ("topk_f32", lambda: torch.topk(topk_x, 50, dim=1)),
        ("adamw_fused", lambda: opt.step()),
        ("conv1x1_bf16_cudnn", lambda: F.conv2d(c1_x, c1_w)),
        ("max_pool_f32", lambda: F.max_pool2d(mp_x, 3, stride=2, padding=1)),
        ("upsample_bilinear_f32", lambda: F.interpolate(up_x, scale_factor=2, mode="bilinear", align_corners=False)),
        ("group_norm_f32", lambda: F.group_norm(gn_x, 32)),
        ("bincount_256", lambda: torch.bincount(bc_x, minlength=256)),
        ("gemm_skinny_bf16", lambda: sk_a @ sk_b),
        ("gemm_fp8", lambda: torch._scaled_mm(f8_a, f8_b, scale_a=one, scale_b=one, out_dtype=bf)),
    ]
    results = run_cases(cases, reps)
    if not check:
        print("ok (not checked)")
        return

    if results.get("rms_norm_bf16") is not None and results["rms_norm_bf16"] != "skipped":
        x = rms_x[:8].float()
        ref = x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + torch.finfo(torch.float32).eps) * rms_w.float()
        ok("rms_norm_bf16", torch.allclose(results["rms_norm_bf16"][:8].float(), ref, rtol=3e-2, atol=3e-2))
    ok("sort_f32", bool((results["sort_f32"].values[1:] >= results["sort_f32"].values[:-1]).all()))
    ok("topk_f32", torch.equal(results["topk_f32"].values[:, 0], topk_x.max(dim=1).values))
    ok("bincount_256", int(results["bincount_256"].sum()) == bc_x.numel())
    ok("cross_entropy_f32", abs(float(results["cross_entropy_f32"]) -
                                float(F.nll_loss(torch.log_softmax(ce_logits.double(), 1), ce_target))) < 1e-3)
    if results.get("gemm_fp8") not in (None, "skipped"):
        ref = f8_a[:64].float() @ f8_b.float()
        ok("gemm_fp8", torch.allclose(results["gemm_fp8"][:64].float(), ref, rtol=3e-2, atol=2.0))
    ok("gemm_skinny_bf16", torch.allclose(results["gemm_skinny_bf16"][:64].float(), sk_a[:64].float() @ sk_b.float(),
                                          rtol=3e-2, atol=1.0))
    print("ok")


if __name__ == "__main__":
    main()
