"""Packet captures (traces.pcap), read back by Wireshark's dissectors (tshark, the Debian
package scripts/live-setup.sh installs) and by a minimal reader of the pcap record headers.

The oracle is the simulator's own per-flow counters, kept apart from the capture code: with
zero-delay access links every packet a sender emits reaches the bottleneck at once, and with
the flows stopped a second before the end the network drains, so at the bottleneck's input a
flow shows exactly the data packets it sent, at its output exactly those delivered, the
difference is its drops, and the CE marks at the output are the marks its receiver counted.
"""

import shutil
import struct
import subprocess
from collections import defaultdict

import pytest

import aqmlab
from support import pcap_flow_of as flow_of, pcap_scenario as scenario

pytestmark = pytest.mark.skipif(shutil.which("tshark") is None,
                                reason="tshark is not installed (bash scripts/live-setup.sh installs it)")


FIELDS = ["frame.time_epoch", "ip.src", "ip.dsfield.ecn", "tcp.srcport", "tcp.seq_raw", "tcp.len", "tcp.ack_raw",
          "tcp.options.sack_le", "tcp.options.timestamp.tsval", "tcp.analysis.retransmission",
          "tcp.analysis.fast_retransmission", "tcp.analysis.out_of_order", "_ws.malformed", "_ws.expert.severity"]


def tshark(path):
    out = subprocess.run(["tshark", "-r", str(path), "-n", "-T", "fields", "-E", "separator=\t",
                          *[a for f in FIELDS for a in ("-e", f)]], capture_output=True, text=True, check=True).stdout
    return [dict(zip(FIELDS, line.split("\t"))) for line in out.splitlines()]


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    out = tmp_path_factory.mktemp("pcap")
    r = aqmlab.run(scenario(), progress=False)
    r.save(out, plots=False, report=False)
    return r, {name: tshark(out / "pcap" / f"{name}.pcap") for name in r.pcaps}


def test_captures_match_the_simulators_counts(run):
    r, caps = run
    flows = r.flow_rows()
    assert all(f["in_flight"] == 0 and f["acks_in_flight"] == 0 for f in flows), "the network must have drained"
    assert sum(f["dropped"] for f in flows) > 0 and sum(f["marked"] for f in flows) > 0, "the check needs both"
    for rows in caps.values():
        assert not any(row["_ws.malformed"] for row in rows), "Wireshark found a malformed frame"
    data_in, data_out, ce, retx, ends = (defaultdict(int) for _ in range(5))
    for row in caps["bottleneck_in"]:
        f = flow_of(row["ip.src"])
        data_in[f] += 1
        end = int(row["tcp.seq_raw"]) + int(row["tcp.len"])
        # A retransmission, by definition: bytes below the highest already sent on the connection.
        retx[f] += end <= ends[f]
        ends[f] = max(ends[f], end)
    for row in caps["bottleneck"]:
        f = flow_of(row["ip.src"])
        data_out[f] += 1
        ce[f] += row["ip.dsfield.ecn"] == "3"
    for i, f in enumerate(flows):
        assert (data_in[i], data_out[i], ce[i]) == (f["sent"], f["delivered"], f["marked"]), f"flow {i}"
        assert data_in[i] - data_out[i] == f["dropped"]
        assert retx[i] == f["retransmits"], f"flow {i}"
        # Byte numbers: the highest byte sent is the number of distinct segments times the MSS
        # (960 bytes: 1000-byte packets, 40 bytes of headers), counted from 1.
        assert ends[i] - 1 == (f["sent"] - f["retransmits"]) * 960, f"flow {i}"
    # tshark's own analysis flags the same segments as not new: as retransmissions, or as
    # out of order when one follows the previous segment within its reordering threshold (it sees
    # only this direction, so it has no RTT to go by).
    flagged = sum(1 for row in caps["bottleneck_in"] if row["tcp.analysis.retransmission"]
                  or row["tcp.analysis.fast_retransmission"] or row["tcp.analysis.out_of_order"])
    assert flagged == sum(f["retransmits"] for f in flows)


