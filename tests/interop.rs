//! Conversions to and from sprs, nalgebra-sparse and ndarray (the facade's features of those
//! names): round trips against literal arrays, the allocations a by-value conversion keeps, and
//! the errors of arrays a tensor cannot hold. CI runs them with
//! `cargo test -p sparse -p sparse-runtime --features sprs,nalgebra-sparse,ndarray`.
#![cfg(any(feature = "sprs", feature = "nalgebra-sparse", feature = "ndarray"))]

use sparse::prelude::*;

/// Row 0: (0,1) = 2, (0,3) = -1; row 1 empty; row 2: (2,0) = 4, (2,2) = 0.5.
fn matrix() -> Tensor<f64, Csr> {
    let entries = [([2, 2], 0.5), ([0, 3], -1.0), ([2, 0], 4.0), ([0, 1], 2.0)];
    Tensor::from_entries([3, 4], entries).unwrap()
}

#[cfg(feature = "sprs")]
mod sprs_matrices {
    use super::*;
    use sparse::sprs::{CsMat, CsMatI};

    #[test]
    fn csr_round_trip_moves_every_array() {
        let a = matrix();
        let moved = a.clone();
        let (crd, vals) = (moved.level(1).crd().as_ptr(), moved.values().as_ptr());
        let m: CsMatI<f64, u32> = moved.try_into().unwrap();
        assert!(m.is_csr());
        assert_eq!(m.indptr().raw_storage(), &[0, 2, 2, 4]);
        assert_eq!(m.indices(), &[1, 3, 0, 2]);
        assert_eq!(m.data(), &[2.0, -1.0, 4.0, 0.5]);
        assert_eq!(m.indices().as_ptr(), crd);
        assert_eq!(m.data().as_ptr(), vals);
        let back = Tensor::<f64, Csr>::try_from(m).unwrap();
        assert_eq!(back.level(1).crd().as_ptr(), crd);
        assert_eq!(back, a);
    }

    #[test]
    fn usize_indices_and_the_other_storage_order_convert() {
        let a = matrix();
        let m: CsMat<f64> = a.clone().try_into().unwrap();
        assert_eq!(m.get(2, 2), Some(&0.5));
        assert_eq!(m.get(1, 1), None);
        // CSR storage into a CSC tensor: sprs transposes the storage first.
        let csc = Tensor::<f64, Csc>::try_from(m).unwrap();
        assert_eq!(csc.level(1).pos(), &[0, 1, 2, 3, 4]);
        assert_eq!(csc.level(1).crd(), &[2, 0, 2, 0]);
        assert_eq!(csc.values(), &[4.0, 2.0, 0.5, -1.0]);
        let m: CsMatI<f64, u32> = csc.try_into().unwrap();
        assert!(m.is_csc());
        assert_eq!(Tensor::<f64, Csr>::try_from(m).unwrap(), a);
    }

    #[test]
    fn empty_and_single_entry_matrices() {
        let empty = Tensor::<f64, Csr>::zeros([0, 3]);
        let m: CsMat<f64> = empty.try_into().unwrap();
        assert_eq!((m.rows(), m.cols(), m.nnz()), (0, 3, 0));
        assert_eq!(Tensor::<f64, Csr>::try_from(m).unwrap().shape(), &[0, 3]);
        let one = CsMat::new((2, 2), vec![0, 0, 1], vec![1], vec![7i64]);
        let t = Tensor::<i64, Csr>::try_from(one).unwrap();
        assert_eq!(t.to_dense(), vec![0, 0, 0, 7]);
    }

    #[test]
    fn a_tensor_whose_fill_is_not_zero_is_refused() {
        let entries = [([0, 1], 2.0)];
        let a = Tensor::<f64, Csr>::from_entries_with_fill([2, 2], entries, f64::INFINITY).unwrap();
        let err = CsMat::<f64>::try_from(a.clone()).unwrap_err();
        assert!(
            matches!(err, FormatError::FillNotZero { target: "sprs", .. }),
            "{err}"
        );
        assert!(err.to_string().contains("fill value is inf"), "{err}");
        let csc: Tensor<f64, Csc> = a.convert().unwrap();
        assert!(CsMatI::<f64, u32>::try_from(csc).is_err());
    }

    #[test]
    fn an_index_past_u32_is_an_error() {
        let wide = CsMat::new((1, 1usize << 33), vec![0, 1], vec![1usize << 32], vec![1.0]);
        let err = Tensor::<f64, Csr>::try_from(wide).unwrap_err();
        assert!(matches!(err, FormatError::TooLarge { .. }), "{err}");
        let narrow: Result<CsMatI<f64, u16>, _> =
            Tensor::<f64, Csr>::from_entries([1, 70_000], [([0, 69_999], 1.0)])
                .unwrap()
                .try_into();
        assert!(matches!(narrow, Err(FormatError::Unrepresentable { .. })));
    }
}

#[cfg(feature = "nalgebra-sparse")]
mod nalgebra_matrices {
    use super::*;
    use sparse::nalgebra_sparse::{CooMatrix, CscMatrix, CsrMatrix};

    #[test]
    fn csr_and_csc_round_trips() {
        let a = matrix();
        let moved = a.clone();
        let vals = moved.values().as_ptr();
        let m = CsrMatrix::try_from(moved).unwrap();
        assert_eq!(m.row_offsets(), &[0, 2, 2, 4]);
        assert_eq!(m.col_indices(), &[1, 3, 0, 2]);
        assert_eq!(m.values(), &[2.0, -1.0, 4.0, 0.5]);
        assert_eq!(m.values().as_ptr(), vals);
        assert_eq!(Tensor::<f64, Csr>::try_from(m).unwrap(), a);

        let c: Tensor<f64, Csc> = a.convert().unwrap();
        let m = CscMatrix::try_from(c.clone()).unwrap();
        assert_eq!(m.col_offsets(), &[0, 1, 2, 3, 4]);
        assert_eq!(m.row_indices(), &[2, 0, 2, 0]);
        assert_eq!(m.values(), &[4.0, 2.0, 0.5, -1.0]);
        assert_eq!(Tensor::<f64, Csc>::try_from(m).unwrap(), c);
    }

