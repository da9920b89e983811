//! `aqmlab._core`: the compiled half of the Python package.
//!
//! The Python side validates and resolves a scenario, then hands this module its JSON form.
//! A run advances in chunks (`run_until`) with the GIL released, so Python can draw a progress
//! bar and honour Ctrl-C between chunks. Traces come back as numpy arrays, never as
//! per-packet Python objects.

use numpy::{IntoPyArray, PyArray1};
use pyo3::exceptions::{PyRuntimeWarning, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyDict;

use sim::config::SimConfig;

mod fluid;

fn value_error(e: impl std::fmt::Display) -> PyErr {
    PyValueError::new_err(e.to_string())
}

fn array<'py, T: numpy::Element + Clone>(py: Python<'py>, v: &[T]) -> Bound<'py, PyArray1<T>> {
    v.to_vec().into_pyarray(py)
}

/// A histogram as bucket lower bounds (ns), widths (ns) and counts.
fn histogram<'py>(py: Python<'py>, h: &sim::trace::DelayHistogram) -> PyResult<Bound<'py, PyDict>> {
    let (mut lo, mut w, mut c) = (Vec::new(), Vec::new(), Vec::new());
    for (l, width, n) in h.buckets() {
        lo.push(l);
        w.push(width);
        c.push(n);
    }
    let d = PyDict::new(py);
    d.set_item("lower_ns", lo.into_pyarray(py))?;
    d.set_item("width_ns", w.into_pyarray(py))?;
    d.set_item("count", c.into_pyarray(py))?;
    Ok(d)
}

/// One simulation run, created from a resolved scenario in JSON.
#[pyclass(module = "aqmlab._core")]
struct Simulation {
    inner: sim::Simulation,
    /// Invariant violations already reported as a warning.
    warned: u64,
}

#[pymethods]
impl Simulation {
    #[new]
    fn new(config_json: &str) -> PyResult<Self> {
        let cfg = SimConfig::from_json(config_json).map_err(value_error)?;
        Ok(Simulation { inner: sim::Simulation::new(cfg).map_err(value_error)?, warned: 0 })
    }

    /// Runs every event up to `t_ns` (capped at the duration), without holding the GIL. A
    /// newly violated invariant raises a `RuntimeWarning` (an error under the test suite's
    /// warning filter); the summary's `invariants` block has the counts.
    fn run_until(&mut self, py: Python<'_>, t_ns: u64) -> PyResult<()> {
        let inner = &mut self.inner;
        py.detach(|| inner.run_until(t_ns));
        let inv = self.inner.invariants();
        if inv.violations() > self.warned {
            self.warned = inv.violations();
            let msg = format!("the simulation broke {} invariant check(s) (see the summary's 'invariants'); first: {}", inv.violations(), inv.first_violation().unwrap_or_default());
            let msg = std::ffi::CString::new(msg).map_err(value_error)?;
            PyErr::warn(py, &py.get_type::<PyRuntimeWarning>(), &msg, 1)?;
        }
        Ok(())
    }

    /// Current simulated time in ns.
    #[getter]
    fn now(&self) -> u64 {
        self.inner.now()
    }

    #[getter]
    fn duration(&self) -> u64 {
        self.inner.cfg.duration_ns
    }

    #[getter]
    fn events(&self) -> u64 {
        self.inner.events()
    }

    #[getter]
    fn delivered_packets(&self) -> u64 {
        self.inner.delivered_packets
    }

    #[getter]
    fn n_flows(&self) -> usize {
        self.inner.flows.len()
    }

    /// The summary of the run so far, as JSON, without the per-flow figures (see
    /// `flow_columns`).
    fn summary_json(&self) -> String {
        serde_json::to_string(&self.inner.aggregates()).expect("summary serializes")
    }

