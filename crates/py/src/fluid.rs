//! `aqmlab._core.fluid_integrate`: the compiled fluid-model integrator (crate `fluid`) for
//! `aqmlab.analysis.fluid`, which validates and resolves the arguments first.

use std::collections::HashMap;

use numpy::{IntoPyArray, PyArrayMethods, PyReadonlyArray1};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyDict;

use fluid::{Aqm, Event, Kind, Model};

type Column<'py> = PyReadonlyArray1<'py, f64>;

fn vector(a: &Column<'_>) -> Vec<f64> {
    a.as_array().to_vec()
}

fn events(list: Vec<(f64, Column<'_>)>) -> Vec<Event> {
    list.into_iter()
        .map(|(t, v)| Event {
            t,
            values: vector(&v),
        })
        .collect()
}

fn aqm(
    kind: &str,
    p: &HashMap<String, Column<'_>>,
    autotune: Vec<(f64, f64)>,
    gentle: bool,
) -> PyResult<Aqm> {
    let law = Kind::from_name(kind).ok_or_else(|| {
        PyValueError::new_err(format!(
            "aqm must be one of pie, pi2, pi, p, red, droptail, got {kind:?}"
        ))
    })?;
    let params = law
        .parameters()
        .iter()
        .map(|name| {
            p.get(*name)
                .map(vector)
                .ok_or_else(|| PyValueError::new_err(format!("aqm {kind} needs {name}")))
        })
        .collect::<PyResult<_>>()?;
    Ok(Aqm {
        kind: law,
        params,
        autotune,
        gentle,
    })
}

/// Integrates a resolved batch (see `aqmlab.analysis.fluid.simulate`) without the GIL, on one
/// thread per processor; returns the series W, q, p, queue_delay, rtt, capacity, n_flows as
/// (batch, records) arrays.
#[pyfunction]
#[allow(clippy::too_many_arguments)]
#[pyo3(signature = (kind, params, autotune, gentle, capacity, n_flows, tp, buffer, max_window,
                    capacity_events, flows_events, dt, n_steps, record_stride, history_len))]
pub fn fluid_integrate<'py>(
    py: Python<'py>,
    kind: &str,
    params: HashMap<String, Column<'py>>,
    autotune: Vec<(f64, f64)>,
    gentle: bool,
    capacity: Column<'py>,
    n_flows: Column<'py>,
    tp: Column<'py>,
    buffer: Column<'py>,
    max_window: Column<'py>,
    capacity_events: Vec<(f64, Column<'py>)>,
    flows_events: Vec<(f64, Column<'py>)>,
    dt: f64,
    n_steps: usize,
    record_stride: usize,
    history_len: usize,
) -> PyResult<Bound<'py, PyDict>> {
    let model = Model {
        capacity: vector(&capacity),
        n_flows: vector(&n_flows),
        tp: vector(&tp),
        buffer: vector(&buffer),
        max_window: vector(&max_window),
        capacity_events: events(capacity_events),
        flows_events: events(flows_events),
        aqm: aqm(kind, &params, autotune, gentle)?,
        dt,
        n_steps,
        record_stride,
        history_len,
    };
    model.check().map_err(PyValueError::new_err)?;
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let s = py.detach(|| model.integrate(threads));
    let shape = [s.size, s.n_records];
    let out = PyDict::new(py);
    for (name, v) in [
        ("W", s.w),
        ("q", s.q),
        ("p", s.p),
        ("queue_delay", s.queue_delay),
        ("rtt", s.rtt),
        ("capacity", s.capacity),
        ("n_flows", s.n_flows),
    ] {
        out.set_item(name, v.into_pyarray(py).reshape(shape)?)?;
    }
    Ok(out)
}
