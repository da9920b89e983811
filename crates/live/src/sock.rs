//! Small IPv4 socket helpers for the traffic agents (the standard library cannot bind a TCP
//! client to a chosen source port, set its congestion control or read TCP_INFO).

use std::io;
use std::net::{Ipv4Addr, SocketAddrV4};
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};

use crate::sys::{getsockopt, setsockopt};

fn sockaddr(a: SocketAddrV4) -> libc::sockaddr_in {
    libc::sockaddr_in {
        sin_family: libc::AF_INET as libc::sa_family_t,
        sin_port: a.port().to_be(),
        sin_addr: libc::in_addr { s_addr: u32::from(*a.ip()).to_be() },
        sin_zero: [0; 8],
    }
}

fn peer_port(sa: &libc::sockaddr_in) -> u16 {
    u16::from_be(sa.sin_port)
}

/// A socket of `kind` (SOCK_STREAM / SOCK_DGRAM) bound to `local`, with SO_REUSEADDR (a flow
/// of a previous run may still hold the port in TIME_WAIT).
pub fn bound(kind: libc::c_int, local: SocketAddrV4) -> Result<OwnedFd, String> {
    // SAFETY: plain socket creation; the descriptor is owned below.
    let raw = unsafe { libc::socket(libc::AF_INET, kind | libc::SOCK_CLOEXEC, 0) };
    if raw < 0 {
        return Err(format!("socket: {}", io::Error::last_os_error()));
    }
    // SAFETY: `raw` is a fresh descriptor we own.
    let fd = unsafe { OwnedFd::from_raw_fd(raw) };
    setsockopt(raw, libc::SOL_SOCKET, libc::SO_REUSEADDR, &1 as &libc::c_int, "SO_REUSEADDR")?;
    let sa = sockaddr(local);
    // SAFETY: `sa` is a valid sockaddr_in of the size passed.
    let r = unsafe { libc::bind(raw, &sa as *const _ as *const libc::sockaddr, std::mem::size_of::<libc::sockaddr_in>() as u32) };
    if r != 0 {
        return Err(format!("bind {local}: {}", io::Error::last_os_error()));
    }
    Ok(fd)
}

pub fn connect(fd: &OwnedFd, peer: SocketAddrV4) -> Result<(), String> {
    let sa = sockaddr(peer);
    // SAFETY: `sa` is a valid sockaddr_in of the size passed.
    let r = unsafe { libc::connect(fd.as_raw_fd(), &sa as *const _ as *const libc::sockaddr, std::mem::size_of::<libc::sockaddr_in>() as u32) };
    if r != 0 {
        return Err(format!("connect {peer}: {}", io::Error::last_os_error()));
    }
    Ok(())
}

pub fn listen(fd: &OwnedFd) -> Result<(), String> {
    // SAFETY: listen on a bound stream socket.
    if unsafe { libc::listen(fd.as_raw_fd(), 1024) } != 0 {
        return Err(format!("listen: {}", io::Error::last_os_error()));
    }
    Ok(())
}

/// Accepts one connection (blocking up to the socket's timeout); returns it and the peer's port.
pub fn accept(fd: &OwnedFd) -> Option<(OwnedFd, u16)> {
    // SAFETY: all-zero sockaddr_in is valid as an out-value.
    let mut sa: libc::sockaddr_in = unsafe { std::mem::zeroed() };
    let mut len = std::mem::size_of::<libc::sockaddr_in>() as libc::socklen_t;
    // SAFETY: `sa`/`len` are valid out-pointers.
    let raw = unsafe { libc::accept4(fd.as_raw_fd(), &mut sa as *mut _ as *mut libc::sockaddr, &mut len, libc::SOCK_CLOEXEC) };
    // SAFETY: `raw` is a fresh descriptor we own when non-negative.
    (raw >= 0).then(|| (unsafe { OwnedFd::from_raw_fd(raw) }, peer_port(&sa)))
}

/// Receives a datagram; returns its payload length and the sender's port.
pub fn recv_from(fd: &OwnedFd, buf: &mut [u8]) -> Option<(usize, u16)> {
    // SAFETY: all-zero sockaddr_in is valid as an out-value.
    let mut sa: libc::sockaddr_in = unsafe { std::mem::zeroed() };
    let mut len = std::mem::size_of::<libc::sockaddr_in>() as libc::socklen_t;
    // SAFETY: `buf`, `sa` and `len` are valid for the kernel to write.
    let n = unsafe { libc::recvfrom(fd.as_raw_fd(), buf.as_mut_ptr() as *mut libc::c_void, buf.len(), 0, &mut sa as *mut _ as *mut libc::sockaddr, &mut len) };
    (n >= 0).then(|| (n as usize, peer_port(&sa)))
}

/// A receive and send timeout, so that blocking calls return to check the clock.
pub fn set_timeouts(fd: &OwnedFd, ns: u64) -> Result<(), String> {
    let tv = libc::timeval { tv_sec: (ns / 1_000_000_000) as libc::time_t, tv_usec: ((ns % 1_000_000_000) / 1000) as libc::suseconds_t };
    setsockopt(fd.as_raw_fd(), libc::SOL_SOCKET, libc::SO_RCVTIMEO, &tv, "SO_RCVTIMEO")?;
    setsockopt(fd.as_raw_fd(), libc::SOL_SOCKET, libc::SO_SNDTIMEO, &tv, "SO_SNDTIMEO")
}

/// The connection's congestion control module, by its Linux name ("reno", "cubic", "dctcp").
pub fn set_congestion_control(fd: &OwnedFd, cc: &str) -> Result<(), String> {
    // SAFETY: the name's bytes are valid for the length passed.
    let r = unsafe { libc::setsockopt(fd.as_raw_fd(), libc::IPPROTO_TCP, libc::TCP_CONGESTION, cc.as_ptr() as *const libc::c_void, cc.len() as u32) };
    if r != 0 {
        return Err(format!("TCP_CONGESTION {cc}: {}", io::Error::last_os_error()));
    }
    Ok(())
}

/// The IP TOS byte: DSCP in the upper six bits, the ECN field below (RFC 2474, RFC 3168).
pub fn set_tos(fd: &OwnedFd, tos: u8) -> Result<(), String> {
    setsockopt(fd.as_raw_fd(), libc::IPPROTO_IP, libc::IP_TOS, &(tos as libc::c_int), "IP_TOS")
}

/// Close with a reset: a flow that stops leaves at once instead of draining its send buffer.
pub fn abort(fd: OwnedFd) {
    let lg = libc::linger { l_onoff: 1, l_linger: 0 };
    // The descriptor is closed below whatever this returns.
    let _ = setsockopt(fd.as_raw_fd(), libc::SOL_SOCKET, libc::SO_LINGER, &lg, "SO_LINGER");
    drop(fd);
}

/// The kernel's view of a TCP connection.
pub fn tcp_info(fd: libc::c_int) -> Option<libc::tcp_info> {
    // SAFETY: an all-zero tcp_info is a valid out-value.
    let mut ti: libc::tcp_info = unsafe { std::mem::zeroed() };
    getsockopt(fd, libc::IPPROTO_TCP, libc::TCP_INFO, &mut ti).ok().map(|_| ti)
}

pub fn addr(ip: Ipv4Addr, port: u16) -> SocketAddrV4 {
    SocketAddrV4::new(ip, port)
}
