"""The process that compiles one fused-run kernel into numba's cache (runtime.native starts it).

    python -m runtime.numba_backend.build_kernel PATH DIGEST SIGNATURE INTERLEAVE

PATH: the kernel's source in the checked cache directory (runtime.numba_backend.cache); the
machine code goes into numba's cache beside it. LLVM's vectorizer interleaves INTERLEAVE
vector iterations (an option of this process's LLVM only). Exit status 0 once the kernel is
compiled and found in the cache by a fresh load; a warning of numba's (a cache it could not
write) is a failure.
"""

from __future__ import annotations

import sys
import warnings


def main(argv: list[str]) -> int:
    path, digest, signature, interleave = argv
    import llvmlite.binding
    import numba

    from . import cache

    warnings.simplefilter("error", numba.NumbaWarning)
    llvmlite.binding.set_option("", f"-force-vector-interleave={int(interleave)}")
    cache.kernel_dispatcher(path, digest, signature)
    loaded = cache.kernel_dispatcher(path, digest, signature)
    if not loaded.stats.cache_hits:
        print("the kernel is not in numba's cache after its compile", file=sys.stderr)
        return 3
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
