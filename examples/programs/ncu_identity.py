"""Instantiations of one PyTorch template at one launch shape, for kprof's kernel identity on ncu CSV import
(issue 25): add and abs (vectorized_elementwise_kernel<4, CUDAFunctor_add<float>> and <4, AbsFunctor<float>>, both
over 16 Mi floats), max and mean (reduce_kernel with MaxNanFunctor and MeanOps over the same rows), normal() for
float and bf16 (distribution_elementwise_grid_stride_kernel over the same element count). Each pair must come out
of `kprof analyze raw.csv details.csv` as two kernel groups, each with its own counters and duration.
    ncu --csv --page raw --print-units base python3 ncu_identity.py > raw.csv
"""
import torch


def main() -> None:
    n = 16 * 1024 * 1024
    g = torch.Generator(device="cuda").manual_seed(0)
    a = torch.rand(n, device="cuda", generator=g) - 0.5
    b = torch.rand(n, device="cuda", generator=g) - 0.5
    c = a + b                      # CUDAFunctor_add<float>
    d = a.abs()                    # AbsFunctor<float>
    rows = a.view(4096, 4096)
    m = rows.amax(dim=1)           # reduce_kernel, MaxNanFunctor
    s = rows.mean(dim=1)           # reduce_kernel, MeanOps
    f = torch.empty(n, device="cuda").normal_(generator=g)                       # normal<float>
    h = torch.empty(n, device="cuda", dtype=torch.bfloat16).normal_(generator=g)  # normal<BFloat16>
    torch.cuda.synchronize()
    assert torch.allclose(c, a + b) and bool((d >= 0).all()) and m.shape == s.shape == (4096,)
    print(f"checks: sum={float(c.sum()):.3f} abs={float(d.sum()):.3f} max={float(m.max()):.3f} "
          f"mean={float(s.mean()):.5f} normal={float(f.std()):.3f}/{float(h.float().std()):.3f}")


if __name__ == "__main__":
    main()
