// aqmlab xval: one aqmlab scenario as an ns-3 program, written against ns-3's public API.
//
// This part is fixed; the scenario's constants, flow groups and disciplines come from the
// generated scenario.cc (see xval.h), linked with it. Per-run values (the
// seed, each flow's start time and access delay, drawn by aqmlab for that seed) come from the
// parameter file given on the command line, so one build serves every seed.
//
// Usage: PROGRAM SEED PARAMS OUT_PREFIX
//   PARAMS: one line per flow, "start_ns access_delay_ns receiver_delay_ns"
//   writes OUT_PREFIX.json (counts) and OUT_PREFIX.sojourn (int64 pairs: leave time, sojourn, ns)
//
// What is measured is defined once, in docs/xval.md ("Measurement"); the same definition is
// applied to aqmlab's run in aqmlab/xval/measure.py.

#include "ns3/applications-module.h"
#include "ns3/core-module.h"
#include "ns3/internet-module.h"
#include "ns3/network-module.h"
#include "ns3/point-to-point-module.h"
#include "ns3/traffic-control-module.h"
#include "xval.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <map>
#include <string>
#include <vector>

using namespace ns3;

using namespace xval;

namespace
{

int64_t g_warmupNs = 0;
// AQMLAB_XVAL_PRR=rfc6937 (see Rfc6937Prr), AQMLAB_XVAL_RENO_SACK=reset (see
// CountingTcpSocket::ReceivedAck): diagnostics, each a change on the ns-3 side that removes one
// known difference.
bool g_rfc6937Prr = false;
bool g_resetRenoSack = false;
// AQMLAB_XVAL_FILL=burst (see TcpSender): the sender writes 16 segments at a time, as it did
// before 2026-11-28.
bool g_fillByBurst = false;
// Diagnostics: with AQMLAB_XVAL_CWND set, every change of the first flow's cwnd and ssthresh
// (bytes) and of its congestion state (TcpSocketState::TcpCongState_t), and each of its
// retransmissions (sequence number) and advances of its highest cumulative ACK, go to
// OUT_PREFIX.cwnd as "t_ns cwnd|ssthresh|state|rtx|ack value".
std::ofstream g_cwnd;

// Whether the diagnostic switch `name` is set to `value`; exits naming the accepted value when
// it is set to anything else.
bool
Switch(const char* name, const char* value)
{
    const char* v = std::getenv(name);
    if (v == nullptr)
    {
        return false;
    }
    if (std::string(v) != value)
    {
        std::fprintf(stderr, "%s: accepted value %s, got '%s'\n", name, value, v);
        std::exit(2);
    }
    return true;
}

bool
InWindow()
{
    return Simulator::Now().GetNanoSeconds() >= g_warmupNs;
}

// A sender socket that counts its retransmission timeouts: ns-3 has no trace source for the
// timer itself (CongState only changes on the first timeout of a series).
class CountingTcpSocket : public TcpSocketBase
{
  public:
    static TypeId GetTypeId()
    {
        static TypeId tid = TypeId("aqmlab::CountingTcpSocket")
                                .SetParent<TcpSocketBase>()
                                .AddConstructor<CountingTcpSocket>();
        return tid;
    }

    uint64_t timeouts = 0;

  protected:
    void ReTxTimeout() override
    {
        // Only a timer that finds data outstanding is a timeout (the same rule as aqmlab's
        // TcpSender::on_timeout).
        if (InWindow() && m_txBuffer->HeadSequence() < m_tcb->m_highTxMark)
        {
            timeouts++;
        }
        TcpSocketBase::ReTxTimeout();
    }

    // Diagnostic (docs/xval.md, "Known differences", 4): with AQMLAB_XVAL_RENO_SACK=reset, an
    // ACK that advances SND.UNA outside a recovery, or ends one (ack >= m_recover), first clears
    // the emulated SACK flags that TcpTxBuffer::AddRenoSack put on segments without SACK
    // (TcpTxBuffer::ResetRenoSack, which ns-3 itself calls only on a timeout), before
    // TcpTxBuffer::DiscardUpTo can move a flag from the new head and mark the head lost. With
    // AQMLAB_XVAL_CWND each clearing of the first flow is written as "t_ns reno_sack BYTES".
    void ReceivedAck(Ptr<Packet> p, const TcpHeader& h) override
    {
        const SequenceNumber32 ack = h.GetAckNumber();
        const bool noRecoveryAfter = m_tcb->m_congState != TcpSocketState::CA_RECOVERY || ack >= m_recover;
        if (g_resetRenoSack && !m_sackEnabled && noRecoveryAfter && ack > m_txBuffer->HeadSequence() &&
            m_txBuffer->GetSacked() > 0)
        {
            if (traced)
            {
                g_cwnd << Simulator::Now().GetNanoSeconds() << " reno_sack " << m_txBuffer->GetSacked() << '\n';
            }
            m_txBuffer->ResetRenoSack();
        }
        TcpSocketBase::ReceivedAck(p, h);
    }

