"""Shared fixtures. The tests run against the installed package (scripts/test-python.sh installs it into a fresh
venv) or, for development, against the source tree with KPROF_C_LIB pointing at a built libkprof_c.so."""
import os
import shutil
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
EXAMPLES = REPO / "examples" / "h200" / "profiles"
FIXTURES = REPO / "tests" / "fixtures"


def kprof_cli() -> str | None:
    """The kprof command line to cross-check against: $KPROF_BINARY, the repository's build, or PATH."""
    for c in (os.environ.get("KPROF_BINARY"), REPO / "build" / "release" / "kprof"):
        if c and Path(c).is_file():
            return str(c)
    return shutil.which("kprof")


def has_gpu() -> bool:
    import kprof
    return bool(kprof.gpu_status().get("gpus"))


@pytest.fixture
def cli():
    path = kprof_cli()
    if not path:
        pytest.skip("the kprof command line is not built (set KPROF_BINARY): no cross-check with the CLI")
    return path


@pytest.fixture
def gpu():
    if not has_gpu():
        import kprof
        pytest.skip("no GPU here (" + (kprof.gpu_status().get("reason") or "?") + "): GPU test not run")
