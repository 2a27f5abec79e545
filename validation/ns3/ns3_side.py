"""A ``Spec`` as an ns-3 3.44 simulation (the ``ns3`` wheel's cppyy bindings).

The radio is YansWifiPhy with 802.11b DSSS, ConstantSpeedPropagationDelay and ns-3's
TwoRayGroundPropagationLoss at 2.412 GHz with antennas 1.5 m high (ns-2's model, which
airqueue's ``two-ray-ground`` is too). Frames are decoded to 250 m and sensed to 550 m
(see ``run``: ns-3 ignores frames below ``RxSensitivity`` for carrier sense, so the 250 m
limit is the preamble detection's ``MinimumRssi``); frames from 250 to 550 m are energy
only (no EIFS). The preamble detection threshold stays ns-3's 4 dB. The basic rate set is 1 Mb/s
only, so ACKs and CTSs go at 1 Mb/s as in airqueue (ns-3 would answer 2 and 11 Mb/s frames
at 2 Mb/s, the highest mandatory rate not above them). The traffic-control layer is
removed and the WifiMacQueue holds ``queue_capacity_pkts`` with no lifetime, so each
interface has one drop-tail FIFO as in airqueue. ARP caches are filled before the run
(``NeighborCacheHelper``; airqueue has no ARP), except under AODV (see ``run``).

Goodput is what each PacketSink received between ``warmup_s`` and ``duration_s`` (the
simulation stops at the first to read the sinks' totals), over the window's length.
"""

from __future__ import annotations

import math
from collections import deque

from validation.ns3.result import FlowResult, RunResult
from validation.ns3.spec import Spec

_ns = None

#: C++ trace sinks (cppyy): MAC drops by reason, AODV control packets sent.
_SINKS = r"""
#include "ns3/wifi-mac.h"
#include "ns3/wifi-mpdu.h"
#include "ns3/ipv4-header.h"
#include "ns3/udp-header.h"
#include "ns3/ipv4.h"
#include "ns3/config.h"
#include "ns3/callback.h"
#include "ns3/llc-snap-header.h"
#include "ns3/node-list.h"
#include "ns3/simulator.h"
#include "ns3/wifi-net-device.h"
#include "ns3/wifi-remote-station-manager.h"
namespace aqv {
// Every ad hoc radio's basic rate set becomes {mode}, so that ACKs and CTSs go at that
// rate. AdhocWifiMac calls AddAllSupportedModes() for each peer it meets, which makes
// every mandatory rate (1 to 11 Mb/s) basic again; every peer is therefore registered
// here first (its rates, then out of the BRAND_NEW state) so that it never does.
void PinBasicModes(ns3::WifiMode mode) {
    std::vector<std::pair<ns3::Ptr<ns3::WifiNetDevice>, ns3::Mac48Address>> radios;
    for (auto it = ns3::NodeList::Begin(); it != ns3::NodeList::End(); ++it) {
        for (uint32_t i = 0; i < (*it)->GetNDevices(); ++i) {
            auto dev = ns3::DynamicCast<ns3::WifiNetDevice>((*it)->GetDevice(i));
            if (dev) radios.emplace_back(dev, ns3::Mac48Address::ConvertFrom(dev->GetAddress()));
        }
    }
    for (auto& [dev, own] : radios) {
        auto m = dev->GetRemoteStationManager();
        m->Reset();
        m->AddBasicMode(mode);
        for (auto& [peer_dev, peer] : radios) {
            if (peer == own) continue;
            for (const auto& rate : dev->GetPhy()->GetModeList()) m->AddSupportedMode(peer, rate);
            m->RecordDisassociated(peer);
        }
    }
}
uint64_t mac_drops[16];
uint64_t aodv_tx;
uint64_t aodv_tx_bytes;
uint64_t queue_overflow;
uint64_t control_queue_drops;
// A full WifiMacQueue refused an MPDU; OLSR (698) and AODV (654) messages are counted
// apart, since ns-3 queues them behind the data.
void OnQueueDrop(ns3::Ptr<const ns3::WifiMpdu> mpdu) {
    queue_overflow++;
    ns3::Ptr<ns3::Packet> c = mpdu->GetPacket()->Copy();
    ns3::LlcSnapHeader llc;
    ns3::Ipv4Header ip;
    ns3::UdpHeader udp;
    if (c->RemoveHeader(llc) == 0 || llc.GetType() != 0x0800) return;
    if (c->RemoveHeader(ip) == 0 || ip.GetProtocol() != 17) return;
    c->PeekHeader(udp);
    uint16_t port = udp.GetDestinationPort();
    if (port == 698 || port == 654) control_queue_drops++;
}
void OnDroppedMpdu(ns3::WifiMacDropReason reason, ns3::Ptr<const ns3::WifiMpdu> mpdu) {
    mac_drops[static_cast<int>(reason) & 15]++;
}
void OnIpTx(ns3::Ptr<const ns3::Packet> p, ns3::Ptr<ns3::Ipv4>, uint32_t) {
    ns3::Ptr<ns3::Packet> c = p->Copy();
    ns3::Ipv4Header ip;
    if (c->RemoveHeader(ip) == 0 || ip.GetProtocol() != 17) return;
    ns3::UdpHeader udp;
    c->PeekHeader(udp);
    if (udp.GetDestinationPort() == 654) { aodv_tx++; aodv_tx_bytes += p->GetSize(); }
}
void Connect() {
    for (auto& d : mac_drops) d = 0;
    aodv_tx = 0;
    aodv_tx_bytes = 0;
    queue_overflow = 0;
    control_queue_drops = 0;
    ns3::Config::ConnectWithoutContextFailSafe(
        "/NodeList/*/DeviceList/*/$ns3::WifiNetDevice/Mac/Txop/Queue/DropBeforeEnqueue",
        ns3::MakeCallback(&OnQueueDrop));
    ns3::Config::ConnectWithoutContextFailSafe(
        "/NodeList/*/DeviceList/*/$ns3::WifiNetDevice/Mac/DroppedMpdu",
        ns3::MakeCallback(&OnDroppedMpdu));
    ns3::Config::ConnectWithoutContextFailSafe(
        "/NodeList/*/$ns3::Ipv4L3Protocol/Tx", ns3::MakeCallback(&OnIpTx));
}
}
"""