    /// The per-flow figures of the run so far: column name -> numpy array, in the summary's
    /// field order (absent figures are NaN).
    fn flow_columns<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        use sim::summary::Column;
        let d = PyDict::new(py);
        for (name, col) in self.inner.flow_columns().0 {
            match col {
                Column::I64(v) => d.set_item(name, v.into_pyarray(py))?,
                Column::F64(v) => d.set_item(name, v.into_pyarray(py))?,
                Column::Bool(v) => d.set_item(name, v.into_pyarray(py))?,
            }
        }
        Ok(d)
    }

    /// The recorded traces as numpy arrays (matrices flattened row-major).
    fn traces<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let t = &self.inner.traces;
        let d = PyDict::new(py);
        d.set_item("sample_t_ns", array(py, &t.sample_t))?;
        d.set_item("queue_bytes", array(py, &t.queue_bytes))?;
        d.set_item("queue_packets", array(py, &t.queue_packets))?;
        d.set_item("last_sojourn_ns", array(py, &t.last_sojourn_ns))?;
        d.set_item("sojourn_mean_ns", array(py, &t.sojourn_mean_ns))?;
        d.set_item("link_rate_bps", array(py, &t.link_rate_bps))?;
        d.set_item("sojourn_t_ns", array(py, &t.sojourn_t))?;
        d.set_item("sojourn_ns", array(py, &t.sojourn_ns))?;
        d.set_item("sojourn_qdisc_ns", array(py, &t.sojourn_qdisc_ns))?;
        d.set_item("sojourn_flow", array(py, &t.sojourn_flow))?;
        d.set_item("link_queue_bytes", array(py, &t.link_queue_bytes))?;
        d.set_item("link_queue_packets", array(py, &t.link_queue_packets))?;
        d.set_item("link_queue_last_sojourn_ns", array(py, &t.link_queue_last_sojourn_ns))?;
        d.set_item("link_queue_sojourn_mean_ns", array(py, &t.link_queue_sojourn_mean_ns))?;
        d.set_item("link_sojourn_t_ns", array(py, &t.link_sojourn_t))?;
        d.set_item("link_sojourn_queue", array(py, &t.link_sojourn_queue))?;
        d.set_item("link_sojourn_ns", array(py, &t.link_sojourn_ns))?;
        d.set_item("link_sojourn_qdisc_ns", array(py, &t.link_sojourn_qdisc_ns))?;
        d.set_item("link_sojourn_flow", array(py, &t.link_sojourn_flow))?;
        d.set_item("flow_bytes", array(py, &t.flow_bytes))?;
        d.set_item("drop_t_ns", array(py, &t.drop_t))?;
        d.set_item("drop_flow", array(py, &t.drop_flow))?;
        d.set_item("drop_kind", array(py, &t.drop_kind))?;
        d.set_item("drop_link", array(py, &t.drop_link))?;
        d.set_item("probe_names", t.probe_names.clone())?;
        d.set_item("probe", array(py, &t.probe))?;
        d.set_item("link_probe_names", t.link_probe_names.clone())?;
        d.set_item("link_probe", array(py, &t.link_probe))?;
        d.set_item("tcp_cwnd", array(py, &t.tcp_cwnd))?;
        d.set_item("tcp_ssthresh", array(py, &t.tcp_ssthresh))?;
        d.set_item("tcp_srtt_ns", array(py, &t.tcp_srtt_ns))?;
        d.set_item("tcp_event_t_ns", array(py, &t.tcp_event_t))?;
        d.set_item("tcp_event_flow", array(py, &t.tcp_event_flow))?;
        d.set_item("tcp_event_kind", array(py, &t.tcp_event_kind))?;
        let tr = &self.inner.transfers;
        d.set_item("transfer_flow", tr.iter().map(|t| t.0).collect::<Vec<_>>().into_pyarray(py))?;
        d.set_item("transfer_start_ns", tr.iter().map(|t| t.1).collect::<Vec<_>>().into_pyarray(py))?;
        d.set_item("transfer_bytes", tr.iter().map(|t| t.2).collect::<Vec<_>>().into_pyarray(py))?;
        d.set_item("transfer_fct_ns", tr.iter().map(|t| t.3).collect::<Vec<_>>().into_pyarray(py))?;
        Ok(d)
    }

    /// Bottleneck queue-delay histogram of the measured window: bucket lower bounds (ns),
    /// widths (ns) and counts.
    fn delay_histogram<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        histogram(py, &self.inner.queues()[0].delay)
    }

    /// Every reported queue's link-sojourn histogram of the measured window, by queue name
    /// (the bottleneck's is `delay_histogram`).
    fn queue_delay_histograms<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        for q in self.inner.queues() {
            d.set_item(&q.name, histogram(py, &q.delay)?)?;
        }
        Ok(d)
    }

    /// Every reported queue's figures (see `sim::queues::LinkSummary`), as JSON.
    fn link_summaries_json(&self) -> String {
        serde_json::to_string(&self.inner.link_summaries()).expect("link summaries serialize")
    }

    /// The reported queues' names, in the order of the `link_queue_*` trace columns.
    fn queue_names(&self) -> Vec<String> {
        self.inner.queues().iter().map(|q| q.name.clone()).collect()
    }

    /// Each link's queue slot, by link id (None for a pure-delay link).
    fn link_queues(&self) -> Vec<Option<u32>> {
        self.inner.link_queues().into_iter().map(|s| (s != sim::queues::NO_QUEUE).then_some(s)).collect()
    }

    /// The packet captures asked for by `traces.pcap`: capture point name -> pcap file bytes.
    fn pcaps<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        for c in self.inner.pcap.iter().flat_map(|p| &p.captures) {
            d.set_item(c.name, pyo3::types::PyBytes::new(py, &c.bytes))?;
        }
        Ok(d)
    }
}

/// Checks a resolved scenario exactly as a run would, before any work: types and ranges
/// (errors name the field) and the limits on events and memory (errors name the field that
/// drives the estimate, with the figures).
#[pyfunction]
fn validate(config_json: &str) -> PyResult<()> {
    SimConfig::from_json(config_json).map(|_| ()).map_err(value_error)
}

