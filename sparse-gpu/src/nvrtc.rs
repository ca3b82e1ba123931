//! NVRTC, CUDA's run-time compiler, opened with `dlopen` the first time it is needed, so that
//! nothing links it: a machine without it gets [`GpuError::Unavailable`], never a load failure or
//! a panic. It needs no GPU, so CUDA sources can be checked on any machine that has the library.
//!
//! Where the library is looked for, in order (the first that opens is used for the whole process):
//!
//! 1. `SPARSE_NVRTC_PATH`, when set and not empty: a library file, or a folder holding one. Only
//!    that place is tried, so a wrong setting is reported rather than silently passed over.
//! 2. `libnvrtc.so.13`, `libnvrtc.so.12`, `libnvrtc.so` by name, as the dynamic loader finds them
//!    (`LD_LIBRARY_PATH`, the `ldconfig` cache).
//! 3. The `lib64` (and `targets/x86_64-linux/lib`) folders of `CUDA_PATH`, `CUDA_HOME`, `CUDA_ROOT`,
//!    `/usr/local/cuda`, `/usr/local/cuda-*` and `/opt/cuda`.
//! 4. A pip-installed wheel: `nvidia/cu13/lib` (`nvidia-cuda-nvrtc` 13.x) or
//!    `nvidia/cuda_nvrtc/lib` (12.x) under the site-packages folders of `VIRTUAL_ENV`,
//!    `CONDA_PREFIX`, `PYTHONPATH`, the Python installations found through `PATH`, `~/.local`,
//!    `~/.pyenv/versions/*`, `/usr/local`, `/usr` and `/opt/conda`.
//!
//! The PTX that NVRTC writes carries its own PTX ISA version, which a driver older than the NVRTC
//! refuses: launches therefore compile to a cubin for the device's exact architecture (`sm_XY`),
//! which the driver loads without translating PTX. CI pins NVRTC 13.0.x for a CUDA 13.0 driver.

// This module calls into a C library opened at run time: each `unsafe` block below states the
// invariant that makes its call sound.
#![allow(unsafe_code)]

use std::collections::HashSet;
use std::ffi::{CStr, CString, OsString, c_char, c_int};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use libloading::Library;

use crate::GpuError;

/// The library names tried, newest first.
pub const LIBRARY_NAMES: [&str; 3] = ["libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so"];

/// `nvrtcProgram`: an opaque handle.
type Program = *mut std::ffi::c_void;
/// `nvrtcResult`: 0 is success.
type Status = c_int;

type CreateFn = unsafe extern "C" fn(
    *mut Program,
    *const c_char,
    *const c_char,
    c_int,
    *const *const c_char,
    *const *const c_char,
) -> Status;
type DestroyFn = unsafe extern "C" fn(*mut Program) -> Status;
type CompileFn = unsafe extern "C" fn(Program, c_int, *const *const c_char) -> Status;
type SizeFn = unsafe extern "C" fn(Program, *mut usize) -> Status;
type GetFn = unsafe extern "C" fn(Program, *mut c_char) -> Status;
type ErrorStringFn = unsafe extern "C" fn(Status) -> *const c_char;
type VersionFn = unsafe extern "C" fn(*mut c_int, *mut c_int) -> Status;

/// An opened NVRTC: the library and the entry points this crate calls.
struct Nvrtc {
    path: String,
    version: (i32, i32),
    create: CreateFn,
    destroy: DestroyFn,
    compile: CompileFn,
    log_size: SizeFn,
    log: GetFn,
    ptx_size: SizeFn,
    ptx: GetFn,
    cubin_size: SizeFn,
    cubin: GetFn,
    error_string: ErrorStringFn,
    // Last, and never dropped while the function pointers above are reachable: the value lives
    // in a `static`, so the libraries stay mapped for the rest of the process.
    _library: Library,
    _builtins: Option<Library>,
}

static NVRTC: OnceLock<Result<Nvrtc, String>> = OnceLock::new();

fn nvrtc() -> Result<&'static Nvrtc, GpuError> {
    NVRTC
        .get_or_init(|| {
            let explicit = std::env::var_os("SPARSE_NVRTC_PATH").is_some_and(|v| !v.is_empty());
            open(&candidates(), explicit)
        })
        .as_ref()
        .map_err(|why| GpuError::Unavailable(why.clone()))
}

