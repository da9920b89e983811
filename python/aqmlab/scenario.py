"""Scenarios: load, validate and resolve the description of one experiment.

A scenario file (TOML) or dict describes a dumbbell experiment::

    name = "pie-base"
    seed = 1
    duration = "100s"
    warmup = "10s"                   # metrics ignore what happens before

    [bottleneck]
    rate = "10Mbps"
    delay = "25ms"                   # one-way propagation of the bottleneck link
    rate_schedule = [{at = "50s", rate = "20Mbps"}]
    queue = {type = "drop_tail", limit = "200p"}

    [[flows]]
    type = "tcp"                     # tcp | udp
    count = 5
    rtt = "100ms"                    # or {uniform = ["160ms", "240ms"]}, or one value per flow
    start = {uniform = ["0s", "1s"]}

    [traces]
    queue = true

Every value is checked; unknown keys are errors; each error names its field path and what
is accepted. :class:`Scenario` keeps two forms: ``resolved`` (every default filled in, in
the file's own vocabulary, saved beside every result and loadable again) and ``sim_config``
(integers in ns, bit/s and bytes, what the Rust simulator reads).
"""

from __future__ import annotations

import copy
import json
import re
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from . import units
from .errors import ScenarioError

# ---------------------------------------------------------------------------------------------
# Field checkers: each takes (value, path) and returns the parsed value or raises.


def _int(lo: int, hi: int) -> Callable[[Any, str], int]:
    def check(v, path):
        if isinstance(v, bool) or not isinstance(v, int) or not lo <= v <= hi:
            raise ScenarioError(path, f"expected an integer in [{lo}, {hi}], got {v!r}")
        return v
    return check


def _bool(v, path):
    if not isinstance(v, bool):
        raise ScenarioError(path, f"expected true or false, got {v!r}")
    return v


def _str(v, path):
    if not isinstance(v, str) or not v:
        raise ScenarioError(path, f"expected a non-empty string, got {v!r}")
    return v


def _text(v, path):
    if not isinstance(v, str):
        raise ScenarioError(path, f"expected a string, got {v!r}")
    return v


def _choice(*options: str) -> Callable[[Any, str], str]:
    def check(v, path):
        if v not in options:
            raise ScenarioError(path, f"expected one of {', '.join(map(repr, options))}, got {v!r}")
        return v
    return check


def _positive(parse):
    def check(v, path):
        x = parse(v, path)
        if x <= 0:
            raise ScenarioError(path, f"must be greater than zero, got {v!r}")
        return x
    return check


_REQUIRED = object()


def _pass(v, path):
    """For values checked by their section's own code."""
    return v


def _section(data, schema: dict, path: str) -> dict:
    """Checks a table against {key: (checker, default)}; unknown keys are errors."""
    if not isinstance(data, dict):
        raise ScenarioError(path, f"expected a table, got {data!r}")
    unknown = sorted(set(data) - set(schema))
    if unknown:
        where = f"{path}." if path else ""
        raise ScenarioError(f"{where}{unknown[0]}", f"unknown key (accepted here: {', '.join(sorted(schema))})")
    out = {}
    for key, (check, default) in schema.items():
        sub = f"{path}.{key}" if path else key
        if key in data:
            out[key] = check(data[key], sub)
        elif default is _REQUIRED:
            raise ScenarioError(sub, "is required")
        else:
            out[key] = default
    return out


def _dist(parse):
    """A per-flow quantity: one value, {uniform = [lo, hi]}, or a list with one value per flow."""
    def check(v, path):
        if isinstance(v, dict):
            if set(v) != {"uniform"} or not isinstance(v["uniform"], list) or len(v["uniform"]) != 2:
                raise ScenarioError(path, f"expected a value, {{uniform = [lo, hi]}} or a list, got {v!r}")
            lo, hi = (parse(x, f"{path}.uniform[{i}]") for i, x in enumerate(v["uniform"]))
            if lo > hi:
                raise ScenarioError(path, f"uniform bounds must satisfy lo <= hi, got {v['uniform']!r}")
            return {"uniform": {"lo": lo, "hi": hi}}
        if isinstance(v, list):
            return {"each": [parse(x, f"{path}[{i}]") for i, x in enumerate(v)]}
        return {"fixed": parse(v, path)}
    return check


