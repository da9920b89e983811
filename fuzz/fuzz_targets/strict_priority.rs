//! Arbitrary configurations and traffic for `strict_priority`: see `aqm::harness::fuzz`.
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| aqm::harness::fuzz("strict_priority", data));
