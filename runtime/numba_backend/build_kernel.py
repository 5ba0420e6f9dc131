"""The process that compiles fused-run kernels into numba's cache (runtime.native starts it).

    python -m runtime.numba_backend.build_kernel

It reads one request a line on its standard input, a JSON object {"path", "digest",
"signature", "interleave"}: PATH holds the kernel's source in the checked cache directory
(runtime.numba_backend.cache), whose machine code goes into numba's cache beside it. It answers
each with one line on its standard output, {"ok": true} once the kernel is compiled and found
in the cache by a fresh load, or {"ok": false, "error": ...}; a warning of numba's (a cache it
could not write) is an error. Anything else written to the standard output (by numba, LLVM)
goes to the standard error instead. LLVM's vectorizer interleaves INTERLEAVE vector iterations
(an option of this process's LLVM only, set for each request). It exits at the end of its input, or after IDLE
seconds without a request (the next kernel starts it again).
"""

from __future__ import annotations

import json
import os
import select
import sys
import traceback
import warnings

IDLE = 120.0


def _compile(request: dict) -> dict:
    import llvmlite.binding  # type: ignore[import-untyped]

    from . import cache

    path, digest, signature = request["path"], request["digest"], request["signature"]
    llvmlite.binding.set_option("", f"-force-vector-interleave={int(request['interleave'])}")
    try:
        cache.kernel_dispatcher(path, digest, signature)
        loaded = cache.kernel_dispatcher(path, digest, signature)
    except Exception:  # noqa: BLE001 - (the parent gives up kernels and says why)
        return {"ok": False, "error": traceback.format_exc(limit=4)[-2000:]}
    if not loaded.stats.cache_hits:
        return {"ok": False, "error": "the kernel is not in numba's cache after its compile"}
    return {"ok": True}


def main(argv: list[str]) -> int:
    del argv
    replies = os.fdopen(os.dup(1), "w")
    os.dup2(2, 1)  # (what numba or LLVM print goes to the standard error)
    import numba

    warnings.simplefilter("error", numba.NumbaWarning)
    while True:
        ready, _, _ = select.select([sys.stdin], [], [], IDLE)
        if not ready:
            return 0
        line = sys.stdin.readline()
        if not line:
            return 0
        replies.write(json.dumps(_compile(json.loads(line))) + "\n")
        replies.flush()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
