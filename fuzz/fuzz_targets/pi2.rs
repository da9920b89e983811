//! Arbitrary configurations and traffic for `pi2`: see `aqm::harness::fuzz`.
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| aqm::harness::fuzz("pi2", data));
