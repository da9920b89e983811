// aqmlab xval: what the generated part of an ns-3 program (scenario.cc, written by
// aqmlab.xval.generator from the resolved scenario) gives the fixed part (program.cc).
#ifndef AQMLAB_XVAL_H
#define AQMLAB_XVAL_H

#include "ns3/ptr.h"
#include "ns3/queue-disc.h"
#include "ns3/traffic-control-helper.h"

#include <cstdint>
#include <vector>

namespace xval
{

// A flow group (one [[flows]] table).
struct Group
{
    bool tcp;
    uint32_t count;
    uint32_t packetSize; // the IP packet of a full data segment or datagram
    int64_t stopNs;      // -1: the end of the run (UDP only)
    // TCP
    const char* cc; // ns-3 TypeId of the congestion control
    const char* recovery;
    bool sack, timestamps, limitedTransmit, ecn, hystart;
    uint32_t segmentSize, initialCwnd, rcvBuf, sndBuf, dupThresh, delAckCount;
    int64_t delAckTimeoutNs, minRtoNs, clockGranularityNs, hystartDelayMaxNs;
    uint64_t maxBytes; // 0: bulk
    // UDP
    uint64_t rateBps;
    bool udpEct;
};

struct RateStep
{
    int64_t atNs;
    uint64_t rateBps;
};

extern const int64_t kDurationNs, kWarmupNs, kDelayNs;
extern const uint64_t kRateBps;
extern const uint32_t kMtu, kDeviceQueue;
extern const std::vector<RateStep> kRateSchedule;
extern const std::vector<Group> kGroups;

void InstallForwardQdisc(ns3::TrafficControlHelper& tch);
void InstallReverseQdisc(ns3::TrafficControlHelper& tch);
void AfterInstall(ns3::Ptr<ns3::QueueDisc> q); // settings that are not attributes (FQ quantum)

} // namespace xval

#endif