  public:
    bool traced = false; // the first flow, written to OUT_PREFIX.cwnd
};

struct FlowStats
{
    uint64_t goodputBytes = 0;
    uint64_t retransmits = 0;
    Ptr<CountingTcpSocket> socket;
};

std::vector<FlowStats> g_flows;

// Bulk or fixed-size transfer: keeps the socket's send buffer full, writing `chunk` bytes
// whenever that much room is free. TcpSocketBase::NewAck calls Space after it frees the
// acknowledged data, and TcpTxBuffer::Add refuses data beyond SndBufSize, so a flow held by its
// send buffer has `chunk` bytes less outstanding before each write and then sends them back to
// back. The chunk is one segment, so the buffer stays full to within a segment: the application
// aqmlab's snd_buf_bytes models, which keeps outstanding data at the buffer's whole segments
// (docs/xval.md, "Known differences", 7). Diagnostic: with AQMLAB_XVAL_FILL=burst the chunk is
// 16 segments, the program's sender before 2026-11-28, whose bursts a held flow lost to a full
// tail-drop queue where aqmlab's lost nothing.
class TcpSender : public Application
{
  public:
    TcpSender(Ptr<CountingTcpSocket> s, Address peer, uint64_t maxBytes, uint32_t chunk)
        : m_socket(s),
          m_peer(peer),
          m_maxBytes(maxBytes),
          m_chunk(chunk)
    {
    }

  private:
    void StartApplication() override
    {
        m_socket->Bind();
        m_socket->Connect(m_peer);
        m_socket->SetConnectCallback(MakeCallback(&TcpSender::Connected, this),
                                     MakeNullCallback<void, Ptr<Socket>>());
        m_socket->SetSendCallback(MakeCallback(&TcpSender::Space, this));
    }

    void StopApplication() override
    {
    }

    void Connected(Ptr<Socket>)
    {
        m_connected = true;
        Fill();
    }

    void Space(Ptr<Socket>, uint32_t)
    {
        if (m_connected)
        {
            Fill();
        }
    }

    void Fill()
    {
        while (m_maxBytes == 0 || m_sent < m_maxBytes)
        {
            uint64_t left = m_maxBytes == 0 ? m_chunk : std::min<uint64_t>(m_chunk, m_maxBytes - m_sent);
            if (m_socket->GetTxAvailable() < left)
            {
                return;
            }
            int n = m_socket->Send(Create<Packet>(static_cast<uint32_t>(left)), 0);
            if (n <= 0)
            {
                return;
            }
            m_sent += n;
        }
    }

    Ptr<CountingTcpSocket> m_socket;
    Address m_peer;
    uint64_t m_maxBytes;
    uint32_t m_chunk;
    uint64_t m_sent = 0;
    bool m_connected = false;
};

// Constant bit rate with aqmlab's spacing rule (udp.rs UdpSource::gap): the remainder of
// bits·10⁹ / rate is carried, so the long-run rate is exact.
class UdpSender : public Application
{
  public:
    UdpSender(Address peer, const Group& g)
        : m_peer(peer),
          m_group(g)
    {
    }

  private:
    void StartApplication() override
    {
        m_socket = Socket::CreateSocket(GetNode(), UdpSocketFactory::GetTypeId());
        m_socket->Bind();
        m_socket->Connect(m_peer);
        if (m_group.udpEct)
        {
            m_socket->SetIpTos(0x02); // ECT(0)
        }
        SendOne();
    }

    void StopApplication() override
    {
        m_event.Cancel();
    }

