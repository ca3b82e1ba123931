//! The CUDA printer's intrinsic calls, run: a GPU kernel built directly in the imperative IR,
//! `y(i) = f(x(i))` for each intrinsic, printed by `emit::cuda`, compiled by NVRTC where it is
//! found, and launched on the device or the host simulator, against the same function computed on
//! the host. (`tests/gpu_operators.rs` writes them in the kernel language.)

use sparse::gpu::{Gpu, KernelArg, LaunchShape};
use sparse::prelude::*;
use sparse_compiler::emit::cuda::{Arg, cuda_source};
use sparse_compiler::format::FormatType;
use sparse_compiler::ir::{
    Array, BinOp, Expr, Intrinsic, Kernel, Literal, OutputAccess, Param, Region, ShapeCheck, Stmt,
    Type, Unit, Var,
};

const THREADS: usize = 64;

fn var(name: &str) -> Expr {
    Expr::Var(Var(name.into()))
}

fn bin(op: BinOp, a: Expr, b: Expr) -> Expr {
    Expr::Binary(op, Box::new(a), Box::new(b))
}

fn region(unit: Unit, name: &str, hi: Expr, body: Vec<Stmt>) -> Stmt {
    Stmt::Parallel(Region {
        unit,
        var: Var(name.into()),
        lo: Expr::Index(0),
        hi,
        body,
        output: OutputAccess::Scattered,
        reductions: Vec::new(),
        units: (unit == Unit::GpuThread).then_some(THREADS),
        work: None,
    })
}

/// `y(i) = f(x(i)[, 2])` over blocks of 64 threads.
fn kernel(f: Intrinsic) -> Kernel {
    let n = Expr::Dim { param: 0, dim: 0 };
    let x = Expr::Load(Array::Vals { param: 1 }, Box::new(var("__i")));
    let args = match f.arity() {
        1 => vec![x],
        _ => vec![x, Expr::Value(Literal::Int(2))],
    };
    let i = bin(
        BinOp::Add,
        bin(BinOp::Mul, var("__b"), Expr::Index(THREADS)),
        var("__t"),
    );
    let body = vec![
        Stmt::Let {
            var: Var("__i".into()),
            ty: Type::Index,
            init: i,
            mutable: false,
        },
        Stmt::store(
            Array::Vals { param: 0 },
            var("__i"),
            Expr::Call(f, args),
            false,
        ),
    ];
    let left = bin(
        BinOp::Sub,
        n.clone(),
        bin(BinOp::Mul, var("__b"), Expr::Index(THREADS)),
    );
    let threads = region(
        Unit::GpuThread,
        "__t",
        bin(BinOp::Min, Expr::Index(THREADS), left),
        body,
    );
    let blocks = bin(
        BinOp::Div,
        bin(BinOp::Add, n, Expr::Index(THREADS - 1)),
        Expr::Index(THREADS),
    );
    let dense = |name: &str, output| Param {
        name: name.into(),
        output,
        order: 1,
        format: FormatType::Named {
            type_name: "Dense",
            type_args: vec![1],
        },
        convert_to: None,
        by_value: false,
        copy_of: None,
        fill: Literal::Int(0),
    };
    Kernel {
        name: format!("apply_{}", f.name()),
        params: vec![dense("y", true), dense("x", false)],
        signature: vec![0, 1],
        shape_checks: vec![ShapeCheck {
            index: "i".into(),
            dims: vec![(0, 0), (1, 0)],
        }],
        body: vec![region(Unit::GpuBlock, "__b", blocks, vec![threads])],
        combine: None,
    }
}

/// Whether an environment variable asks for a failure instead of a skip (set, not empty, not `0`).
fn required(var: &str) -> bool {
    std::env::var(var).is_ok_and(|v| !v.is_empty() && v != "0")
}

/// Every intrinsic of the IR.
const INTRINSICS: [Intrinsic; 30] = [
    Intrinsic::Sqrt,
    Intrinsic::Abs,
    Intrinsic::Square,
    Intrinsic::Cube,
    Intrinsic::Cbrt,
    Intrinsic::Exp,
    Intrinsic::Log,
    Intrinsic::Log10,
    Intrinsic::Sin,
    Intrinsic::Cos,
    Intrinsic::Tan,
    Intrinsic::Asin,
    Intrinsic::Acos,
    Intrinsic::Atan,
    Intrinsic::Sinh,
    Intrinsic::Cosh,
    Intrinsic::Tanh,
    Intrinsic::Asinh,
    Intrinsic::Acosh,
    Intrinsic::Atanh,
    Intrinsic::Pow,
    Intrinsic::Atan2,
    Intrinsic::Min,
    Intrinsic::Max,
    Intrinsic::Heaviside,
    Intrinsic::Remainder,
    Intrinsic::ToF64,
    Intrinsic::ToF32,
    Intrinsic::ToI64,
    Intrinsic::ToI32,
];

