"""Errors raised by kprof. Each carries the command line's exit code for the same failure (docs/cli.md) and its
kind, the name the C library gives that exit code (kprof_interface's "exit_codes")."""
from __future__ import annotations


class KprofError(RuntimeError):
    """A kprof operation failed; ``exit_code`` is what ``kprof`` would exit with, ``kind`` names the class."""

    kind = "error"

    def __init__(self, message: str, exit_code: int = 1, kind: str | None = None):
        super().__init__(message)
        self.exit_code = exit_code
        self.kind = kind or type(self).kind


class UsageError(KprofError, ValueError):
    """Bad arguments (exit code 2)."""
    kind = "usage"


class BadInputError(KprofError):
    """A malformed or unreadable input file (exit code 3)."""
    kind = "bad-input"


class NoGpuError(KprofError):
    """No usable NVIDIA GPU in this process (exit code 4): profiling and benchmarking need one."""
    kind = "no-gpu"


class NoToolError(KprofError):
    """A tool kprof needs is missing: ncu, libkprof_inject.so, kprof-kernels (exit code 5)."""
    kind = "no-tool"


class NoPermissionError(KprofError):
    """No permission to read the GPU's performance counters (exit code 6; the message gives the fix)."""
    kind = "no-permission"


class ProgramFailedError(KprofError):
    """The profiled program or plan run failed (exit code 7)."""
    kind = "program-failed"


class BusyError(KprofError):
    """Another kprof run holds the GPU and ``no_wait`` was asked (exit code 8)."""
    kind = "busy"


class CannotWriteError(KprofError, OSError):
    """An output cannot be written: disk full, read-only, a path through a file (exit code 9)."""
    kind = "cannot-write"


class RegressionError(KprofError):
    """A comparison found a significant slowdown past the threshold (exit code 10)."""
    kind = "regression"


class InterruptedRunError(KprofError):
    """The run was interrupted by SIGINT (exit code 130) or terminated by SIGTERM (143); what was measured is kept."""
    kind = "interrupted"


_BY_KIND = {cls.kind: cls for cls in (UsageError, BadInputError, NoGpuError, NoToolError, NoPermissionError,
                                      ProgramFailedError, BusyError, CannotWriteError, RegressionError,
                                      InterruptedRunError)}
_BY_KIND["terminated"] = InterruptedRunError


def error_for(message: str, exit_code: int, kind: str) -> KprofError:
    return _BY_KIND.get(kind, KprofError)(message, exit_code, kind)


def error_for_exit_code(message: str, exit_code: int) -> KprofError:
    """The error the command line's ``exit_code`` stands for (its kind from the C library's table)."""
    from ._capi import interface
    kind = next((e["kind"] for e in interface()["exit_codes"] if e["code"] == exit_code), "error")
    return error_for(message, exit_code, kind)
