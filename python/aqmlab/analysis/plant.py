"""Linearised TCP/AQM plant of Hollot et al. and the AQM controllers as transfer functions.

Plant (Hollot, Misra, Towsley, Gong, INFOCOM 2001, eq. (1); spec ppv-pi2-fluid-tcp.md §3.2): N Reno
flows over capacity C (packets/s) with round trip R0, linearised around W0 = R0·C/N,
p0 = 2/W0² (MGT equilibrium, spec §3.1). From drop probability δp to queue δq (packets):

    P(s) = [(R0·C)³/(4N²)] · e^(−sR0) / ((1 + s/p_tcp)(1 + s/p_queue)),
    p_tcp = 2N/(R0²C) = √(2p0)/R0,  p_queue = 1/R0.

Controllers map δq (packets) to δp. Each returns a :class:`FactoredTF`:

* RED (INFOCOM 2001 eq. (2)): L_red / (1 + s/K), K = −ln(1 − w_q)/δ.
* P (Proposition 1, K = ∞): L_red.
* PI (§V): K_PI·(1 + s/z)/s.
* PIE (HPSR 2013 eq. (4), (9)): the bilinear equivalent of p += α(τ − τ_ref) + β(τ − τ_old) every T
  on τ = q/C: (f·α/(T·C))·(1 + s/z1)/s with z1 = α/((β + α/2)T), where f is the auto-tune factor
  at the operating p0 (the linearisation of f(p)·e at e = 0 keeps only f(p0)).
* PI² (spec §2.1, §3.6): the same PI law on p′ with p = p′²; the squaring adds the gain
  dp/dp′ = 2p0′ = 2√p0.
* DualPI2's L queue (RFC 9332 §2.4, Appendix A): the same PI law on p′ with p_L = k·p′, the gain
  dp_L/dp′ = k, closing the loop through :class:`ScalablePlant`.

Scalable plant (DCTCP/Prague fluid model, linearised like MGT's): a flow gives back half a
segment per mark (W·α/2 per round trip with α = p), dW/dt = 1/R − W(t−R)·p(t−R)/(2R), so
W0 = 2/p0 and, from δp to δq,

    P_L(s) = [(R0·C)²/(2N)] · e^(−sR0) / ((1 + s/p_scal)(1 + s/p_queue)),
    p_scal = p0/(2R0) = N/(R0²C),  p_queue = 1/R0.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from ._checks import require_positive, require_range
from .autotune import AUTOTUNE_TABLES
from .transfer import FactoredTF

def autotune_factor(p: float, table: str = "hpsr") -> float:
    """The factor PIE applies to α and β at drop probability ``p`` (see AUTOTUNE_TABLES)."""
    if table not in AUTOTUNE_TABLES:
        raise ValueError(f"autotune must be one of {sorted(AUTOTUNE_TABLES)}, got {table!r}")
    require_range("p", p, 0.0, 1.0)
    for bound, factor in AUTOTUNE_TABLES[table]:
        if p < bound:
            return factor
    return 1.0


@dataclass(frozen=True)
class _Flows:
    """N flows sharing one bottleneck: n_flows N (> 0); capacity C in packets/s (> 0); rtt R0 in
    seconds (> 0), the round trip at the operating point including the queueing delay."""

    n_flows: float
    capacity: float
    rtt: float

    def __post_init__(self) -> None:
        require_positive("n_flows", self.n_flows)
        require_positive("capacity", self.capacity, "packets/s")
        require_positive("rtt", self.rtt, "s")


@dataclass(frozen=True)
class TcpPlant(_Flows):
    """Operating point and linearised dynamics of N Reno flows on one bottleneck."""

    @classmethod
    def from_p0(cls, p0: float, rtt: float, capacity: float = 1.0) -> TcpPlant:
        """The plant whose equilibrium drop probability is ``p0`` (0 < p0 < 1) at round trip ``rtt``.

        Only N/C matters for the loop in delay units (HPSR 2013 §V-A: "the loop scales with C/N"),
        so ``capacity`` is a free scale (default 1 packet/s)."""
        require_range("p0", p0, 0.0, 1.0, low_open=True, high_open=True)
        require_positive("rtt", rtt, "s")
        w0 = math.sqrt(2.0 / p0)
        return cls(n_flows=rtt * capacity / w0, capacity=capacity, rtt=rtt)

    @property
    def w0(self) -> float:
        """Equilibrium window W0 = R0·C/N (packets)."""
        return self.rtt * self.capacity / self.n_flows

    @property
    def p0(self) -> float:
        """Equilibrium drop probability p0 = 2/W0²."""
        return 2.0 / self.w0**2

    @property
    def p_tcp(self) -> float:
        """TCP pole 2N/(R0²C) in rad/s."""
        return 2.0 * self.n_flows / (self.rtt**2 * self.capacity)

    @property
    def p_queue(self) -> float:
        """Queue pole 1/R0 in rad/s."""
        return 1.0 / self.rtt

    @property
    def dc_gain(self) -> float:
        """(R0·C)³/(4N²): packets of queue per unit of drop probability at DC."""
        return (self.rtt * self.capacity) ** 3 / (4.0 * self.n_flows**2)

    def tf(self) -> FactoredTF:
        """P(s)·e^(−sR0) from δp to δq (packets)."""
        return FactoredTF(self.dc_gain, poles=(self.p_tcp, self.p_queue), delay=self.rtt)


@dataclass(frozen=True)
class ScalablePlant(_Flows):
    """Operating point and linearised dynamics of N scalable (DCTCP-like, TCP Prague) flows."""

    @classmethod
    def from_p0(cls, p0: float, rtt: float, capacity: float = 1.0) -> ScalablePlant:
        """The plant whose equilibrium marking probability is ``p0`` (W0 = 2/p0)."""
        require_range("p0", p0, 0.0, 1.0, low_open=True, high_open=True)
        require_positive("rtt", rtt, "s")
        return cls(n_flows=rtt * capacity * p0 / 2.0, capacity=capacity, rtt=rtt)

    def tf(self) -> FactoredTF:
        """P_L(s)·e^(−sR0) from δp to δq (packets): DC gain (R0·C)²/(2N) = N·W0²/2."""
        rc = self.rtt * self.capacity
        return FactoredTF(rc * rc / (2.0 * self.n_flows), poles=(self.n_flows / (self.rtt * rc), 1.0 / self.rtt),
                          delay=self.rtt)


def dualpi2_l_controller(alpha: float, beta: float, t_update: float, capacity: float,
                         coupling: float) -> FactoredTF:
    """DualPI2's L queue from δq (packets) to δp_L: the PI law on p′ times dp_L/dp′ = k."""
    require_positive("coupling", coupling)
    return _delay_pi(alpha, beta, t_update, capacity, coupling)


