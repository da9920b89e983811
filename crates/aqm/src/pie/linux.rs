//! The `linux` profile's arithmetic: sch_pie / pie.h fixed point, reproduced bit for bit.
//!
//! Probability is a u64 in units of `1 / MAX_PROB` with `MAX_PROB = 2^56 - 1` (spec §2.2.1): the
//! eight spare bits let the derandomization accumulator reach 8.5 without overflow, and let the
//! probability itself run past 1.0 (the kernel only guards against u64 wrap-around). Time is in
//! psched ticks of 64 ns. The gains are the netlink integers in 1/16 Hz turned into "probability
//! units per tick of delay error".

use crate::rng::Rng;
use crate::time::Nanos;

/// Probability 1.0 (`U64_MAX >> 8`).
pub const MAX_PROB: u64 = u64::MAX >> 8;
/// A psched tick is 2^6 ns.
pub const TICK_SHIFT: u32 = 6;
/// Psched ticks per second (10^9 / 64).
pub const TICKS_PER_SEC: u64 = 15_625_000;
/// The rate estimator keeps bytes per tick shifted left by this (PIE_SCALE).
pub const RATE_SHIFT: u32 = 8;

/// Nanoseconds to psched ticks (the kernel's `ktime >> 6`).
pub fn ticks(ns: Nanos) -> u64 {
    ns >> TICK_SHIFT
}

/// A fraction as a Q56 probability. Where `x = n/d` with a small `d`, the kernel writes the
/// constant as `MAX_PROB / d * n` (e.g. 10 % is `MAX_PROB / 10`), so that form is used here.
pub fn q56(x: f64) -> u64 {
    for d in 1..=100u64 {
        let n = x * d as f64;
        if (n - n.round()).abs() < 1e-9 {
            return MAX_PROB / d * n.round() as u64;
        }
    }
    (x * MAX_PROB as f64) as u64
}

/// A Q56 probability as a fraction.
pub fn to_frac(p: u64) -> f64 {
    p as f64 / MAX_PROB as f64
}

/// Per-tick integer gains and the target in ticks (`pie_params` after netlink parsing).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FixedGains {
    pub alpha: u64,
    pub beta: u64,
    pub target: u64,
}

impl FixedGains {
    /// From gains in Hz (multiples of 1/16) and the target in ns:
    /// `gain = (units * (MAX_PROB / TICKS_PER_SEC)) >> 4` (pie_calculate_probability).
    pub fn new(alpha_hz: f64, beta_hz: f64, target: Nanos) -> Self {
        let per_tick = MAX_PROB / TICKS_PER_SEC;
        let scale = |hz: f64| ((hz * 16.0).round() as u64 * per_tick) >> 4;
        FixedGains { alpha: scale(alpha_hz), beta: scale(beta_hz), target: ticks(target) }
    }
}

/// One run of `pie_calculate_probability`'s control law (spec §2.2.5 steps 2–8).
/// Delays are in ticks; `backlog` is in bytes; `cap` is the 2 % step cap (always on in the kernel).
pub fn update(prob: u64, qdelay: u64, qdelay_old: u64, backlog: u64, g: &FixedGains, cap: bool) -> u64 {
    // A zero delay with a non-empty queue says nothing about congestion: keep p (no decay).
    let mut decay_ok = !(qdelay == 0 && backlog != 0);
    // Auto-tune: halve below 10 %, then quarter per decade down to 1e-6: the RFC 8033 table.
    let (mut alpha, mut beta) = (g.alpha, g.beta);
    if prob < MAX_PROB / 10 {
        alpha >>= 1;
        beta >>= 1;
        let mut power = 100u64;
        while prob < MAX_PROB / power && power <= 1_000_000 {
            alpha >>= 2;
            beta >>= 2;
            power *= 10;
        }
    }
    let err = (qdelay as i64).wrapping_sub(g.target as i64);
    let trend = (qdelay as i64).wrapping_sub(qdelay_old as i64);
    let mut delta = (alpha as i64).wrapping_mul(err).wrapping_add((beta as i64).wrapping_mul(trend));
    // Step cap of 2 % once p ≥ 10 % (RFC 8033 §5.5, always applied by sch_pie).
    if cap && delta > (MAX_PROB / 50) as i64 && prob >= MAX_PROB / 10 {
        delta = (MAX_PROB / 100 * 2) as i64;
    }
    // sch_pie only: +2 % whenever the delay exceeds 250 ms, after the cap.
    if qdelay > ticks(250_000_000) {
        delta = delta.wrapping_add((MAX_PROB / 50) as i64);
    }
    let mut p = prob.wrapping_add(delta as u64);
    if delta > 0 && p < prob {
        // Wrapped past 2^64: saturate at 1.0 and do not decay this round.
        p = MAX_PROB;
        decay_ok = false;
    } else if delta < 0 && p > prob {
        p = 0;
    }
    // Two zero delays in a row: p *= 63/64 (RFC 8033 uses 0.98).
    if qdelay == 0 && qdelay_old == 0 && decay_ok {
        p -= p / 64;
    }
    p
}

