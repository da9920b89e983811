//! Edge markers: give each packet of a policy flow a PV code so that, whatever threshold a
//! node applies, the flow keeps the throughput its TVF grants at that threshold (spec §1.3).
//! Both markers give a flow sending at rate r PVs distributed as V(U·r), U uniform on (0, 1).

use aqm::ppv::encode;
use aqm::{Nanos, Rng};
use serde::{Deserialize, Serialize};

use super::tvf::Tvf;

/// Which marker, with its parameters.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum MarkerKind {
    /// The hierarchical token-bucket marker of the PPV concept (Globecom'16, used by PVPIE §4):
    /// throughput regions b_i = min_rate · 10^(i / regions_per_decade) up to max_rate, one
    /// bucket per region filling at b_i with a depth of b_i · depth.
    TokenBucket { depth_ns: Nanos, regions_per_decade: u32, min_rate_bps: f64, max_rate_bps: f64 },
    /// The random-rate marker (spec §1.3(b)): a rate estimate R kept by a variable-rate token
    /// bucket, and PV = V(a random rate drawn below R).
    RandomRate { window_ns: Nanos, target_bytes: u32 },
}

impl MarkerKind {
    pub fn validate(&self) -> Result<(), String> {
        match *self {
            MarkerKind::TokenBucket { depth_ns, regions_per_decade, min_rate_bps, max_rate_bps } => {
                if depth_ns == 0 {
                    return Err("depth_ns: must be > 0".into());
                }
                if !(1..=1000).contains(&regions_per_decade) {
                    return Err(format!("regions_per_decade: {regions_per_decade} is outside [1, 1000]"));
                }
                if !(min_rate_bps > 0.0 && max_rate_bps > min_rate_bps && max_rate_bps.is_finite()) {
                    return Err("min_rate_bps: need 0 < min_rate_bps < max_rate_bps (finite)".into());
                }
                if (max_rate_bps / min_rate_bps).log10() * regions_per_decade as f64 > 10_000.0 {
                    return Err("regions_per_decade: more than 10000 regions".into());
                }
                Ok(())
            }
            MarkerKind::RandomRate { window_ns, target_bytes } => {
                if window_ns == 0 || target_bytes == 0 {
                    return Err("window_ns: window_ns and target_bytes must be > 0".into());
                }
                Ok(())
            }
        }
    }
}

/// One marker instance: the state of one policy flow.
#[derive(Clone, Debug)]
pub enum Marker {
    TokenBucket(TokenBucketMarker),
    RandomRate(RandomRateMarker),
}

impl Marker {
    /// Call with a validated kind.
    pub fn new(kind: &MarkerKind, tvf: &Tvf, rng: Rng) -> Self {
        match *kind {
            MarkerKind::TokenBucket { depth_ns, regions_per_decade, min_rate_bps, max_rate_bps } => {
                Marker::TokenBucket(TokenBucketMarker::new(tvf, depth_ns, regions_per_decade, min_rate_bps, max_rate_bps))
            }
            MarkerKind::RandomRate { window_ns, target_bytes } => Marker::RandomRate(RandomRateMarker::new(tvf.clone(), window_ns, target_bytes, rng)),
        }
    }

    /// The PV code of a packet of `len` bytes sent at `now`.
    #[inline]
    pub fn mark(&mut self, now: Nanos, len: u32) -> u8 {
        match self {
            Marker::TokenBucket(m) => m.mark(now, len),
            Marker::RandomRate(m) => m.mark(now, len),
        }
    }
}

/// The cumulative ("hierarchical") token-bucket form (spec §1.3(a) item 4): bucket i holds the
/// budget of "the traffic up to b_i". A packet takes the code of the first region whose bucket
/// can pay for it and is paid for in that bucket and every one above (a packet within rate b_k
/// is also within every larger rate). A bucket shallower than the packet pays once it is full
/// and goes into debt, so its long-run rate is still b_i (the top regions of a 40 ms marker
/// hold less than one 1500 B packet below 300 kb/s). With no bucket able to pay, the packet
/// lies beyond the marker's range and gets code 0, the least value.
#[derive(Clone, Debug)]
pub struct TokenBucketMarker {
    /// Per region: fill rate in bytes per ns, depth in bytes, tokens in bytes, PV code.
    fill: Vec<f64>,
    depth: Vec<f64>,
    tokens: Vec<f64>,
    codes: Vec<u8>,
    last: Nanos,
}