    void SendOne()
    {
        m_socket->Send(Create<Packet>(m_group.packetSize - 28)); // IPv4 20 + UDP 8
        __uint128_t num = static_cast<__uint128_t>(m_group.packetSize) * 8 * 1000000000ULL + m_rem;
        m_rem = static_cast<uint64_t>(num % m_group.rateBps);
        m_event = Simulator::Schedule(NanoSeconds(static_cast<int64_t>(num / m_group.rateBps)),
                                      &UdpSender::SendOne,
                                      this);
    }

    Address m_peer;
    Group m_group;
    Ptr<Socket> m_socket;
    uint64_t m_rem = 0;
    EventId m_event;
};

// Counts what reaches the application in the window: TCP payload delivered in order; UDP
// datagrams, counted as packet_size − 40 bytes each (aqmlab's definition of UDP goodput).
class Sink : public Application
{
  public:
    Sink(Ptr<Socket> listen, bool tcp, uint32_t udpGoodput, FlowStats* stats)
        : m_listen(listen),
          m_tcp(tcp),
          m_udpGoodput(udpGoodput),
          m_stats(stats)
    {
    }

  private:
    void StartApplication() override
    {
        m_listen->Bind(InetSocketAddress(Ipv4Address::GetAny(), 9));
        if (m_tcp)
        {
            m_listen->Listen();
            m_listen->SetAcceptCallback(MakeNullCallback<bool, Ptr<Socket>, const Address&>(),
                                        MakeCallback(&Sink::Accepted, this));
        }
        else
        {
            m_listen->SetRecvCallback(MakeCallback(&Sink::Read, this));
        }
    }

    void StopApplication() override
    {
    }

    void Accepted(Ptr<Socket> s, const Address&)
    {
        s->SetRecvCallback(MakeCallback(&Sink::Read, this));
    }

    void Read(Ptr<Socket> s)
    {
        while (Ptr<Packet> p = s->Recv())
        {
            if (p->GetSize() == 0)
            {
                break;
            }
            if (InWindow())
            {
                m_stats->goodputBytes += m_tcp ? p->GetSize() : m_udpGoodput;
            }
        }
    }

