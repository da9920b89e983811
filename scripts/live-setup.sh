#!/usr/bin/env bash
# Debian packages `aqmlab live` and the tests need: iproute2 (ip, nstat), ethtool (offloads
# off), iputils-ping (the tests' RTT check), tshark and tcptrace (the tests read the pcap captures
# with Wireshark's dissectors and with tcptrace) and chromium (the tests render report.html headless). Installed only when missing; needs root, as does `aqmlab live`
# itself: without root this prints what is missing and leaves the system alone.
set -euo pipefail
need=()
command -v ip >/dev/null 2>&1 || need+=(iproute2)
command -v ethtool >/dev/null 2>&1 || need+=(ethtool)
command -v ping >/dev/null 2>&1 || need+=(iputils-ping)
command -v tshark >/dev/null 2>&1 || need+=(tshark)
command -v chromium >/dev/null 2>&1 || need+=(chromium)
command -v tcptrace >/dev/null 2>&1 || need+=(tcptrace)
[ ${#need[@]} -eq 0 ] && exit 0
if [ "$(id -u)" != 0 ]; then
    echo "live-setup: not root, not installing ${need[*]} (aqmlab live needs root anyway)" >&2
    exit 0
fi
export DEBIAN_FRONTEND=noninteractive  # tshark asks whether non-root users may capture: no
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