    #[test]
    fn coo_triplets_with_duplicates_pack_into_any_format() {
        let coo = CooMatrix::try_from_triplets(
            3,
            2,
            vec![2, 0, 2, 1],
            vec![1, 0, 1, 1],
            vec![1, 5, 2, 0],
        )
        .unwrap();
        let t = Tensor::<i32, Csr>::try_from(coo.clone()).unwrap();
        assert_eq!(t.to_dense(), vec![5, 0, 0, 0, 0, 3]);
        assert_eq!(t.nnz(), 3); // the explicit zero at (1, 1) is kept, as the matrix stores it
        let ell = Tensor::<i32, Ell>::try_from(coo).unwrap();
        assert_eq!(ell.to_dense(), t.to_dense());
        let back = CooMatrix::try_from(t.convert::<Coo<2>>().unwrap()).unwrap();
        let triplets: Vec<_> = back.triplet_iter().map(|(i, j, &v)| (i, j, v)).collect();
        assert_eq!(triplets, vec![(0, 0, 5), (1, 1, 0), (2, 1, 3)]);
    }

    #[test]
    fn a_tensor_whose_fill_is_not_zero_is_refused() {
        let entries = [([0, 1], 2.0)];
        let a = Tensor::<f64, Csr>::from_entries_with_fill([2, 2], entries, -1.0).unwrap();
        let err = CsrMatrix::try_from(a.clone()).unwrap_err();
        assert!(matches!(
            err,
            FormatError::FillNotZero {
                target: "nalgebra-sparse",
                ..
            }
        ));
        assert!(CscMatrix::try_from(a.convert::<Csc>().unwrap()).is_err());
        assert!(CooMatrix::try_from(a.convert::<Coo<2>>().unwrap()).is_err());
    }

    #[test]
    fn empty_matrices() {
        let m = CsrMatrix::<f64>::zeros(2, 0);
        let t = Tensor::<f64, Csr>::try_from(m).unwrap();
        assert_eq!((t.shape(), t.nnz()), (&[2, 0][..], 0));
        let coo = CooMatrix::try_from(Tensor::<f64, Coo<2>>::zeros([4, 4])).unwrap();
        assert_eq!((coo.nrows(), coo.nnz()), (4, 0));
    }
}

#[cfg(feature = "ndarray")]
mod ndarray_arrays {
    use super::*;
    use sparse::ndarray::{Array1, Array2, ArrayD, IxDyn, s};

    #[test]
    fn dense_round_trip_keeps_the_allocation() {
        let a = ArrayD::from_shape_vec(IxDyn(&[2, 3]), vec![1.0, 0.0, 2.0, 0.0, 3.0, 0.0]).unwrap();
        let address = a.as_ptr();
        let t = Tensor::<f64, DenseMat>::try_from(a).unwrap();
        assert_eq!(t.values().as_ptr(), address);
        assert_eq!(t.get(&[0, 2]), Some(2.0));
        let back = ArrayD::try_from(t.clone()).unwrap();
        assert_eq!(back.shape(), &[2, 3]);
        let back = Array2::try_from(t).unwrap();
        assert_eq!(back.as_ptr(), address);
        assert_eq!(back[[1, 1]], 3.0);
        assert_eq!(back.as_slice().unwrap(), &[1.0, 0.0, 2.0, 0.0, 3.0, 0.0]);
    }

    #[test]
    fn a_dense_tensor_with_a_fill_gives_its_values_fill_included() {
        let inf = f64::INFINITY;
        let t = Tensor::<f64, DenseVec>::from_entries_with_fill([3], [([1], 2.0)], inf).unwrap();
        let a = Array1::try_from(t).unwrap();
        assert_eq!(a.as_slice().unwrap(), &[inf, 2.0, inf]);
    }

    #[test]
    fn other_layouts_are_copied_in_row_major_order() {
        let a = ArrayD::from_shape_vec(IxDyn(&[2, 3]), (0..6).map(f64::from).collect()).unwrap();
        let t = Tensor::<f64, DenseMat>::try_from(a.t().to_owned()).unwrap();
        assert_eq!(t.shape(), &[3, 2]);
        assert_eq!(t.to_dense(), vec![0.0, 3.0, 1.0, 4.0, 2.0, 5.0]);
        let rows = a.slice_move(s![1.., ..]);
        let t = Tensor::<f64, DenseMat>::try_from(rows).unwrap();
        assert_eq!(t.to_dense(), vec![3.0, 4.0, 5.0]);
    }

    #[test]
    fn the_order_must_match() {
        let a = ArrayD::<f64>::zeros(IxDyn(&[2, 2, 2]));
        let err = Tensor::<f64, DenseMat>::try_from(a).unwrap_err();
        assert_eq!(
            err,
            FormatError::OrderMismatch {
                expected: 2,
                found: 3
            }
        );
        let matrix = Tensor::<f64, DenseMat>::zeros([2, 2]);
        let err = Array1::try_from(matrix).unwrap_err();
        assert_eq!(
            err,
            FormatError::OrderMismatch {
                expected: 1,
                found: 2
            }
        );
        let empty = ArrayD::<i64>::zeros(IxDyn(&[0]));
        let t = Tensor::<i64, DenseVec>::try_from(empty).unwrap();
        assert_eq!(t.shape(), &[0]);
    }
}
