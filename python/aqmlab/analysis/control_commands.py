"""The ``aqmlab design`` and ``aqmlab margins`` commands, imported only when one runs (their
arguments are registered by :mod:`.cli`)."""

from __future__ import annotations

import argparse

import numpy as np

from .._options import NEEDS_OUTPUT, fill_defaults, refuse_given
from ..errors import ScenarioError
from ..outdir import OutputKind, check_output, clear_own
from .cli import DESIGN_DEFAULTS, MARGINS_DEFAULTS
from .design import (
    design_p,
    design_pi,
    design_red,
    digital_to_pi,
    pi2_digital,
    pi_to_digital,
    pie_digital,
)
from .margins import stability_margins
from .pie_maps import (
    FIG15_PAIRS,
    GAINS,
    check_paper_claims,
    margin_vs_rtt,
    margin_vs_sqrt_p,
    phase_margin_map,
    pie_loop,
)
from .plant import ScalablePlant, TcpPlant, dualpi2_l_controller, pi2_controller, pi_controller, red_filter_pole
from .plots import bode_png, curves_png, map_png


# The controllers that read each option of `design` and `margins` that not all of them read.
_DESIGN_READERS = {"--fs": ("pi",), "--omega-g": ("pi", "p"), "--red-k": ("red",), "--w-q": ("red",)}
_MARGINS_READERS = {
    **dict.fromkeys(("--p0", "--alpha", "--beta", "--t-update"), ("pie", "pi2", "dualpi2")),
    **dict.fromkeys(("--autotune", "--claims"), ("pie",)),
    **dict.fromkeys(("--flows", "--capacity", "--k-pi", "--z", "--a", "--b", "--fs"), ("pi",)),
    "--coupling": ("dualpi2",),
}


# What `margins -o` writes: Bode plots per R0, the margin and crossover curves against sqrt(p0)
# and, for PIE, the margin maps; named by controller, R0 and gain convention.
MARGINS_OUTPUT = OutputKind("aqmlab margins figures", (), patterns=(
    "bode_*.png", "pm_vs_sqrt_p_*.png", "wgc_vs_sqrt_p_*.png", "pie_pm_map_*.png", "pie_pm_vs_rtt_*.png"))


def _refuse_other_controllers(args: argparse.Namespace, readers: dict[str, tuple[str, ...]]) -> None:
    for option, controllers in readers.items():
        if args.controller not in controllers:
            names = controllers[0] if len(controllers) == 1 else f"{', '.join(controllers[:-1])} and {controllers[-1]}"
            refuse_given(args, [option], f"applies only to {names}, not to {args.controller}")


def _capacity(args: argparse.Namespace) -> float:
    if args.capacity is not None and args.capacity_bps is not None:
        raise ScenarioError("--capacity-bps", "give --capacity (packets/s) or --capacity-bps, not both")
    if args.capacity_bps is not None:
        return args.capacity_bps / (8.0 * args.packet_bytes)
    return args.capacity if args.capacity is not None else args.default_capacity


def design(args: argparse.Namespace) -> int:
    _refuse_other_controllers(args, _DESIGN_READERS)
    if args.red_k is not None:
        refuse_given(args, ["--w-q"], "applies only without --red-k (it gives K, which --red-k sets directly)")
    if args.capacity_bps is None:
        refuse_given(args, ["--packet-bytes"], "applies only with --capacity-bps (it converts bit/s to packets/s)")
    fill_defaults(args, DESIGN_DEFAULTS)
    c = _capacity(args)
    if args.controller == "pi":
        des = design_pi(args.flows, args.rtt, c, args.omega_g)
        dig = des.digital(args.fs)
        print(des.summary())
        print(f"  digital at {args.fs:g} Hz (Tustin): a = {dig.a:.5g}, b = {dig.b:.5g} per packet")
        z_2 = float(f"{des.zero:.2g}")
        rounded = pi_to_digital(des.gain, z_2, args.fs)
        print(f"  with z rounded to {z_2:g} rad/s, as INFOCOM 2001 §VI does: a = {rounded.a:.5g}, "
              f"b = {rounded.b:.5g}")
    elif args.controller == "p":
        print(design_p(args.flows, args.rtt, c, args.omega_g).summary())
    else:
        k = args.red_k if args.red_k is not None else red_filter_pole(args.w_q, 1.0 / c)
        print(design_red(args.flows, args.rtt, c, k).summary())
    return 0