def _dist_map(d: dict, f: Callable[[int], int]) -> dict:
    (kind, val), = d.items()
    if kind == "fixed":
        return {"fixed": f(val)}
    if kind == "uniform":
        return {"uniform": {"lo": f(val["lo"]), "hi": f(val["hi"])}}
    return {"each": [f(x) for x in val]}


def _dist_values(d: dict) -> list[int]:
    (kind, val), = d.items()
    return [val] if kind == "fixed" else [val["lo"], val["hi"]] if kind == "uniform" else list(val)


def _dist_fmt(d: dict, fmt: Callable[[int], str]):
    (kind, val), = d.items()
    if kind == "fixed":
        return fmt(val)
    if kind == "uniform":
        return {"uniform": [fmt(val["lo"]), fmt(val["hi"])]}
    return [fmt(x) for x in val]


# ---------------------------------------------------------------------------------------------
# Queue disciplines: parameters are owned by the Rust AQM library, which validates them and
# fills in the profile defaults; here we only translate units to its field names.

_QDISC_ALIASES = {"droptail": "drop_tail", "fifo": "drop_tail"}
_SERDE_POS = re.compile(r" at line \d+ column \d+$")


def _qdisc(v, path):
    from . import _core

    if not isinstance(v, dict):
        raise ScenarioError(path, f"expected a table with a 'type' (e.g. {{type = \"pie\"}}), got {v!r}")
    if "type" not in v:
        raise ScenarioError(f"{path}.type", "is required (e.g. \"drop_tail\", \"pie\")")
    renamed: dict[str, str] = {}
    out = _qdisc_units(v, path, renamed)
    try:
        resolved = json.loads(_core.resolve_qdisc(json.dumps(out)))
    except ValueError as e:
        msg = _SERDE_POS.sub("", str(e))
        for field, key in renamed.items():
            msg = msg.replace(f"`{field}`", f"`{key}`").replace(f"{field}:", f"{key}:")
        raise ScenarioError(path, msg) from None
    return resolved


def _qdisc_units(v: dict, path: str, renamed: dict[str, str]) -> dict:
    """Translates a queue table's quantities to the AQM library's field names, recursively (a
    strict-priority class or a fair queue nests the configuration of its inner queue):
    `limit = "200p"` -> {"packets": 200}; `target = "20ms"` -> `target_s = 0.02`."""
    out: dict[str, Any] = {}
    for key, val in v.items():
        if key == "type":
            out["type"] = _QDISC_ALIASES.get(val, val)
        elif key.endswith("limit"):
            out[key] = units.queue_limit(val, f"{path}.{key}")
        elif isinstance(val, dict):
            out[key] = _qdisc_units(val, f"{path}.{key}", renamed)
        elif isinstance(val, str) and (quantity := units.kind_of(val)):
            suffix, number = quantity
            field = f"{key}_{suffix}"
            out[field] = number if suffix == "s" else round(number)
            renamed[field] = key
        else:
            out[key] = val
    return out


def _limits_fmt(q):
    """The resolved form of a queue table: limits as '200p' / '2000000B' at any depth, unset
    (None) fields left out."""
    if not isinstance(q, dict):
        return q
    out = {}
    for k, v in q.items():
        if v is None:
            continue
        if k.endswith("limit") and isinstance(v, dict) and len(v) == 1:
            (kind, n), = v.items()
            out[k] = f"{n}p" if kind == "packets" else f"{n}B"
        else:
            out[k] = _limits_fmt(v)
    return out


_DEFAULT_REVERSE = {"type": "drop_tail", "limit": {"packets": 100_000}}
_DEFAULT_ACCESS_QUEUE = {"type": "drop_tail", "limit": {"packets": 1000}}