#: ns3::WifiMacDropReason, in order.
_MAC_DROP_REASONS = ("failed_enqueue", "expired_lifetime", "reached_retry_limit", "qos_old_packet")
#: ns3::Ipv4FlowProbe::DropReason, in order.
_IP_DROP_REASONS = (
    "no_route",
    "ttl_expire",
    "bad_checksum",
    "queue",
    "queue_disc",
    "interface_down",
    "route_error",
    "fragment_timeout",
)


def load():
    """Imports ns-3 (about 10 s) once and defines the trace sinks."""
    global _ns
    if _ns is None:
        try:
            from ns import ns  # type: ignore[import-not-found]
        except ImportError as e:
            raise SystemExit(
                "ns-3 is not installed: pip install -c constraints.txt '.[ns3]' "
                f"(the ns3 wheel, about 300 MB) ({e})"
            ) from None
        import cppyy  # type: ignore[import-not-found]

        cppyy.cppdef(_SINKS)
        _ns = ns
    return _ns


def _two_ray_dbm(d_m: float, tx_dbm: float = 20.0) -> float:
    """ns-2's two-ray ground at 2.412 GHz, antennas 1.5 m: Friis up to the crossover
    distance 4 pi ht hr / lambda, then Pt ht^2 hr^2 / d^4 (what both sides compute)."""
    lam = 299792458.0 / 2.412e9
    h = 1.5
    cross = 4 * math.pi * h * h / lam
    if d_m <= cross:
        gain = (lam / (4 * math.pi * d_m)) ** 2
    else:
        gain = (h * h) ** 2 / d_m**4
    return tx_dbm + 10 * math.log10(gain)


def static_next_hops(spec: Spec) -> list[list[int | None]]:
    """next[src][dst] over the 250 m graph by hop count, each destination's BFS tree, ties
    to the lowest neighbour id (airqueue's static routing rule)."""
    n = len(spec.positions_m)
    nbrs = [
        [
            b
            for b in range(n)
            if b != a and math.dist(spec.positions_m[a], spec.positions_m[b]) <= 250.0
        ]
        for a in range(n)
    ]
    nxt: list[list[int | None]] = [[None] * n for _ in range(n)]
    for dst in range(n):
        dist = [-1] * n
        dist[dst] = 0
        q = deque([dst])
        while q:
            a = q.popleft()
            for b in nbrs[a]:
                if dist[b] < 0:
                    dist[b] = dist[a] + 1
                    q.append(b)
        for src in range(n):
            if src == dst or dist[src] < 0:
                continue
            nxt[src][dst] = min(b for b in nbrs[src] if dist[b] == dist[src] - 1)
    return nxt


