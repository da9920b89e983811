//! Arbitrary configurations and traffic for `pvpie`: see `aqm::harness::fuzz`.
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| aqm::harness::fuzz("pvpie", data));
