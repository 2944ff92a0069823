"""Calibration pairs for kprof's items (bench/RESULTS.md 9zc) on held-out set 37's cases (JAX and CuPy, captured on an
H100): each case's code exactly as captured and labelled (diag_holdout37.py's set-up functions, imported), against the
fix that kprof's first item for it names, timed alternately on one GPU.

    nchw_to_nhwc       the unpadded 32 x 32 shared tile read by column  ->  the tile padded to 32 x 33
    kde                one float64 accumulator per query  ->  four independent accumulators (more FP64 work in flight)
    l2norm             CuPy's ReductionKernel, one block per channel (32 blocks)  ->  partial sums of squares over
                       1024 slices of each channel (32768 outputs), then a second reduction and the square root
    map_coordinates    particles in random order  ->  the same particles sorted by field cell (the sort not timed:
                       particles that move little are re-sorted rarely)
(the kernels, ElementwiseKernel operation and jitted functions as captured; the inputs drawn the same way)
    verlet             60 steps of jax.numpy operators from Python  ->  the same loop under one jax.jit
    standardize        a new jax.jit(functools.partial(...)) per batch (a compilation each)  ->  one jitted function
    ema_scan           lax.scan of 2048 one-row steps  ->  the same scan with unroll=64 (fewer, longer kernels)
    jacobi             the convergence test (a read-back) after every sweep  ->  after every 50th sweep

    python3 calib_pairs37.py [rounds]   JSON on stdout: each case's median time before and after (CUDA events around
                                        the CuPy kernel pairs, else the wall time from an idle device to the case's
                                        own synchronisation), `rounds` (default 5) rounds of 5 calls of each variant,
                                        alternating (which goes first alternates too), after a warm-up; outputs
                                        compared.
Without a CUDA device it says so and exits 0.
"""
import functools
import json
import sys
import time

import diag_holdout37 as h  # noqa: E402 - sets the XLA environment before importing JAX

np, cp, jax, jnp, lax = h.np, h.cp, h.jax, h.jnp, h.lax

PADDED_SRC = h.NCHW_TO_NHWC_SRC.replace("__shared__ float tile[TILE][TILE];", "__shared__ float tile[TILE][TILE + 1];")
assert PADDED_SRC != h.NCHW_TO_NHWC_SRC

KDE_ILP4 = r"""
double a0 = 0.0, a1 = 0.0, a2 = 0.0, a3 = 0.0;
int j = 0;
for (; j + 4 <= n_points; j += 4) {
    double d0 = (qx - px[j]) * (qx - px[j]) + (qy - py[j]) * (qy - py[j]) + (qz - pz[j]) * (qz - pz[j]);
    double d1 = (qx - px[j + 1]) * (qx - px[j + 1]) + (qy - py[j + 1]) * (qy - py[j + 1]) + (qz - pz[j + 1]) * (qz - pz[j + 1]);
    double d2 = (qx - px[j + 2]) * (qx - px[j + 2]) + (qy - py[j + 2]) * (qy - py[j + 2]) + (qz - pz[j + 2]) * (qz - pz[j + 2]);
    double d3 = (qx - px[j + 3]) * (qx - px[j + 3]) + (qy - py[j + 3]) * (qy - py[j + 3]) + (qz - pz[j + 3]) * (qz - pz[j + 3]);
    a0 += w[j] * exp(neg_half_inv_h2 * d0);
    a1 += w[j + 1] * exp(neg_half_inv_h2 * d1);
    a2 += w[j + 2] * exp(neg_half_inv_h2 * d2);
    a3 += w[j + 3] * exp(neg_half_inv_h2 * d3);
}
for (; j < n_points; ++j) {
    double d = (qx - px[j]) * (qx - px[j]) + (qy - py[j]) * (qy - py[j]) + (qz - pz[j]) * (qz - pz[j]);
    a0 += w[j] * exp(neg_half_inv_h2 * d);
}
density = (a0 + a1) + (a2 + a3);
"""