def run(spec: Spec, seed: int) -> RunResult:
    """Runs ``spec`` in ns-3 with run number ``seed``."""
    ns = load()
    import cppyy  # type: ignore[import-not-found]

    ns.RngSeedManager.SetSeed(1)
    ns.RngSeedManager.SetRun(seed)
    # Random variables take stream numbers from a process-wide counter that Destroy()
    # does not reset: without this a scenario's draws would depend on what ran before.
    ns.RngSeedManager.ResetNextStreamIndex()
    _defaults(ns, spec)

    n_radio = len(spec.positions_m)
    nodes = ns.NodeContainer()
    nodes.Create(n_radio)
    wired = ns.NodeContainer()
    if spec.bss is not None:
        wired.Create(spec.bss.wired_hosts)

    mobility = ns.MobilityHelper()
    alloc = ns.CreateObject[ns.ListPositionAllocator]()
    for x, y in spec.positions_m:
        alloc.Add(ns.Vector(x, y, 0.0))
    mobility.SetPositionAllocator(alloc)
    mobility.SetMobilityModel("ns3::ConstantPositionMobilityModel")
    mobility.Install(nodes)

    channel = ns.YansWifiChannelHelper()
    channel.SetPropagationDelay("ns3::ConstantSpeedPropagationDelayModel")
    channel.AddPropagationLoss(
        "ns3::TwoRayGroundPropagationLossModel",
        "Frequency",
        ns.DoubleValue(2.412e9),
        "HeightAboveZ",
        ns.DoubleValue(1.5),
    )
    phy = ns.YansWifiPhyHelper()
    phy.SetChannel(channel.Create())
    phy.Set("TxPowerStart", ns.DoubleValue(20.0))
    phy.Set("TxPowerEnd", ns.DoubleValue(20.0))
    # Carrier sense to 550 m, decoding to 250 m. A frame below RxSensitivity is only
    # interference and never makes CCA busy, so RxSensitivity is the power at 550 m;
    # the preamble detection model's MinimumRssi (the power at 250 m) makes farther
    # frames fail their preamble, after which CCA-ED (the 550 m power again) keeps the
    # channel busy while they last: energy only, no EIFS.
    phy.Set("RxSensitivity", ns.DoubleValue(_two_ray_dbm(550.0)))
    phy.Set("CcaEdThreshold", ns.DoubleValue(_two_ray_dbm(550.0)))
    phy.SetPreambleDetectionModel(
        "ns3::ThresholdPreambleDetectionModel",
        "MinimumRssi",
        ns.DoubleValue(_two_ray_dbm(250.0)),
        "Threshold",
        ns.DoubleValue(4.0),
    )

    wifi = ns.WifiHelper()
    wifi.SetStandard(ns.WIFI_STANDARD_80211b)
    mode = {
        1e6: "DsssRate1Mbps",
        2e6: "DsssRate2Mbps",
        5.5e6: "DsssRate5_5Mbps",
        11e6: "DsssRate11Mbps",
    }
    wifi.SetRemoteStationManager(
        "ns3::ConstantRateWifiManager",
        "DataMode",
        ns.StringValue(mode[spec.data_rate_bps]),
        "ControlMode",
        ns.StringValue(mode[spec.basic_rate_bps]),
    )
    mac = ns.WifiMacHelper()
    if spec.bss is None:
        mac.SetType("ns3::AdhocWifiMac")
        devices = wifi.Install(phy, mac, nodes)
    else:
        ssid = ns.Ssid("airqueue")
        ap = ns.NodeContainer(nodes.Get(0))
        stas = ns.NodeContainer()
        for i in range(1, n_radio):
            stas.Add(nodes.Get(i))
        mac.SetType("ns3::ApWifiMac", "Ssid", ns.SsidValue(ssid))
        devices = wifi.Install(phy, mac, ap)
        mac.SetType("ns3::StaWifiMac", "Ssid", ns.SsidValue(ssid))
        devices.Add(wifi.Install(phy, mac, stas))

    stack = ns.InternetStackHelper()
    if spec.routing == "aodv":
        aodv = ns.AodvHelper()
        hello = spec.aodv_link_detection == "hello" or spec.ns3_aodv_hello
        aodv.Set("EnableHello", ns.BooleanValue(hello))
        stack.SetRoutingHelper(aodv)
    elif spec.routing == "olsr":
        olsr = ns.OlsrHelper()
        routing = ns.Ipv4ListRoutingHelper()
        routing.Add(ns.Ipv4StaticRoutingHelper(), 0)
        routing.Add(olsr, 10)
        stack.SetRoutingHelper(routing)
    stack.Install(nodes)
    if spec.bss is not None:
        stack.Install(wired)

    addr = ns.Ipv4AddressHelper()
    addr.SetBase(ns.Ipv4Address("10.1.0.0"), ns.Ipv4Mask("255.255.0.0"))
    ifaces = addr.Assign(devices)
    address_of = [ifaces.GetAddress(i) for i in range(n_radio)]
    tc = ns.TrafficControlHelper()
    tc.Uninstall(devices)
    if spec.bss is not None:
        p2p = ns.PointToPointHelper()
        p2p.SetDeviceAttribute(
            "DataRate", ns.DataRateValue(ns.DataRate(int(spec.bss.wire_bandwidth_bps)))
        )
        p2p.SetChannelAttribute("Delay", ns.TimeValue(ns.Seconds(spec.bss.wire_delay_s)))
        p2p.SetQueue(
            "ns3::DropTailQueue<Packet>",
            "MaxSize",
            ns.QueueSizeValue(ns.QueueSize(f"{spec.bss.wire_capacity_pkts}p")),
        )
        for h in range(spec.bss.wired_hosts):
            link = p2p.Install(nodes.Get(0), wired.Get(h))
            base = ns.Ipv4AddressHelper()
            base.SetBase(ns.Ipv4Address(f"10.2.{h}.0"), ns.Ipv4Mask("255.255.255.0"))
            link_if = base.Assign(link)
            tc.Uninstall(link)
            address_of.append(link_if.GetAddress(1))
        ns.Ipv4GlobalRoutingHelper.PopulateRoutingTables()
    elif spec.routing == "static":
        _static_routes(ns, spec, nodes, address_of)
    if spec.routing != "aodv" or spec.ns3_prefill_arp:
        # No ARP, as in airqueue. Not with AODV: ns-3's AODV finds the neighbour of a
        # frame that reached the retry limit by its MAC address in the ARP cache, and
        # only ALIVE or PERMANENT entries count there, not the helper's auto-generated
        # ones, so pre-filled caches would silently turn its link-failure detection off.
        ns.NeighborCacheHelper().PopulateNeighborCache()

    sinks = []
    all_nodes = [nodes.Get(i) for i in range(n_radio)] + [wired.Get(h) for h in range(wired.GetN())]
    for k, f in enumerate(spec.flows):
        port = 9000 + k
        factory = "ns3::TcpSocketFactory" if f.kind == "tcp" else "ns3::UdpSocketFactory"
        sink_helper = ns.PacketSinkHelper(
            factory, ns.InetSocketAddress(ns.Ipv4Address.GetAny(), port).ConvertTo()
        )
        sink_app = sink_helper.Install(all_nodes[f.dst])
        sink_app.Start(ns.Seconds(0.0))
        remote = ns.InetSocketAddress(address_of[f.dst], port).ConvertTo()
        if f.kind == "tcp":
            src = ns.BulkSendHelper(factory, remote)
            src.SetAttribute("MaxBytes", ns.UintegerValue(0))
            src.SetAttribute("SendSize", ns.UintegerValue(f.packet_size_bytes))
        else:
            src = ns.OnOffHelper(factory, remote)
            rate = f.rate_bps if f.rate_bps is not None else 2 * spec.data_rate_bps
            src.SetConstantRate(ns.DataRate(int(rate)), f.packet_size_bytes)
        app = src.Install(all_nodes[f.src])
        app.Start(ns.Seconds(f.start_s))
        sinks.append(sink_app.Get(0).GetObject[ns.PacketSink]())

    flowmon_helper = ns.FlowMonitorHelper()
    monitor = flowmon_helper.InstallAll()
    cppyy.gbl.aqv.Connect()
    if spec.bss is None:
        # ACKs and CTSs at the basic rate: ns-3 answers at the highest basic rate not
        # above the frame's, and ad hoc radios make every mandatory rate basic.
        cppyy.gbl.aqv.PinBasicModes(ns.WifiMode(mode[spec.basic_rate_bps]))

    ns.Simulator.Stop(ns.Seconds(spec.warmup_s))
    ns.Simulator.Run()
    at_warmup = [int(s.GetTotalRx()) for s in sinks]
    ns.Simulator.Stop(ns.Seconds(spec.duration_s - spec.warmup_s))
    ns.Simulator.Run()
    at_end = [int(s.GetTotalRx()) for s in sinks]

    window_s = spec.duration_s - spec.warmup_s
    flows = [
        FlowResult(flow=k, goodput_bps=(e - w) * 8 / window_s)
        for k, (w, e) in enumerate(zip(at_warmup, at_end, strict=True))
    ]
    counters = _counters(ns, cppyy, monitor)
    manager = (
        devices.Get(devices.GetN() - 1).GetObject[ns.WifiNetDevice]().GetRemoteStationManager()
    )
    counters["basic_modes"] = float(manager.GetNBasicModes())
    ns.Simulator.Destroy()
    ns.Ipv4AddressGenerator.Reset()
    return RunResult("ns-3", spec.name, seed, flows, counters)


