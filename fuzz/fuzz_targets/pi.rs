//! Arbitrary configurations and traffic for `pi`: see `aqm::harness::fuzz`.
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| aqm::harness::fuzz("pi", data));