/// NVRTC's version and the file it was opened from, or why it could not be opened.
pub fn nvrtc_version() -> Result<(i32, i32, String), GpuError> {
    let n = nvrtc()?;
    Ok((n.version.0, n.version.1, n.path.clone()))
}

/// Compiles CUDA C `source` to PTX for `arch` (`"compute_90"`, `"sm_90"` and `"90"` all mean
/// compute capability 9.0; the PTX is for the virtual architecture `compute_XY`). `program` names
/// the source in NVRTC's messages. Needs NVRTC, not a GPU.
///
/// ```no_run
/// let src = r#"extern "C" __global__ void twice(float *x, int n) {
///     int i = blockIdx.x * blockDim.x + threadIdx.x;
///     if (i < n) x[i] *= 2.0f;
/// }"#;
/// let ptx = sparse_gpu::compile_ptx(src, "twice.cu", "compute_90")?;
/// assert!(ptx.contains(".entry twice"));
/// # Ok::<(), sparse_gpu::GpuError>(())
/// ```
pub fn compile_ptx(source: &str, program: &str, arch: &str) -> Result<String, GpuError> {
    let xy = parse_arch(arch)?;
    let [ptx] = compile(source, program, &format!("compute_{xy}"), [Output::Ptx])?;
    Ok(text(&ptx))
}

/// PTX or a log as text: NVRTC ends them with a NUL.
fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes.split(|&b| b == 0).next().unwrap_or(&[])).into_owned()
}

/// Compiles CUDA C `source` to a cubin (machine code) for exactly `arch` (`"sm_90"`, `"90"`, or
/// `"compute_90"`, all read as `sm_90`): what launches load, since a driver older than the NVRTC
/// loads its cubin but not its PTX. Needs NVRTC, not a GPU.
pub fn compile_cubin(source: &str, program: &str, arch: &str) -> Result<Vec<u8>, GpuError> {
    let xy = parse_arch(arch)?;
    let [cubin] = compile(source, program, &format!("sm_{xy}"), [Output::Cubin])?;
    Ok(cubin)
}

/// What a launch loads: the cubin for exactly `arch`, and the PTX of the same compilation, whose
/// `.entry` declarations give each kernel's parameter sizes.
#[cfg_attr(not(feature = "cuda"), allow(dead_code))]
pub(crate) fn compile_for_launch(source: &str, arch: &str) -> Result<(Vec<u8>, String), GpuError> {
    let xy = parse_arch(arch)?;
    let [cubin, ptx] = compile(
        source,
        "sparse_kernel.cu",
        &format!("sm_{xy}"),
        [Output::Cubin, Output::Ptx],
    )?;
    Ok((cubin, text(&ptx)))
}

/// What a compilation returns.
#[derive(Clone, Copy)]
enum Output {
    Ptx,
    Cubin,
}

/// The `XY` of `sm_XY`, `compute_XY` or `XY` (two or three digits, optionally followed by one
/// letter, as in `sm_90a`).
fn parse_arch(arch: &str) -> Result<String, GpuError> {
    let xy = arch
        .strip_prefix("sm_")
        .or_else(|| arch.strip_prefix("compute_"))
        .unwrap_or(arch);
    let digits = xy.trim_end_matches(|c: char| c.is_ascii_lowercase());
    let ok = (2..=3).contains(&digits.len())
        && digits.bytes().all(|b| b.is_ascii_digit())
        && xy.len() - digits.len() <= 1;
    if ok {
        Ok(xy.to_string())
    } else {
        Err(GpuError::Invalid(format!(
            "architecture `{arch}`: expected sm_XY, compute_XY or XY (e.g. sm_90)"
        )))
    }
}

/// Destroys an NVRTC program when dropped, on every path out of [`compile`].
struct ProgramGuard<'a> {
    nvrtc: &'a Nvrtc,
    program: Program,
}

impl Drop for ProgramGuard<'_> {
    fn drop(&mut self) {
        // SAFETY: `program` was created by `nvrtcCreateProgram` of this same library and is
        // destroyed only here, once.
        unsafe {
            (self.nvrtc.destroy)(&mut self.program);
        }
    }
}