def _rate_step(v, path):
    step = _section(v, {"at": (units.duration_ns, _REQUIRED), "rate": (_positive(units.rate_bps), _REQUIRED)}, path)
    return {"at_ns": step["at"], "rate_bps": step["rate"]}


def _rate_schedule(v, path):
    if not isinstance(v, list):
        raise ScenarioError(path, f"expected a list of {{at, rate}} tables, got {v!r}")
    steps = [_rate_step(s, f"{path}[{i}]") for i, s in enumerate(v)]
    for i in range(1, len(steps)):
        if steps[i]["at_ns"] < steps[i - 1]["at_ns"]:
            raise ScenarioError(f"{path}[{i}].at", "steps must be in time order")
    return steps


def _impairment(v, path):
    imp = _section(v, {"loss": (_pass, None), "mark": (_bool, False), "outages": (_pass, [])}, path)
    loss = v.get("loss")
    if loss is None:
        model = "none"
    elif isinstance(loss, dict) and set(loss) == {"bernoulli"}:
        model = {"bernoulli": {"p": _number(0.0, 1.0)(loss["bernoulli"], f"{path}.loss.bernoulli")}}
    elif isinstance(loss, dict) and set(loss) == {"periodic"}:
        model = {"periodic": {"every": _int(1, 2**62)(loss["periodic"], f"{path}.loss.periodic")}}
    else:
        raise ScenarioError(f"{path}.loss", f"expected {{bernoulli = p}} or {{periodic = N}} (every N-th packet), got {loss!r}")
    outages = v.get("outages", [])
    if not isinstance(outages, list):
        raise ScenarioError(f"{path}.outages", f"expected a list of [from, to] pairs, got {outages!r}")
    spans = []
    for i, o in enumerate(outages):
        if not isinstance(o, list) or len(o) != 2:
            raise ScenarioError(f"{path}.outages[{i}]", f"expected [from, to], got {o!r}")
        a, b = (units.duration_ns(x, f"{path}.outages[{i}]") for x in o)
        if a >= b:
            raise ScenarioError(f"{path}.outages[{i}]", "from must be before to")
        spans.append([a, b])
    return {"loss": model, "mark_instead": imp["mark"], "outages": spans}


def _impairment_fmt(d: dict) -> dict:
    loss = d["loss"]
    out: dict = {"mark": d["mark_instead"], "outages": [[units.fmt_duration(a), units.fmt_duration(b)] for a, b in d["outages"]]}
    if loss != "none":
        (kind, val), = loss.items()
        out["loss"] = {kind: val["p"] if kind == "bernoulli" else val["every"]}
    return out


_BOTTLENECK = {
    "rate": (_positive(units.rate_bps), _REQUIRED),
    "delay": (units.duration_ns, _REQUIRED),
    "mtu": (_positive(units.size_bytes), 1500),
    "queue": (_qdisc, _REQUIRED),
    "reverse_queue": (_qdisc, None),
    "rate_schedule": (_rate_schedule, []),
    "impairment": (_impairment, None),
}

_ACCESS = {
    "rate": (_positive(units.rate_bps), None),
    "queue": (_qdisc, None),
}

# TCP: a named profile (expanded by the simulator, see aqmlab._core.TCP_PROFILES) plus any
# overrides, each: user key -> (simulator field, checker, formatter for the resolved file).
_ECN_MODES = {False: "off", True: "classic", "off": "off", "classic": "classic", "dctcp": "dctcp"}


def _ecn(v, path):
    if isinstance(v, (bool, str)) and v in _ECN_MODES:
        return _ECN_MODES[v]
    raise ScenarioError(path, f"expected true, false, 'classic' or 'dctcp', got {v!r}")


def _same(v):
    return v


