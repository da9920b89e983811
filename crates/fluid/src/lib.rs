//! The Misra–Gong–Towsley fluid model of N Reno flows through one sampled-AQM bottleneck,
//! integrated by fixed-step explicit Euler over a batch of configurations.
//!
//! This is the compiled integrator of `aqmlab.analysis.fluid` (issue 22 item 4); that module's
//! docstring states the equations, the clamps, the tail-drop loss and the sampled controllers,
//! and its numpy integrator is the reference this one is tested against. The Python side
//! validates and resolves the arguments (defaults, schedules, history length, record stride);
//! this crate only integrates. Every expression is evaluated in the numpy version's order, so
//! the two agree bit for bit except where a libm function enters (RED's `exp`/`ln_1p`).
//!
//! Configurations are independent, so each one runs its whole time loop on its own: its delay
//! history (one value per step over the longest round trip) stays in cache, where the numpy
//! version sweeps every configuration's history once per step. Blocks of [`LANES`]
//! configurations advance together so that their independent dependency chains (each step
//! divides by the round trip four times) overlap in the processor.

mod aqm;

pub use aqm::{Aqm, Kind};

/// Configurations integrated together (see the crate documentation).
pub const LANES: usize = 8;

/// A value per configuration that takes effect at time `t` (seconds) and holds until the next.
#[derive(Clone, Debug)]
pub struct Event {
    pub t: f64,
    pub values: Vec<f64>,
}

/// A resolved batch: every vector has one entry per configuration.
#[derive(Clone, Debug)]
pub struct Model {
    /// C, packets/s.
    pub capacity: Vec<f64>,
    /// N.
    pub n_flows: Vec<f64>,
    /// Tp, the propagation round trip, s.
    pub tp: Vec<f64>,
    /// B, packets.
    pub buffer: Vec<f64>,
    /// Window cap, packets.
    pub max_window: Vec<f64>,
    /// Changes of C and of N, sorted by time.
    pub capacity_events: Vec<Event>,
    pub flows_events: Vec<Event>,
    pub aqm: Aqm,
    /// Euler step, s.
    pub dt: f64,
    pub n_steps: usize,
    /// A record every `record_stride` steps, from step 0.
    pub record_stride: usize,
    /// Rows of the delay history: more than the longest round trip in steps.
    pub history_len: usize,
}

/// The recorded series, each `size × n_records`, row-major (a row per configuration, so that
/// a block of configurations owns a contiguous part of each series).
#[derive(Clone, Debug, Default)]
pub struct Series {
    pub n_records: usize,
    pub size: usize,
    pub w: Vec<f64>,
    pub q: Vec<f64>,
    pub p: Vec<f64>,
    pub queue_delay: Vec<f64>,
    pub rtt: Vec<f64>,
    pub capacity: Vec<f64>,
    pub n_flows: Vec<f64>,
}

impl Model {
    pub fn size(&self) -> usize {
        self.capacity.len()
    }

    /// Checks that every per-configuration vector has the batch's length.
    pub fn check(&self) -> Result<(), String> {
        let n = self.size();
        let lens = [
            ("n_flows", self.n_flows.len()),
            ("tp", self.tp.len()),
            ("buffer", self.buffer.len()),
            ("max_window", self.max_window.len()),
        ];
        let events = self
            .capacity_events
            .iter()
            .chain(&self.flows_events)
            .map(|e| ("event", e.values.len()));
        let params = self
            .aqm
            .kind
            .parameters()
            .iter()
            .zip(&self.aqm.params)
            .map(|(name, v)| (*name, v.len()));
        if self.aqm.params.len() != self.aqm.kind.parameters().len() {
            return Err(format!(
                "{:?} takes {} parameters",
                self.aqm.kind,
                self.aqm.kind.parameters().len()
            ));
        }
        for (name, len) in lens.into_iter().chain(events).chain(params) {
            if len != n {
                return Err(format!("{name} has {len} values for {n} configurations"));
            }
        }
        if self.record_stride == 0 || self.history_len == 0 || self.dt <= 0.0 {
            return Err("record_stride, history_len and dt must be positive".into());
        }
        Ok(())
    }