fn compile<const N: usize>(
    source: &str,
    program: &str,
    arch: &str,
    outputs: [Output; N],
) -> Result<[Vec<u8>; N], GpuError> {
    let nul = |what: &str| GpuError::Invalid(format!("the {what} contains a NUL byte"));
    let c_source = CString::new(source).map_err(|_| nul("CUDA source"))?;
    let c_name = CString::new(program).map_err(|_| nul("program name"))?;
    let nvrtc = nvrtc()?;
    let fail = |status: Status, log: String| GpuError::Nvrtc {
        program: program.to_string(),
        status: nvrtc.status_name(status),
        log,
    };

    let mut handle: Program = std::ptr::null_mut();
    // SAFETY: both strings are NUL-terminated and outlive the call; no headers are passed, so the
    // two array pointers may be null with a count of 0; `handle` is a valid place for the result.
    let status = unsafe {
        (nvrtc.create)(
            &mut handle,
            c_source.as_ptr(),
            c_name.as_ptr(),
            0,
            std::ptr::null(),
            std::ptr::null(),
        )
    };
    if status != 0 {
        return Err(fail(status, String::new()));
    }
    let guard = ProgramGuard {
        nvrtc,
        program: handle,
    };

    let option = CString::new(format!("--gpu-architecture={arch}")).map_err(|_| nul("arch"))?;
    let options = [option.as_ptr()];
    // SAFETY: the program is live (the guard destroys it later); `options` holds one pointer to a
    // NUL-terminated string that outlives the call, and the count says one.
    let status = unsafe { (nvrtc.compile)(guard.program, 1, options.as_ptr()) };
    let log = nvrtc.read(guard.program, nvrtc.log_size, nvrtc.log)?;
    if status != 0 {
        return Err(fail(status, text(&log)));
    }
    let mut read = outputs.map(|output| {
        let (size, get) = match output {
            Output::Ptx => (nvrtc.ptx_size, nvrtc.ptx),
            Output::Cubin => (nvrtc.cubin_size, nvrtc.cubin),
        };
        nvrtc.read(guard.program, size, get)
    });
    if let Some(e) = read.iter_mut().find_map(|r| r.as_mut().err()) {
        return Err(e.clone());
    }
    Ok(read.map(|r| r.unwrap_or_default()))
}

impl Nvrtc {
    /// Reads one of a compiled program's outputs (log, PTX, cubin) through its size and copy
    /// functions.
    fn read(&self, program: Program, size: SizeFn, get: GetFn) -> Result<Vec<u8>, GpuError> {
        let mut len = 0usize;
        // SAFETY: `program` is a live program of this library; `len` is a valid place for a size.
        let status = unsafe { size(program, &mut len) };
        self.check(status, "reading an output size")?;
        let mut buffer = vec![0u8; len];
        if len == 0 {
            return Ok(buffer);
        }
        // SAFETY: NVRTC writes exactly the `len` bytes it just reported, and `buffer` has them.
        let status = unsafe { get(program, buffer.as_mut_ptr().cast::<c_char>()) };
        self.check(status, "reading an output")?;
        Ok(buffer)
    }

    fn check(&self, status: Status, during: &str) -> Result<(), GpuError> {
        if status == 0 {
            return Ok(());
        }
        Err(GpuError::Nvrtc {
            program: String::new(),
            status: format!("{} while {during}", self.status_name(status)),
            log: String::new(),
        })
    }

    /// NVRTC's name for a status (`NVRTC_ERROR_COMPILATION`, ...).
    fn status_name(&self, status: Status) -> String {
        // SAFETY: `nvrtcGetErrorString` accepts any value and returns a pointer to a static,
        // NUL-terminated string (or null, checked).
        let text = unsafe { (self.error_string)(status) };
        if text.is_null() {
            return format!("NVRTC status {status}");
        }
        // SAFETY: non-null, NUL-terminated and static, as above.
        unsafe { CStr::from_ptr(text) }
            .to_string_lossy()
            .into_owned()
    }
}