    Ptr<Socket> m_listen;
    bool m_tcp;
    uint32_t m_udpGoodput;
    FlowStats* m_stats;
};

// ---- the bottleneck discipline's measurements ----

struct Departure
{
    int64_t leaveNs, sojournNs;
    uint64_t uid;
};

std::vector<Departure> g_departures;
std::map<std::string, uint64_t> g_drops; // reason -> packets dropped in the window
std::map<std::string, uint64_t> g_marks;
uint64_t g_bottleneckBytes = 0;
uint64_t g_transmitted = 0;

void
OnDequeue(Ptr<const QueueDiscItem> item)
{
    if (InWindow())
    {
        int64_t now = Simulator::Now().GetNanoSeconds();
        g_departures.push_back({now, now - item->GetTimeStamp().GetNanoSeconds(), item->GetPacket()->GetUid()});
    }
}

void
OnDropBefore(Ptr<const QueueDiscItem>, const char* reason)
{
    if (InWindow())
    {
        g_drops[reason]++;
    }
}

// A packet dropped at dequeue (CoDel) was dequeued, but never left the discipline for the link:
// its departure record goes.
void
OnDropAfter(Ptr<const QueueDiscItem> item, const char* reason)
{
    if (!InWindow())
    {
        return;
    }
    g_drops[reason]++;
    uint64_t uid = item->GetPacket()->GetUid();
    for (size_t i = g_departures.size(); i > 0 && i + 64 > g_departures.size(); i--)
    {
        if (g_departures[i - 1].uid == uid)
        {
            g_departures.erase(g_departures.begin() + static_cast<long>(i - 1));
            break;
        }
    }
}

void
OnMark(Ptr<const QueueDiscItem>, const char* reason)
{
    if (InWindow())
    {
        g_marks[reason]++;
    }
}

void
OnPhyTxBegin(Ptr<const Packet> p)
{
    if (InWindow())
    {
        g_bottleneckBytes += p->GetSize() - 2; // less the PPP header: IP bytes
        g_transmitted++;
    }
}

void
OnRetransmission(FlowStats* s, Ptr<const Packet>, const TcpHeader& h, const Address&, const Address&,
                 Ptr<const TcpSocketBase>)
{
    if (InWindow())
    {
        s->retransmits++;
    }
    if (g_cwnd.is_open() && s == &g_flows[0])
    {
        g_cwnd << Simulator::Now().GetNanoSeconds() << " rtx " << h.GetSequenceNumber().GetValue() << '\n';
    }
}

void
OnAck(SequenceNumber32, SequenceNumber32 ack)
{
    g_cwnd << Simulator::Now().GetNanoSeconds() << " ack " << ack.GetValue() << '\n';
}

void
OnState(TcpSocketState::TcpCongState_t, TcpSocketState::TcpCongState_t state)
{
    g_cwnd << Simulator::Now().GetNanoSeconds() << " state " << static_cast<int>(state) << '\n';
}

void
OnWindow(const char* what, uint32_t, uint32_t value)
{
    g_cwnd << Simulator::Now().GetNanoSeconds() << ' ' << what << ' ' << value << '\n';
}

void
SetRate(NetDeviceContainer devs, uint64_t bps)
{
    for (uint32_t i = 0; i < devs.GetN(); i++)
    {
        DynamicCast<PointToPointNetDevice>(devs.Get(i))->SetDataRate(DataRate(bps));
    }
}

Ptr<TcpCongestionOps>
MakeCc(const Group& g)
{
    ObjectFactory f;
    f.SetTypeId(g.cc);
    Ptr<TcpCongestionOps> cc = f.Create<TcpCongestionOps>();
    if (std::string(g.cc) == "ns3::TcpCubic")
    {
        cc->SetAttribute("HyStart", BooleanValue(g.hystart));
        cc->SetAttribute("HyStartDelayMax", TimeValue(NanoSeconds(g.hystartDelayMaxNs)));
    }
    return cc;
}

// Diagnostic (docs/xval.md, "Known differences", 2): with AQMLAB_XVAL_PRR=rfc6937 the groups
// that use TcpPrrRecovery get this PRR instead: ns-3's in every respect (RecoverFS =
// m_bytesInFlight at entry, cwnd = m_bytesInFlight + sndcnt, PRR-CRB or PRR-SSRB on
// m_isRetransDataAcked, the forced first segment, a segment per duplicate ACK without SACK)
// except prr_delivered with SACK, which counts each ACK's delivered data once, as RFC 6937 §3
// does. TcpPrrRecovery::DoRecovery adds a segment on every call with isDupAck while
// prr_delivered < RecoverFS, although with SACK deliveredBytes already holds the newly SACKed
// data; and with SACK TcpSocketBase::ProcessAck calls it twice for an ACK that adds SACK
// information and also advances SND.UNA below m_recover (DupAck, then the partial-ACK branch),
// with the same currentDelivered both times. An ECN reduction loses only the entry's segment:
// its echoing ACK is still counted twice (EnterCwr runs before ProcessAck updates
// m_lastAckedSeq, so the two calls do not look like one ACK).
class Rfc6937Prr : public TcpRecoveryOps
{
  public:
    static TypeId GetTypeId()
    {
        static TypeId tid =
            TypeId("aqmlab::Rfc6937Prr").SetParent<TcpRecoveryOps>().AddConstructor<Rfc6937Prr>();
        return tid;
    }

    std::string GetName() const override
    {
        return "Rfc6937Prr";
    }

    void EnterRecovery(Ptr<TcpSocketState> tcb, uint32_t, uint32_t, uint32_t deliveredBytes) override
    {
        m_prrOut = 0;
        m_prrDelivered = 0;
        m_recoverFs = tcb->m_bytesInFlight;
        m_lastCallNs = -1;
        DoRecovery(tcb, deliveredBytes, true);
    }

