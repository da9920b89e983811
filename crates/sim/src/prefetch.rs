//! Cache prefetch hints for the event loop (issue 22).
//!
//! At high rates and many flows, the packet records and flow state an event reads are mostly
//! cold: fetching them while earlier events run hides the memory latency. A hint changes no
//! result; on other architectures it compiles to nothing.

/// Hints the CPU to fetch every cache line that `*r` occupies.
#[inline]
pub fn record<T>(r: &T) {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        const LINE: usize = 64;
        let start = (r as *const T).cast::<i8>();
        let first_line = start as usize & !(LINE - 1);
        let end = start as usize + size_of::<T>();
        // SAFETY: each address is that of a cache line `*r` overlaps, offset from `start` so as
        // to stay inside `*r` (the first line's from `start` itself); a prefetch reads nothing
        // architecturally.
        unsafe {
            _mm_prefetch::<_MM_HINT_T0>(start);
            let mut line = first_line + LINE;
            while line < end {
                _mm_prefetch::<_MM_HINT_T0>(start.add(line - start as usize));
                line += LINE;
            }
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = r;
}
