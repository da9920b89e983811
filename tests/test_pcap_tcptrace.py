"""Packet captures read by tcptrace (Ostermann's TCP trace analyser, the Debian package
scripts/live-setup.sh installs), whose connection statistics come from its own reassembly of
the sequence numbers, not from anything of ours.

The oracle is the simulator's per-flow counters (see support.pcap_scenario for why a capture
holds exactly what they count): at the bottleneck's input, tcptrace's data packets of a
connection are the flow's sent packets, its retransmitted packets (segments carrying bytes it
has seen before) the flow's retransmissions, and its unique bytes the distinct segments times
the 960-byte MSS; on the reverse path its ACKs are those the receiver sent.
"""

import csv
import io
import shutil
import subprocess

import pytest

import aqmlab
from support import pcap_flow_of, pcap_scenario

pytestmark = pytest.mark.skipif(shutil.which("tcptrace") is None,
                                reason="tcptrace is not installed (bash scripts/live-setup.sh installs it)")

MSS = 960  # 1000-byte packets less 40 bytes of IPv4 and TCP headers


def tcptrace(path) -> dict[int, dict[str, str]]:
    """tcptrace's long statistics (-l) of each connection in a capture, by flow index."""
    # -n: no name lookups; --csv: one row per connection after "#" comment lines. (On stderr,
    # tcptrace 6.6.7 warns that segments with CWR set have "reserved bits" set: its header
    # check predates RFC 3168's use of them.)
    out = subprocess.run(["tcptrace", "-n", "-l", "--csv", str(path)], capture_output=True, text=True, check=True).stdout
    lines = [line for line in out.splitlines() if line.startswith("conn_#") or line[:1].isdigit()]
    rows = csv.DictReader(io.StringIO("\n".join(lines)), skipinitialspace=True)
    return {pcap_flow_of(row["host_a"]): {k: v.strip() for k, v in row.items() if k} for row in rows}


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    out = tmp_path_factory.mktemp("pcap")
    r = aqmlab.run(pcap_scenario(), progress=False)
    r.save(out, plots=False, report=False)
    return r, {name: tcptrace(out / "pcap" / f"{name}.pcap") for name in ("bottleneck_in", "reverse")}


def test_tcptrace_counts_the_simulators_segments_and_retransmissions(run):
    r, conns = run
    flows = r.flow_rows()
    assert all(f["in_flight"] == 0 for f in flows), "the network must have drained"
    assert all(f["retransmits"] > 0 for f in flows), "the check needs retransmissions in every flow"
    data = conns["bottleneck_in"]
    assert sorted(data) == list(range(len(flows))), "one connection per flow"
    for i, f in enumerate(flows):
        c = data[i]
        assert int(c["actual_data_pkts_a2b"]) == f["sent"], f"flow {i}"
        assert int(c["rexmt_data_pkts_a2b"]) == f["retransmits"], f"flow {i}"
        assert int(c["rexmt_data_bytes_a2b"]) == f["retransmits"] * MSS, f"flow {i}"
        assert int(c["unique_bytes_sent_a2b"]) == (f["sent"] - f["retransmits"]) * MSS, f"flow {i}"
        assert int(c["max_segm_size_a2b"]) == int(c["min_segm_size_a2b"]) == MSS, f"flow {i}"
        assert c["req_1323_ws/ts_a2b"] == "N/Y", "timestamps on, window scaling not modelled"


def test_tcptrace_counts_the_receivers_acks_and_sacks(run):
    r, conns = run
    flows = r.flow_rows()
    acks = conns["reverse"]
    assert sorted(acks) == list(range(len(flows)))
    for i, f in enumerate(flows):
        c = acks[i]  # host a is the receiver here: its packets are the a2b direction
        assert int(c["ack_pkts_sent_a2b"]) == f["acks_sent"] - f["acks_dropped"], f"flow {i}"
        assert int(c["pure_acks_sent_a2b"]) == int(c["ack_pkts_sent_a2b"]), "ACKs carry no data"
        # Every flow lost segments, so its receiver sent SACK blocks (RFC 2018) for what came
        # after a hole; tcptrace parses them from the TCP options.
        assert int(c["sack_pkts_sent_a2b"]) > 0, f"flow {i}"
