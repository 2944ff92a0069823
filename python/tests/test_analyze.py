"""kprof.analyze and kprof.compare give exactly what the command line gives, from the same C++ code."""
import json
from pathlib import Path
import subprocess
import sys

import pytest

import kprof
from conftest import EXAMPLES, FIXTURES


def run_cli(cli, *args):
    done = subprocess.run([cli, *args], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_library_loads_and_reports_its_version():
    assert kprof.library_version() == kprof.__version__


def test_artifact_analysis_matches_the_cli(cli):
    art = EXAMPLES / "annotation_probe"
    r = kprof.analyze(art)
    assert json.loads(r.to_json()) == json.loads(run_cli(cli, "analyze", str(art), "--no-write", "--json"))
    assert r.contract() == run_cli(cli, "analyze", str(art), "--no-write")
    assert r.dir is None  # nothing written by default


def test_result_fields_come_from_the_analysed_run():
    r = kprof.analyze(EXAMPLES / "annotation_probe")
    assert r.kernel == "probe"
    assert r.mode == "annotation"
    assert r.bottleneck["kind"] in {"memory", "compute", "latency", "mixed", "launch", "occupancy"}
    labels = {s["display"] for s in r.stages}
    assert "stage_gemm · wmma_gemm" in labels
    assert "stage_gemm · wmma_gemm" in r.metrics
    assert r.metrics["stage_gemm · wmma_gemm"], "canonical metrics of the representative launch"
    gains = [o.get("run_gain_pct") or 0 for o in r.opportunities]
    assert gains == sorted(gains, reverse=True) and gains
    assert all(p["arithmetic_intensity"] >= 0 for p in r.roofline)
    assert r.roofline, "the probe's kernels have FLOPs and bytes"


def test_repr_html_has_the_roofline_svg_inline():
    r = kprof.analyze(EXAMPLES / "annotation_probe")
    page = r._repr_html_()
    assert "<svg" in page and "</svg>" in page
    assert "wmma_gemm" in page


def test_ncu_csv_export_is_imported():
    csv = FIXTURES / "h200-annotation" / "annotation_first_raw.csv"
    r = kprof.analyze(csv, kernel="probe_csv")
    assert r.kernel == "probe_csv"
    assert r.mode == "analyze"
    assert len(r.stages) >= 3


def test_write_puts_an_artifact_where_asked(tmp_path):
    out = tmp_path / "art"
    r = kprof.analyze(EXAMPLES / "annotation_probe", out_dir=out)
    assert r.dir == out
    assert (out / "profile.json").is_file() and (out / "contract.md").is_file()
    assert (out / "contract.md").read_text() == r.contract()


def test_missing_input_is_a_bad_input_error(tmp_path):
    with pytest.raises(kprof.BadInputError) as e:
        kprof.analyze(tmp_path / "nope.csv")
    assert e.value.exit_code == 3
    assert "no such file" in str(e.value)


def test_non_utf8_cell_is_an_error_not_an_abort(tmp_path):
    # Issue 24: the error quoting the cell held a byte that is not UTF-8; dumping the reply threw inside the C API
    # and terminated the Python process.
    csv = (FIXTURES / "h200-probe" / "quick.csv").read_bytes().replace(b'\n"0",', b'\n"\xff0",')
    (tmp_path / "x.csv").write_bytes(csv)
    with pytest.raises(kprof.KprofError) as e:
        kprof.analyze(tmp_path / "x.csv")
    assert e.value.exit_code == 3
    assert e.value.kind == "bad-input"


def test_to_pandas_without_pandas_says_so(monkeypatch):
    monkeypatch.setitem(sys.modules, "pandas", None)  # import pandas → ImportError
    r = kprof.analyze(EXAMPLES / "annotation_probe")
    with pytest.raises(ImportError, match="needs pandas"):
        r.to_pandas()


def test_to_pandas_rows_are_the_kernel_groups():
    pd = pytest.importorskip("pandas", reason="pandas not installed: DataFrame conversion not run")
    r = kprof.analyze(EXAMPLES / "annotation_probe")
    df = r.to_pandas()
    assert isinstance(df, pd.DataFrame)
    assert len(df) == len(r.metrics)


def test_compare_matches_the_cli(cli):
    a, b = EXAMPLES / "event_elementwise_1", EXAMPLES / "event_elementwise_2"
    c = kprof.compare(a, b)
    assert json.loads(c.to_json()) == json.loads(run_cli(cli, "compare", str(a), str(b), "--json"))
    assert c.markdown() == run_cli(cli, "compare", str(a), str(b))
    assert c["stages"]


def test_compare_of_an_unwritten_result_is_refused():
    r = kprof.analyze(EXAMPLES / "annotation_probe")
    with pytest.raises(ValueError, match="not written"):
        kprof.compare(r, r)


def test_the_library_comes_with_the_package():
    import os
    from kprof import _capi
    if os.environ.get("KPROF_C_LIB"):
        pytest.skip("KPROF_C_LIB overrides the packaged library (source-tree run)")
    path = _capi.library_path()
    assert path.is_file()
    assert path.parent.parent == Path(kprof.__file__).resolve().parent
    assert (path.parent.parent / "_data" / "devices.json").is_file()


def test_none_and_other_non_paths_are_usage_errors_not_type_errors():
    for bad in (None, 42, [None], []):
        with pytest.raises(kprof.UsageError):
            kprof.analyze(bad)
    with pytest.raises(kprof.UsageError, match="kprof.compare"):
        kprof.compare(None, None)


def test_opportunities_include_the_items_across_kernels(tmp_path):
    # MLA v4 as profiled on the H200: the softmax stage reads back the scores the first GEMM wrote near the DRAM
    # roof, so fusing it with its neighbours is the run's best item (issue 23).
    import shutil
    art = tmp_path / "mla_v4_annotation"
    shutil.copytree(EXAMPLES.parent / "mla-v4" / "mla_v4_annotation", art)
    r = kprof.analyze(art)
    first = r.opportunities[0]
    assert first["remedy"] == "fuse_stages" and first["scope"] == "pipeline", first
    assert first["stage"] == "mla_scores → mla_softmax → mla_output"
    assert first["assumes"]
    assert any(o["scope"] == "kernel" and o["kernel"] for o in r.opportunities)