/// Opens the first candidate that loads and has every entry point; the error lists every try
/// that found something (or was a bare name for the loader, or was set explicitly) and counts the
/// empty places.
fn open(candidates: &[PathBuf], explicit: bool) -> Result<Nvrtc, String> {
    let mut tried = Vec::new();
    let mut absent = 0;
    for path in candidates {
        if !explicit && path.is_absolute() && !path.exists() {
            absent += 1;
            continue;
        }
        match open_one(path) {
            Ok(n) => return Ok(n),
            Err(why) => tried.push(format!("{}: {why}", path.display())),
        }
    }
    if absent > 0 {
        tried.push(format!(
            "{absent} other places hold no such file (CUDA folders, pip wheels)"
        ));
    }
    Err(format!(
        "NVRTC could not be loaded (set SPARSE_NVRTC_PATH to libnvrtc.so.13, or `pip install \
         nvidia-cuda-nvrtc==13.0.88`); tried:\n  {}",
        tried.join("\n  ")
    ))
}

/// A libloading error with its causes (the loader's own message is the cause of "dlopen failed").
fn describe(e: &libloading::Error) -> String {
    let mut text = e.to_string();
    let mut source = std::error::Error::source(e);
    while let Some(cause) = source {
        text.push_str(": ");
        text.push_str(&cause.to_string());
        source = cause.source();
    }
    text
}

fn open_one(path: &Path) -> Result<Nvrtc, String> {
    let builtins = preload_builtins(path);
    // SAFETY: loading a shared library runs its initializers. The candidates are NVRTC libraries
    // (by name, in a CUDA installation or in NVIDIA's wheel), whose initializers have no
    // preconditions.
    let library = unsafe { Library::new(path) }.map_err(|e| describe(&e))?;
    /// Copies one entry point out of the library, with the type NVRTC's header gives it.
    fn entry<T: Copy>(library: &Library, name: &str) -> Result<T, String> {
        // SAFETY: `T` is the exact C signature of `name` in `nvrtc.h` (the type aliases above);
        // the copied pointer is used only while the library stays loaded (see `Nvrtc`).
        unsafe { library.get::<T>(name.as_bytes()) }
            .map(|symbol| *symbol)
            .map_err(|e| describe(&e))
    }
    let version: VersionFn = entry(&library, "nvrtcVersion")?;
    let (mut major, mut minor) = (0, 0);
    // SAFETY: both pointers are valid places for an int.
    if unsafe { version(&mut major, &mut minor) } != 0 {
        return Err("nvrtcVersion failed".into());
    }
    Ok(Nvrtc {
        path: path.display().to_string(),
        version: (major, minor),
        create: entry(&library, "nvrtcCreateProgram")?,
        destroy: entry(&library, "nvrtcDestroyProgram")?,
        compile: entry(&library, "nvrtcCompileProgram")?,
        log_size: entry(&library, "nvrtcGetProgramLogSize")?,
        log: entry(&library, "nvrtcGetProgramLog")?,
        ptx_size: entry(&library, "nvrtcGetPTXSize")?,
        ptx: entry(&library, "nvrtcGetPTX")?,
        cubin_size: entry(&library, "nvrtcGetCUBINSize")?,
        cubin: entry(&library, "nvrtcGetCUBIN")?,
        error_string: entry(&library, "nvrtcGetErrorString")?,
        _library: library,
        _builtins: builtins,
    })
}

/// NVRTC opens `libnvrtc-builtins.so.X.Y` by name when it compiles, which fails when its folder is
/// not on the loader's path (a wheel, an explicit path). A library already loaded under that name
/// satisfies the lookup, so the one beside `nvrtc` is loaded first; `None` if there is none (NVRTC
/// then finds its own, or reports that it cannot).
fn preload_builtins(nvrtc: &Path) -> Option<Library> {
    let dir = nvrtc.parent().filter(|d| !d.as_os_str().is_empty())?;
    let builtins = sorted_children(dir, "libnvrtc-builtins.so")
        .into_iter()
        .rev()
        .find(|p| !p.to_string_lossy().contains(".alt."))?;
    // SAFETY: as for NVRTC itself: NVIDIA's builtins library, whose initializers have no
    // preconditions.
    unsafe { Library::new(&builtins) }.ok()
}