    void DoRecovery(Ptr<TcpSocketState> tcb, uint32_t deliveredBytes, bool isDupAck) override
    {
        // The second call for one ACK: same instant, same cumulative ACK.
        const int64_t now = Simulator::Now().GetNanoSeconds();
        const bool sameAck = now == m_lastCallNs && tcb->m_lastAckedSeq == m_lastAck;
        m_lastCallNs = now;
        m_lastAck = tcb->m_lastAckedSeq;
        if (sameAck)
        {
            deliveredBytes = 0;
        }
        else if (isDupAck && deliveredBytes == 0 && m_prrDelivered < m_recoverFs)
        {
            // Without SACK a duplicate ACK reports nothing delivered: ns-3's credit stays.
            deliveredBytes = tcb->m_segmentSize;
        }
        m_prrDelivered += deliveredBytes;
        const int64_t ssthresh = tcb->m_ssThresh, pipe = tcb->m_bytesInFlight;
        int64_t sndcnt;
        if (pipe > ssthresh)
        {
            sndcnt = static_cast<int64_t>(std::ceil(double(m_prrDelivered) * ssthresh / m_recoverFs)) - m_prrOut;
        }
        else
        {
            int64_t limit = std::max<int64_t>(m_prrDelivered - m_prrOut, deliveredBytes);
            if (tcb->m_isRetransDataAcked)
            {
                limit += tcb->m_segmentSize;
            }
            sndcnt = std::min(limit, ssthresh - pipe);
        }
        sndcnt = std::max<int64_t>(sndcnt, m_prrOut > 0 ? 0 : tcb->m_segmentSize);
        tcb->m_cWnd = static_cast<uint32_t>(pipe + sndcnt);
        tcb->m_cWndInfl = tcb->m_cWnd;
    }

    void ExitRecovery(Ptr<TcpSocketState> tcb) override
    {
        tcb->m_cWndInfl = tcb->m_cWnd;
    }

    void UpdateBytesSent(uint32_t bytesSent) override
    {
        m_prrOut += bytesSent;
    }

    Ptr<TcpRecoveryOps> Fork() override
    {
        return CopyObject<Rfc6937Prr>(this);
    }

  private:
    int64_t m_prrDelivered = 0;
    int64_t m_prrOut = 0;
    int64_t m_recoverFs = 1;
    int64_t m_lastCallNs = -1;
    SequenceNumber32 m_lastAck;
};

Ptr<TcpRecoveryOps>
MakeRecovery(const Group& g)
{
    if (std::string(g.recovery) == "ns3::TcpPrrRecovery" && g_rfc6937Prr)
    {
        return CreateObject<Rfc6937Prr>();
    }
    ObjectFactory f;
    f.SetTypeId(g.recovery);
    return f.Create<TcpRecoveryOps>();
}

// The TCP settings of a group on one socket (sender or listener), before it binds.
void
Configure(Ptr<TcpSocketBase> s, const Group& g)
{
    s->SetAttribute("Sack", BooleanValue(g.sack));
    s->SetAttribute("Timestamp", BooleanValue(g.timestamps));
    s->SetAttribute("LimitedTransmit", BooleanValue(g.limitedTransmit));
    s->SetAttribute("MinRto", TimeValue(NanoSeconds(g.minRtoNs)));
    s->SetAttribute("ClockGranularity", TimeValue(NanoSeconds(g.clockGranularityNs)));
    s->SetAttribute("ReTxThreshold", UintegerValue(g.dupThresh));
    s->SetAttribute("UseEcn", EnumValue(g.ecn ? TcpSocketState::On : TcpSocketState::Off));
    s->SetAttribute("SegmentSize", UintegerValue(g.segmentSize));
    s->SetAttribute("InitialCwnd", UintegerValue(g.initialCwnd));
    s->SetAttribute("SndBufSize", UintegerValue(g.sndBuf));
    s->SetAttribute("RcvBufSize", UintegerValue(g.rcvBuf));
    s->SetAttribute("DelAckCount", UintegerValue(g.delAckCount));
    s->SetAttribute("DelAckTimeout", TimeValue(NanoSeconds(g.delAckTimeoutNs)));
}

template <class T>
Ptr<T>
NewTcpSocket(Ptr<Node> node, const Group& g)
{
    Ptr<T> s = CreateObject<T>();
    s->SetNode(node);
    s->SetTcp(node->GetObject<TcpL4Protocol>());
    s->SetRtt(CreateObject<RttMeanDeviation>());
    s->SetCongestionControlAlgorithm(MakeCc(g));
    s->SetRecoveryAlgorithm(MakeRecovery(g));
    Configure(s, g);
    return s;
}

struct FlowParams
{
    int64_t startNs, accessDelayNs, receiverDelayNs;
};

std::vector<FlowParams>
ReadParams(const char* path)
{
    std::ifstream in(path);
    std::vector<FlowParams> out;
    FlowParams p;
    while (in >> p.startNs >> p.accessDelayNs >> p.receiverDelayNs)
    {
        out.push_back(p);
    }
    return out;
}

std::string
Json(const std::map<std::string, uint64_t>& m)
{
    std::string s = "{";
    for (const auto& [k, v] : m)
    {
        s += (s.size() > 1 ? ", \"" : "\"") + k + "\": " + std::to_string(v);
    }
    return s + "}";
}

} // namespace

