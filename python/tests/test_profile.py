"""kprof.profile: argument handling and the no-GPU path run everywhere; the in-process profile needs a GPU."""
import json
import os
import subprocess
import sys

import pytest

import kprof
from conftest import has_gpu


def test_unknown_mode_is_a_usage_error():
    with pytest.raises(kprof.UsageError, match="mode must be one of"):
        kprof.profile(lambda: None, mode="perf")


def test_non_callable_is_refused():
    with pytest.raises(kprof.UsageError, match="callable"):
        kprof.profile(42, mode="event")


@pytest.mark.parametrize("mode", ["event", "nsys", "annotation"])
def test_without_a_gpu_profiling_raises_no_gpu_error(mode, tmp_path):
    if has_gpu():
        pytest.skip("a GPU is present: the no-GPU path is not reachable here")
    ran = []
    with pytest.raises(kprof.NoGpuError) as e:
        kprof.profile(lambda: ran.append(1), mode=mode, out_dir=tmp_path / "p")
    assert e.value.exit_code == 4
    assert "no GPU" in str(e.value)
    assert not ran, "the function must not run when nothing can be measured"


def test_context_manager_without_a_gpu_raises_on_entry(tmp_path):
    if has_gpu():
        pytest.skip("a GPU is present")
    with pytest.raises(kprof.NoGpuError):
        with kprof.profile(mode="event", out_dir=tmp_path):
            pytest.fail("the block must not run")


def test_ncu_mode_needs_a_script_file():
    # python -c has no script to re-run under Nsight Compute; the error says what to do.
    code = ("import kprof\n"
            "try:\n"
            "    kprof.profile(lambda: None, mode='ncu', out_dir='x')\n"
            "except (kprof.UsageError, kprof.NoGpuError) as e:\n"
            "    print(type(e).__name__, e)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=os.environ)
    assert out.returncode == 0, out.stderr
    if has_gpu():
        assert "UsageError" in out.stdout and "put the code in a file" in out.stdout
    else:
        assert "NoGpuError" in out.stdout


def test_ncu_child_run_only_marks_the_range(monkeypatch):
    # Inside the re-run (under ncu) the call runs the function in the NVTX range and measures nothing itself.
    monkeypatch.setenv("KPROF_PY_NCU_CHILD", "1")
    ran = []
    assert kprof.profile(lambda: ran.append(1), mode="ncu", out_dir="unused") is None
    assert ran == [1]


def test_event_profile_on_the_gpu(gpu, tmp_path):
    torch = pytest.importorskip("torch", reason="torch not installed: GPU profile test not run")
    x = torch.randn(1 << 20, device="cuda")
    r = kprof.profile(lambda: (x * 2).sum(), mode="event", out_dir=tmp_path / "ev")
    assert (tmp_path / "ev" / "profile.json").is_file()
    assert r.stages


def test_ncu_rerun_command_is_one_the_cli_accepts(cli, tmp_path, monkeypatch):
    # The command kprof.profile(mode="ncu") re-runs the script with, checked by the real CLI in a dry run.
    script = tmp_path / "step.py"
    script.write_text("print('hi')\n")
    monkeypatch.setattr(sys, "argv", [str(script), "--n", "3"])
    monkeypatch.setattr(kprof.profiling, "kprof_binary", lambda: cli)
    p = kprof.profiling.Profiler("ncu", tmp_path / "art", kernel="step")
    cmd = p._ncu_command()
    sep = cmd.index("--")
    assert cmd[1:3] == ["run", "--prof-type=ncu"]
    assert cmd[cmd.index("--nvtx-include") + 1] == "kprof.profile/"
    assert cmd[sep + 1:] == [sys.executable, str(script), "--n", "3"]
    dry = subprocess.run(cmd[:sep] + ["--dry-run"] + cmd[sep:], capture_output=True, text=True)
    assert dry.returncode == 0, dry.stderr
    assert "ncu" in dry.stdout + dry.stderr


def test_ncu_rerun_carries_version_params_and_declared_work(cli, tmp_path, monkeypatch):
    # The re-run under ncu is a new process: the plan's version, parameters and declared work reach it through
    # the command line (--version, --name=value, --declared FILE), so its artifact has the roofline they give.
    script = tmp_path / "step.py"
    script.write_text("print('hi')\n")
    monkeypatch.setattr(sys, "argv", [str(script)])
    monkeypatch.setattr(kprof.profiling, "kprof_binary", lambda: cli)
    declared = {"row_softmax": {"flops": 3.0e8, "min_bytes": 5.4e8, "precision": "fp32"}}
    p = kprof.profiling.Profiler("ncu", tmp_path / "art", kernel="softmax", version="v2",
                                 params={"rows": 16384, "cols": 4096}, declared_stages=declared)
    cmd = p._ncu_command()
    sep = cmd.index("--")
    assert cmd[cmd.index("--version") + 1] == "v2"
    assert "--rows=16384" in cmd[:sep] and "--cols=4096" in cmd[:sep]
    with open(cmd[cmd.index("--declared") + 1]) as f:
        assert json.load(f) == declared
    dry = subprocess.run(cmd[:sep] + ["--dry-run"] + cmd[sep:], capture_output=True, text=True)
    assert dry.returncode == 0, dry.stderr
    bad = tmp_path / "bad.json"
    bad.write_text('{"row_softmax": {"flops": -1}}')
    i = cmd.index("--declared") + 1
    dry = subprocess.run(cmd[:i] + [str(bad)] + cmd[i + 1:sep] + ["--dry-run"] + cmd[sep:], capture_output=True,
                         text=True)
    assert dry.returncode == 3 and "flops must be a finite number >= 0" in dry.stderr, dry.stderr


def test_ncu_rerun_refuses_parameters_named_like_run_options(tmp_path, monkeypatch):
    script = tmp_path / "step.py"
    script.write_text("print('hi')\n")
    monkeypatch.setattr(sys, "argv", [str(script)])
    monkeypatch.setattr(kprof.profiling, "kprof_binary", lambda: "kprof")
    p = kprof.profiling.Profiler("ncu", tmp_path / "art", kernel="k", params={"out": 3, "rows": 4})
    with pytest.raises(kprof.UsageError, match="out"):
        p._ncu_command()


def test_the_run_option_list_covers_every_kprof_run_option(cli):
    # The names a plan parameter may not take are kprof run's options: the list must follow the command line.
    import re
    help_text = subprocess.run([cli, "run", "--help"], capture_output=True, text=True).stdout
    options = set(re.findall(r"--([a-z][a-z0-9_-]*)", help_text.split("Problem parameters")[0]))
    options = {o.replace("_", "-") for o in options}
    missing = options - kprof.profiling._RUN_OPTIONS
    assert not missing, f"kprof run options not in kprof.profiling._RUN_OPTIONS: {sorted(missing)}"