def _delay_pi(alpha: float, beta: float, t_update: float, capacity: float, slope: float) -> FactoredTF:
    """The PI law p′ += α(τ − τ_ref) + β(τ − τ_old) on τ = q/C, times the slope dp/dp′."""
    require_positive("capacity", capacity, "packets/s")
    z1 = delay_pi_zero(alpha, beta, t_update)
    return FactoredTF(slope * alpha / (t_update * capacity), zeros=(z1,), integrators=1)


def red_controller(l_red: float, k: float) -> FactoredTF:
    """RED: L_red/(1 + s/K); l_red = p_max/(max_th − min_th) per packet, k in rad/s (> 0)."""
    require_positive("l_red", l_red, "per packet")
    require_positive("k", k, "rad/s")
    return FactoredTF(l_red, poles=(k,))


def red_filter_pole(w_q: float, sample_interval: float) -> float:
    """K = −ln(1 − w_q)/δ (INFOCOM 2001 §II) for EWMA weight w_q in (0, 1) sampled every δ s."""
    require_range("w_q", w_q, 0.0, 1.0, low_open=True, high_open=True)
    require_positive("sample_interval", sample_interval, "s")
    return -math.log1p(-w_q) / sample_interval


def p_controller(k_p: float) -> FactoredTF:
    """Proportional controller: δp = k_p·δq (k_p per packet, > 0)."""
    require_positive("k_p", k_p, "per packet")
    return FactoredTF(k_p)


def pi_controller(k_pi: float, z: float) -> FactoredTF:
    """Hollot PI: K_PI·(1 + s/z)/s (k_pi per packet per second, z in rad/s)."""
    require_positive("k_pi", k_pi)
    require_positive("z", z, "rad/s")
    return FactoredTF(k_pi, zeros=(z,), integrators=1)


def delay_pi_zero(alpha: float, beta: float, t_update: float) -> float:
    """z1 = α/((β + α/2)·T) of the bilinear PIE/PI² controller (HPSR 2013 eq. (9))."""
    require_positive("alpha", alpha, "Hz")
    require_range("beta", beta, 0.0, math.inf)
    require_positive("t_update", t_update, "s")
    return alpha / ((beta + alpha / 2.0) * t_update)


def pie_controller(alpha: float, beta: float, t_update: float, capacity: float, p0: float,
                   autotune: str = "hpsr") -> FactoredTF:
    """PIE from δq (packets) to δp at operating point p0, auto-tune table ``autotune``.

    alpha, beta in Hz (probability per second of delay error, per update), t_update T in s,
    capacity C in packets/s (τ = q/C)."""
    require_positive("capacity", capacity, "packets/s")
    factor = autotune_factor(p0, autotune)
    z1 = delay_pi_zero(alpha, beta, t_update)
    return FactoredTF(factor * alpha / (t_update * capacity), zeros=(z1,), integrators=1)


def pi2_controller(alpha: float, beta: float, t_update: float, capacity: float,
                   p0: float) -> FactoredTF:
    """PI² from δq (packets) to δp: the PI law on p′ (gains on τ = q/C) times dp/dp′ = 2√p0."""
    require_range("p0", p0, 0.0, 1.0, low_open=True)
    return _delay_pi(alpha, beta, t_update, capacity, 2.0 * math.sqrt(p0))


def sampler_delay(t_update: float) -> FactoredTF:
    """e^(−sT/2): the average delay of a sample-and-hold at period T (spec §3.7 step 5)."""
    require_positive("t_update", t_update, "s")
    return FactoredTF(1.0, delay=t_update / 2.0)
