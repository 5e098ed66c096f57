"""Which float mul-adds this host's NumPy sums in an order the native routine reproduces.

The interpreter's float mul-add is NumPy's matmul, whose order is the host BLAS kernel's
(OpenBLAS: 1 chain, 2 interleaved chains on AVX2 for tiles of at most 8 rows, 16 chains on
AVX-512 for narrow tiles, other orders elsewhere). The native engine measures it per shape
(coop_ir.matmul_chains) and refuses a shape it cannot reproduce, naming it: the kernel then
runs in the interpreter (docs/native.md). Tests that expect a kernel natively accept that
refusal only where this host's probe makes it, for the shape the reason names."""
import re

from clcoop.native import coop_ir

_REFUSAL = re.compile(r"a (\d+) x (\d+) x (\d+) cooperative-matrix mul-add in (float|double): NumPy's matmul "
                      r"\(the interpreter's\) sums this shape in an order the native routine does not reproduce")


def refused_for_this_hosts_order(reason):
    """True where `reason` (a kernel's fallback reason) is that refusal and this host's
    probe does refuse the shape it names."""
    found = _REFUSAL.search(reason or "")
    if not found:
        return False
    m, n, k = map(int, found.groups()[:3])
    return coop_ir.matmul_chains(m, n, k, found.group(4)) is None


def not_refused_for_this_hosts_order(fallbacks):
    """{kernel: reason} of the fallbacks (kernel name -> reason) that are not that refusal."""
    return {kernel: why for kernel, why in fallbacks.items() if not refused_for_this_hosts_order(why)}


def assert_native_unless_refused_here(kernel):
    """The kernel runs natively, or falls back only for that refusal."""
    assert kernel.engine == "native" or refused_for_this_hosts_order(kernel.fallback_reason), \
        kernel.fallback_reason