def _defaults(ns, spec: Spec) -> None:
    cfg = ns.Config.SetDefault
    # RFC 5681's window, or CUBIC's (RFC 9438) without HyStart, which airqueue lacks.
    if spec.tcp_variant == "cubic":
        cfg("ns3::TcpL4Protocol::SocketType", ns.TypeIdValue(ns.TcpCubic.GetTypeId()))
        cfg("ns3::TcpCubic::HyStart", ns.BooleanValue(False))
    else:
        cfg("ns3::TcpL4Protocol::SocketType", ns.TypeIdValue(ns.TcpNewReno.GetTypeId()))
    mss = max(f.packet_size_bytes for f in spec.flows)
    cfg("ns3::TcpSocket::SegmentSize", ns.UintegerValue(mss))
    # RFC 5681's initial window, as airqueue's sender uses.
    iw = 4 if mss <= 1095 else (3 if mss <= 2190 else 2)
    cfg("ns3::TcpSocket::InitialCwnd", ns.UintegerValue(iw))
    cfg("ns3::TcpSocket::DelAckCount", ns.UintegerValue(2 if spec.delayed_ack else 1))
    cfg("ns3::TcpSocket::SndBufSize", ns.UintegerValue(spec.tcp_buffer_bytes))
    cfg("ns3::TcpSocket::RcvBufSize", ns.UintegerValue(spec.tcp_buffer_bytes))
    cfg("ns3::TcpSocketBase::Timestamp", ns.BooleanValue(spec.timestamps))
    cfg("ns3::TcpSocketBase::Sack", ns.BooleanValue(spec.tcp_variant in ("sack", "cubic")))
    if spec.ns3_recovery == "classic":
        recovery = ns.TcpClassicRecovery.GetTypeId()
        cfg("ns3::TcpL4Protocol::RecoveryType", ns.TypeIdValue(recovery))
    cfg("ns3::TcpSocketBase::MinRto", ns.TimeValue(ns.Seconds(spec.min_rto_s)))
    size = spec.ns3_mac_queue_pkts or spec.queue_capacity_pkts
    lifetime = spec.ns3_mac_queue_lifetime_s or 10000.0
    cfg("ns3::WifiMacQueue::MaxSize", ns.QueueSizeValue(ns.QueueSize(f"{size}p")))
    cfg("ns3::WifiMacQueue::MaxDelay", ns.TimeValue(ns.Seconds(lifetime)))
    cfg(
        "ns3::WifiRemoteStationManager::RtsCtsThreshold",
        ns.UintegerValue(0 if spec.rts_cts else 65535),
    )
    cfg("ns3::WifiRemoteStationManager::FragmentationThreshold", ns.UintegerValue(65535))
    # ns-3.44 has one limit (MaxSsrc and MaxSlrc are obsolete): every attempt of a
    # frame, its RTSs included, counts against it. Spec.retry_limit gives airqueue the
    # same number for both of its limits.
    cfg("ns3::WifiMac::FrameRetryLimit", ns.UintegerValue(spec.retry_limit))