    /// Integrates every configuration from W = 1, q = 0, p = 0, on up to `threads` threads
    /// (each takes whole blocks of configurations, so the result does not depend on it).
    pub fn integrate(&self, threads: usize) -> Series {
        let size = self.size();
        let n_records = self.n_steps / self.record_stride + 1;
        let cells = n_records * size;
        let mut out = Series {
            n_records,
            size,
            w: vec![0.0; cells],
            q: vec![0.0; cells],
            p: vec![0.0; cells],
            queue_delay: vec![0.0; cells],
            rtt: vec![0.0; cells],
            capacity: vec![0.0; cells],
            n_flows: vec![0.0; cells],
        };
        let blocks = size.div_ceil(LANES);
        let per_thread = blocks.div_ceil(threads.clamp(1, blocks.max(1))) * LANES;
        let mut rest = Rows::of(&mut out);
        std::thread::scope(|scope| {
            let mut start = 0;
            while start < size {
                let configs = per_thread.min(size - start);
                let (mine, others) = rest.split(configs * n_records);
                rest = others;
                scope.spawn(move || self.configurations(start, configs, n_records, mine));
                start += configs;
            }
        });
        out
    }

    /// Configurations `start .. start + count` into `out` (their rows of the series).
    fn configurations(&self, start: usize, count: usize, n_records: usize, mut out: Rows<'_>) {
        let mut history = vec![0.0; self.history_len * LANES];
        for first in (start..start + count).step_by(LANES) {
            let lanes = (start + count - first).min(LANES);
            let (block, rest) = out.split(lanes * n_records);
            self.block(first, lanes, n_records, &mut history, block);
            out = rest;
        }
    }

    /// Configurations `start .. start + lanes` over the whole run; `out` holds their rows.
    /// Unused lanes of a last, partial block repeat its last configuration and are not written.
    /// The arithmetic of a step is in branch-free loops over the lanes, which the compiler
    /// turns into packed (SIMD) divisions, the step's cost; sampling, the history and the
    /// records are the scalar parts.
    fn block(
        &self,
        start: usize,
        lanes: usize,
        n_records: usize,
        history: &mut [f64],
        out: Rows<'_>,
    ) {
        history.fill(0.0); // no delayed term before the first round trip, as in the reference
        let mut c = lane_values(&self.capacity, start, lanes);
        let mut n = lane_values(&self.n_flows, start, lanes);
        let (tp, b, w_max) = (
            lane_values(&self.tp, start, lanes),
            lane_values(&self.buffer, start, lanes),
            lane_values(&self.max_window, start, lanes),
        );
        let mut w = [1.0; LANES];
        let mut q = [0.0; LANES];
        let mut ctl = [aqm::State::default(); LANES];
        let mut next_sample: [f64; LANES] =
            std::array::from_fn(|i| self.aqm.period(start + i.min(lanes - 1)));
        let (mut ci, mut ni) = (0, 0);
        let dt = self.dt;
        let per_dt = 1.0 / dt;
        let hist_len = self.history_len as i64;
        let [mut rtt, mut rate, mut fill, mut inv, mut ahead, mut delayed] = [[0.0; LANES]; 6];
        for k in 0..=self.n_steps {
            let t = k as f64 * dt;
            while ci < self.capacity_events.len() && self.capacity_events[ci].t <= t {
                c = lane_values(&self.capacity_events[ci].values, start, lanes);
                ci += 1;
            }
            while ni < self.flows_events.len() && self.flows_events[ni].t <= t {
                n = lane_values(&self.flows_events[ni].values, start, lanes);
                ni += 1;
            }
            if !self.aqm.is_droptail() {
                for i in 0..lanes {
                    if next_sample[i] <= t + 1e-9 {
                        self.aqm.sample(start + i, q[i], c[i], &mut ctl[i]);
                        next_sample[i] += self.aqm.period(start + i);
                    }
                }
            }
            let p: [f64; LANES] = std::array::from_fn(|i| ctl[i].p);
            for i in 0..LANES {
                rtt[i] = q[i] / c[i] + tp[i];
            }
            for i in 0..LANES {
                rate[i] = n[i] * w[i] / rtt[i];
            }
            for i in 0..LANES {
                let tail = 1.0 - c[i] / rate[i];
                let full = (q[i] >= b[i]) & (rate[i] > c[i]);
                let overflow = if full { tail } else { 0.0 };
                let loss = 1.0 - (1.0 - p[i]) * (1.0 - overflow);
                fill[i] = w[i] * loss / rtt[i];
            }
            for i in 0..LANES {
                inv[i] = 1.0 / rtt[i];
                ahead[i] = rtt[i] * per_dt + 0.5;
            }
            let slot = (k as i64 % hist_len) as usize;
            history[slot * LANES..(slot + 1) * LANES].copy_from_slice(&fill);
            if k % self.record_stride == 0 {
                let r = k / self.record_stride;
                for i in 0..lanes {
                    let cell = i * n_records + r;
                    out.w[cell] = w[i];
                    out.q[cell] = q[i];
                    out.p[cell] = p[i];
                    out.queue_delay[cell] = q[i] / c[i];
                    out.rtt[cell] = rtt[i];
                    out.capacity[cell] = c[i];
                    out.n_flows[cell] = n[i];
                }
            }
            for i in 0..LANES {
                let lag = steps_back(ahead[i], rtt[i], dt);
                let back = if lag <= slot as i64 {
                    slot as i64 - lag
                } else {
                    (k as i64 - lag).rem_euclid(hist_len)
                };
                delayed[i] = history[back as usize * LANES + i];
            }
            for i in 0..LANES {
                w[i] = clip(
                    w[i] + dt * (inv[i] - 0.5 * w[i] * delayed[i]),
                    1.0,
                    w_max[i],
                );
                q[i] = clip(q[i] + dt * (rate[i] - c[i]), 0.0, b[i]);
            }
        }
    }
}

