//! Arbitrary configurations and traffic for `ppv`: see `aqm::harness::fuzz`.
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| aqm::harness::fuzz("ppv", data));