def margins(args: argparse.Namespace) -> int:
    _refuse_other_controllers(args, _MARGINS_READERS)
    if args.controller == "pi":
        # One source of the PI gains: the digital a and b (at --fs), else K_PI (with z), else the design.
        if args.a is not None or args.b is not None:
            refuse_given(args, ["--k-pi", "--z"], "applies only without --a and --b (they give the gains)")
        else:
            refuse_given(args, ["--fs"], "applies only with --a and --b (the rate they are sampled at)")
            if args.k_pi is None:
                refuse_given(args, ["--z"], "applies only with --k-pi (the design sets both otherwise)")
    if args.output is None:
        refuse_given(args, ["--force"], NEEDS_OUTPUT)
    fill_defaults(args, MARGINS_DEFAULTS)
    if args.output is not None:
        check_output(args.output, MARGINS_OUTPUT, force=args.force)
        # The figures are named by the RTTs and gains asked for: an earlier run's others would stay.
        clear_own(args.output, MARGINS_OUTPUT)
        args.output.mkdir(parents=True, exist_ok=True)
    if args.controller == "pi":
        return _margins_pi(args)
    if args.controller == "dualpi2":
        return _margins_dualpi2(args)
    return _margins_delay_pi(args)


def _margins_dualpi2(args: argparse.Namespace) -> int:
    """DualPI2 (sch_dualpi2 gains unless given): the classic loop is PI²'s (p_C = p′²); the L4S
    loop closes the same PI law through k·p′ on scalable flows (RFC 9332 §2.4, Appendix A)."""
    alpha = args.alpha if args.alpha is not None else 0.16
    beta = args.beta if args.beta is not None else 3.2
    t_upd = args.t_update if args.t_update is not None else 0.016
    k = args.coupling
    print(f"DUALPI2 alpha = {alpha:g} Hz, beta = {beta:g} Hz, T = {t_upd:g} s, k = {k:g}; p0 is each "
          "traffic's own probability at the operating point (p_C = p'^2 classic, p_L = k·p' L4S)")
    print(f"{'R0 (s)':>7} {'p0':>8} {'traffic':>8}  margins")
    for r in args.rtt or [0.1]:
        loops = {}
        for p0 in args.p0:
            classic = TcpPlant.from_p0(p0, r)
            loops[f"p0={p0:g} classic"] = classic.tf() * pi2_controller(alpha, beta, t_upd, classic.capacity, p0)
            scal = ScalablePlant.from_p0(p0, r)
            loops[f"p0={p0:g} l4s"] = scal.tf() * dualpi2_l_controller(alpha, beta, t_upd, scal.capacity, k)
            for kind in ("classic", "l4s"):
                print(f"{r:7g} {p0:8.3g} {kind:>8}  {stability_margins(loops[f'p0={p0:g} {kind}']).row()}")
        if args.output is not None:
            print("wrote", bode_png(loops, args.output / f"bode_dualpi2_rtt{r:g}.png"))
    return 0


def _margins_pi(args: argparse.Namespace) -> int:
    rtts = args.rtt or [0.2467]
    if args.a is not None or args.b is not None:
        if args.a is None or args.b is None:
            raise ScenarioError("--b" if args.b is None else "--a", "give --a and --b together (the digital gains)")
        k_pi, z = digital_to_pi(args.a, args.b, args.fs)
    elif args.k_pi is not None:
        k_pi = args.k_pi
        z = args.z if args.z is not None else TcpPlant(args.flows, args.capacity, rtts[0]).p_tcp
    else:
        des = design_pi(args.flows, rtts[0], args.capacity)
        k_pi, z = des.gain, des.zero
    print(f"PI K_PI = {k_pi:.5g}, z = {z:.4g} rad/s, C = {args.capacity:g} packets/s")
    print(f"{'N':>8} {'R0 (s)':>8} {'p0':>9}  margins")
    loops = {}
    for n in (args.flows / 2, args.flows, 2 * args.flows):
        for r in rtts:
            plant = TcpPlant(n, args.capacity, r)
            loop = plant.tf() * pi_controller(k_pi, z)
            loops[f"N={n:g}, R0={r:g}"] = loop
            print(f"{n:8g} {r:8g} {plant.p0:9.3g}  {stability_margins(loop).row()}")
    if args.output is not None:
        print("wrote", bode_png(loops, args.output / "bode_pi.png"))
    return 0


