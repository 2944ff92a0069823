"""Errors raised by kprof. Each carries the command line's exit code for the same failure (docs/cli.md)."""
from __future__ import annotations


class KprofError(RuntimeError):
    """A kprof operation failed; ``exit_code`` is what ``kprof`` would exit with, ``kind`` names the class."""

    def __init__(self, message: str, exit_code: int = 1, kind: str = "error"):
        super().__init__(message)
        self.exit_code = exit_code
        self.kind = kind


class UsageError(KprofError, ValueError):
    """Bad arguments (exit code 2)."""


class BadInputError(KprofError):
    """A malformed or unreadable input file (exit code 3)."""


class NoGpuError(KprofError):
    """No usable NVIDIA GPU in this process (exit code 4): profiling and benchmarking need one."""


class NoToolError(KprofError):
    """A tool kprof needs is missing: ncu, libkprof_inject.so, kprof-kernels (exit code 5)."""


class ProgramFailedError(KprofError):
    """The profiled program or plan run failed (exit code 7)."""


_BY_KIND = {"usage": UsageError, "bad-input": BadInputError, "no-gpu": NoGpuError, "no-tool": NoToolError,
            "program-failed": ProgramFailedError}


def error_for(message: str, exit_code: int, kind: str) -> KprofError:
    return _BY_KIND.get(kind, KprofError)(message, exit_code, kind)