/// How many steps back the delayed term is read: round(R/dt), at least one (numpy: int64
/// truncation of R/dt + 0.5). `ahead` is R·(1/dt) + 0.5, within a few ulps of R/dt + 0.5 and
/// a multiplication instead of a division; the two truncate alike unless they sit next to an
/// integer, and there the division decides.
fn steps_back(ahead: f64, rtt: f64, dt: f64) -> i64 {
    let whole = ahead as i64;
    let frac = ahead - whole as f64;
    let lag = if frac > 1e-6 && frac < 1.0 - 1e-6 {
        whole
    } else {
        (rtt / dt + 0.5) as i64
    };
    lag.max(1)
}

/// Mutable rows of every series (configurations in order, `n_records` values each).
struct Rows<'a> {
    w: &'a mut [f64],
    q: &'a mut [f64],
    p: &'a mut [f64],
    queue_delay: &'a mut [f64],
    rtt: &'a mut [f64],
    capacity: &'a mut [f64],
    n_flows: &'a mut [f64],
}

impl<'a> Rows<'a> {
    fn of(s: &'a mut Series) -> Self {
        Rows {
            w: &mut s.w,
            q: &mut s.q,
            p: &mut s.p,
            queue_delay: &mut s.queue_delay,
            rtt: &mut s.rtt,
            capacity: &mut s.capacity,
            n_flows: &mut s.n_flows,
        }
    }

    /// The first `cells` values of each series, and the rest.
    fn split(self, cells: usize) -> (Rows<'a>, Rows<'a>) {
        let (w, w2) = self.w.split_at_mut(cells);
        let (q, q2) = self.q.split_at_mut(cells);
        let (p, p2) = self.p.split_at_mut(cells);
        let (d, d2) = self.queue_delay.split_at_mut(cells);
        let (r, r2) = self.rtt.split_at_mut(cells);
        let (c, c2) = self.capacity.split_at_mut(cells);
        let (n, n2) = self.n_flows.split_at_mut(cells);
        (
            Rows {
                w,
                q,
                p,
                queue_delay: d,
                rtt: r,
                capacity: c,
                n_flows: n,
            },
            Rows {
                w: w2,
                q: q2,
                p: p2,
                queue_delay: d2,
                rtt: r2,
                capacity: c2,
                n_flows: n2,
            },
        )
    }
}

/// numpy's `clip(x, lo, hi)`: the lower bound first, so `hi` wins when `hi < lo`. Written as
/// selects (a NaN passes through, as in numpy), which vectorize where `f64::max` does not.
pub(crate) fn clip(x: f64, lo: f64, hi: f64) -> f64 {
    let x = if x < lo { lo } else { x };
    if x > hi {
        hi
    } else {
        x
    }
}

/// Values of configurations `start .. start + lanes`; unused lanes repeat the last one.
fn lane_values(v: &[f64], start: usize, lanes: usize) -> [f64; LANES] {
    std::array::from_fn(|i| v[start + i.min(lanes - 1)])
}