int
main(int argc, char** argv)
{
    if (argc != 4)
    {
        std::fprintf(stderr, "usage: %s SEED PARAMS OUT_PREFIX\n", argv[0]);
        return 2;
    }
    RngSeedManager::SetSeed(1);
    RngSeedManager::SetRun(std::stoull(argv[1]));
    std::vector<FlowParams> params = ReadParams(argv[2]);
    std::string out = argv[3];
    g_warmupNs = kWarmupNs;
    g_rfc6937Prr = Switch("AQMLAB_XVAL_PRR", "rfc6937");
    g_resetRenoSack = Switch("AQMLAB_XVAL_RENO_SACK", "reset");
    g_fillByBurst = Switch("AQMLAB_XVAL_FILL", "burst");

    uint32_t nFlows = 0;
    for (const Group& g : kGroups)
    {
        nFlows += g.count;
    }
    if (params.size() != nFlows)
    {
        std::fprintf(stderr, "%s: %zu flows, the scenario has %u\n", argv[2], params.size(), nFlows);
        return 2;
    }
    g_flows.resize(nFlows);

    // Routers and the bottleneck: a point-to-point link whose device holds kDeviceQueue
    // packets under the discipline (ns-3's flow control stops the discipline when it is full).
    NodeContainer routers(2);
    NodeContainer senders(nFlows), receivers(nFlows);
    InternetStackHelper stack;
    stack.Install(routers);
    stack.Install(senders);
    stack.Install(receivers);

    PointToPointHelper bottleneck;
    bottleneck.SetDeviceAttribute("DataRate", DataRateValue(DataRate(kRateBps)));
    bottleneck.SetDeviceAttribute("Mtu", UintegerValue(kMtu));
    bottleneck.SetChannelAttribute("Delay", TimeValue(NanoSeconds(kDelayNs)));
    bottleneck.SetQueue("ns3::DropTailQueue<Packet>", "MaxSize",
                        QueueSizeValue(QueueSize(std::to_string(kDeviceQueue) + "p")));
    NetDeviceContainer core = bottleneck.Install(routers.Get(0), routers.Get(1));
    TrafficControlHelper fwd, rev;
    InstallForwardQdisc(fwd);
    InstallReverseQdisc(rev);
    QueueDiscContainer qd = fwd.Install(core.Get(0));
    AfterInstall(qd.Get(0));
    rev.Install(core.Get(1));

    // Access links: aqmlab's access links without a rate are pure delays; here they are
    // 1 Tb/s links (8 ns for 1000 bytes) under a FIFO that never fills.
    PointToPointHelper access;
    access.SetDeviceAttribute("DataRate", DataRateValue(DataRate(1000000000000ULL)));
    access.SetDeviceAttribute("Mtu", UintegerValue(65535));
    access.SetQueue("ns3::DropTailQueue<Packet>", "MaxSize", QueueSizeValue(QueueSize("100000p")));
    TrafficControlHelper fifo;
    fifo.SetRootQueueDisc("ns3::FifoQueueDisc", "MaxSize", QueueSizeValue(QueueSize("1000000p")));

    Ipv4AddressHelper addr;
    addr.SetBase("10.0.0.0", "255.255.255.252");
    addr.Assign(core);
    std::vector<Ipv4Address> dst(nFlows);
    for (uint32_t i = 0; i < nFlows; i++)
    {
        addr.NewNetwork();
        access.SetChannelAttribute("Delay", TimeValue(NanoSeconds(params[i].accessDelayNs)));
        NetDeviceContainer a = access.Install(senders.Get(i), routers.Get(0));
        fifo.Install(a);
        addr.Assign(a);
        addr.NewNetwork();
        access.SetChannelAttribute("Delay", TimeValue(NanoSeconds(params[i].receiverDelayNs)));
        NetDeviceContainer b = access.Install(routers.Get(1), receivers.Get(i));
        fifo.Install(b);
        dst[i] = addr.Assign(b).GetAddress(1);
    }
    Ipv4GlobalRoutingHelper::PopulateRoutingTables();

    Ptr<QueueDisc> q = qd.Get(0);
    q->TraceConnectWithoutContext("Dequeue", MakeCallback(&OnDequeue));
    q->TraceConnectWithoutContext("DropBeforeEnqueue", MakeCallback(&OnDropBefore));
    q->TraceConnectWithoutContext("DropAfterDequeue", MakeCallback(&OnDropAfter));
    q->TraceConnectWithoutContext("Mark", MakeCallback(&OnMark));
    core.Get(0)->TraceConnectWithoutContext("PhyTxBegin", MakeCallback(&OnPhyTxBegin));
    for (const RateStep& s : kRateSchedule)
    {
        Simulator::Schedule(NanoSeconds(s.atNs), &SetRate, core, s.rateBps);
    }

    uint32_t i = 0;
    for (const Group& g : kGroups)
    {
        for (uint32_t k = 0; k < g.count; k++, i++)
        {
            Ptr<Node> src = senders.Get(i), sink = receivers.Get(i);
            FlowStats* st = &g_flows[i];
            Ptr<Socket> listen;
            Ptr<Application> app;
            Address peer = InetSocketAddress(dst[i], 9);
            if (g.tcp)
            {
                listen = NewTcpSocket<TcpSocketBase>(sink, g);
                st->socket = NewTcpSocket<CountingTcpSocket>(src, g);
                st->socket->TraceConnectWithoutContext("Retransmission",
                                                       MakeBoundCallback(&OnRetransmission, st));
                app = CreateObject<TcpSender>(st->socket, peer, g.maxBytes,
                                              g.segmentSize * (g_fillByBurst ? 16 : 1));
                if (i == 0 && std::getenv("AQMLAB_XVAL_CWND"))
                {
                    g_cwnd.open(out + ".cwnd");
                    st->socket->traced = true;
                    st->socket->TraceConnectWithoutContext("CongestionWindow",
                                                           MakeBoundCallback(&OnWindow, "cwnd"));
                    st->socket->TraceConnectWithoutContext("SlowStartThreshold",
                                                           MakeBoundCallback(&OnWindow, "ssthresh"));
                    st->socket->TraceConnectWithoutContext("CongState", MakeCallback(&OnState));
                    st->socket->TraceConnectWithoutContext("HighestRxAck", MakeCallback(&OnAck));
                }
            }
            else
            {
                listen = Socket::CreateSocket(sink, UdpSocketFactory::GetTypeId());
                app = CreateObject<UdpSender>(peer, g);
            }
            Ptr<Application> rx = CreateObject<Sink>(listen, g.tcp, g.packetSize - 40, st);
            sink->AddApplication(rx);
            rx->SetStartTime(Seconds(0));
            src->AddApplication(app);
            app->SetStartTime(NanoSeconds(params[i].startNs));
            if (g.stopNs >= 0)
            {
                app->SetStopTime(NanoSeconds(g.stopNs));
            }
        }
    }

    Simulator::Stop(NanoSeconds(kDurationNs));
    // The run loop's own time, for `aqmlab bench --vs-ns3` (set-up and output excluded, as
    // aqmlab's engine timer excludes them).
    const auto wall0 = std::chrono::steady_clock::now();
    const std::clock_t cpu0 = std::clock();
    Simulator::Run();
    const double runCpuS = double(std::clock() - cpu0) / CLOCKS_PER_SEC;
    const double runWallS = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();

    std::FILE* f = std::fopen((out + ".sojourn").c_str(), "wb");
    for (const Departure& d : g_departures)
    {
        int64_t row[2] = {d.leaveNs, d.sojournNs};
        std::fwrite(row, sizeof row, 1, f);
    }
    std::fclose(f);
    std::ofstream js(out + ".json");
    js << "{\"run_wall_s\": " << runWallS << ", \"run_cpu_s\": " << runCpuS
       << ", \"bottleneck_bytes\": " << g_bottleneckBytes << ", \"transmitted\": " << g_transmitted
       << ", \"drops\": " << Json(g_drops) << ", \"marks\": " << Json(g_marks) << ", \"flows\": [";
    for (uint32_t j = 0; j < nFlows; j++)
    {
        const FlowStats& s = g_flows[j];
        js << (j ? ", " : "") << "{\"goodput_bytes\": " << s.goodputBytes
           << ", \"retransmits\": " << s.retransmits
           << ", \"timeouts\": " << (s.socket ? s.socket->timeouts : 0) << "}";
    }
    js << "]}\n";
    Simulator::Destroy();
    return 0;
}
