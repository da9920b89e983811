//! A router port: an `AF_PACKET` raw socket bound to one interface, reading and writing whole
//! Ethernet frames (packet(7)).

use std::ffi::CString;
use std::io;

use crate::sys::{getsockopt, setsockopt};

const ETH_P_ALL: u16 = 0x0003;
/// Socket receive buffer: frames wait here while the router is busy, so it must hold a
/// burst (a TCP window arriving at once) without dropping.
const RCVBUF_BYTES: libc::c_int = 32 << 20;

pub struct Port {
    fd: libc::c_int,
    pub name: String,
    /// Frames the kernel dropped because the socket buffer was full (cumulative).
    pub kernel_drops: u64,
}

impl Port {
    /// Opens a port on interface `name`: promiscuous (a bridge takes frames for any address),
    /// without our own transmissions echoed back, bypassing the interface's qdisc on send.
    pub fn open(name: &str) -> Result<Port, String> {
        let cname = CString::new(name).map_err(|_| format!("interface name {name:?}"))?;
        // SAFETY: a NUL-terminated name.
        let ifindex = unsafe { libc::if_nametoindex(cname.as_ptr()) };
        if ifindex == 0 {
            return Err(format!("interface {name}: {}", io::Error::last_os_error()));
        }
        // Protocol 0 receives nothing until bound: no frame of another interface slips in.
        // SAFETY: plain socket creation.
        let fd = unsafe { libc::socket(libc::AF_PACKET, libc::SOCK_RAW | libc::SOCK_NONBLOCK | libc::SOCK_CLOEXEC, 0) };
        if fd < 0 {
            return Err(format!("socket(AF_PACKET) on {name}: {} (needs CAP_NET_RAW)", io::Error::last_os_error()));
        }
        let port = Port { fd, name: name.to_string(), kernel_drops: 0 };
        let what = |w: &str| format!("{name}: {w}");
        setsockopt(fd, libc::SOL_SOCKET, libc::SO_RCVBUFFORCE, &RCVBUF_BYTES, &what("SO_RCVBUFFORCE"))?;
        setsockopt(fd, libc::SOL_PACKET, libc::PACKET_IGNORE_OUTGOING, &1 as &libc::c_int, &what("PACKET_IGNORE_OUTGOING"))?;
        setsockopt(fd, libc::SOL_PACKET, libc::PACKET_QDISC_BYPASS, &1 as &libc::c_int, &what("PACKET_QDISC_BYPASS"))?;
        // SAFETY: an all-zero sockaddr_ll is valid; the fields are set below.
        let mut sll: libc::sockaddr_ll = unsafe { std::mem::zeroed() };
        sll.sll_family = libc::AF_PACKET as u16;
        sll.sll_protocol = ETH_P_ALL.to_be();
        sll.sll_ifindex = ifindex as libc::c_int;
        // SAFETY: `sll` is a valid sockaddr_ll of the size passed.
        let r = unsafe { libc::bind(fd, &sll as *const libc::sockaddr_ll as *const libc::sockaddr, std::mem::size_of::<libc::sockaddr_ll>() as u32) };
        if r != 0 {
            return Err(what(&format!("bind: {}", io::Error::last_os_error())));
        }
        // SAFETY: an all-zero packet_mreq is valid; the fields are set below.
        let mut mreq: libc::packet_mreq = unsafe { std::mem::zeroed() };
        mreq.mr_ifindex = ifindex as libc::c_int;
        mreq.mr_type = libc::PACKET_MR_PROMISC as u16;
        setsockopt(fd, libc::SOL_PACKET, libc::PACKET_ADD_MEMBERSHIP, &mreq, &what("PACKET_ADD_MEMBERSHIP"))?;
        // Frames queued before the bind filter took effect belong to no experiment.
        let mut scratch = Vec::with_capacity(64);
        while port.recv(&mut scratch).is_some() {}
        Ok(port)
    }

    pub fn fd(&self) -> libc::c_int {
        self.fd
    }

    /// Reads one frame into `buf`'s spare capacity (no zero-filling); `None` when no frame
    /// waits. The length returned is the frame's own (MSG_TRUNC): above `buf`'s capacity, the
    /// frame was cut.
    pub fn recv(&self, buf: &mut Vec<u8>) -> Option<usize> {
        buf.clear();
        let cap = buf.capacity();
        // SAFETY: the kernel writes at most `cap` bytes into the buffer's allocation.
        let n = unsafe { libc::recv(self.fd, buf.as_mut_ptr() as *mut libc::c_void, cap, libc::MSG_DONTWAIT | libc::MSG_TRUNC) };
        if n <= 0 {
            return None;
        }
        // SAFETY: the first min(n, cap) bytes were written by the kernel just now.
        unsafe { buf.set_len((n as usize).min(cap)) };
        Some(n as usize)
    }

    /// Sends one frame; false if the kernel refused it (counted by the caller).
    pub fn send(&self, frame: &[u8]) -> bool {
        // SAFETY: `frame` is valid for reads of its length.
        let n = unsafe { libc::send(self.fd, frame.as_ptr() as *const libc::c_void, frame.len(), 0) };
        n == frame.len() as isize
    }

    /// Adds the kernel's drop count since the last call (PACKET_STATISTICS resets on read).
    pub fn update_kernel_drops(&mut self) {
        // SAFETY: an all-zero tpacket_stats is a valid out-value.
        let mut st: libc::tpacket_stats = unsafe { std::mem::zeroed() };
        if getsockopt(self.fd, libc::SOL_PACKET, libc::PACKET_STATISTICS, &mut st).is_ok() {
            self.kernel_drops += st.tp_drops as u64;
        }
    }
}

impl Drop for Port {
    fn drop(&mut self) {
        // SAFETY: the descriptor is ours and closed once.
        unsafe { libc::close(self.fd) };
    }
}