_TCP_FIELDS = {
    "cc": ("cc", _choice("newreno", "cubic", "dctcp"), _same),
    "sack": ("sack", _bool, _same),
    "prr": ("prr", _bool, _same),
    "limited_transmit": ("limited_transmit", _bool, _same),
    "keep_sack_on_rto": ("keep_sack_on_rto", _bool, _same),
    "growth": ("growth", _choice("per_ack", "byte_counting"), _same),
    "reduce_from": ("reduce_from", _choice("flight", "cwnd"), _same),
    "initial_cwnd": ("initial_cwnd", _int(1, 1000), _same),
    "rwnd": ("rwnd", _int(1, 2**31 - 1), _same),
    "min_rto": ("min_rto_ns", _positive(units.duration_ns), units.fmt_duration),
    "initial_rto": ("initial_rto_ns", _positive(units.duration_ns), units.fmt_duration),
    "max_rto": ("max_rto_ns", _positive(units.duration_ns), units.fmt_duration),
    "clock_granularity": ("clock_granularity_ns", units.duration_ns, units.fmt_duration),
    "dupack_threshold": ("dupack_threshold", _int(1, 1000), _same),
    "ecn": ("ecn", _ecn, _same),
    "timestamps": ("timestamps", _bool, _same),
    "ack_every": ("ack_every", _int(1, 64), _same),
    "delack_timeout": ("delack_timeout_ns", _positive(units.duration_ns), units.fmt_duration),
    # HyStart, Linux tcp_cubic's slow-start exit (on in the linux profile): see tcp/hystart.rs.
    "hystart": ("hystart", _bool, _same),
    # RACK-TLP loss detection, RFC 8985 (on in the linux profile): see tcp/sender.rs.
    "rack": ("rack", _bool, _same),
}


def _size_dist(v, path):
    """'30KB' | {exponential = '12KB'} | {pareto = {mean = '12KB', shape = 1.2}}."""
    if isinstance(v, dict) and set(v) == {"exponential"}:
        return {"exponential": {"mean": float(_positive(units.size_bytes)(v["exponential"], f"{path}.exponential"))}}
    if isinstance(v, dict) and set(v) == {"pareto"}:
        par = _section(v["pareto"], {"mean": (_positive(units.size_bytes), _REQUIRED), "shape": (_number(1.0, 100.0, open_low=True), _REQUIRED)}, f"{path}.pareto")
        return {"pareto": {"mean": float(par["mean"]), "shape": par["shape"]}}
    if isinstance(v, dict):
        raise ScenarioError(path, f"expected a size like '30KB', {{exponential = '12KB'}} or {{pareto = {{mean = '12KB', shape = 1.2}}}}, got {v!r}")
    return {"fixed": _positive(units.size_bytes)(v, path)}


def _size_fmt(d: dict):
    (kind, val), = d.items()
    if kind == "fixed":
        return f"{val}B"
    if kind == "exponential":
        return {"exponential": f"{round(val['mean'])}B"}
    return {"pareto": {"mean": f"{round(val['mean'])}B", "shape": val["shape"]}}


def _number(lo: float, hi: float, *, open_low: bool = False):
    def check(v, path):
        ok = isinstance(v, (int, float)) and not isinstance(v, bool) and (lo < v if open_low else lo <= v) and v <= hi
        if not ok:
            bracket = "(" if open_low else "["
            raise ScenarioError(path, f"expected a number in {bracket}{lo}, {hi}], got {v!r}")
        return float(v)
    return check


_TCP = {
    "profile": (_str, "ns2-sack"),
    **{k: (chk, None) for k, (_, chk, _) in _TCP_FIELDS.items()},
    # The application: none of these is a bulk (FTP-like) flow.
    "size": (_size_dist, None),
    "think": (_positive(units.duration_ns), None),
    "arrival_rate": (_number(0.0, 1e9, open_low=True), None),
}
_UDP = {"rate": (_positive(units.rate_bps), _REQUIRED), "ecn": (_bool, False)}
_FLOW_COMMON = {
    "name": (_str, None),
    "type": (_choice("tcp", "udp"), _REQUIRED),
    "count": (_int(1, 1_000_000), 1),
    "rtt": (_dist(units.duration_ns), None),
    "access_delay": (_dist(units.duration_ns), None),
    "receiver_delay": (units.duration_ns, 0),
    "start": (_dist(units.duration_ns), {"fixed": 0}),
    "stop": (units.duration_ns, None),
    "packet_size": (_positive(units.size_bytes), 1000),
    "dscp": (_int(0, 63), 0),
    "marker": (_pass, None),  # Per Packet Value marking, checked by aqmlab.ppv
}