/// Every place NVRTC is looked for, in order, from this process's environment.
fn candidates() -> Vec<PathBuf> {
    let var = |name: &str| std::env::var_os(name).filter(|v| !v.is_empty());
    search_paths(&Environment {
        explicit: var("SPARSE_NVRTC_PATH"),
        cuda_roots: ["CUDA_PATH", "CUDA_HOME", "CUDA_ROOT"]
            .iter()
            .filter_map(|n| var(n))
            .collect(),
        python_prefixes: python_prefixes(),
        python_path: var("PYTHONPATH"),
    })
}

/// The inputs of the search, gathered from the environment (separate for tests).
#[derive(Default)]
struct Environment {
    explicit: Option<OsString>,
    cuda_roots: Vec<OsString>,
    python_prefixes: Vec<PathBuf>,
    python_path: Option<OsString>,
}

fn search_paths(env: &Environment) -> Vec<PathBuf> {
    if let Some(explicit) = &env.explicit {
        let path = PathBuf::from(explicit);
        if path.is_dir() {
            return LIBRARY_NAMES.iter().map(|n| path.join(n)).collect();
        }
        return vec![path];
    }
    let mut out: Vec<PathBuf> = LIBRARY_NAMES.iter().map(PathBuf::from).collect();
    let mut roots: Vec<PathBuf> = env.cuda_roots.iter().map(PathBuf::from).collect();
    roots.push("/usr/local/cuda".into());
    roots.extend(sorted_children(Path::new("/usr/local"), "cuda-"));
    roots.push("/opt/cuda".into());
    for root in roots {
        for lib in ["lib64", "targets/x86_64-linux/lib"] {
            out.extend(LIBRARY_NAMES.iter().map(|n| root.join(lib).join(n)));
        }
    }
    let mut sites: Vec<PathBuf> = env
        .python_path
        .iter()
        .flat_map(std::env::split_paths)
        .collect();
    for prefix in &env.python_prefixes {
        for python in sorted_children(&prefix.join("lib"), "python3") {
            sites.push(python.join("site-packages"));
            sites.push(python.join("dist-packages"));
        }
        sites.push(prefix.join("lib/python3/dist-packages"));
    }
    for site in sites {
        for wheel in ["nvidia/cu13/lib", "nvidia/cuda_nvrtc/lib"] {
            out.extend(LIBRARY_NAMES.iter().map(|n| site.join(wheel).join(n)));
        }
    }
    let mut seen = HashSet::new();
    out.retain(|p| seen.insert(p.clone()));
    out
}

/// The prefixes of the Python installations that may hold a pip-installed NVRTC wheel.
fn python_prefixes() -> Vec<PathBuf> {
    let mut prefixes: Vec<PathBuf> = ["VIRTUAL_ENV", "CONDA_PREFIX"]
        .iter()
        .filter_map(std::env::var_os)
        .map(PathBuf::from)
        .collect();
    if let Some(path) = std::env::var_os("PATH") {
        for dir in std::env::split_paths(&path) {
            if dir.join("python3").exists()
                && let Some(parent) = dir.parent()
            {
                prefixes.push(parent.to_path_buf());
            }
        }
    }
    if let Some(home) = std::env::var_os("HOME").map(PathBuf::from) {
        prefixes.push(home.join(".local"));
        prefixes.extend(sorted_children(&home.join(".pyenv/versions"), ""));
    }
    prefixes.extend(["/usr/local", "/usr", "/opt/conda"].map(PathBuf::from));
    prefixes
}