def test_acks_carry_sack_blocks_timestamps_and_ecn_echo(run):
    r, caps = run
    flows = r.flow_rows()
    acks = caps["reverse"]
    assert len(acks) == sum(f["acks_sent"] - f["acks_dropped"] for f in flows)
    assert any(row["tcp.options.sack_le"] for row in acks), "losses must show as SACK blocks"
    assert all(row["tcp.options.timestamp.tsval"] != "" for row in acks)
    data = caps["bottleneck_in"]
    ect = {flow_of(row["ip.src"]) for row in data if row["ip.dsfield.ecn"] == "2"}
    assert ect == {0, 1}, "only the ECN group sends ECT(0)"


def records(data):
    """(seconds, nanoseconds, captured length, original length) of each record of a pcap file."""
    magic, = struct.unpack_from("<I", data)
    assert magic == 0xa1b23c4d
    at, out = 24, []
    while at < len(data):
        rec = struct.unpack_from("<IIII", data, at)
        out.append(rec)
        at += 16 + rec[2]
    assert at == len(data)
    return out


def test_snaplen_window_and_sampling():
    full = records(aqmlab.run(scenario(pcap_snaplen=64), progress=False).pcaps["bottleneck"])
    assert {incl for _, _, incl, _ in full} == {64}
    assert {orig for *_, orig in full} == {14 + 20 + 32 + 960}  # Ethernet, IPv4, TCP with timestamps, MSS
    part = records(aqmlab.run(scenario(pcap_window=["1s", "2s"], pcap_every=3), progress=False).pcaps["bottleneck"])
    inside = [r for r in full if r[0] == 1]
    assert [(s, ns) for s, ns, *_ in part] == [(s, ns) for s, ns, *_ in inside[::3]]


def test_bad_capture_fields_are_named():
    from aqmlab.errors import ScenarioError

    with pytest.raises(ScenarioError, match=r"traces\.pcap\[0\].*bottleneck_in"):
        aqmlab.run(scenario() | {"traces": {"pcap": ["access"]}}, progress=False)
    with pytest.raises(ScenarioError, match=r"traces\.pcap_snaplen.*64"):
        aqmlab.run(scenario(pcap_snaplen=10), progress=False)


def test_size_estimate_bounds_the_captures(run):
    # The estimate counts a record per bottleneck-rate packet at each point, at most snaplen
    # bytes each: an upper bound on what was captured (ACKs are smaller and fewer).
    from aqmlab.api import estimate

    r, _ = run
    with_pcap = estimate(r.scenario).trace_bytes
    without = estimate(aqmlab.Scenario.from_dict(scenario() | {"traces": {}})).trace_bytes
    assert with_pcap - without >= sum(len(b) for b in r.pcaps.values()) > 0


def test_udp_datagrams_carry_their_numbers(tmp_path):
    # A 2 Mb/s CBR source alone on a 10 Mb/s link: nothing is dropped, so the bottleneck's output
    # holds every datagram sent, numbered 0, 1, 2, ... in its first 8 payload bytes.
    d = {"name": "udp", "duration": "2s",
         "bottleneck": {"rate": "10Mbps", "delay": "5ms", "queue": {"type": "drop_tail", "limit": "100p"}},
         "flows": [{"type": "udp", "rate": "2Mbps", "access_delay": "0ms", "stop": "1s"}],
         "traces": {"pcap": ["bottleneck"]}}
    r = aqmlab.run(d, progress=False)
    path = tmp_path / "udp.pcap"
    path.write_bytes(r.pcaps["bottleneck"])
    out = subprocess.run(["tshark", "-r", str(path), "-n", "-T", "fields", "-e", "udp.dstport", "-e", "data.data"],
                         capture_output=True, text=True, check=True).stdout.split("\n")[:-1]
    assert len(out) == r.flow_rows()[0]["sent"] > 0
    numbers = [int(line.split("\t")[1][:16], 16) for line in out]
    assert numbers == list(range(len(out))) and {line.split("\t")[0] for line in out} == {"5202"}
