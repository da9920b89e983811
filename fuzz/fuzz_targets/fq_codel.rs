//! Arbitrary configurations and traffic for `fq_codel`: see `aqm::harness::fuzz`.
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| aqm::harness::fuzz("fq_codel", data));
