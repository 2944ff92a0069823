// From one launch's raw metrics (a live `--metrics` run or the raw page of `--set full`), with the details-page
// labels as fallback, to the canonical quantities kprof reasons with. Every field records in `provenance` the
// metric expression it came from; fields nothing supports are listed in `unavailable`.
//
// FLOPs per precision (f = FP32, d = FP64, h = FP16), first source present wins:
//   1. instruction counts  sm(sp)__sass_thread_inst_executed_op_<p>{add,mul,fma}_pred_on.sum
//   2. per-cycle rates     smsp__sass_thread_inst_executed_op_<p>{add,mul,fma}_pred_on.sum.per_cycle_elapsed
//                          × smsp__cycles_elapsed.avg (the full set only has rates)
//   3. ncu's derived rates derived__smsp__sass_thread_inst_executed_op_<p>fma_pred_on_x2 (…) × cycles
//   FP32/FP64: add + mul + 2·fma. FP16 follows ncu's own roofline weights (its derived metrics are
//   hadd_x2, hmul_x2, hfma_x4: HADD2/HMUL2/HFMA2 are packed pairs), i.e. 2·add + 2·mul + 4·fma.
// Tensor FLOPs, per precision: sm__ops_path_tensor_src_<type>.sum (already counted in FLOPs: a 4096³ bf16 WMMA
//   GEMM reads exactly 2·4096³), else the sum of sm__ops_path_tensor_op_<op>_src_<type>….sum; tensor_precision is
//   the type with the largest count. A tensor pipe busy on matrix instructions whose precision was not collected
//   (e.g. IMMA: the annotation list has no INT8 total) leaves flops_tensor absent, not 0.
#pragma once
#include "model/canonical_metrics.hpp"
#include "model/profile.hpp"

namespace kprof::ncu {

CanonicalMetrics derive_canonical(const KernelLaunch& launch);

}  // namespace kprof::ncu
