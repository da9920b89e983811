//! The simulator's integration tests, one module per subject, built as a single test binary:
//! in the release profile every test binary links the whole simulator through (thin) LTO, so
//! sixteen binaries cost sixteen optimizations of the same crates, one costs one.
//! `cargo test --workspace --exclude aqmlab-aqm-bench --release --test sim MODULE::` runs one
//! module (with scripts/test.sh's selection of packages, so that nothing is compiled again).

#[path = "../common/mod.rs"]
mod common;

mod device;
mod fingerprints;
mod flow_table;
mod hystart;
mod invariants;
mod ledbat;
mod limits;
mod per_link;
mod physics;
mod ppv;
mod prague;
mod rack;
mod rtt_bias;
mod tcp_sizes;
mod tcp_theory;
mod topology;
mod topology_pin;
mod window;

/// The layout this binary relies on: every integration test is a module here (a file beside
/// `tests/sim/` would be a binary of its own, with its own LTO link), and builds its simulations
/// through `common::simulation`, which makes invariant violations fail the run.
#[test]
fn every_integration_test_is_a_strict_module_of_this_binary() {
    use std::path::Path;

    let tests = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests");
    let rust_files = |dir: &Path| -> Vec<std::path::PathBuf> {
        let mut v: Vec<_> = std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().path()).filter(|p| p.extension().is_some_and(|x| x == "rs")).collect();
        v.sort();
        v
    };
    let stray = rust_files(&tests);
    assert!(stray.is_empty(), "{stray:?}: move into tests/sim/ and declare as a module in tests/sim/main.rs");
    let main = include_str!("main.rs");
    for path in rust_files(&tests.join("sim")) {
        let name = path.file_stem().unwrap().to_str().unwrap();
        if name == "main" {
            continue;
        }
        assert!(main.contains(&format!("\nmod {name};")), "tests/sim/{name}.rs is not declared in tests/sim/main.rs");
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(!text.contains(&format!("{}::new(", "Simulation")), "tests/sim/{name}.rs: build simulations with common::simulation (strict invariants)");
    }
}