/// The entries of `dir` whose names start with `prefix`, sorted; none if it cannot be read.
fn sorted_children(dir: &Path, prefix: &str) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut out: Vec<PathBuf> = entries
        .filter_map(Result::ok)
        .filter(|e| e.file_name().to_string_lossy().starts_with(prefix))
        .map(|e| e.path())
        .collect();
    out.sort();
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn architectures_are_read_in_three_spellings() {
        assert_eq!(parse_arch("sm_90").unwrap(), "90");
        assert_eq!(parse_arch("compute_80").unwrap(), "80");
        assert_eq!(parse_arch("120").unwrap(), "120");
        assert_eq!(parse_arch("sm_90a").unwrap(), "90a");
        for bad in [
            "",
            "sm_",
            "sm_9",
            "gfx90a",
            "sm_90ab",
            "compute_x0",
            "sm_1000",
        ] {
            assert!(
                matches!(parse_arch(bad), Err(GpuError::Invalid(_))),
                "{bad}"
            );
        }
    }

    #[test]
    fn an_explicit_path_is_the_only_candidate() {
        let env = Environment {
            explicit: Some("/nowhere/libnvrtc.so.13".into()),
            cuda_roots: vec!["/opt/other".into()],
            ..Environment::default()
        };
        assert_eq!(
            search_paths(&env),
            vec![PathBuf::from("/nowhere/libnvrtc.so.13")]
        );
        let dir = std::env::temp_dir();
        let env = Environment {
            explicit: Some(dir.clone().into()),
            ..Environment::default()
        };
        assert_eq!(search_paths(&env)[0], dir.join("libnvrtc.so.13"));
    }

    #[test]
    fn the_search_covers_names_cuda_roots_and_wheels() {
        let site = std::env::temp_dir().join(format!("sparse-gpu-site-{}", std::process::id()));
        let python = site.join("lib/python3.11/site-packages");
        std::fs::create_dir_all(&python).unwrap();
        let env = Environment {
            cuda_roots: vec!["/opt/cuda-test".into()],
            python_prefixes: vec![site.clone()],
            python_path: Some("/pp".into()),
            ..Environment::default()
        };
        let paths = search_paths(&env);
        let _ = std::fs::remove_dir_all(&site);
        assert_eq!(paths[0], PathBuf::from("libnvrtc.so.13"));
        assert_eq!(paths[1], PathBuf::from("libnvrtc.so.12"));
        for expected in [
            PathBuf::from("/opt/cuda-test/lib64/libnvrtc.so.13"),
            PathBuf::from("/usr/local/cuda/lib64/libnvrtc.so.12"),
            PathBuf::from("/pp/nvidia/cu13/lib/libnvrtc.so.13"),
            python.join("nvidia/cu13/lib/libnvrtc.so.13"),
            python.join("nvidia/cuda_nvrtc/lib/libnvrtc.so.12"),
        ] {
            assert!(paths.contains(&expected), "{expected:?} missing");
        }
        let unique: HashSet<_> = paths.iter().collect();
        assert_eq!(unique.len(), paths.len());
    }

    #[test]
    fn a_missing_library_is_unavailable_with_every_try() {
        let nowhere = PathBuf::from("/nowhere/libnvrtc.so.13");
        let why = open(std::slice::from_ref(&nowhere), true)
            .err()
            .expect("no library there");
        assert!(why.contains("/nowhere/libnvrtc.so.13: "), "{why}");
        assert!(why.contains("SPARSE_NVRTC_PATH"), "{why}");
        // Searched places that hold nothing are counted, not listed.
        let why = open(
            &[nowhere, PathBuf::from("libnvrtc.so.0-nonexistent")],
            false,
        )
        .err()
        .expect("no library there");
        assert!(!why.contains("/nowhere"), "{why}");
        assert!(why.contains("libnvrtc.so.0-nonexistent: "), "{why}");
        assert!(why.contains("1 other places"), "{why}");
        // A file that is not a library at all fails the same way, without a panic.
        let not_a_library = std::env::temp_dir().join("sparse-gpu-not-a-library.so");
        std::fs::write(&not_a_library, b"not an ELF file").unwrap();
        let result = open(std::slice::from_ref(&not_a_library), false);
        let _ = std::fs::remove_file(&not_a_library);
        let why = result.err().expect("not a library");
        assert!(why.contains("sparse-gpu-not-a-library.so: dlopen"), "{why}");
    }

    #[test]
    fn nul_bytes_are_refused_before_nvrtc_is_needed() {
        let e = compile_ptx("__global__ void k() {}\0", "k.cu", "sm_90").unwrap_err();
        assert!(matches!(e, GpuError::Invalid(_)), "{e}");
        let e = compile_ptx("", "k.cu", "sm_9").unwrap_err();
        assert!(matches!(e, GpuError::Invalid(_)), "{e}");
    }
}
