//! Cache prefetch hints for the event loop (issue 22).
//!
//! At high rates and many flows, the packet records and flow state an event reads are mostly
//! cold: fetching them while earlier events run hides the memory latency. A hint changes no
//! result; on other architectures it compiles to nothing.

/// Hints the CPU to fetch every cache line that `*r` occupies: those of its bytes 0, 64, 128,
/// ... and of its last byte (no two of which are more than a line apart). The size is a
/// constant, so the loop unrolls to a few prefetch instructions without branches.
#[inline]
pub fn record<T>(r: &T) {
    lines(r, size_of::<T>());
}

/// Hints the CPU to fetch the lines of the first `bytes` bytes of `*r` (at most its size).
#[inline]
pub fn lines<T>(r: &T, bytes: usize) {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        let start = (r as *const T).cast::<i8>();
        let bytes = bytes.min(size_of::<T>());
        // SAFETY: every offset lies inside `*r`; a prefetch reads nothing architecturally.
        unsafe {
            for offset in (0..bytes).step_by(64) {
                _mm_prefetch::<_MM_HINT_T0>(start.add(offset));
            }
            _mm_prefetch::<_MM_HINT_T0>(start.add(bytes.saturating_sub(1)));
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = (r, bytes);
}

/// Hints the CPU to fetch the cache line of `p`, which need not point to a live value: a
/// prefetch reads nothing architecturally and never faults.
#[inline]
pub fn address(p: *const u8) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a prefetch of any address is a hint only: it neither reads nor faults.
    unsafe {
        std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(p.cast::<i8>());
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = p;
}
