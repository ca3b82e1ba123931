//! Feeds arbitrary bytes to the Matrix Market reader. Beyond "no panic, no overflow, no unbounded
//! allocation", it checks that parsing and reading agree: a file that parses reads into CSR, and a
//! file that does not gives the same error (line and message) either way.

#![no_main]

use libfuzzer_sys::fuzz_target;
use sparse_runtime::Csr;
use sparse_runtime::io::{parse_matrix_market, read_matrix_market};

/// Matrices with more rows than this are parsed but not packed: CSR stores a row pointer per row,
/// 16 GB for the 4-billion-row matrix a three-line file may declare. That allocation is right for
/// a real matrix of that size, but beyond the fuzzer's memory limit.
const PACK_ROWS_LIMIT: usize = 1 << 20;

fuzz_target!(|data: &[u8]| {
    let _ = parse_matrix_market::<i64>(data).map_err(|e| e.to_string());
    match parse_matrix_market::<f64>(data) {
        Ok((header, entries)) => {
            assert_eq!(entries.shape(), &[header.rows, header.cols]);
            if header.rows <= PACK_ROWS_LIMIT {
                let tensor = read_matrix_market::<f64, Csr>(data);
                let tensor = tensor.expect("a file that parses must read into CSR");
                assert!(tensor.nnz() <= entries.len());
            }
        }
        Err(parse_error) => {
            let read_error = read_matrix_market::<f64, Csr>(data)
                .expect_err("a file that does not parse must not read");
            assert_eq!(parse_error.line(), read_error.line());
            assert_eq!(parse_error.to_string(), read_error.to_string());
        }
    }
});