def _static_routes(ns, spec: Spec, nodes, address_of) -> None:
    nxt = static_next_hops(spec)
    helper = ns.Ipv4StaticRoutingHelper()
    n = len(spec.positions_m)
    for a in range(n):
        ipv4 = nodes.Get(a).GetObject[ns.Ipv4]()
        table = helper.GetStaticRouting(ipv4)
        for d in range(n):
            hop = nxt[a][d]
            if hop is not None and hop != d:
                table.AddHostRouteTo(address_of[d], address_of[hop], 1)


def _counters(ns, cppyy, monitor) -> dict[str, float]:
    out: dict[str, float] = {}
    g = cppyy.gbl.aqv
    for i, name in enumerate(_MAC_DROP_REASONS):
        out[f"mac_{name}"] = float(g.mac_drops[i])
    out["queue_overflow"] = float(g.queue_overflow)
    out["control_queue_drops"] = float(g.control_queue_drops)
    out["aodv_control_packets"] = float(g.aodv_tx)
    out["aodv_control_bytes"] = float(g.aodv_tx_bytes)
    monitor.CheckForLostPackets()
    drops = [0] * len(_IP_DROP_REASONS)
    for item in monitor.GetFlowStats():
        st = item.second
        for i in range(min(len(drops), st.packetsDropped.size())):
            drops[i] += int(st.packetsDropped[i])
    for name, v in zip(_IP_DROP_REASONS, drops, strict=True):
        out[f"ip_{name}"] = float(v)
    return out