impl TokenBucketMarker {
    pub fn new(tvf: &Tvf, depth_ns: Nanos, per_decade: u32, min_rate_bps: f64, max_rate_bps: f64) -> Self {
        let n = ((max_rate_bps / min_rate_bps).log10() * per_decade as f64 + 1e-9).floor() as usize + 1;
        let rates: Vec<f64> = (0..n).map(|i| min_rate_bps * 10f64.powf(i as f64 / per_decade as f64)).collect();
        let fill: Vec<f64> = rates.iter().map(|r| r / 8e9).collect();
        let depth: Vec<f64> = fill.iter().map(|f| f * depth_ns as f64).collect();
        // Buckets start full (spec §1.3(a) item 2).
        TokenBucketMarker { codes: rates.iter().map(|&r| encode(tvf.value(r))).collect(), tokens: depth.clone(), depth, fill, last: 0 }
    }

    /// Number of regions.
    pub fn regions(&self) -> usize {
        self.codes.len()
    }

    pub fn mark(&mut self, now: Nanos, len: u32) -> u8 {
        let dt = now.saturating_sub(self.last) as f64;
        self.last = now.max(self.last);
        let s = len as f64;
        let mut region = None;
        for (i, ((t, f), d)) in self.tokens.iter_mut().zip(&self.fill).zip(&self.depth).enumerate() {
            *t = (*t + f * dt).min(*d);
            if region.is_none() && *t >= s.min(*d) {
                region = Some(i);
            }
        }
        let Some(k) = region else { return 0 };
        self.tokens[k..].iter_mut().for_each(|t| *t -= s);
        self.codes[k]
    }
}

/// A rate estimate by a variable-rate token bucket that tries to stay at `target` bytes:
/// tokens arrive at the estimate R. Running dry by Δ raises R by (Δ + target)/window, and the
/// packet's random rate is drawn between the old and the new R; an excess above the target
/// lowers R by excess/window (not below one packet per window), and the random rate is
/// drawn in [0, R); otherwise it is drawn in [0, R). PV = V(random rate). A steady flow at
/// rate r drives R to r within about one window, after which PVs follow V(U·r).
#[derive(Clone, Debug)]
pub struct RandomRateMarker {
    tvf: Tvf,
    window_s: f64,
    target: f64,
    /// Rate estimate R, bytes per second.
    rate: f64,
    tokens: f64,
    last: Nanos,
    rng: Rng,
}

impl RandomRateMarker {
    pub fn new(tvf: Tvf, window_ns: Nanos, target_bytes: u32, rng: Rng) -> Self {
        RandomRateMarker { tvf, window_s: window_ns as f64 * 1e-9, target: target_bytes as f64, rate: 0.0, tokens: target_bytes as f64, last: 0, rng }
    }

    /// The current rate estimate, bit/s.
    pub fn rate_bps(&self) -> f64 {
        self.rate * 8.0
    }