def _margins_delay_pi(args: argparse.Namespace) -> int:
    pie = args.controller == "pie"
    alpha = args.alpha if args.alpha is not None else (0.125 if pie else 0.16)
    beta = args.beta if args.beta is not None else (1.25 if pie else 3.2)
    t_upd = args.t_update if args.t_update is not None else (0.03 if pie else 0.016)
    rtts = args.rtt or [0.1]
    digital = pie_digital(alpha, beta, t_upd) if pie else pi2_digital(alpha, beta, t_upd)
    k, z = digital.continuous()
    print(f"{args.controller.upper()} alpha = {alpha:g} Hz, beta = {beta:g} Hz, T = {t_upd:g} s: "
          f"a = {digital.a:g}, b = {digital.b:g} per s of delay; K = {k:.4g}, z = {z:.4g} rad/s"
          + (f"; auto-tune {args.autotune}" if pie else "; p = p'^2 (MGT gain)"))
    gains = GAINS if pie else ("mgt",)
    print(f"{'R0 (s)':>7} {'p0':>8} {'gain':>6}  margins")
    for r in rtts:
        loops = {}
        for p0 in args.p0:
            for g in gains:
                if pie:
                    loop = pie_loop(alpha, beta, t_upd, r, p0, g, args.autotune)
                else:
                    plant = TcpPlant.from_p0(p0, r)
                    loop = plant.tf() * pi2_controller(alpha, beta, t_upd, plant.capacity, p0)
                loops[f"p0={p0:g} {g}"] = loop
                print(f"{r:7g} {p0:8.3g} {g:>6}  {stability_margins(loop).row()}")
        if args.output is not None:
            print("wrote", bode_png(loops, args.output / f"bode_{args.controller}_rtt{r:g}.png"))
    if args.output is not None:
        _sqrt_p_figures(args, pie, alpha, beta, t_upd, rtts[0], gains)
        if pie:
            _pie_maps(args, t_upd, rtts[0], min(args.p0))
    if pie and args.claims:
        print(check_paper_claims().report())
    return 0


def _sqrt_p_figures(args: argparse.Namespace, pie: bool, alpha: float, beta: float, t_upd: float,
                    rtt: float, gains: tuple[str, ...]) -> None:
    """Figs. 15-16: PM and crossover against sqrt(p0) (for PIE: the three HPSR pairs)."""
    x = np.linspace(0.01, 0.6, 40)
    pairs = FIG15_PAIRS if pie else ((alpha, beta),)
    for g in gains:
        if pie:
            cur = margin_vs_sqrt_p(x, pairs, t_upd, rtt, g)
            pm, wgc = cur.pm_deg, cur.w_gc
        else:
            ms = [stability_margins(TcpPlant.from_p0(s * s, rtt).tf()
                                    * pi2_controller(alpha, beta, t_upd, 1.0, s * s)) for s in x]
            pm = np.array([[m.pm_deg for m in ms]])
            wgc = np.array([[m.w_gc for m in ms]])
        labels = [f"alpha:beta = {a:g}:{b:g}" for a, b in pairs]
        tag = f"{args.controller}_{g}"
        print("wrote", curves_png(x, dict(zip(labels, pm, strict=True)),
                                  args.output / f"pm_vs_sqrt_p_{tag}.png",
                                  xlabel="sqrt(p0)", ylabel="phase margin (deg)", hlines=(0.0,),
                                  title=f"{args.controller} phase margin, R0 = {rtt:g} s, {g} gain"))
        print("wrote", curves_png(x, dict(zip(labels, wgc, strict=True)),
                                  args.output / f"wgc_vs_sqrt_p_{tag}.png",
                                  xlabel="sqrt(p0)", ylabel="gain crossover (rad/s)", logy=True,
                                  title=f"{args.controller} loop bandwidth, R0 = {rtt:g} s, {g} gain"))


def _pie_maps(args: argparse.Namespace, t_upd: float, rtt: float, p0: float) -> None:
    """Figs. 13-14: PM over (alpha, beta) and PM against R0, both gain conventions."""
    alphas = np.logspace(-3, 0, 16)
    betas = np.logspace(-2, 1, 16)
    rtts = np.linspace(0.02, 0.3, 29)
    for g in GAINS:
        pm = phase_margin_map(alphas, betas, t_upd, rtt, p0, g)
        print("wrote", map_png(alphas, betas, pm, args.output / f"pie_pm_map_{g}.png",
                               xlabel="alpha (Hz)", ylabel="beta (Hz)",
                               title=f"PIE PM, T = {t_upd:g} s, R0 = {rtt:g} s, p0 = {p0:g}, {g} gain"))
        curves = {f"{a:g}:{b:g}": margin_vs_rtt(rtts, a, b, t_upd, p0, g) for a, b in FIG15_PAIRS}
        print("wrote", curves_png(rtts, curves, args.output / f"pie_pm_vs_rtt_{g}.png",
                                  xlabel="R0 (s)", ylabel="phase margin (deg)", hlines=(0.0,),
                                  title=f"PIE PM against R0, p0 = {p0:g} held, {g} gain"))