def wall_ms(fn):
    cp.cuda.Device().synchronize()
    t0 = time.perf_counter()
    fn()
    return (time.perf_counter() - t0) * 1e3


def event_ms(fn):
    """CUDA events around a function that only launches on CuPy's current stream (it does not synchronise)."""
    start, end = cp.cuda.Event(), cp.cuda.Event()
    cp.cuda.Device().synchronize()
    start.record()
    fn()
    end.record()
    end.synchronize()
    return cp.cuda.get_elapsed_time(start, end)


def pair(rounds, before, after, timer=wall_ms, calls=5):
    before(), after()  # warm-up (compilation, plans)
    cp.cuda.Device().synchronize()
    tb, ta = [], []
    for r in range(rounds):
        order = [(before, tb), (after, ta)] if r % 2 == 0 else [(after, ta), (before, tb)]
        for fn, into in order:
            for _ in range(calls):
                into.append(timer(fn))
    return float(np.median(tb)), float(np.median(ta)), len(tb)


def nchw_to_nhwc(rng):
    x = cp.asarray(rng.random((h.TR_N, h.TR_C, h.TR_H, h.TR_W), dtype=np.float32))
    y = cp.empty((h.TR_N, h.TR_H, h.TR_W, h.TR_C), dtype=cp.float32)
    y_ref = cp.empty_like(y)
    plain = cp.RawKernel(h.NCHW_TO_NHWC_SRC, "nchw_to_nhwc")
    padded = cp.RawKernel(PADDED_SRC, "nchw_to_nhwc")
    hw = h.TR_H * h.TR_W
    grid, block = (hw // h.TR_TILE, h.TR_C // h.TR_TILE, h.TR_N), (h.TR_TILE, h.TR_ROWS, 1)

    def b():
        plain(grid, block, (x, y_ref, np.int32(h.TR_C), np.int32(hw)))

    def a():
        padded(grid, block, (x, y, np.int32(h.TR_C), np.int32(hw)))

    return b, a, lambda: bool((y == y_ref).all()), event_ms


def kde(rng):
    pts = rng.standard_normal((3, h.KD_POINTS)) * np.array([[1.0], [0.7], [1.3]])
    qs = rng.uniform(-3.0, 3.0, (3, h.KD_QUERIES))
    wts = rng.random(h.KD_POINTS) + 0.5
    wts /= wts.sum() * (2.0 * h.math.pi * h.KD_BANDWIDTH ** 2) ** 1.5
    coef = -0.5 / h.KD_BANDWIDTH ** 2
    qx, qy, qz = (cp.asarray(v) for v in qs)
    px, py, pz = (cp.asarray(v) for v in pts)
    w = cp.asarray(wts)
    params = ("float64 qx, float64 qy, float64 qz, raw float64 px, raw float64 py, raw float64 pz, raw float64 w, "
              "int32 n_points, float64 neg_half_inv_h2")
    one = cp.ElementwiseKernel(params, "float64 density", h.KDE_OPERATION, "gaussian_kde_eval")
    four = cp.ElementwiseKernel(params, "float64 density", KDE_ILP4, "gaussian_kde_eval_ilp4")
    ob, oa = cp.empty(h.KD_QUERIES), cp.empty(h.KD_QUERIES)

    def b():
        one(qx, qy, qz, px, py, pz, w, np.int32(h.KD_POINTS), np.float64(coef), ob)

    def a():
        four(qx, qy, qz, px, py, pz, w, np.int32(h.KD_POINTS), np.float64(coef), oa)

    return b, a, lambda: bool(cp.allclose(oa, ob, rtol=1e-12, atol=0)), event_ms


def l2norm(rng):
    x = cp.asarray(rng.standard_normal((h.L2_CHANNELS, h.L2_SAMPLES), dtype=np.float32))
    norm = cp.ReductionKernel("T x", "T y", "x * x", "a + b", "y = sqrt(a)", "0", "l2norm")
    squares = cp.ReductionKernel("T x", "T y", "x * x", "a + b", "y = a", "0", "sum_squares")
    out = {}

    def b():
        out["b"] = norm(x, axis=1)

    def a():
        partial = squares(x.reshape(h.L2_CHANNELS, 1024, h.L2_SAMPLES // 1024), axis=2)
        out["a"] = cp.sqrt(partial.sum(axis=1))

    return b, a, lambda: bool(cp.allclose(out["a"], out["b"], rtol=1e-4)), event_ms


def map_coordinates(rng):
    dev = h.need_jax()
    g = h.MP_GRID
    field_h = rng.random((g, g), dtype=np.float32)
    px = rng.random(h.MP_PARTICLES, dtype=np.float32) * np.float32(g)
    py = rng.random(h.MP_PARTICLES, dtype=np.float32) * np.float32(g)
    order = np.argsort(np.floor(px).astype(np.int64) * g + np.floor(py).astype(np.int64), kind="stable")
    field = jax.device_put(field_h, dev)
    xs, ys = jax.device_put(px, dev), jax.device_put(py, dev)
    xs_sorted, ys_sorted = jax.device_put(px[order], dev), jax.device_put(py[order], dev)

    @jax.jit
    def sample_field(f, x, y):  # as captured
        return h.jndi.map_coordinates(f, [x, y], order=1, mode="wrap")

    out = {}

    def b():
        out["b"] = sample_field(field, xs, ys).block_until_ready()

    def a():
        out["a"] = sample_field(field, xs_sorted, ys_sorted).block_until_ready()

    return b, a, lambda: bool(np.allclose(np.asarray(out["a"]), np.asarray(out["b"])[order], rtol=1e-6, atol=1e-6))


def verlet(rng):
    dev = h.need_jax()
    x0 = jax.device_put(rng.standard_normal((h.VV_PARTICLES, 3)).astype(np.float32), dev)
    v0 = jax.device_put((0.1 * rng.standard_normal((h.VV_PARTICLES, 3))).astype(np.float32), dev)
    jitted = jax.jit(functools.partial(h.verlet, steps=h.VV_STEPS, dt=h.VV_DT, k=h.VV_K, gamma=h.VV_GAMMA))
    out = {}

    def b():
        x, v = h.verlet(x0, v0, h.VV_STEPS, h.VV_DT, h.VV_K, h.VV_GAMMA)
        out["b"] = (x.block_until_ready(), v.block_until_ready())

    def a():
        x, v = jitted(x0, v0)
        out["a"] = (x.block_until_ready(), v.block_until_ready())

    return b, a, lambda: all(np.allclose(np.asarray(p), np.asarray(q), rtol=1e-4, atol=1e-5)
                             for p, q in zip(out["a"], out["b"]))


def standardize(rng):
    dev = h.need_jax()
    batches = [jax.device_put(rng.standard_normal((h.SB_ROWS, h.SB_COLS)).astype(np.float32), dev)
               for _ in range(h.SB_BATCHES)]
    once = jax.jit(functools.partial(h.standardize, eps=h.SB_EPS))
    out = {}

    def b():
        out["b"] = [r.block_until_ready() for r in h.standardize_batches(batches, h.SB_EPS)]

    def a():
        out["a"] = [once(x).block_until_ready() for x in batches]

    return b, a, lambda: all(np.allclose(np.asarray(p), np.asarray(q), rtol=1e-5, atol=1e-5)
                             for p, q in zip(out["a"], out["b"]))


def ema_scan(rng):
    dev = h.need_jax()
    seq = jax.device_put(rng.standard_normal((h.EM_STEPS, h.EM_BATCH, h.EM_CH)).astype(np.float32), dev)

    def make(unroll):
        @jax.jit
        def ema(xs, a):
            def step(s, x):
                s = a * s + (1.0 - a) * x
                return s, s
            return lax.scan(step, jnp.zeros_like(xs[0]), xs, unroll=unroll)[1]
        return ema

    plain, unrolled = make(1), make(64)
    alpha = jax.device_put(np.float32(h.EM_ALPHA), dev)
    out = {}

    def b():
        out["b"] = plain(seq, alpha).block_until_ready()

    def a():
        out["a"] = unrolled(seq, alpha).block_until_ready()

    return b, a, lambda: bool(np.allclose(np.asarray(out["a"]), np.asarray(out["b"]), rtol=1e-5, atol=1e-6))


def jacobi(rng):
    del rng
    u0_h = np.zeros((h.JC_N, h.JC_N), dtype=np.float32)
    u0_h[0, :] = 1.0
    u0 = cp.asarray(u0_h)
    kernel = cp.RawKernel(h.JACOBI_SRC, "jacobi_sweep")
    n = h.JC_N
    grid = ((n - 2 + h.JC_TILE - 1) // h.JC_TILE, (n - 2 + h.JC_TILE - 1) // h.JC_TILE)

    def every(k):
        u, u_new = u0.copy(), u0.copy()
        change = cp.zeros(1, dtype=cp.uint32)
        for s in range(h.JC_SWEEPS):
            change.fill(0)
            kernel(grid, (h.JC_TILE, h.JC_ROWS), (u, u_new, change, np.int32(n)))
            u, u_new = u_new, u
            if (s + 1) % k == 0 and float(change.view(cp.float32)[0]) < h.JC_TOL:
                break
        h.cupy_sync()
        return u

    out = {}

    def b():
        out["b"] = h.jacobi_solve(kernel, u0, h.JC_SWEEPS, h.JC_TOL)[0]
        h.cupy_sync()

    def a():
        out["a"] = every(50)

    # Neither converges within 600 sweeps at this tolerance, so both run all of them and agree.
    return b, a, lambda: bool(cp.allclose(out["a"], out["b"], rtol=1e-6, atol=1e-7))


PAIRS = [
    ("cupy_rawkernel_nchw_to_nhwc_64x256x96x96_f32", "the shared tile padded to 32 x 33", nchw_to_nhwc),
    ("cupy_elementwise_gaussian_kde_131k_queries_8k_points_3d_f64", "four independent accumulators", kde),
    ("cupy_reductionkernel_l2norm_32ch_x_4m_samples_f32", "two-pass reduction (32768 partial sums)", l2norm),
    ("jax_map_coordinates_bilinear_33m_particles_8192sq_field", "particles sorted by field cell", map_coordinates),
    ("jax_velocity_verlet_4096_particles_60_steps_f32", "the loop under one jax.jit", verlet),
    ("jax_standardize_batches_4x32768x1024_f32", "one jitted function for every batch", standardize),
    ("jax_lax_scan_ema_2048_steps_64x512_f32", "lax.scan with unroll=64", ema_scan),
    ("cupy_jacobi_laplace_2048sq_600_sweeps_f32", "the convergence test every 50th sweep", jacobi),
]


def main():
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 5
    if not h.cuda_device_present() or np is None or cp is None or jax is None:
        print("calib_pairs37: no CUDA device (or numpy, CuPy, JAX) here; nothing to run")
        return 0
    rng = np.random.default_rng(3737)
    cases = {}
    for name, change, make in PAIRS:
        try:
            before, after, same, *timer = make(rng)
            timer = timer[0] if timer else wall_ms
            b, a, calls = pair(rounds, before, after, timer)
            timed = ("CUDA events around the kernels" if timer is event_ms
                     else "host wall time from an idle device to the case's synchronisation")
            cases[name] = {"change": change, "timed": timed,
                           "before_ms": round(b, 4), "after_ms": round(a, 4), "calls": calls,
                           "outputs_match": same(), "realised_gain_pct": round((1 - a / b) * 100, 2)}
        except Exception as e:  # noqa: BLE001 - one failing pair is reported, the others still run
            cases[name] = {"change": change, "error": f"{type(e).__name__}: {str(e)[:200]}"}
        print(name, json.dumps(cases[name]), file=sys.stderr, flush=True)
    print(json.dumps({"device": cp.cuda.runtime.getDeviceProperties(0)["name"].decode(), "rounds": rounds,
                      "cases": cases}, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
