"""The verdict every claim of the catalog is expected to get, with the reason wherever it is not
*reproduced*. The test suite runs the catalog in quick mode and checks every claim against this
table in both directions, so a regression and a fix alike fail until the entry is updated here,
with its reason.

``QUICK`` holds the verdicts of the quick runs (5 seeds, 2 null-control seeds, shortened
scenarios), established by ``aqmlab reproduce --all --quick``; a claim not listed is expected
to be reproduced. Reasons that begin "Changed" record a verdict that a change of the rules
(two-sided settling, raw-queue oscillation) moved; "Re-judged"/"New claim" mark claims rewritten
to say what the paper says. ``FULL`` holds the claims whose full-length verdict (``aqmlab
reproduce --all``: 5 seeds, 5 null-control seeds, the papers' durations) differs from their
quick one, or whose full-length numbers the reason should give; every other claim is expected
to get its quick verdict at full length too. The test suite runs the full-length catalog as well
and checks both tables (established by a full run of all 250 claims on 2026-11-28).
"""

from __future__ import annotations

from .core import DEVIATES, NOT_DISCRIMINATING, REPRODUCED, Experiment

ND, DEV = NOT_DISCRIMINATING, DEVIATES

# (experiment id, claim key): (verdict, reason). The claim key is the metric, followed by the band
# when an experiment judges one metric against two bands (see claim_key).
QUICK: dict[tuple[str, str], tuple[str, str]] = {
    ("pie13-fig4a", "utilization"): (ND, "Full utilization under this load is DropTail's too: the claim says the AQM costs no throughput; it does not test the AQM."),
    ("pie13-fig4a", "tcp_min_bps"): (ND, "DropTail with the same buffer gives the lowest flow as much (1.65 Mb/s): the fairness floor does not test PIE."),
    ("pie13-fig4a", "tcp_max_bps"): (DEV, "4 of 5 seeds in the band, but the mean's upper bound (2.50 Mb/s) is above it: per-flow shares of a 20 s quick run are too noisy."),
    ("pie13-fig4b", "utilization"): (ND, "Full utilization under this load is DropTail's too: the claim says the AQM costs no throughput; it does not test the AQM."),
    ("pie13-fig4c", "utilization"): (ND, "Full utilization under this load is DropTail's too: the claim says the AQM costs no throughput; it does not test the AQM."),
    ("pie13-fig6", "drops_b100_mb100"): (ND, "No drop at all: the 200 KB buffer absorbs a 100 ms burst under DropTail too, so 'no drop' does not show the burst allowance."),
    ("pie13-fig6", "first_drop_b200_mb100_s"): (ND, "The first drop about 100 ms into the 200 ms burst is the 200 KB buffer overflowing: DropTail drops at the same moment (107 ms)."),
    ("pie13-fig6", "first_drop_b100_mb0_s"): (DEV, "Without burst allowance PIE's first drop comes 40–80 ms into the burst on 3 of 5 seeds (its delay estimate and p must grow first); 'right away' (≤ 40 ms) holds on 2 seeds only."),
    ("pie13-fig6", "first_drop_b200_mb0_s"): (DEV, "Without burst allowance PIE's first drop comes 40–80 ms into the burst on 3 of 5 seeds (its delay estimate and p must grow first); 'right away' (≤ 40 ms) holds on 2 seeds only."),
    ("pie13-fig6", "drops_growth_mb0"): (ND, "DropTail also drops more in the longer burst: the growth does not test PIE."),
    ("pie13-fig7", "pie_settle_after_drop_s"): (DEV, "Changed from reproduced by the two-sided settling rule: after the drop to 20 Mb/s PIE's queue overshoots, then runs empty (below 10 ms); it is back in [10, 30] ms only 7–8 s after the drop. The one-sided rule counted the empty queue as settled."),
    ("pie13-fig8", "red_rise_s"): (ND, "DropTail's latency also rises with the load (by 20 ms): the rise does not test RED."),
    ("pie13-fig8", "pie_settle_max_s"): (DEV, "Changed by the two-sided settling rule: when the load falls PIE's queue runs empty and takes about 9 s to come back to [10, 30] ms (the one-sided rule reported 0 s)."),
    ("pie13-fig10", "codel_t5_frac_le_20ms"): (DEV, "Our CoDel keeps about 71 % of the packets under 20 ms with a 5 ms target, not the paper's > 90 %, on every seed."),
    ("pie13-fig10", "codel_t5_throughput_bps"): (ND, "DropTail fills the 10 Mb/s link as well: the throughput figures do not test the AQM."),
    ("pie13-fig10", "pie_t20_throughput_bps"): (ND, "DropTail fills the 10 Mb/s link as well: the throughput figures do not test the AQM."),
    ("pie13-fig10", "codel_t20_throughput_bps"): (ND, "DropTail fills the 10 Mb/s link as well: the throughput figures do not test the AQM."),
    ("pie13-fig11", "pie_t20_frac_le_40ms"): (DEV, "99–100 % of PIE's packets wait under 40 ms, at the top of the paper's 'about 90 %' ± 10 %: the mean's upper bound passes 100 %."),
    ("pie13-fig11", "codel_t5_frac_le_100ms"): (ND, "DropTail loses control under the UDP overload too (no packet under 100 ms): the claim does not single out CoDel."),
    ("pie13-fig11", "codel_t20_frac_le_100ms"): (ND, "DropTail loses control under the UDP overload too (no packet under 100 ms): the claim does not single out CoDel."),
    ("pie13-fig11", "pie_t5_throughput_bps"): (ND, "DropTail fills the 10 Mb/s link as well: the throughput figures do not test the AQM."),
    ("pie13-fig11", "codel_t5_throughput_bps"): (ND, "DropTail fills the 10 Mb/s link as well: the throughput figures do not test the AQM."),
    ("pie13-fig11", "pie_t20_throughput_bps"): (ND, "DropTail fills the 10 Mb/s link as well: the throughput figures do not test the AQM."),
    ("pie13-fig11", "codel_t20_throughput_bps"): (ND, "DropTail fills the 10 Mb/s link as well: the throughput figures do not test the AQM."),
    ("pie13-fig13", "design_pm_paper_deg"): (DEV, "Analysis only (no simulation, one deterministic evaluation): the same deviation as before the seed rule; the experiment's notes say why."),
    ("pie13-fig13", "design_pm_mgt_deg"): (DEV, "Analysis only (no simulation, one deterministic evaluation): the same deviation as before the seed rule; the experiment's notes say why."),
    ("pie13-fig14", "pm_50ms_hold_p0_paper_deg"): (DEV, "Analysis only (no simulation, one deterministic evaluation): the same deviation as before the seed rule; the experiment's notes say why."),
    ("pie13-fig14", "pm_50ms_hold_load_paper_deg"): (DEV, "Analysis only (no simulation, one deterministic evaluation): the same deviation as before the seed rule; the experiment's notes say why."),
    ("pie13-fig15-16", "autotuned_min_pm_deg"): (DEV, "Analysis only (no simulation, one deterministic evaluation): the same deviation as before the seed rule; the experiment's notes say why."),
    ("pie13-fluid", "n50_p_ratio"): (DEV, "In quick runs the packet simulation's mean drop probability with 50 flows is 2.7–2.9× the fluid model's, on every seed."),
    ("pie-slides13-dc-1flow", "pie_delay_s"): (DEV, "One flow at 10 Gb/s: the burst-allowance cycle the experiment's notes describe, on every seed."),
    ("pie-slides13-dc-1flow", "pie_throughput_bps"): (DEV, "One flow at 10 Gb/s: the burst-allowance cycle the experiment's notes describe, on every seed."),
    ("pie-slides13-dc-5flows", "pie_utilization"): (DEV, "PIE+ECN uses 96–98 % of the link with 5 flows (1 of 5 seeds ≥ 99 %)."),
    ("pie-slides13-dc-20flows", "pie_utilization"): (DEV, "PIE+ECN uses 98.0–98.2 % of the link with 20 flows on every seed, not the slides' '100 %' read as ≥ 99 %; DropTail reaches 100 %."),
    ("pie-slides13-dc-intensity", "pie_utilization"): (ND, "Full utilization under this load is DropTail's too: the claim says the AQM costs no throughput; it does not test the AQM."),
    ("pie-slides13-dc-intensity", "pie_over_red_utilization"): (DEV, "PIE's utilization is 99.92 % of RED's on every seed (0.25 s quick phases): below it, but by less than the 0.1 % a throughput plot would show as a dip; PIE costs practically no throughput here."),
    ("pie-slides13-dc-capacity-sack", "pie_sd_sack_over_cubic"): (DEV, "With SACK PIE's delay spreads 1.04–1.13× as much around the phase means as with CUBIC (0.25 s quick phases): not smoother in our runs."),
    ("pie-slides13-dc-capacity", "red_low_over_high"): (ND, "DropTail's latency also rises 5× when the capacity falls to a fifth (a queue in packets drains 5× slower): the rise is physics, not RED."),
    ("pie-slides13-dc-capacity", "pie_max_phase_s"): (DEV, "PIE's worst phase mean is 56 µs (2.8× the 20 µs reference) on every seed in the 0.25 s quick phases."),
    ("pie-slides13-dc-capacity", "pie_utilization"): (ND, "Full utilization under this load is DropTail's too: the claim says the AQM costs no throughput; it does not test the AQM."),
    ("pie-slides13-dc-capacity-sack", "red_low_over_high"): (ND, "DropTail's latency also rises 5× when the capacity falls to a fifth (a queue in packets drains 5× slower): the rise is physics, not RED."),
    ("pie-slides13-dc-capacity-sack", "pie_max_phase_s"): (DEV, "PIE's worst phase mean is 56 µs (2.8× the 20 µs reference) on every seed in the 0.25 s quick phases."),
    ("pie-slides13-dc-capacity-sack", "pie_utilization"): (ND, "Full utilization under this load is DropTail's too: the claim says the AQM costs no throughput; it does not test the AQM."),
    ("pie-slides13-delref", "utilization"): (ND, "Full utilization under this load is DropTail's too: the claim says the AQM costs no throughput; it does not test the AQM."),
    ("pie-slides13-fqpie-voip", "tcp_voip_p99_s"): (ND, "VoIP in the strict-priority class waits only for the packet in service with DropTail in the low class too: the claim tests strict priority, not FQ_PIE."),
    ("pie-slides13-fqpie-voip", "tcp_udp_voip_p99_s"): (ND, "VoIP in the strict-priority class waits only for the packet in service with DropTail in the low class too: the claim tests strict priority, not FQ_PIE."),
    ("pie-slides13-fqpie-voip", "tcp_regular_mean_s"): (DEV, "Each flow queue is held near PIE's 20 ms reference, so the regular traffic's mean is 27–30 ms (the experiment's notes), on every seed."),
    ("pie-slides13-fqpie-voip", "tcp_udp_regular_mean_s"): (DEV, "Each flow queue is held near PIE's 20 ms reference, so the regular traffic's mean is 27–30 ms (the experiment's notes), on every seed."),
    ("pie-slides13-autoref-drain-rate", "reference_lowered_after_s"): (DEV, "12.6 s on every seed: the drain-rate samples become stable (±10 %) only about 2.6 s after the step, while the 50 flows grow into the new capacity; the 10 s count from there."),
    ("pie-slides13-autoref-drain-rate", "utilization"): (ND, "Full utilization under this load is DropTail's too: the claim says the AQM costs no throughput; it does not test the AQM."),
    ("pie-slides13-autoref-link-speed", "delay_after_s"): (DEV, "0.85 ms, below 1 ms on every seed: with a 2 ms reference (17 packets) and 50 flows at 100 Mb/s the queue often runs empty (utilization 91 %)."),
    ("pie-slides13-autoref-link-speed", "utilization"): (ND, "Full utilization under this load is DropTail's too: the claim says the AQM costs no throughput; it does not test the AQM."),
    ("pi01-exp1", "p_drop_on_leave_pk"): (ND, "DropTail's queue also falls when flows leave and rises when they return: the claim does not test P."),
    ("pi01-exp1", "p_recovery_on_return_pk"): (ND, "DropTail's queue also falls when flows leave and rises when they return: the claim does not test P."),
    ("pi01-exp2", "red_overshoot_ratio_2x_1x"): (DEV, "Re-judged as the paper states it: RED's overshoot at 2× RTT is 1.2–1.6× the 1× one (1 of 5 seeds reaches 1.5): not robustly 'markedly larger' (and DropTail meets it too)."),
    ("pi01-exp2", "p_overshoot_ratio_2x_1x"): (DEV, "New claim: P's overshoot grows 1.5–1.8× with doubled round trips, so P does change noticeably in our runs."),
    ("pi01-exp2", "red_minus_p_overshoot_growth_pk"): (DEV, "New claim: RED's overshoot grows more than P's on 2 of 5 seeds only."),
    ("pi01-fig7", "p1_over_p_cv ≥ 1"): (ND, "Two identical DropTail queues give a ratio of exactly 1, which the inclusive band accepts; only the '≥ 2' claim discriminates."),
    ("pi01-fig7", "p1_over_p_cv ≥ 2"): (DEV, "The coefficient-of-variation ratio averages 2.0, with 3 of 5 seeds at or above 2: not robust."),
    ("pi01-fig7", "p1_empty_fraction"): (DEV, "The high-gain P queue is empty in 1.6–1.8 % of the samples, not ≥ 5 %, on every seed."),
    ("pi01-exp3", "pi_over_red_settle"): (DEV, "Changed by the two-sided settling rule (2 s mean within ±25 % of the final level for 10 s): PI's queue does not stay inside on most seeds within the measured window (ratio infinite there); 1 of 5 (Exp. 3) and 2 of 5 (Exp. 4) seeds pass."),
    ("pi01-exp4", "pi_over_red_settle"): (DEV, "Changed by the two-sided settling rule (2 s mean within ±25 % of the final level for 10 s): PI's queue does not stay inside on most seeds within the measured window (ratio infinite there); 1 of 5 (Exp. 3) and 2 of 5 (Exp. 4) seeds pass."),
    ("pi01-exp6", "pi_phase1_pk"): (DEV, "PI's mean queue is 163–180 packets with 16 ftp flows; 2 of 5 seeds within ±15 % of 200."),
    ("pi01-exp6", "red_over_pi_swing"): (DEV, "Changed by judging the oscillation on the raw queue: RED's standard deviation is 1.4–1.7× PI's, not 2×; on 10 s means it passed."),
    ("pi01-exp7", "red_full_fraction"): (ND, "DropTail with the same 800-packet buffer sits at the roof too: 'hits the roof' is the load, not RED or P."),
    ("pi01-exp7", "p_full_fraction"): (ND, "DropTail with the same 800-packet buffer sits at the roof too: 'hits the roof' is the load, not RED or P."),
    ("pi01-exp8", "pi_phase1_pk"): (DEV, "PI's mean queue is 227–243 packets with 40 ms round trips, at or past the +15 % edge (3 of 5 and 1 of 5 seeds inside)."),
    ("pi01-exp8", "pi_phase3_pk"): (DEV, "PI's mean queue is 227–243 packets with 40 ms round trips, at or past the +15 % edge (3 of 5 and 1 of 5 seeds inside)."),
    ("pi01-exp8", "pi_settle_over_exp3"): (DEV, "PI is at least 10 % slower than in Exp. 3 on 1 of 5 seeds only (the margin 'slower' gets; the zero-margin reading gave the same count)."),
    ("pi01-fig16-20", "ftp_util_at_min_qref"): (DEV, "The quick sweeps are short runs at one seed (this experiment runs its own sweeps, not judged over seeds); these claims need the full-length sweep."),
    ("pi01-fig16-20", "red550_delay_over_pi"): (DEV, "The quick sweeps are short runs at one seed (this experiment runs its own sweeps, not judged over seeds); these claims need the full-length sweep."),
    ("pi01-fig16-20", "red55_pi_util_gain_min"): (DEV, "The quick sweeps are short runs at one seed (this experiment runs its own sweeps, not judged over seeds); these claims need the full-length sweep."),
    ("pi01-fig16-20", "red55_pi_util_gain_max"): (DEV, "The quick sweeps are short runs at one seed (this experiment runs its own sweeps, not judged over seeds); these claims need the full-length sweep."),
    ("pi2wns3-s1", "pie_utilization"): (ND, "Full utilization under this load is DropTail's too: the claim says the AQM costs no throughput; it does not test the AQM."),
    ("pi2wns3-s1", "pi2_utilization"): (ND, "Full utilization under this load is DropTail's too: the claim says the AQM costs no throughput; it does not test the AQM."),
    ("pi2wns3-s1", "pi2final_utilization"): (ND, "Full utilization under this load is DropTail's too: the claim says the AQM costs no throughput; it does not test the AQM."),
    ("pi2wns3-s1", "pi2_peak_s"): (ND, "The 200 KB buffer caps the start-up peak at 160 ms for DropTail too: the peak is the buffer, not the AQM."),
    ("pi2wns3-s1", "pie_peak_s"): (ND, "The 200 KB buffer caps the start-up peak at 160 ms for DropTail too: the peak is the buffer, not the AQM."),
    ("pi2wns3-s1", "pi2_minus_pie_peak_s"): (DEV, "PI²'s start-up peak is above PIE's on 4 of 5 seeds (mean +21 ms)."),
    ("pi2wns3-s1", "pi2_over_pie_early_throughput"): (DEV, "Re-judged with the 10 % margin 'faster' gets: PI²'s throughput over the first 10 s is 0.88 of PIE's on average, at least 1.1× on no seed (the zero-margin reading passed on 1 of 5)."),
    ("pi2wns3-s2", "pie_utilization"): (ND, "Full utilization under this load is DropTail's too: the claim says the AQM costs no throughput; it does not test the AQM."),
    ("pi2wns3-s2", "pi2_utilization"): (ND, "Full utilization under this load is DropTail's too: the claim says the AQM costs no throughput; it does not test the AQM."),
    ("pi2wns3-s2", "pi2final_utilization"): (ND, "Full utilization under this load is DropTail's too: the claim says the AQM costs no throughput; it does not test the AQM."),
    ("pi2wns3-s2", "pie_peak_s"): (ND, "The 200 KB buffer caps the start-up peak at 160 ms for DropTail too: the peak is the buffer, not the AQM."),
    ("pi2wns3-s2", "pi2_peak_s"): (ND, "The 200 KB buffer caps the start-up peak at 160 ms for DropTail too: the peak is the buffer, not the AQM."),
    ("pi2wns3-s3", "pie_utilization"): (ND, "Full utilization under this load is DropTail's too: the claim says the AQM costs no throughput; it does not test the AQM."),
    ("pi2wns3-s3", "pi2_utilization"): (ND, "Full utilization under this load is DropTail's too: the claim says the AQM costs no throughput; it does not test the AQM."),
    ("pi2wns3-s3", "pi2final_utilization"): (ND, "Full utilization under this load is DropTail's too: the claim says the AQM costs no throughput; it does not test the AQM."),
    ("pi2wns3-s2", "pi2_minus_pie_peak_s"): (DEV, "Both start-up peaks are the 200 KB buffer's cap (159 ms, on every seed): with this buffer no sojourn can go beyond 160 ms, so PI²'s peak cannot exceed PIE's; the paper's '160+' needs more buffer than its Table 3 states or another measure of delay."),
    ("pi2wns3-s4-20tcp", "pi2_over_pie_t20_p90 [0.8, 0.99]"): (DEV, "PI²'s 90th percentile equals PIE's at the 20 ms target (ratio 1.00, 2 of 5 seeds at least 1 % lower): no slight improvement in our runs, though no worse either."),
    ("pvpie17-1a", "ratio_worst_rel_err"): (DEV, "As before the seed rule (the module's comments say why). PVPIE's scenarios have no random element (fixed starts, CBR): one seed is judged (deterministic)."),
    ("pvpie17-1c", "ratio_worst_rel_err"): (DEV, "As before the seed rule (the module's comments say why). PVPIE's scenarios have no random element (fixed starts, CBR): one seed is judged (deterministic)."),
    ("pvpie17-2", "background_share_of_desired"): (DEV, "As before the seed rule (the module's comments say why). PVPIE's scenarios have no random element (fixed starts, CBR): one seed is judged (deterministic)."),
    ("pvpie17-3b", "ratio_worst_rel_err"): (DEV, "As before the seed rule (the module's comments say why). PVPIE's scenarios have no random element (fixed starts, CBR): one seed is judged (deterministic)."),
    ("pvpie17-4", "pie_tcp_fraction"): (DEV, "Under plain PIE the five Gold TCP flows keep 6.0–6.4 % of the link, just above the 5 % read as 'close to 0'; footnote 2 is a belief the paper did not test."),
    ("pvpie17-filter", "1c_g10_over_g1_transient_err"): (DEV, "Since the linux profile took Linux's PRR (RecoverFS the window before the reduction, PRR-SSRB's extra segment only on an advancing ACK without new losses), γ = 10T's transients on 1c are 6 % smaller than γ = T's, not worse. The γ claims move with the TCP's loss response, one deterministic run per case: 1b, 1c and 3a were 3, 26 and 12 % worse with PRR dividing by the FlightSize and RFC 6937's PRR-SSRB (1b deviated then), 39, 12 and 26 % dividing by the window before the reduction, and are 11, −6 and 8 % with Linux's PRR-SSRB as well (1b now reproduced, just past the 10 % read as worse)."),
    ("pvpie17-filter", "3a_g10_over_g1_transient_err"): (DEV, "Since the linux profile took Linux's PRR (see the 1c claim), γ = 10T's transients on 3a are 8 % worse than γ = T's, short of the 10 % read as worse; before, 12 % and then 26 %."),
    ("pvpie17-4-cases", "4a_share_error"): (DEV, "Our 4a gives each Gold TCP flow 21 % above its desired 1.67 Mb/s: off, but inside the ±25 % we call close, so not 'quite far' as in the paper's Fig. 13."),
    ("l4s-coexist", "dualpi2_rate_ratio"): (DEV, "Prague gets about 3.2 times CUBIC's rate through DualPI2 with one flow each at 20 ms (0 of 5 quick seeds inside the factor-2 band, the mean's bounds [2.67, 3.74]). The coupling balances windows, not rates: CUBIC's round trip includes its 14 ms in the C queue and Prague's only 0.4 ms, so the same window gives Prague 1.70 times the rate (dualpi2_rtt_ratio); the rest is dualpi2_window_ratio (1.88, deviating: Prague follows tcp_prague v0.7 (2026-11-29): its additive increase is 1500 bytes a round trip (MTU_SYS), 1.5 segments of this scenario's 1000-byte packets, where the coupling k = 2 balances a scalable control that adds one segment (RFC 9332 §2.1); 1.25 x 1.5 is about 1.88. With 1500-byte packets, where MTU_SYS is one segment, the same quick scenario gives 1.27 over seeds 1 to 5 (the other four fixes of that day change little)). Before, 2.2 with a window ratio of 1.29."),
    ("l4s-coexist", "dualpi2_window_ratio"): (DEV, "Prague's window is 1.88 times CUBIC's through DualPI2 (1 of 5 quick seeds in [0.67, 1.5], the mean's bounds [1.57, 2.19]; the null control fails it, 2.37); it was 1.29, reproduced, until Prague follows tcp_prague v0.7 (2026-11-29): its additive increase is 1500 bytes a round trip (MTU_SYS), 1.5 segments of this scenario's 1000-byte packets, where the coupling k = 2 balances a scalable control that adds one segment (RFC 9332 §2.1); 1.25 x 1.5 is about 1.88. With 1500-byte packets, where MTU_SYS is one segment, the same quick scenario gives 1.27 over seeds 1 to 5 (the other four fixes of that day change little)."),
    ("l4s-coexist-rtt", "dualpi2_50ms_rate_ratio"): (DEV, "2 of 5 quick seeds in the factor-2 band (mean 2.04, bounds [1.81, 2.28]; the null control fails it, 3.15); it was reproduced until Prague follows tcp_prague v0.7 (2026-11-29): its additive increase is 1500 bytes a round trip (MTU_SYS), 1.5 segments of the 1000-byte packets, where the coupling k = 2 balances a scalable control that adds one segment (RFC 9332 §2.1); 1.25 x 1.5 is about 1.88. With 1500-byte packets, where MTU_SYS is one segment, the same quick scenario gives 1.27 over seeds 1 to 5 (the other four fixes of that day change little)."),
    ("l4s-burst", "smooth_prague_utilization"): (ND, "A lone flow fills a smooth link behind DropTail too: the claim is the baseline the burst claims compare with, not a test of DualPI2."),
    ("l4s-burst", "bursty_cubic_utilization"): (ND, "DropTail's large buffer also keeps the aggregating link full: the claim shows the C queue tolerates the bursts, as any deep queue does; the discriminating claim is bursty_prague_utilization."),
    ("l4s-burst", "bursty_prague_step8ms_utilization"): (ND, "DropTail, which never marks, also gives full utilization: a higher step removes the marking that costs Prague the link, which is what the null control does entirely."),
    ("l4s-classic-ecn", "pie_fb_20ms_rate_ratio"): (ND, "Under DropTail (the null control) neither flow sees a mark, both respond to loss and share within the band too (Prague/CUBIC 1.6): the balance is not the fall-back's alone. The fall-back's own claim is pie_20ms_fallback_gain, which the null control fails."),
    ("l4s-classic-ecn", "codel_fb_20ms_rate_ratio"): (ND, "Under DropTail (the null control) neither flow sees a mark, both respond to loss and share within the band too (Prague/CUBIC 1.6): the balance is not the fall-back's alone. The fall-back's own claim is codel_20ms_fallback_gain, which the null control fails."),
    ("l4s-coexist", "dualpi2_utilization"): (ND, "A full link is DropTail's too (its bufferbloat costs no throughput): the claim says DualPI2 keeps the link busy; it does not test the AQM."),
    ("l4s-classic-only", "dualpi2_utilization"): (ND, "A full link is DropTail's too (its bufferbloat costs no throughput): the claim says DualPI2 keeps the link busy; it does not test the AQM."),
}

