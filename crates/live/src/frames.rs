//! Frame storage: the router's packets, with payload, in reusable slots. A slot's index is the
//! `id` of the [`aqm::Pkt`] the queue holds, so the queue never copies a payload, and memory
//! is bounded by the frames held at once (queue plus delay line), not by the run's length.

/// Largest frame the router accepts (an IP MTU of up to 2034 bytes); a longer one means a
/// segmentation offload is on, and is dropped and counted.
pub const MAX_FRAME: usize = 2048;

/// What the router remembers of a frame between arrival and departure.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Meta {
    /// Flow index (`n_flows` for traffic of no configured flow).
    pub flow: u32,
    /// Whether the frame carries IPv4 (others bypass the AQM).
    pub ip: bool,
}

#[derive(Default)]
pub struct Frames {
    bufs: Vec<Vec<u8>>,
    meta: Vec<Meta>,
    free: Vec<u32>,
}

impl Frames {
    /// A slot with an empty buffer able to hold [`MAX_FRAME`] bytes.
    pub fn alloc(&mut self) -> u32 {
        match self.free.pop() {
            Some(id) => {
                self.bufs[id as usize].clear();
                id
            }
            None => {
                self.bufs.push(Vec::with_capacity(MAX_FRAME));
                self.meta.push(Meta::default());
                (self.bufs.len() - 1) as u32
            }
        }
    }

    pub fn release(&mut self, id: u32) {
        self.free.push(id);
    }

    pub fn data(&self, id: u32) -> &[u8] {
        &self.bufs[id as usize]
    }

    pub fn data_mut(&mut self, id: u32) -> &mut Vec<u8> {
        &mut self.bufs[id as usize]
    }

    pub fn meta(&self, id: u32) -> Meta {
        self.meta[id as usize]
    }

    pub fn set_meta(&mut self, id: u32, m: Meta) {
        self.meta[id as usize] = m;
    }

    /// Slots in use.
    pub fn live(&self) -> usize {
        self.bufs.len() - self.free.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slots_are_reused_and_cleared() {
        let mut f = Frames::default();
        let a = f.alloc();
        f.data_mut(a).extend_from_slice(&[1, 2, 3]);
        let b = f.alloc();
        f.release(a);
        let c = f.alloc();
        assert_eq!((c, f.data(c).len(), f.live()), (a, 0, 2));
        assert_ne!(b, c);
        assert!(f.data_mut(c).capacity() >= MAX_FRAME);
    }
}