_TRACES = {
    "interval": (_positive(units.duration_ns), 10_000_000),
    "queue": (_bool, False),
    "sojourn": (_bool, False),
    "sojourn_every": (_int(1, 2**31 - 1), 1),
    "flow_bytes": (_bool, False),
    "drops": (_bool, False),
    "probe": (_bool, False),
    "tcp": (_bool, False),
}

_TOP = {
    "name": (_str, "scenario"),
    "description": (_text, ""),
    "seed": (_int(0, 2**64 - 1), 1),
    "duration": (_positive(units.duration_ns), _REQUIRED),
    "warmup": (units.duration_ns, 0),
    "bottleneck": (lambda v, p: _section(v, _BOTTLENECK, p), _REQUIRED),
    "access": (lambda v, p: _section(v, _ACCESS, p), None),
    "flows": (None, _REQUIRED),
    "traces": (lambda v, p: _section(v, _TRACES, p), None),
}


def _flow(v, path: str, index: int, bottleneck_delay: int) -> dict:
    if not isinstance(v, dict):
        raise ScenarioError(path, f"expected a table, got {v!r}")
    typ = _choice("tcp", "udp")(v.get("type"), f"{path}.type")
    specific = _TCP if typ == "tcp" else _UDP
    g = _section(v, {**_FLOW_COMMON, **specific}, path)
    g["name"] = g["name"] or f"{typ}{index}"
    if (g["rtt"] is None) == (g["access_delay"] is None):
        raise ScenarioError(f"{path}.rtt", "give exactly one of 'rtt' (base round trip) or 'access_delay'")
    if g["rtt"] is not None:
        # Base RTT = 2 (access + bottleneck + receiver delay): the sender's access link takes the rest.
        fixed = bottleneck_delay + g["receiver_delay"]
        low = min(_dist_values(g["rtt"]))
        if low < 2 * fixed:
            raise ScenarioError(
                f"{path}.rtt",
                f"{units.fmt_duration(low)} is below twice the bottleneck and receiver delays "
                f"({units.fmt_duration(2 * fixed)})",
            )
        g["access_delay"] = _dist_map(g["rtt"], lambda r: r // 2 - fixed)
    count = g["count"]
    for key in ("access_delay", "start"):
        d = g[key]
        if "each" in d and len(d["each"]) != count:
            raise ScenarioError(f"{path}.{key if key == 'start' else 'rtt'}", f"{len(d['each'])} values given for count = {count}")
    if g["packet_size"] <= 40:
        raise ScenarioError(f"{path}.packet_size", "must exceed the 40-byte IP+TCP header")
    if g["marker"] is not None:
        from . import ppv

        g["marker"] = ppv.marker(g["marker"], f"{path}.marker", count)
    if typ == "tcp":
        g["tcp"] = _resolve_tcp(g, path)
        g["app"] = _app(g, path)
    else:
        g["app"] = {"type": "bulk"}
    return g


def _resolve_tcp(g: dict, path: str) -> dict:
    from . import _core

    overrides = {_TCP_FIELDS[k][0]: g[k] for k in _TCP_FIELDS if g[k] is not None}
    if g["cc"] == "dctcp" and g["ecn"] is None:
        overrides["ecn"] = "dctcp"  # DCTCP needs its exact echo (RFC 8257 §3.2)
    if g["profile"] == "linux" and g["cc"] not in (None, "cubic") and g["hystart"] is None:
        # Linux runs HyStart inside tcp_cubic only: its Reno and DCTCP have none.
        overrides["hystart"] = False
    try:
        return json.loads(_core.resolve_tcp(g["profile"], json.dumps(overrides)))
    except ValueError as e:
        msg = _SERDE_POS.sub("", str(e))
        field, sep, rest = msg.partition(":")
        user = next((k for k, (f, _, _) in _TCP_FIELDS.items() if f == field), field)
        if sep and user in _TCP_FIELDS or field == "profile":
            raise ScenarioError(f"{path}.{user}", rest.strip()) from None
        raise ScenarioError(path, msg) from None


def _app(g: dict, path: str) -> dict:
    size, think, rate = g["size"], g["think"], g["arrival_rate"]
    if rate is not None:
        if size is None or g["stop"] is None or "fixed" not in g["start"] or g["count"] != 1:
            raise ScenarioError(f"{path}.arrival_rate", "Poisson arrivals need 'size', a fixed 'start', a 'stop' and count = 1")
        if think is not None:
            raise ScenarioError(f"{path}.think", "give either 'think' (sessions) or 'arrival_rate' (Poisson arrivals)")
        return {"type": "poisson", "rate_per_s": rate, "size": size}
    if think is not None:
        if size is None:
            raise ScenarioError(f"{path}.size", "sessions ('think') need an object 'size'")
        return {"type": "sessions", "size": size, "think_mean_ns": think}
    if size is None:
        return {"type": "bulk"}
    if "fixed" not in size:
        raise ScenarioError(f"{path}.size", "a single transfer needs a fixed size; random sizes go with 'think' or 'arrival_rate'")
    return {"type": "transfer", "bytes": size["fixed"]}


def _group_flow_ids(flows: list) -> dict[str, list[int]]:
    """Flow ids of each named group, as the simulator numbers them (groups in order). A group
    of Poisson arrivals has as many flows as arrivals, known only at run time: the ids of the
    groups from it on are not known here."""
    ids, n, known = {}, 0, True
    for i, g in enumerate(flows if isinstance(flows, list) else []):
        if not isinstance(g, dict):
            continue
        name = g.get("name") or f"{g.get('type')}{i}"
        if "arrival_rate" in g:
            known = False
        count = g.get("count", 1)
        ids[name] = list(range(n, n + count)) if known and isinstance(count, int) else None
        n += count if isinstance(count, int) else 0
    return ids


def _select_groups(q, path: str, ids: dict[str, list[int] | None]) -> None:
    """Replaces `high_groups = ["voip"]` in strict-priority tables by the groups' flow ids."""
    if not isinstance(q, dict):
        return
    if "high_groups" in q:
        groups = q.pop("high_groups")
        if not isinstance(groups, list):
            raise ScenarioError(f"{path}.high_groups", f"expected a list of flow group names, got {groups!r}")
        flows = list(q.get("high_flows", []))
        for name in groups:
            if name not in ids:
                raise ScenarioError(f"{path}.high_groups", f"no flow group named {name!r} (groups: {', '.join(ids)})")
            if ids[name] is None:
                raise ScenarioError(f"{path}.high_groups", f"group {name!r} comes at or after a group of Poisson "
                                    "arrivals, whose flow count is known only at run time: select it by dscp")
            flows += ids[name]
        q["high_flows"] = flows
    for k, v in q.items():
        _select_groups(v, f"{path}.{k}", ids)


def _parse(data: dict) -> dict:
    if not isinstance(data, dict):
        raise ScenarioError("", f"a scenario is a table, got {type(data).__name__}")
    if isinstance(data.get("bottleneck"), dict):
        _select_groups(data["bottleneck"].get("queue"), "bottleneck.queue", _group_flow_ids(data.get("flows")))
    top = _section({k: v for k, v in data.items() if k != "flows"}, {k: s for k, s in _TOP.items() if k != "flows"}, "")
    flows = data.get("flows")
    if not isinstance(flows, list) or not flows:
        raise ScenarioError("flows", "is required: a non-empty list of flow groups ([[flows]] tables)")
    b = top["bottleneck"]
    b["reverse_queue"] = b["reverse_queue"] or _qdisc(_DEFAULT_REVERSE, "bottleneck.reverse_queue")
    top["access"] = top["access"] or {"rate": None, "queue": None}
    top["access"]["queue"] = top["access"]["queue"] or _qdisc(_DEFAULT_ACCESS_QUEUE, "access.queue")
    top["traces"] = top["traces"] or _section({}, _TRACES, "traces")
    top["flows"] = [_flow(f, f"flows[{i}]", i, b["delay"]) for i, f in enumerate(flows)]
    if top["warmup"] >= top["duration"]:
        raise ScenarioError("warmup", f"must be shorter than duration ({units.fmt_duration(top['duration'])})")
    mtu = b["mtu"]
    for i, g in enumerate(top["flows"]):
        if g["packet_size"] > mtu:
            raise ScenarioError(f"flows[{i}].packet_size", f"{g['packet_size']} B exceeds bottleneck.mtu ({mtu} B)")
    return top


def _to_sim(p: dict) -> dict:
    """The parsed form -> the simulator's SimConfig (see crates/sim/src/config.rs)."""
    b, t = p["bottleneck"], p["traces"]
    flows = []
    for g in p["flows"]:
        if g["type"] == "tcp":
            transport = {"type": "tcp", **g["tcp"]}
        else:
            transport = {"type": "udp", "rate_bps": g["rate"], "ecn": g["ecn"]}
        flows.append({
            "name": g["name"], "count": g["count"], "transport": transport,
            "access_delay_ns": g["access_delay"], "receiver_delay_ns": g["receiver_delay"],
            "start_ns": g["start"], "stop_ns": g["stop"], "packet_size": g["packet_size"], "app": g["app"],
            "dscp": g["dscp"],
            "marker": g["marker"],
        })
    return {
        "seed": p["seed"], "duration_ns": p["duration"], "warmup_ns": p["warmup"],
        "bottleneck": {
            "rate_bps": b["rate"], "delay_ns": b["delay"], "mtu": b["mtu"], "queue": b["queue"],
            "reverse_queue": b["reverse_queue"], "rate_schedule": b["rate_schedule"],
            "impairment": b["impairment"],
        },
        "access": {"rate_bps": p["access"]["rate"], "queue": p["access"]["queue"]},
        "flows": flows,
        "traces": {
            "interval_ns": t["interval"], "queue": t["queue"], "sojourn": t["sojourn"],
            "sojourn_every": t["sojourn_every"], "flow_bytes": t["flow_bytes"], "drops": t["drops"],
            "probe": t["probe"], "tcp": t["tcp"],
        },
    }


def _to_resolved(p: dict) -> dict:
    """The parsed form -> a loadable scenario with every default written out."""
    d, r = units.fmt_duration, units.fmt_rate

    qdisc = _limits_fmt
    b = p["bottleneck"]
    flows = []
    for g in p["flows"]:
        f = {
            "name": g["name"], "type": g["type"], "count": g["count"],
            "access_delay": _dist_fmt(g["access_delay"], d), "receiver_delay": d(g["receiver_delay"]),
            "start": _dist_fmt(g["start"], d), "packet_size": f"{g['packet_size']}B", "dscp": g["dscp"],
        }
        if g["stop"] is not None:
            f["stop"] = d(g["stop"])
        if g["type"] == "tcp":
            f["profile"] = g["profile"]
            f.update({k: fmt(g["tcp"][field]) for k, (field, _, fmt) in _TCP_FIELDS.items()})
            app = g["app"]
            if app["type"] == "transfer":
                f["size"] = f"{app['bytes']}B"
            elif app["type"] in ("sessions", "poisson"):
                f["size"] = _size_fmt(app["size"])
                if app["type"] == "sessions":
                    f["think"] = d(app["think_mean_ns"])
                else:
                    f["arrival_rate"] = app["rate_per_s"]
        else:
            f["rate"] = r(g["rate"])
            f["ecn"] = g["ecn"]
        if g["marker"] is not None:
            from . import ppv

            f["marker"] = ppv.marker_fmt(g["marker"])
        flows.append(f)
    access = {"queue": qdisc(p["access"]["queue"])}
    if p["access"]["rate"] is not None:
        access["rate"] = r(p["access"]["rate"])
    t = dict(p["traces"])
    t["interval"] = d(t["interval"])
    return {
        "name": p["name"], "description": p["description"], "seed": p["seed"],
        "duration": d(p["duration"]), "warmup": d(p["warmup"]),
        "bottleneck": {
            "rate": r(b["rate"]), "delay": d(b["delay"]), "mtu": f"{b['mtu']}B",
            "queue": qdisc(b["queue"]), "reverse_queue": qdisc(b["reverse_queue"]),
            "rate_schedule": [{"at": d(s["at_ns"]), "rate": r(s["rate_bps"])} for s in b["rate_schedule"]],
            **({"impairment": _impairment_fmt(b["impairment"])} if b["impairment"] else {}),
        },
        "access": access,
        "flows": flows,
        "traces": t,
    }


def set_dotted(data: dict, dotted: str, value) -> None:
    """Sets 'bottleneck.queue.target' or 'flows[0].count' in a nested dict."""
    node: Any = data
    parts = re.findall(r"[^.\[\]]+|\[\d+\]", dotted)
    for i, part in enumerate(parts):
        last = i == len(parts) - 1
        if part.startswith("["):
            idx = int(part[1:-1])
            if not isinstance(node, list) or idx >= len(node):
                raise ScenarioError(dotted, f"index {idx} is out of range")
            if last:
                node[idx] = value
            node = node[idx]
        else:
            if not isinstance(node, dict):
                raise ScenarioError(dotted, f"'{part}' is not inside a table")
            if last:
                node[part] = value
            else:
                node = node.setdefault(part, {})


@dataclass(frozen=True)
class Scenario:
    """A validated scenario: ``resolved`` (loadable, defaults written out) and ``sim_config``."""

    resolved: dict
    sim_config: dict

    @classmethod
    def from_dict(cls, data: dict) -> "Scenario":
        parsed = _parse(copy.deepcopy(data))
        return cls(resolved=_to_resolved(parsed), sim_config=_to_sim(parsed))

    @classmethod
    def from_toml(cls, path: str | Path) -> "Scenario":
        path = Path(path)
        try:
            data = tomllib.loads(path.read_text())
        except tomllib.TOMLDecodeError as e:
            raise ScenarioError("", f"{path}: not valid TOML: {e}") from None
        return cls.from_dict(data)

    @classmethod
    def load(cls, name_or_path: str | Path) -> "Scenario":
        """A scenario file, or the name of one shipped with aqmlab (see :func:`builtin_scenarios`)."""
        p = Path(name_or_path)
        if p.exists():
            return cls.from_toml(p)
        builtin = BUILTIN_DIR / f"{name_or_path}.toml"
        if builtin.exists():
            return cls.from_toml(builtin)
        raise ScenarioError("", f"no scenario file '{name_or_path}' and no built-in scenario of that name "
                                f"(built-in: {', '.join(builtin_scenarios())})")

    @property
    def name(self) -> str:
        return self.resolved["name"]

    def with_values(self, values: dict[str, Any]) -> "Scenario":
        """A copy with fields replaced by dotted path: {'bottleneck.queue.target': '15ms'}."""
        data = copy.deepcopy(self.resolved)
        for dotted, value in values.items():
            set_dotted(data, dotted, value)
        return Scenario.from_dict(data)

    def to_toml(self) -> str:
        import tomli_w

        return tomli_w.dumps(_drop_none(self.resolved))

    def sim_json(self) -> str:
        return json.dumps(self.sim_config)


def _drop_none(x):
    if isinstance(x, dict):
        return {k: _drop_none(v) for k, v in x.items() if v is not None}
    if isinstance(x, list):
        return [_drop_none(v) for v in x]
    return x


BUILTIN_DIR = Path(__file__).parent / "scenarios"


def builtin_scenarios() -> list[str]:
    """Names of the scenario files shipped in the package."""
    return sorted(p.stem for p in BUILTIN_DIR.glob("*.toml"))