FULL: dict[tuple[str, str], tuple[str, str]] = {
    # Where the longer runs change a quick verdict.
    ("pie13-fig4a", "tcp_max_bps"): (ND, "At full length 5 of 5 seeds are in the band (the mean's bounds [2.08, 2.27] Mb/s, the quick runs' noise gone), but DropTail with the same buffer gives the highest flow 2.34 Mb/s, inside it too: the fairness ceiling does not test PIE."),
    ("pie13-fig11", "pie_t20_frac_le_40ms"): (REPRODUCED, "Reproduced at full length: the mean's bounds [0.997, 1] stay inside the band; the quick runs' wider bounds went past 100 %."),
    ("pie-slides13-dc-5flows", "pie_utilization"): (ND, "Over the full run PIE+ECN uses the whole link (bounds [100, 100] %; the quick runs' 96–98 % is their start-up), and so does DropTail: the claim does not test PIE."),
    ("pie-slides13-dc-20flows", "pie_utilization"): (ND, "Over the full run PIE+ECN uses the whole link (bounds [100, 100] %; the quick runs' 98 % is their start-up), and so does DropTail: the claim does not test PIE."),
    ("pie-slides13-autoref-link-speed", "delay_after_s"): (REPRODUCED, "Reproduced at full length: 1.4–1.5 ms (bounds), inside the band on 5 of 5 seeds; the quick runs' 0.85 ms comes from their shorter time at the lowered reference."),
    ("pi01-fig7", "p1_over_p_cv ≥ 2"): (REPRODUCED, "Reproduced at full length: 4 of 5 seeds at or above 2, the mean's bounds [2.00, 2.11]; in the quick runs only 3 of 5 were."),
    ("pi01-exp8", "pi_phase3_pk"): (REPRODUCED, "Reproduced at full length: PI's mean queue 222–224 packets (bounds), inside +15 % of q_ref on 5 of 5 seeds; the quick runs' 227–243 packets were the shorter phases' transient."),
    ("pi01-fig16-20", "ftp_util_at_min_qref"): (REPRODUCED, "Reproduced by the full-length sweep, which the quick sweeps are too short for."),
    # The L4S experiments, full length (aqmlab reproduce l4s-*; 5 seeds, 40 s).
    ("l4s-coexist", "dualpi2_rate_ratio"): (DEV, "Prague gets 3.0 times CUBIC's rate through DualPI2 (0 of 5 seeds in the factor-2 band, the mean's bounds [2.67, 3.34]): the RTT ratio 1.70 (CUBIC's packets wait 14 ms in the C queue, Prague's 0.4 ms) times a window ratio of 1.77 (see dualpi2_window_ratio). The coupling balances windows at equal RTTs for a control adding one segment a round trip (RFC 9332 §2.1)."),
    ("l4s-coexist", "dualpi2_window_ratio"): (DEV, "1 of 5 seeds in the band (mean 1.77, bounds [1.57, 1.96]; DropTail's 10,000-packet queue gives 1.24); it was 5 of 5 (mean 1.25, not discriminating) until Prague follows tcp_prague v0.7 (2026-11-29): its additive increase is 1500 bytes a round trip (MTU_SYS), 1.5 segments of this scenario's 1000-byte packets, where the coupling k = 2 balances a scalable control that adds one segment (RFC 9332 §2.1); 1.25 x 1.5 is about 1.88. With 1500-byte packets, where MTU_SYS is one segment, the same quick scenario gives 1.27 over seeds 1 to 5 (the other four fixes of that day change little)."),
    ("l4s-coexist", "dualpi2_utilization"): (ND, "As quick: a full link is DropTail's too."),
    ("l4s-classic-only", "dualpi2_utilization"): (ND, "As quick: a full link is DropTail's too."),
    ("l4s-coexist-rtt", "dualpi2_10ms_rate_ratio"): (ND, "In 40 s runs DropTail's buffer overflows and Prague (Reno's halving on loss) and CUBIC share the link within the band too (null-control mean 1.18); in the 20 s quick runs it has not yet overflowed and the null control fails."),
    ("l4s-coexist-rtt", "fq_codel_10ms_rate_ratio"): (ND, "In 40 s runs DropTail's buffer overflows and Prague (Reno's halving on loss) and CUBIC share the link within the band too (null-control mean 1.22); in the 20 s quick runs it has not yet overflowed and the null control fails."),
    ("l4s-coexist-rtt", "dualpi2_50ms_rate_ratio"): (DEV, "2 of 5 seeds in the factor-2 band (mean 2.07, bounds [1.83, 2.30]; DropTail gives 1.23); within it, not discriminating, until Prague follows tcp_prague v0.7 (2026-11-29): its additive increase is 1500 bytes a round trip (MTU_SYS), 1.5 segments of the 1000-byte packets, where the coupling k = 2 balances a scalable control that adds one segment (RFC 9332 §2.1); 1.25 x 1.5 is about 1.88. With 1500-byte packets, where MTU_SYS is one segment, the same quick scenario gives 1.27 over seeds 1 to 5 (the other four fixes of that day change little)."),
    ("l4s-coexist-rtt", "fq_codel_50ms_rate_ratio"): (ND, "In 40 s runs DropTail's buffer overflows and Prague (Reno's halving on loss) and CUBIC share the link within the band too (null-control mean 1.18); in the 20 s quick runs it has not yet overflowed and the null control fails."),
    ("l4s-classic-ecn", "fq_codel_nofb_20ms_rate_ratio"): (ND, "In 40 s runs DropTail's buffer overflows and Prague (Reno's halving on loss) and CUBIC share the link within the band too (null-control mean 1.37); in the 20 s quick runs it has not yet overflowed and the null control fails."),
    ("l4s-classic-ecn", "pie_fb_20ms_rate_ratio"): (ND, "As quick: without marks both flows respond to loss and share within the band (null-control mean 0.73)."),
    ("l4s-classic-ecn", "codel_fb_20ms_rate_ratio"): (ND, "As quick: without marks both flows respond to loss and share within the band (null-control mean 0.73)."),
    ("l4s-burst", "smooth_prague_utilization"): (ND, "As quick: a lone flow fills a smooth link behind DropTail too."),
    ("l4s-burst", "bursty_cubic_utilization"): (ND, "As quick: DropTail's deep buffer also keeps the aggregating link full."),
    ("l4s-burst", "bursty_prague_step8ms_utilization"): (ND, "As quick: DropTail, which never marks, also fills the link."),
}


def claim_key(exp: Experiment, index: int) -> str:
    """The key of the experiment's ``index``-th claim: its metric, plus its band if another claim
    of the experiment judges the same metric."""
    x = exp.expectations[index]
    twins = sum(e.metric == x.metric for e in exp.expectations)
    return x.metric if twins == 1 else f"{x.metric} {x.band_text()}"


def verdict(exp: Experiment, index: int, quick: bool) -> tuple[str, str]:
    """(expected verdict, reason) of the experiment's ``index``-th claim: in quick runs, the
    ``QUICK`` table's verdict (reproduced unless listed); at full length, ``FULL``'s where it
    lists the claim, else the quick one."""
    key = (exp.id, claim_key(exp, index))
    quick_verdict = QUICK.get(key, (REPRODUCED, ""))
    return quick_verdict if quick else FULL.get(key, quick_verdict)
