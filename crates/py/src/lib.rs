//! `aqmlab._core`: the compiled half of the Python package.
//!
//! The Python side validates and resolves a scenario, then hands this module its JSON form.
//! A run advances in chunks (`run_until`) with the GIL released, so Python can draw a progress
//! bar and honour Ctrl-C between chunks. Traces come back as numpy arrays, never as
//! per-packet Python objects.

use numpy::{IntoPyArray, PyArray1};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyDict;

use sim::config::SimConfig;

fn value_error(e: impl std::fmt::Display) -> PyErr {
    PyValueError::new_err(e.to_string())
}

fn array<'py, T: numpy::Element + Clone>(py: Python<'py>, v: &[T]) -> Bound<'py, PyArray1<T>> {
    v.to_vec().into_pyarray(py)
}

/// One simulation run, created from a resolved scenario in JSON.
#[pyclass(module = "aqmlab._core")]
struct Simulation {
    inner: sim::Simulation,
}

#[pymethods]
impl Simulation {
    #[new]
    fn new(config_json: &str) -> PyResult<Self> {
        let cfg: SimConfig = serde_json::from_str(config_json).map_err(value_error)?;
        Ok(Simulation { inner: sim::Simulation::new(cfg).map_err(value_error)? })
    }

    /// Runs every event up to `t_ns` (capped at the duration), without holding the GIL.
    fn run_until(&mut self, py: Python<'_>, t_ns: u64) {
        let inner = &mut self.inner;
        py.detach(|| inner.run_until(t_ns));
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

    /// The summary of the run so far, as JSON.
    fn summary_json(&self) -> String {
        serde_json::to_string(&self.inner.summary()).expect("summary serializes")
    }

    /// The recorded traces as numpy arrays (matrices flattened row-major).
    fn traces<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let t = &self.inner.traces;
        let d = PyDict::new(py);
        d.set_item("sample_t_ns", array(py, &t.sample_t))?;
        d.set_item("queue_bytes", array(py, &t.queue_bytes))?;
        d.set_item("queue_packets", array(py, &t.queue_packets))?;
        d.set_item("queue_delay_ns", array(py, &t.queue_delay_ns))?;
        d.set_item("link_rate_bps", array(py, &t.link_rate_bps))?;
        d.set_item("sojourn_t_ns", array(py, &t.sojourn_t))?;
        d.set_item("sojourn_ns", array(py, &t.sojourn_ns))?;
        d.set_item("sojourn_flow", array(py, &t.sojourn_flow))?;
        d.set_item("flow_bytes", array(py, &t.flow_bytes))?;
        d.set_item("drop_t_ns", array(py, &t.drop_t))?;
        d.set_item("drop_flow", array(py, &t.drop_flow))?;
        d.set_item("drop_kind", array(py, &t.drop_kind))?;
        d.set_item("drop_link", array(py, &t.drop_link))?;
        d.set_item("probe_names", t.probe_names.clone())?;
        d.set_item("probe", array(py, &t.probe))?;
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
        let (mut lo, mut w, mut c) = (Vec::new(), Vec::new(), Vec::new());
        for (l, width, n) in self.inner.delay_hist.buckets() {
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

    /// Names of the links, by id (0 is the bottleneck, 1 its reverse direction).
    fn link_names(&self) -> Vec<String> {
        self.inner.links.iter().map(|l| l.name.clone()).collect()
    }
}

/// Checks a discipline's configuration; returns it resolved (every default filled in) as JSON.
#[pyfunction]
fn resolve_qdisc(config_json: &str) -> PyResult<String> {
    let q: aqm::QdiscConfig = serde_json::from_str(config_json).map_err(value_error)?;
    q.validate().map_err(value_error)?;
    serde_json::to_string(&q.resolved()).map_err(value_error)
}

/// Expands a TCP profile and applies overrides (a JSON object of TcpConfig fields); returns
/// the resolved, validated configuration as JSON.
#[pyfunction]
fn resolve_tcp(profile: &str, overrides_json: &str) -> PyResult<String> {
    let base = sim::config::TcpConfig::profile(profile).ok_or_else(|| {
        value_error(format!("profile: unknown TCP profile '{profile}' (accepted: {})", sim::tcp::params::PROFILES.join(", ")))
    })?;
    let mut v = serde_json::to_value(&base).map_err(value_error)?;
    let overrides: serde_json::Map<String, serde_json::Value> = serde_json::from_str(overrides_json).map_err(value_error)?;
    let obj = v.as_object_mut().expect("TcpConfig is an object");
    for (k, val) in overrides {
        if !obj.contains_key(&k) {
            return Err(value_error(format!("{k}: unknown TCP setting (accepted: {})", obj.keys().cloned().collect::<Vec<_>>().join(", "))));
        }
        obj.insert(k, val);
    }
    let cfg: sim::config::TcpConfig = serde_json::from_value(v).map_err(value_error)?;
    cfg.validate().map_err(value_error)?;
    serde_json::to_string(&cfg).map_err(value_error)
}

/// Runs a named benchmark scenario (see `sim::bench::NAMES`) at a fraction of its length and
/// returns its figures as JSON.
#[pyfunction(name = "bench")]
#[pyo3(signature = (name, fraction = 1.0))]
fn run_bench(py: Python<'_>, name: &str, fraction: f64) -> PyResult<String> {
    let r = py.detach(|| sim::bench::run_named(name, fraction)).map_err(value_error)?;
    serde_json::to_string(&r).map_err(value_error)
}

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<Simulation>()?;
    m.add_function(wrap_pyfunction!(resolve_qdisc, m)?)?;
    m.add_function(wrap_pyfunction!(resolve_tcp, m)?)?;
    m.add("TCP_PROFILES", sim::tcp::params::PROFILES.to_vec())?;
    m.add_function(wrap_pyfunction!(run_bench, m)?)?;
    m.add("BENCH_SCENARIOS", sim::bench::NAMES.to_vec())?;
    m.add("VERSION", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
