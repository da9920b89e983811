//! Arbitrary configurations and traffic for `drop_tail`: see `aqm::harness::fuzz`.
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| aqm::harness::fuzz("drop_tail", data));