/// `f(x)`, or `f(x, 2)` for the functions of two arguments, as Rust computes it.
fn host(f: Intrinsic, x: f64) -> f64 {
    match f {
        Intrinsic::Sqrt => x.sqrt(),
        Intrinsic::Abs => x.abs(),
        Intrinsic::Square => x * x,
        Intrinsic::Cube => x * x * x,
        Intrinsic::Cbrt => x.cbrt(),
        Intrinsic::Exp => x.exp(),
        Intrinsic::Log => x.ln(),
        Intrinsic::Log10 => x.log10(),
        Intrinsic::Sin => x.sin(),
        Intrinsic::Cos => x.cos(),
        Intrinsic::Tan => x.tan(),
        Intrinsic::Asin => x.asin(),
        Intrinsic::Acos => x.acos(),
        Intrinsic::Atan => x.atan(),
        Intrinsic::Sinh => x.sinh(),
        Intrinsic::Cosh => x.cosh(),
        Intrinsic::Tanh => x.tanh(),
        Intrinsic::Asinh => x.asinh(),
        Intrinsic::Acosh => x.acosh(),
        Intrinsic::Atanh => x.atanh(),
        Intrinsic::Pow => x.powf(2.0),
        Intrinsic::Atan2 => x.atan2(2.0),
        Intrinsic::Min => x.min(2.0),
        Intrinsic::Max => x.max(2.0),
        Intrinsic::Heaviside if x > 0.0 => 1.0,
        Intrinsic::Heaviside if x == 0.0 => 2.0,
        Intrinsic::Heaviside => 0.0,
        Intrinsic::Remainder => x % 2.0,
        Intrinsic::ToF64 => x,
        Intrinsic::ToF32 => x as f32 as f64,
        Intrinsic::ToI64 => x as i64 as f64,
        Intrinsic::ToI32 => x as i32 as f64,
    }
}

#[test]
fn every_intrinsic_runs_as_the_host_computes_it() {
    let gpu = match Gpu::for_tests() {
        Ok(gpu) => gpu,
        Err(e)
            if e.is_unavailable()
                && !required("SPARSE_REQUIRE_SIMULATOR")
                && !required("SPARSE_REQUIRE_GPU") =>
        {
            eprintln!("skipped: {e}");
            return;
        }
        Err(e) => panic!("{e}"),
    };
    let n = 150;
    let xs: Vec<f64> = (0..n).map(|k| (k as f64 - 40.0) / 8.0).collect();
    let x = gpu
        .upload(&Tensor::<f64, DenseVec>::from_dense([n], &xs).unwrap())
        .unwrap();
    for f in INTRINSICS {
        let source = cuda_source(&kernel(f)).unwrap();
        let y = gpu.zeros::<f64, DenseVec>([n]).unwrap();
        let args: Vec<KernelArg> = (source.args.iter())
            .map(|arg| match arg {
                Arg::Dim(..) => KernelArg::from(n as u32),
                Arg::Array(Array::Vals { param: 1 }) => KernelArg::from(x.values_array()),
                Arg::Array(Array::Vals { param: 0 }) => KernelArg::from(y.values_array()),
                other => panic!("{other:?}"),
            })
            .collect();
        let text = format!(
            "typedef double T;\ntypedef unsigned int idx_t;\n{}",
            source.text
        );
        match sparse::gpu::compile_ptx(&text, &source.entry, "sm_90") {
            Ok(ptx) => assert!(ptx.contains(&source.entry)),
            Err(e) if e.is_unavailable() && !required("SPARSE_REQUIRE_NVRTC") => {}
            Err(e) => panic!("{}: {e}", f.name()),
        }
        let shape = LaunchShape::linear(n.div_ceil(THREADS) as u32, THREADS as u32);
        gpu.launch(&text, &source.entry, shape, &args).unwrap();
        let found = y.download().unwrap().to_dense();
        for (k, (&got, &x)) in found.iter().zip(&xs).enumerate() {
            let want = host(f, x);
            let same = got == want
                || (got - want).abs() <= 1e-12 * want.abs().max(1.0)
                || (got.is_nan() && want.is_nan());
            assert!(same, "{}({x}) at {k}: {got} != {want}", f.name());
        }
    }
}