    pub fn mark(&mut self, now: Nanos, len: u32) -> u8 {
        let dt = now.saturating_sub(self.last) as f64 * 1e-9;
        self.last = now.max(self.last);
        let s = len as f64;
        self.tokens += self.rate * dt - s;
        let (lo, hi) = if self.tokens < 0.0 {
            let old = self.rate;
            self.rate += (self.target - self.tokens) / self.window_s;
            self.tokens = 0.0;
            (old, self.rate)
        } else {
            if self.tokens > self.target {
                self.rate = (self.rate - (self.tokens - self.target) / self.window_s).max(s / self.window_s);
                self.tokens = self.target;
            }
            (0.0, self.rate)
        };
        encode(self.tvf.value(8.0 * self.rng.uniform_range(lo, hi)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ppv::tvf::TvfConfig;
    use aqm::ppv::PV_CODES;

    /// Codes of `n` packets of 1000 B sent at `rate_bps` through `m`, after a one-second warm-up.
    fn histogram(m: &mut Marker, rate_bps: f64, seconds: f64) -> Vec<u64> {
        let gap = 8000.0 / rate_bps * 1e9;
        let mut h = vec![0u64; PV_CODES];
        let n = (seconds * rate_bps / 8000.0) as u64;
        for i in 0..n {
            let code = m.mark((i as f64 * gap) as Nanos, 1000);
            if i as f64 * gap >= 1e9 {
                h[code as usize] += 1;
            }
        }
        h
    }

    /// The share of packets with a code ≥ c against the V(U·r) law: P(V(U·r) ≥ v) = X(v)/r.
    fn check_law(h: &[u64], tvf: &Tvf, rate_bps: f64, tol: f64, what: &str) {
        let total: u64 = h.iter().sum();
        for c in (60..200).step_by(10) {
            let above: u64 = h[c..].iter().sum();
            let got = above as f64 / total as f64;
            // Codes round to the nearest 1/30 decade: compare against the law half a code up
            // and down and accept anything in between (plus the tolerance).
            let law = |code: f64| (tvf.rate(10f64.powf(code / 30.0)) / rate_bps).min(1.0);
            let (lo, hi) = (law(c as f64 + 0.5), law(c as f64 - 0.5));
            assert!(got >= lo - tol && got <= hi + tol, "{what}: P(code ≥ {c}) = {got}, law in [{lo}, {hi}]");
        }
    }

    #[test]
    fn token_bucket_marker_follows_v_of_u_r() {
        let tvf = TvfConfig::Gold.build().unwrap();
        let kind = MarkerKind::TokenBucket { depth_ns: 40_000_000, regions_per_decade: 30, min_rate_bps: 1e4, max_rate_bps: 1e10 };
        let mut m = Marker::new(&kind, &tvf, Rng::from_seed(1));
        let Marker::TokenBucket(tb) = &m else { unreachable!() };
        assert_eq!(tb.regions(), 181);
        // 20 Mb/s, deterministic spacing: one region is one code of the Gold TVF, so the
        // shares are exact up to a packet per region per depth.
        let h = histogram(&mut m, 20e6, 11.0);
        check_law(&h, &tvf, 20e6, 0.002, "token bucket");
        // The first 10 kb/s gets the top region's code: V_G(10 kb/s) = 10^7, code 210.
        assert_eq!(h[211..].iter().sum::<u64>(), 0);
        assert!(h[210] > 0);
    }

    #[test]
    fn random_rate_marker_follows_v_of_u_r() {
        let tvf = TvfConfig::Silver.build().unwrap();
        let kind = MarkerKind::RandomRate { window_ns: 40_000_000, target_bytes: 7500 };
        let mut m = Marker::new(&kind, &tvf, Rng::from_seed(7));
        let h = histogram(&mut m, 5e6, 21.0);
        // 12 500 marked packets: a share's standard error is at most 0.0045; the estimate
        // wobbles around r by about a target's worth over a window (7.5 kB / 40 ms against
        // 625 kB/s, 3 %). Band: 0.03.
        check_law(&h, &tvf, 5e6, 0.03, "random rate");
        let Marker::RandomRate(rr) = &m else { unreachable!() };
        assert!((rr.rate_bps() / 5e6 - 1.0).abs() < 0.1, "estimate {}", rr.rate_bps());
    }

    #[test]
    fn kinds_are_validated() {
        let bad = MarkerKind::TokenBucket { depth_ns: 0, regions_per_decade: 30, min_rate_bps: 1e4, max_rate_bps: 1e10 };
        assert!(bad.validate().unwrap_err().starts_with("depth_ns"));
        let bad = MarkerKind::TokenBucket { depth_ns: 1, regions_per_decade: 30, min_rate_bps: 1e4, max_rate_bps: 1e3 };
        assert!(bad.validate().unwrap_err().starts_with("min_rate_bps"));
        assert!(MarkerKind::RandomRate { window_ns: 0, target_bytes: 1 }.validate().is_err());
    }
}
