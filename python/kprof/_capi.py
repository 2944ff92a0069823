"""ctypes binding of kprof's C API (src/capi/kprof_c.h): JSON requests in, JSON replies out.

The library is ``_lib/libkprof_c.so`` inside this package (copied there when the package was built, see
``setup.py``), or the file ``$KPROF_C_LIB`` names. It carries the whole C++ core statically, so it loads in any
CPython 3 on a glibc Linux; nothing here is tied to one Python version.
"""
from __future__ import annotations

import ctypes
import json
import os
import threading
from pathlib import Path
from typing import Any

from .errors import error_for

_HERE = Path(__file__).resolve().parent
_lock = threading.Lock()
_lib: ctypes.CDLL | None = None

_FUNCTIONS = ("kprof_analyze", "kprof_compare", "kprof_profile_begin", "kprof_profile_end", "kprof_describe_plan",
              "kprof_profile_plan", "kprof_autotune_load", "kprof_autotune_record")


def library_path() -> Path:
    """Where libkprof_c.so is loaded from: ``$KPROF_C_LIB``, else the copy inside the package."""
    env = os.environ.get("KPROF_C_LIB")
    return Path(env) if env else _HERE / "_lib" / "libkprof_c.so"


def _setup_environment() -> None:
    # The C++ core finds its data files and the CUPTI injection library through these variables; point them at
    # the copies installed with the package unless the user chose others.
    data = _HERE / "_data"
    if data.is_dir():
        os.environ.setdefault("KPROF_DATA_DIR", str(data))
    inject = _HERE / "_lib" / "libkprof_inject.so"
    if inject.is_file():
        os.environ.setdefault("KPROF_INJECT_LIB", str(inject))
    # The bundled kernel packages (describe_plan, *_profile_plan of a package): the C++ core looks for
    # kprof-kernels beside its executable, which in Python is the interpreter's folder.
    kernels = _HERE / "_bin" / "kprof-kernels"
    if kernels.is_file():
        os.environ.setdefault("KPROF_KERNELS", str(kernels))


def lib() -> ctypes.CDLL:
    global _lib
    with _lock:
        if _lib is None:
            path = library_path()
            if not path.is_file():
                raise ImportError(f"kprof: {path} is missing: the package was installed without its C library "
                                  "(reinstall with `pip install ./python`, which builds it; see docs/python.md)")
            _setup_environment()
            handle = ctypes.CDLL(str(path))
            for name in _FUNCTIONS:
                fn = getattr(handle, name)
                fn.argtypes = [ctypes.c_char_p]
                fn.restype = ctypes.c_void_p  # a malloc'd reply: read it, then kprof_free it
            for name in ("kprof_gpu_status", "kprof_interface"):
                getattr(handle, name).argtypes = []
                getattr(handle, name).restype = ctypes.c_void_p
            handle.kprof_free.argtypes = [ctypes.c_void_p]
            handle.kprof_free.restype = None
            handle.kprof_version.argtypes = []
            handle.kprof_version.restype = ctypes.c_char_p
            handle.kprof_nvtx_push.argtypes = [ctypes.c_char_p]
            handle.kprof_nvtx_push.restype = None
            handle.kprof_nvtx_pop.argtypes = []
            handle.kprof_nvtx_pop.restype = None
            _lib = handle
        return _lib


def _reply(ptr: int | None) -> dict[str, Any]:
    if not ptr:
        raise MemoryError("kprof: the C API returned no reply")
    try:
        text = ctypes.string_at(ptr).decode("utf-8")
    finally:
        lib().kprof_free(ptr)
    return json.loads(text)


def call(function: str, request: dict[str, Any] | None = None) -> dict[str, Any]:
    """Calls ``kprof_<function>`` with ``request``; raises the matching KprofError when the reply is not ok."""
    fn = getattr(lib(), "kprof_" + function)
    payload = json.dumps(request or {}).encode("utf-8")
    reply = _reply(fn(payload))
    if not reply.get("ok"):
        raise error_for(reply.get("error", "unknown error"), int(reply.get("exit_code", 1)), reply.get("kind", "error"))
    return reply


def gpu_status() -> dict[str, Any]:
    return _reply(lib().kprof_gpu_status())


_interface: dict[str, Any] | None = None


def interface() -> dict[str, Any]:
    """What the C library offers (kprof_interface): its modes, exit codes and profiling options. The package reads
    them from here rather than keeping copies."""
    global _interface
    if _interface is None:
        _interface = _reply(lib().kprof_interface())
    return _interface


def version() -> str:
    return lib().kprof_version().decode()


def nvtx_push(name: str) -> None:
    lib().kprof_nvtx_push(name.encode("utf-8"))


def nvtx_pop() -> None:
    lib().kprof_nvtx_pop()