/// What running a resolved scenario would cost, as JSON: `events`, `memory_bytes`, `flows`,
/// `data_packets`, `trace_samples`, `trace_bytes`, the `costs` that make them up (each with
/// the field driving it) and the limits (`max_events`, `max_memory_bytes`,
/// `max_trace_samples`). Types and ranges are checked; the limits are not, so a refused
/// scenario can still be estimated.
#[pyfunction]
fn estimate(config_json: &str) -> PyResult<String> {
    let cfg = SimConfig::parse_json(config_json).map_err(value_error)?;
    cfg.validate_values().map_err(value_error)?;
    serde_json::to_string(&sim::estimate::Estimate::of(&cfg)).map_err(value_error)
}

/// Checks a discipline's configuration (user names, canonical units: durations in integer ns,
/// rates in bit/s, sizes in bytes); returns it resolved (every default filled in) as JSON in
/// the same vocabulary.
#[pyfunction]
fn resolve_qdisc(config_json: &str) -> PyResult<String> {
    aqm::config::resolve_json(config_json).map_err(value_error)
}

/// Every discipline's parameters as JSON: name, kind, doc, range, choices and default per
/// profile (see `aqm::schema`).
#[pyfunction]
fn qdisc_schema() -> String {
    aqm::schema::qdisc_schema_json()
}

/// Expands a TCP profile and applies overrides (a JSON object of TcpConfig fields); returns
/// the resolved, validated configuration as JSON (see `TcpConfig::resolve`).
#[pyfunction]
fn resolve_tcp(profile: &str, overrides_json: &str) -> PyResult<String> {
    let overrides: serde_json::Map<String, serde_json::Value> = serde_json::from_str(overrides_json).map_err(value_error)?;
    let cfg = sim::config::TcpConfig::resolve(profile, &overrides).map_err(value_error)?;
    serde_json::to_string(&cfg).map_err(value_error)
}

/// One-way propagation delay, in ns, of the route through `routers` in a network (its JSON
/// form, see `sim::net::graph::NetworkConfig`) whose bottleneck has `bottleneck_delay_ns`.
#[pyfunction]
fn route_delay(network_json: &str, bottleneck_delay_ns: u64, routers: Vec<String>) -> PyResult<u64> {
    let net: sim::config::NetworkConfig = serde_json::from_str(network_json).map_err(value_error)?;
    net.route_delay(bottleneck_delay_ns, &routers).map_err(value_error)
}

/// Runs a named benchmark scenario (see `sim::bench::NAMES`) at a fraction of its length and
/// returns its figures as JSON.
#[pyfunction(name = "bench")]
#[pyo3(signature = (name, fraction = 1.0))]
fn run_bench(py: Python<'_>, name: &str, fraction: f64) -> PyResult<String> {
    let r = py.detach(|| sim::bench::run_named(name, fraction)).map_err(value_error)?;
    serde_json::to_string(&r).map_err(value_error)
}

/// Runs one process of `aqmlab live` (its router, traffic source or sink; see
/// `live::agent`) in this process, without the GIL; returns its exit code.
#[pyfunction]
fn live_agent(py: Python<'_>, args: Vec<String>) -> i32 {
    py.detach(|| live::agent::main(&args))
}

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<Simulation>()?;
    m.add_function(wrap_pyfunction!(validate, m)?)?;
    m.add_function(wrap_pyfunction!(estimate, m)?)?;
    m.add_function(wrap_pyfunction!(resolve_qdisc, m)?)?;
    m.add_function(wrap_pyfunction!(qdisc_schema, m)?)?;
    m.add_function(wrap_pyfunction!(resolve_tcp, m)?)?;
    m.add_function(wrap_pyfunction!(route_delay, m)?)?;
    m.add("TCP_PROFILES", sim::tcp::params::PROFILES.to_vec())?;
    // The codes of the `drops` and `tcp_event` traces, with their names in results.
    use sim::trace::*;
    let drop_kinds = [
        (EVENT_DROP_OVERFLOW, "overflow"),
        (EVENT_DROP_EARLY, "early"),
        (EVENT_DROP_DEQUEUE, "dequeue"),
        (EVENT_MARK, "mark"),
        (EVENT_DROP_IMPAIRMENT, "impairment"),
    ];
    m.add("DROP_KINDS", drop_kinds.into_iter().collect::<std::collections::BTreeMap<_, _>>())?;
    let tcp_events = [
        (TCP_EVENT_RETRANSMIT, "retransmit"),
        (TCP_EVENT_TIMEOUT, "timeout"),
        (TCP_EVENT_RECOVERY, "recovery"),
        (TCP_EVENT_ECN, "ecn_reduction"),
    ];
    m.add("TCP_EVENT_KINDS", tcp_events.into_iter().collect::<std::collections::BTreeMap<_, _>>())?;
    m.add_function(wrap_pyfunction!(run_bench, m)?)?;
    m.add("BENCH_SCENARIOS", sim::bench::NAMES.to_vec())?;
    m.add_function(wrap_pyfunction!(live_agent, m)?)?;
    m.add_function(wrap_pyfunction!(fluid::fluid_integrate, m)?)?;
    m.add("VERSION", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
