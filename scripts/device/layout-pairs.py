#!/usr/bin/env python3
"""Calibration pairs for kprof's layout item (bench/RESULTS.md 9zb): cuDNN convolutions called with NCHW tensors, which
cuDNN converts to and from the NHWC layout its tensor-core kernels compute in, against the same convolutions called
with channels_last tensors. The shapes are the held-out cases that prompted the item (sets 4, 5, 11 and 34).

    python3 layout-pairs.py profile   each NCHW case twice, in an NVTX range named after it (for kprof run)
    python3 layout-pairs.py time      JSON on stdout: each case's median time in both layouts (CUDA events; the two
                                      layouts alternate, 7 rounds of 10 calls each, after a warm-up)

Without a CUDA device it says so and exits 0.
"""
import json
import sys

import torch
import torch.nn.functional as F


def cases(dev):
    half, bf = torch.float16, torch.bfloat16
    g = torch.Generator(device=dev).manual_seed(0)

    def rnd(*shape, dtype):
        return torch.randn(*shape, device=dev, generator=g).to(dtype)

    return [
        # (name, input, weight, call, memory format of the channels_last variant)
        ("set34_conv2d_3x3_fp16_32ch_256px", rnd(64, 32, 256, 256, dtype=half), rnd(32, 32, 3, 3, dtype=half) / 17,
         lambda x, w: F.conv2d(x, w, None, padding=1), torch.channels_last),
        ("set11_conv3x3_bf16_128ch_112px", rnd(64, 128, 112, 112, dtype=bf), rnd(128, 128, 3, 3, dtype=bf) / 34,
         lambda x, w: F.conv2d(x, w, padding=1), torch.channels_last),
        ("set4_conv_transpose_fp16_s2", rnd(32, 256, 64, 64, dtype=half), rnd(256, 128, 4, 4, dtype=half) / 64,
         lambda x, w: F.conv_transpose2d(x, w, stride=2, padding=1), torch.channels_last),
        ("set5_conv3d_fp16_64ch", rnd(8, 64, 32, 64, 64, dtype=half), rnd(64, 64, 3, 3, 3, dtype=half) / 41,
         lambda x, w: F.conv3d(x, w, padding=1), torch.channels_last_3d),
    ]


def main():
    mode = sys.argv[1] if len(sys.argv) > 1 else "time"
    if not torch.cuda.is_available():
        print("no CUDA device: nothing to run")
        return 0
    dev = torch.device("cuda")
    torch.backends.cudnn.benchmark = False
    all_cases = cases(dev)
    if mode == "profile":
        for name, x, w, call, _ in all_cases:
            call(x, w)  # plans and loads outside the range
            torch.cuda.synchronize()
            for _ in range(2):
                torch.cuda.nvtx.range_push(name)
                call(x, w)
                torch.cuda.synchronize()
                torch.cuda.nvtx.range_pop()
        print("ok")
        return 0
    out = {"device": torch.cuda.get_device_name(), "torch": torch.__version__,
           "cudnn": torch.backends.cudnn.version(), "cases": {}}
    for name, x, w, call, fmt in all_cases:
        xl, wl = x.contiguous(memory_format=fmt), w.contiguous(memory_format=fmt)
        variants = {"nchw": (x, w), "channels_last": (xl, wl)}
        ref = call(x, w).float()
        got = call(xl, wl).float()
        ok = bool(torch.allclose(ref, got, atol=5e-2, rtol=5e-2))
        for v in variants.values():
            for _ in range(3):
                call(*v)
        torch.cuda.synchronize()
        times = {k: [] for k in variants}
        for _ in range(7):
            for k, v in variants.items():
                a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
                a.record()
                for _ in range(10):
                    call(*v)
                b.record()
                b.synchronize()
                times[k].append(a.elapsed_time(b) / 10.0)
        med = {k: sorted(v)[len(v) // 2] for k, v in times.items()}
        out["cases"][name] = {"median_ms": med, "rounds_ms": times, "same_result": ok,
                              "realised_gain_pct": 100.0 * (1.0 - med["channels_last"] / med["nchw"])}
    print(json.dumps(out, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
