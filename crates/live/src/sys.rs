//! The few system calls the agents share: the monotonic clock, timer slack, real-time priority,
//! dying with the parent, and a stop flag set by SIGINT/SIGTERM.

use std::io;
use std::sync::atomic::{AtomicBool, Ordering};

use aqm::Nanos;

/// CLOCK_MONOTONIC in ns: the clock all agents of a run share (network namespaces do not
/// change it), and the one Python's `time.monotonic_ns()` reads.
pub fn mono_ns() -> Nanos {
    let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: `ts` is a valid out-pointer; CLOCK_MONOTONIC always exists on Linux.
    unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut ts) };
    ts.tv_sec as Nanos * 1_000_000_000 + ts.tv_nsec as Nanos
}

pub fn timespec(ns: Nanos) -> libc::timespec {
    libc::timespec { tv_sec: (ns / 1_000_000_000) as libc::time_t, tv_nsec: (ns % 1_000_000_000) as libc::c_long }
}

/// Sleeps until CLOCK_MONOTONIC reaches `t_ns` (or a signal arrives).
pub fn sleep_until(t_ns: Nanos) {
    let ts = timespec(t_ns);
    // SAFETY: `ts` is valid for the call; a null remainder is allowed with TIMER_ABSTIME.
    unsafe { libc::clock_nanosleep(libc::CLOCK_MONOTONIC, libc::TIMER_ABSTIME, &ts, std::ptr::null_mut()) };
}

fn check(ret: libc::c_int, what: &str) -> Result<(), String> {
    if ret == 0 { Ok(()) } else { Err(format!("{what}: {}", io::Error::last_os_error())) }
}

/// Timer slack of 1 ns: the kernel may otherwise defer a wake-up by up to 50 µs (the default
/// slack of a normal task) to batch it with others.
pub fn set_timer_slack_1ns() -> Result<(), String> {
    // SAFETY: PR_SET_TIMERSLACK takes an unsigned long and no pointers.
    check(unsafe { libc::prctl(libc::PR_SET_TIMERSLACK, 1 as libc::c_ulong, 0, 0, 0) }, "prctl(PR_SET_TIMERSLACK)")
}

/// SCHED_FIFO at `priority` for the calling process.
pub fn set_realtime(priority: u8) -> Result<(), String> {
    let p = libc::sched_param { sched_priority: priority as libc::c_int };
    // SAFETY: `p` is valid for the call; pid 0 is the caller.
    check(unsafe { libc::sched_setscheduler(0, libc::SCHED_FIFO, &p) }, "sched_setscheduler(SCHED_FIFO)")
}

/// Asks for SIGKILL when the parent dies, then checks the parent is still `expected_parent`:
/// an agent whose driver was killed before this call exits at once instead of running alone.
pub fn die_with_parent(expected_parent: Option<i32>) -> Result<(), String> {
    // SAFETY: PR_SET_PDEATHSIG takes a signal number and no pointers.
    check(unsafe { libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL as libc::c_ulong, 0, 0, 0) }, "prctl(PR_SET_PDEATHSIG)")?;
    // SAFETY: getppid has no preconditions.
    let parent = unsafe { libc::getppid() };
    match expected_parent {
        Some(p) if p != parent => Err(format!("parent {p} is gone (now {parent}): not starting")),
        _ => Ok(()),
    }
}

static STOP: AtomicBool = AtomicBool::new(false);

extern "C" fn on_stop_signal(_: libc::c_int) {
    STOP.store(true, Ordering::SeqCst);
}

/// SIGINT and SIGTERM set the stop flag (and interrupt blocking calls) instead of killing the
/// agent, so it can write what it recorded.
pub fn install_stop_handlers() {
    for sig in [libc::SIGINT, libc::SIGTERM] {
        // SAFETY: the handler only stores to an atomic (async-signal-safe); `sa` is zeroed
        // and then filled before use; no SA_RESTART, so blocking calls return EINTR.
        unsafe {
            let mut sa: libc::sigaction = std::mem::zeroed();
            sa.sa_sigaction = on_stop_signal as *const () as libc::sighandler_t;
            libc::sigemptyset(&mut sa.sa_mask);
            libc::sigaction(sig, &sa, std::ptr::null_mut());
        }
    }
}

pub fn stop_requested() -> bool {
    STOP.load(Ordering::SeqCst)
}

/// User plus system CPU time of the process so far, in seconds.
pub fn cpu_seconds() -> f64 {
    // SAFETY: an all-zero rusage is a valid out-value.
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: `ru` is a valid out-pointer.
    unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut ru) };
    let tv = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 * 1e-6;
    tv(ru.ru_utime) + tv(ru.ru_stime)
}

/// setsockopt with a plain value.
pub fn setsockopt<T>(fd: libc::c_int, level: libc::c_int, name: libc::c_int, value: &T, what: &str) -> Result<(), String> {
    // SAFETY: `value` points to a live T of the size passed.
    let r = unsafe { libc::setsockopt(fd, level, name, value as *const T as *const libc::c_void, std::mem::size_of::<T>() as libc::socklen_t) };
    check(r, what)
}

/// getsockopt into a plain value; returns the bytes the kernel filled.
pub fn getsockopt<T>(fd: libc::c_int, level: libc::c_int, name: libc::c_int, value: &mut T) -> io::Result<usize> {
    let mut len = std::mem::size_of::<T>() as libc::socklen_t;
    // SAFETY: `value` is a live, writable T of `len` bytes.
    let r = unsafe { libc::getsockopt(fd, level, name, value as *mut T as *mut libc::c_void, &mut len) };
    if r == 0 { Ok(len as usize) } else { Err(io::Error::last_os_error()) }
}
