"""PIE's auto-tuning tables: the factor applied to alpha and beta below each drop probability.
In a module of their own (no numpy) so that the command line can offer their names cheaply."""

# (upper p bound, factor) checked in order; above every bound the factor is 1.
AUTOTUNE_TABLES: dict[str, tuple[tuple[float, float], ...]] = {
    # HPSR 2013 §III-B: α̃/8 below 1 %, α̃/2 below 10 %.
    "hpsr": ((0.01, 1 / 8), (0.1, 1 / 2)),
    # RFC 8033 §4.2 (spec §3.5): 1/2048 ... 1/2 for p below 1e-6 ... 1e-1.
    "rfc8033": ((1e-6, 1 / 2048), (1e-5, 1 / 512), (1e-4, 1 / 128), (1e-3, 1 / 32),
                (1e-2, 1 / 8), (1e-1, 1 / 2)),
    # ns-2 / ns-3 PIE code (spec §3.5): ÷32, ÷8, ÷2 below 0.1 %, 1 %, 10 %.
    "ns": ((1e-3, 1 / 32), (1e-2, 1 / 8), (1e-1, 1 / 2)),
    "none": (),
}
