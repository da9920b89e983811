//! Arbitrary configurations and traffic for `dualpi2`: see `aqm::harness::fuzz`.
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| aqm::harness::fuzz("dualpi2", data));
