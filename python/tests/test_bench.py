"""kprof.bench: do_bench's arguments and reductions everywhere, the timing on a GPU."""
import statistics

import pytest

import kprof
from kprof import benchmark as kb


@pytest.mark.parametrize("kwargs, match", [
    ({"return_mode": "p50"}, "return_mode"),
    ({"warmup": 0}, "warmup"),
    ({"rep": -1}, "rep"),
    ({"quantiles": [0.5, 1.5]}, "quantiles"),
    ({"quantiles": []}, "quantiles"),
])
def test_bad_arguments_are_usage_errors(kwargs, match):
    with pytest.raises(kprof.UsageError, match=match):
        kprof.bench(lambda: None, **kwargs)


def test_quantiles_interpolate_linearly_like_torch_quantile():
    times = [4.0, 1.0, 3.0, 2.0]
    assert kb.quantile(times, [0.0, 0.5, 1.0]) == [1.0, 2.5, 4.0]
    assert kb.quantile(times, [0.2]) == pytest.approx([1.6])


def test_summaries_follow_do_bench():
    times = [3.0, 1.0, 2.0, 10.0]
    assert kb.summarize(times, None, "mean") == statistics.mean(times)
    assert kb.summarize(times, None, "median") == 2.5
    assert kb.summarize(times, None, "min") == 1.0
    assert kb.summarize(times, None, "max") == 10.0
    assert kb.summarize(times, None, "all") == times
    assert kb.summarize(times, [0.5], "mean") == 2.5  # one quantile: a scalar
    assert kb.summarize(times, [0.5, 1.0], "mean") == [2.5, 10.0]


def test_without_a_gpu_bench_raises_no_gpu_error():
    try:
        import torch
        if torch.cuda.is_available():
            pytest.skip("a GPU is present")
    except ImportError:
        pass
    ran = []
    with pytest.raises(kprof.NoGpuError):
        kprof.bench(lambda: ran.append(1))
    assert not ran


def test_bench_agrees_with_triton_do_bench(gpu):
    torch = pytest.importorskip("torch", reason="torch not installed")
    triton = pytest.importorskip("triton", reason="triton not installed: comparison with do_bench not run")
    x = torch.randn(1 << 24, device="cuda")
    fn = lambda: x.mul_(1.0)  # noqa: E731
    ours = kprof.bench(fn, quantiles=[0.5, 0.2, 0.8])
    theirs = triton.testing.do_bench(fn, quantiles=[0.5, 0.2, 0.8])
    assert len(ours) == len(theirs) == 3
    assert ours[0] == pytest.approx(theirs[0], rel=0.25)


def test_parameters_are_do_benchs_in_its_order():
    import inspect
    params = list(inspect.signature(kprof.bench).parameters.items())
    assert [(n, p.default) for n, p in params[1:]] == [("warmup", 25), ("rep", 100), ("grad_to_none", None),
                                                         ("quantiles", None), ("return_mode", "mean")]
    triton = pytest.importorskip("triton", reason="triton not installed: signature not compared with do_bench")
    theirs = inspect.signature(triton.testing.do_bench).parameters
    assert [n for n, _ in params] == list(theirs)[:len(params)]
