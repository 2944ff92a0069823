"""The C API's contract, called directly: JSON in, JSON out, errors as replies with the command line's exit codes."""
import json

import pytest

import kprof
from kprof import _capi


def raw(function: str, payload: bytes) -> dict:
    fn = getattr(_capi.lib(), "kprof_" + function)
    return _capi._reply(fn(payload))


def test_malformed_request_is_a_usage_error_reply():
    r = raw("analyze", b"{not json")
    assert r["ok"] is False and r["exit_code"] == 2 and r["kind"] == "usage"
    assert "bad request" in r["error"]
    r = raw("analyze", b"[1, 2]")
    assert r["ok"] is False and r["exit_code"] == 2


def test_compare_needs_both_sides():
    with pytest.raises(kprof.UsageError, match='"current" is required'):
        _capi.call("compare", {"baseline": "x"})


def test_profile_window_refuses_ncu_and_unknown_modes_before_touching_the_gpu():
    with pytest.raises(kprof.UsageError, match="does not run in-process"):
        _capi.call("profile_begin", {"mode": "ncu"})
    with pytest.raises(kprof.UsageError):
        _capi.call("profile_begin", {"mode": "perf"})


def test_ending_a_window_that_was_never_opened_is_a_usage_error():
    with pytest.raises(kprof.UsageError, match="no profiling window is open"):
        _capi.call("profile_end", {})


def test_autotune_cache_corrupt_file_is_a_warning_not_an_error(tmp_path):
    key = {"kernel": "k", "version": "v1", "stage": "s", "device": "d", "params": {"values": {}, "dtype": ""},
           "source_hash": "h"}
    path = _capi.call("autotune_load", {"root": str(tmp_path), "key": key})["path"]
    from pathlib import Path
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    Path(path).write_text("{ truncated")
    reply = _capi.call("autotune_load", {"root": str(tmp_path), "key": key})
    assert reply["file"]["entries"] == [] and reply["warnings"]
    assert json.dumps(reply)  # a plain JSON reply


def test_the_library_describes_its_modes_exit_codes_and_options_and_the_package_reads_them():
    i = _capi.interface()
    assert list(kprof.MODES) == [m["name"] for m in i["modes"]] == ["annotation", "event", "ncu", "nsys"]
    assert kprof.modes()["ncu"]["in_process"] is False and kprof.modes()["event"]["in_process"] is True
    # Every exit code the library names has its own exception class (no kind falls back to KprofError).
    for e in i["exit_codes"]:
        if e["kind"] in ("ok", "error"):
            continue
        err = kprof.errors.error_for_exit_code("x", e["code"])
        assert type(err) is not kprof.KprofError and err.exit_code == e["code"], e
    assert isinstance(kprof.errors.error_for_exit_code("x", 8), kprof.BusyError)
    names = kprof.profiling.run_options()
    assert {"prof-type", "prof_type", "counters-min-share", "no-wait"} <= names
    assert kprof.profiling.default_mode() == "annotation"


def test_a_window_request_takes_the_command_lines_options_by_key_and_refuses_others():
    with pytest.raises(kprof.UsageError, match='unknown request field "bogus"'):
        _capi.call("profile_begin", {"mode": "event", "bogus": 1})
    with pytest.raises(kprof.UsageError, match="counters-min-share"):
        _capi.call("profile_begin", {"mode": "event", "counters_min_share": 150})
    with pytest.raises(kprof.UsageError, match="must be true or false"):
        _capi.call("profile_begin", {"mode": "event", "no_wait": "yes"})