/// The random part of `pie_drop_early` once the bypass tests have passed: byte scaling,
/// derandomization (optional here, always on in the kernel) and the 56-bit random compare.
pub fn decide(prob: u64, accu: &mut u64, len: u32, mtu: u32, byte_mode: bool, derandomize: bool, rng: &mut Rng) -> bool {
    let local = if byte_mode && len <= mtu { len as u64 * (prob / mtu.max(1) as u64) } else { prob };
    if derandomize {
        if local == 0 {
            *accu = 0;
        } else {
            *accu += local;
        }
        if *accu < MAX_PROB / 100 * 85 {
            return false;
        }
        if *accu >= MAX_PROB / 2 * 17 {
            return true;
        }
    }
    if (rng.next_u64() >> 8) < local {
        *accu = 0;
        return true;
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::NS_PER_MS;

    fn g() -> FixedGains {
        FixedGains::new(0.125, 1.25, 15 * NS_PER_MS)
    }

    fn ms(x: u64) -> u64 {
        ticks(x * NS_PER_MS)
    }

    #[test]
    fn gains_match_the_derived_kernel_integers() {
        // spec §2.2.1: MAX_PROB / TPS = 4 611 686 018; alpha_i 576 460 752; beta_i 5 764 607 522.
        assert_eq!(g(), FixedGains { alpha: 576_460_752, beta: 5_764_607_522, target: 234_375 });
        assert_eq!(q56(0.1), 7_205_759_403_792_793);
    }

    #[test]
    fn spec_2_4_vectors_linux_integer() {
        // p = 0, 20/10 ms: gains >> 11; 281474·78125 + 2814749·156250 = 461 794 687 500.
        let p = update(0, ms(20), ms(10), 1, &g(), true);
        assert_eq!(p, 461_794_687_500);
        assert!((to_frac(p) - 6.40869e-6).abs() < 5e-12);
        // p = 0.2, 100/50 ms: capped at +2 % exactly.
        assert_eq!(update(MAX_PROB / 5, ms(100), ms(50), 1, &g(), true), MAX_PROB / 5 + MAX_PROB / 50);
        // p = 0.3, 300/280 ms: cap then the 250 ms boost: +4 %.
        let p03 = MAX_PROB / 10 * 3;
        assert_eq!(update(p03, ms(300), ms(280), 1, &g(), true), p03 + 2 * (MAX_PROB / 50));
        // p = 0.5, 0/0 ms, empty queue: alpha·(−234375) then p −= p/64 → 0.4903418.
        let half = MAX_PROB / 2;
        assert_eq!(update(half, 0, 0, 0, &g(), true), 35_332_850_139_116_874);
        // Same with a backlog: the decay is skipped → 0.498125.
        assert_eq!(update(half, 0, 0, 1500, &g(), true), 35_893_689_030_213_967);
        // p = 0.005, 30/25 ms → 0.006015625; p = 0.05, 40/30 → 0.0578125; p = 1e-5, 16/15 → 2.07421875e-5.
        for (p0, q, qo, want) in [(0.005, 30, 25, 0.006015625), (0.05, 40, 30, 0.0578125), (1e-5, 16, 15, 2.07421875e-5)] {
            let got = to_frac(update((p0 * MAX_PROB as f64) as u64, ms(q), ms(qo), 1, &g(), true));
            assert!((got - want).abs() < want * 1e-7, "{p0}: {got} vs {want}");
        }
    }

    #[test]
    fn thresholds_are_strict_as_in_sch_pie() {
        // Boundaries that no vector above sits on, each from pie_calculate_probability and
        // pie_drop_early (found by mutation testing: `<` and `<=` gave the same results).
        let (g, err) = (g(), 2 * g().target);
        // Auto-tuning scales the gains only below 10 % (`prob < MAX_PROB / 10`): at 10 % the
        // delay error counts whole, just below it half.
        let ten = MAX_PROB / 10;
        assert_eq!(update(ten, err, err, 1, &g, true) - ten, g.alpha * g.target);
        assert_eq!(update(ten - 1, err, err, 1, &g, true) - (ten - 1), (g.alpha >> 1) * g.target);
        // The 2 % cap replaces only a larger step (`delta > MAX_PROB / 50`): at 50 %, an error of
        // 1/8 of the target adds alpha·target/8, under 2 %, unchanged.
        let half = MAX_PROB / 2;
        let small = g.target + g.target / 8;
        assert!(g.alpha * (g.target / 8) < MAX_PROB / 50);
        assert_eq!(update(half, small, small, 1, &g, true) - half, g.alpha * (g.target / 8));
        // ... and only from 10 % up (`prob >= MAX_PROB / 10`): at 5 % (gains halved by the
        // auto-tuning) a 200 ms delay rising from 100 ms steps by over 2 %, uncapped.
        let five = MAX_PROB / 20;
        let step = (g.alpha >> 1) * (ms(200) - g.target) + (g.beta >> 1) * ms(100);
        assert!(step > MAX_PROB / 50);
        assert_eq!(update(five, ms(200), ms(100), 1, &g, true) - five, step);
        // Derandomization holds the drop test back while the accumulator is below 85 %
        // (`accu_prob < MAX_PROB / 100 * 85`); at exactly 85 % the random test runs, and at
        // p = 85 % drops about 85 in 100 (none if the bound were inclusive).
        let at = MAX_PROB / 100 * 85;
        let mut rng = Rng::from_seed(3);
        let drops = (0..100).filter(|_| decide(at, &mut 0, 1000, 1500, false, true, &mut rng)).count();
        assert!((70..=97).contains(&drops), "{drops} drops in 100 at p = 85 %");
    }

    #[test]
    fn fractions_take_the_kernels_constant_form() {
        // MAX_PROB / d · n with the least d (the kernel's `MAX_PROB / 10` form), not a rounded
        // product: 30 % is MAX_PROB / 10 · 3, 12.5 % MAX_PROB / 8.
        assert_eq!(q56(0.3), MAX_PROB / 10 * 3);
        assert_eq!(q56(0.125), MAX_PROB / 8);
        assert_ne!(q56(0.3), (0.3 * MAX_PROB as f64) as u64);
        // A fraction of no small denominator: the nearest Q56 value, within a double's precision.
        let x = 0.012_345_678_9;
        assert!((to_frac(q56(x)) - x).abs() < x * 1e-15, "{}", to_frac(q56(x)));
    }

    #[test]
    fn wrap_saturates_and_underflow_floors() {
        let near_top = u64::MAX - 10;
        assert_eq!(update(near_top, ms(300), ms(300), 1, &g(), true), MAX_PROB);
        assert_eq!(update(5, 0, ms(100), 1, &g(), true), 0);
    }

    #[test]
    fn derandomization_bounds_in_fixed_point() {
        let mut rng = Rng::from_seed(1);
        let mut accu = 0;
        // p = 0.1: the first 8 arrivals stay below 0.85 and pass without a random draw.
        for k in 1..=8 {
            assert!(!decide(MAX_PROB / 10, &mut accu, 1000, 1500, false, true, &mut rng));
            assert_eq!(accu, k * (MAX_PROB / 10));
        }
        // At 8.5 or more the packet is dropped without resetting the accumulator (spec §9.3).
        accu = MAX_PROB / 2 * 17;
        assert!(decide(MAX_PROB / 10, &mut accu, 1000, 1500, false, true, &mut rng));
        assert_eq!(accu, MAX_PROB / 2 * 17 + MAX_PROB / 10);
        // p = 0 clears it.
        assert!(!decide(0, &mut accu, 1000, 1500, false, true, &mut rng));
        assert_eq!(accu, 0);
        // Byte mode: a 750-byte packet at MTU 1500 counts len·(p/mtu).
        decide(MAX_PROB / 10, &mut accu, 750, 1500, true, true, &mut rng);
        assert_eq!(accu, 750 * (MAX_PROB / 10 / 1500));
    }
}
