//! Feeds arbitrary bytes to the FROSTT `.tns` reader, with and without a given shape. Beyond "no
//! panic, no overflow, no unbounded allocation", it checks that parsing and reading agree: an
//! order-3 file that parses reads into CSF, and a file that does not gives the same error.

#![no_main]

use libfuzzer_sys::fuzz_target;
use sparse_runtime::Csf;
use sparse_runtime::io::{parse_tns, read_tns};

fuzz_target!(|data: &[u8]| {
    let _ = parse_tns::<i32>(data, Some(&[3, 5, 2])).map_err(|e| e.to_string());
    match parse_tns::<f64>(data, None) {
        Ok(entries) => {
            assert!(!entries.shape().is_empty());
            assert!(
                entries
                    .shape()
                    .iter()
                    .all(|&n| n > 0 && n <= u32::MAX as usize)
            );
            let read = read_tns::<f64, Csf<3>>(data, None);
            if entries.shape().len() == 3 {
                let tensor = read.expect("an order-3 file that parses must read into CSF");
                assert!(tensor.nnz() <= entries.len());
            } else {
                assert!(read.is_err());
            }
        }
        Err(parse_error) => {
            let read_error = read_tns::<f64, Csf<3>>(data, None)
                .expect_err("a file that does not parse must not read");
            assert_eq!(parse_error.line(), read_error.line());
            assert_eq!(parse_error.to_string(), read_error.to_string());
        }
    }
});
