//! The host simulator of the GPU ([`crate::Gpu::simulator`]): device memory is host memory, and a
//! launch compiles the same CUDA C source as C++ with the system C++ compiler, together with a
//! shim header (`cuda_shim.h`, next to this file) that defines the CUDA subset generated kernels
//! use, into a shared library that is loaded and run on the calling thread.
//!
//! How a grid runs (see `cuda_shim.h` for the details): blocks one after another, in order; the
//! threads of a block as cooperative fibers (each with its own stack) that switch only
//! at `__syncthreads()`, `__syncwarp()` and the warp shuffles, which are therefore true barriers.
//! A kernel whose source names none of them runs its threads one after another without fibers.
//! Launches are synchronous: when `launch` returns, the kernel has finished.
//!
//! The kernels of a source are found by their `__global__` declarations: each must read
//! `[extern "C"] __global__ void [__launch_bounds__(...)] NAME(` (the form the CUDA emitter
//! writes). The shared library exports, for each kernel, a launch trampoline that takes CUDA's
//! argument array (a pointer to each argument's bytes) and a function that reports the size and
//! class of each parameter, against which the arguments are checked as for a real device.
//!
//! Compiled libraries are cached on disk, keyed by a hash of the source, the shim, the compiler
//! and its flags, in `SPARSE_GPU_SIM_CACHE` if set, else `sparse-gpu-sim-$USER` under
//! [`std::env::temp_dir`]; and loaded once per process.

// Host buffers written by simulated kernels through raw pointers, and calls into the compiled
// library: each `unsafe` block below states the invariant that makes it sound.
#![allow(unsafe_code)]

use std::cell::UnsafeCell;
use std::collections::HashMap;
use std::ffi::{OsString, c_char, c_int, c_uint, c_void};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError, RwLock};

use libloading::Library;

use crate::GpuError;
use crate::launch::{KernelArg, LaunchShape};
use crate::signature::{Param, ParamClass, check_args};
use crate::store::DeviceValue;

/// The shim header: the CUDA built-ins, as C++ for the host.
const SHIM: &str = include_str!("cuda_shim.h");

/// Flags of every compilation (part of the cache key).
const FLAGS: &[&str] = &[
    "-std=c++17",
    "-O2",
    "-fPIC",
    "-shared",
    "-fno-strict-aliasing",
    "-pthread",
    // The shim switches between fibers' stacks with _longjmp, which a fortified build refuses.
    "-U_FORTIFY_SOURCE",
];

/// Simulated memory is read and written by kernels through raw pointers. Launches hold this lock
/// for writing and host reads of simulated memory (downloads, copies) for reading, so that no host
/// read overlaps a kernel that may write the same buffer (a kernel may write any buffer it is
/// handed, even one borrowed shared, as on a device).
static MEMORY: RwLock<()> = RwLock::new(());

/// Host memory standing for device memory: `len` values that simulated kernels may write while
/// the buffer is borrowed shared (hence the cells).
pub(crate) struct HostBuffer<V> {
    cells: Box<[UnsafeCell<V>]>,
}

// SAFETY: every access to the cells is either through `&mut self`, or a read under `MEMORY`'s
// read lock, or a kernel's access under its write lock (see `MEMORY`): no two threads access a
// cell at once unless both only read.
unsafe impl<V: Send> Send for HostBuffer<V> {}
// SAFETY: as for `Send`.
unsafe impl<V: Send + Sync> Sync for HostBuffer<V> {}

impl<V: DeviceValue> HostBuffer<V> {
    pub(crate) fn from_slice(data: &[V]) -> Self {
        HostBuffer {
            cells: data.iter().map(|&v| UnsafeCell::new(v)).collect(),
        }
    }

    pub(crate) fn zeroed(len: usize) -> Self {
        HostBuffer {
            cells: (0..len).map(|_| UnsafeCell::new(V::default())).collect(),
        }
    }

    pub(crate) fn len(&self) -> usize {
        self.cells.len()
    }

    /// The host address of the first value, as a kernel receives it; 0 when empty (as a device
    /// buffer's).
    pub(crate) fn addr(&self) -> u64 {
        if self.cells.is_empty() {
            0
        } else {
            // `UnsafeCell<V>` has the layout of `V`: the cells are an array of `V`.
            self.cells.as_ptr() as u64
        }
    }

    pub(crate) fn to_vec(&self) -> Vec<V> {
        let _read = MEMORY.read().unwrap_or_else(PoisonError::into_inner);
        // SAFETY: no kernel runs while the read lock is held (see `MEMORY`), and host writes
        // need `&mut self`: nothing writes the cells during these reads.
        self.cells.iter().map(|c| unsafe { *c.get() }).collect()
    }

    /// Element `index`, if there is one.
    pub(crate) fn get(&self, index: usize) -> Option<V> {
        let _read = MEMORY.read().unwrap_or_else(PoisonError::into_inner);
        // SAFETY: as in `to_vec`: no kernel runs and nothing writes while the lock is held.
        self.cells.get(index).map(|c| unsafe { *c.get() })
    }

    pub(crate) fn duplicate(&self) -> Self {
        HostBuffer::from_slice(&self.to_vec())
    }

    pub(crate) fn fill_zero(&mut self) {
        self.fill(V::default());
    }

    pub(crate) fn fill(&mut self, value: V) {
        for c in self.cells.iter_mut() {
            *c.get_mut() = value;
        }
    }
}

/// The simulator's handle: the C++ compiler it found.
#[derive(Clone)]
pub(crate) struct Simulator {
    compiler: Arc<PathBuf>,
}

impl Simulator {
    /// A simulator, once a C++ compiler is found (`CXX`, else `c++`, `g++` or `clang++` on the
    /// `PATH`): [`GpuError::Unavailable`] without one.
    pub(crate) fn open() -> Result<Simulator, GpuError> {
        if !cfg!(unix) {
            return Err(GpuError::Unavailable(
                "the GPU simulator runs on Unix hosts only (it needs ucontext)".into(),
            ));
        }
        let compiler = find_compiler().ok_or_else(|| {
            GpuError::Unavailable(
                "the GPU simulator needs a C++ compiler: none of $CXX, c++, g++, clang++ was \
                 found on the PATH"
                    .into(),
            )
        })?;
        Ok(Simulator {
            compiler: Arc::new(compiler),
        })
    }

    pub(crate) fn launch(
        &self,
        source: &str,
        kernel: &str,
        shape: LaunchShape,
        args: &[KernelArg<'_>],
    ) -> Result<(), GpuError> {
        let threads: u64 = shape.block.iter().map(|&d| u64::from(d)).product();
        if threads > 1024 || shape.block[2] > 64 {
            return Err(GpuError::Driver {
                during: format!(
                    "launching `{kernel}` with blocks of {:?} threads on the simulator",
                    shape.block
                ),
                name: "CUDA_ERROR_INVALID_VALUE".into(),
                code: 1,
            });
        }
        if shape.shared_bytes > 0 {
            return Err(GpuError::Invalid(format!(
                "launching `{kernel}`: the simulator has no dynamic shared memory ({} bytes asked)",
                shape.shared_bytes
            )));
        }
        let library = library(&self.compiler, source)?;
        let params = params(&library, kernel)?;
        check_args(kernel, &params, args)?;
        let launch_name = format!("sparse_sim_launch_{kernel}\0");
        // SAFETY: the symbol was defined by the trampoline generated in `translation_unit` for
        // this kernel, with exactly this signature.
        let entry = unsafe {
            library.get::<unsafe extern "C" fn(
                *const c_uint,
                *const c_uint,
                c_int,
                *mut *mut c_void,
                *mut c_char,
                usize,
            ) -> c_int>(launch_name.as_bytes())
        }
        .map_err(|e| not_found(kernel, &e.to_string()))?;
        let mut pointers: Vec<*mut c_void> = args.iter().map(KernelArg::as_param).collect();
        let mode = run_mode(source);
        let mut message = vec![0u8; 512];
        let status = {
            let _write = MEMORY.write().unwrap_or_else(PoisonError::into_inner);
            // SAFETY: `pointers` holds one pointer per kernel parameter, each to a live value
            // of that parameter's size and class inside `args` (checked above against the
            // parameter list the library reports); the trampoline reads each as its
            // parameter's type. Array arguments are host addresses of `HostBuffer`s that the
            // borrows in `args` keep alive; that each is long enough for the kernel's indexing
            // is the generated launcher's contract (see `Gpu::launch`). No host read or write
            // of simulated memory runs meanwhile (`MEMORY`'s write lock). `message` is writable
            // for its length. The kernel runs on this thread and has finished on return.
            unsafe {
                entry(
                    shape.grid.as_ptr(),
                    shape.block.as_ptr(),
                    mode,
                    pointers.as_mut_ptr(),
                    message.as_mut_ptr().cast(),
                    message.len(),
                )
            }
        };
        if status == 0 {
            return Ok(());
        }
        let end = message
            .iter()
            .position(|&b| b == 0)
            .unwrap_or(message.len());
        Err(GpuError::Driver {
            during: format!(
                "running `{kernel}` on the simulator: {}",
                String::from_utf8_lossy(&message[..end])
            ),
            name: "CUDA_ERROR_LAUNCH_FAILED".into(),
            code: 719,
        })
    }
}

/// How the shim's `run_grid` runs the grid of `source` (its `Mode` bits): the threads of a block
/// as fibers (1) when the source names a barrier or a warp collective; each block on a fresh OS
/// thread (2), so that its `__shared__` variables start fresh, when it declares any.
fn run_mode(source: &str) -> c_int {
    c_int::from(uses_barriers(source)) | (c_int::from(source.contains("__shared__")) << 1)
}

/// Whether the source needs the threads of a block as fibers: it names a barrier or a warp
/// collective.
fn uses_barriers(source: &str) -> bool {
    [
        "__syncthreads",
        "__syncwarp",
        "__shfl",
        "__ballot_sync",
        "__any_sync",
        "__all_sync",
    ]
    .iter()
    .any(|name| source.contains(name))
}

fn not_found(kernel: &str, why: &str) -> GpuError {
    GpuError::Driver {
        during: format!("finding kernel `{kernel}` in its module (simulator: {why})"),
        name: "CUDA_ERROR_NOT_FOUND".into(),
        code: 500,
    }
}

/// The parameter list of `kernel`, as the compiled library reports it.
fn params(library: &Library, kernel: &str) -> Result<Vec<Param>, GpuError> {
    let name = format!("sparse_sim_params_{kernel}\0");
    // SAFETY: the symbol was defined by the trampoline generated in `translation_unit` for this
    // kernel, with exactly this signature.
    let report = unsafe {
        library
            .get::<unsafe extern "C" fn(*mut c_uint, *mut c_int, c_uint) -> c_uint>(name.as_bytes())
    }
    .map_err(|e| not_found(kernel, &e.to_string()))?;
    let mut sizes = vec![0 as c_uint; 64];
    let mut floats = vec![0 as c_int; 64];
    let cap = c_uint::try_from(sizes.len()).unwrap_or(0);
    // SAFETY: both arrays are writable for `cap` elements, which is all the function writes.
    let count = unsafe { report(sizes.as_mut_ptr(), floats.as_mut_ptr(), cap) };
    let count = usize::try_from(count).unwrap_or(usize::MAX);
    if count > sizes.len() {
        return Err(GpuError::Invalid(format!(
            "kernel `{kernel}` has {count} parameters; the simulator reads at most 64"
        )));
    }
    Ok((0..count)
        .map(|k| Param {
            bytes: usize::try_from(sizes[k]).unwrap_or(0),
            class: if floats[k] != 0 {
                ParamClass::Float
            } else {
                ParamClass::Int
            },
        })
        .collect())
}

/// The C++ compiler: `$CXX` (a name on the `PATH` or a path), else the first of `c++`, `g++`,
/// `clang++` on the `PATH`.
fn find_compiler() -> Option<PathBuf> {
    let path = std::env::var_os("PATH").unwrap_or_default();
    let on_path = |name: &OsString| -> Option<PathBuf> {
        let p = Path::new(name);
        if p.components().count() > 1 {
            return p.is_file().then(|| p.to_path_buf());
        }
        std::env::split_paths(&path)
            .map(|dir| dir.join(name))
            .find(|candidate| candidate.is_file())
    };
    if let Some(cxx) = std::env::var_os("CXX").filter(|v| !v.is_empty()) {
        return on_path(&cxx);
    }
    ["c++", "g++", "clang++"]
        .iter()
        .find_map(|name| on_path(&OsString::from(name)))
}

/// `source` with its comments blanked out (string and character literals kept as they are).
fn without_comments(source: &str) -> String {
    let mut out = String::with_capacity(source.len());
    let mut chars = source.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '/' if chars.peek() == Some(&'/') => {
                for c in chars.by_ref() {
                    if c == '\n' {
                        out.push('\n');
                        break;
                    }
                }
            }
            '/' if chars.peek() == Some(&'*') => {
                chars.next();
                let mut last = ' ';
                for c in chars.by_ref() {
                    if last == '*' && c == '/' {
                        break;
                    }
                    last = c;
                }
                out.push(' ');
            }
            '"' | '\'' => {
                out.push(c);
                while let Some(d) = chars.next() {
                    out.push(d);
                    if d == '\\' {
                        if let Some(e) = chars.next() {
                            out.push(e);
                        }
                    } else if d == c {
                        break;
                    }
                }
            }
            _ => out.push(c),
        }
    }
    out
}

/// The names of the kernels of `source`: the identifier after each `__global__ void`, past an
/// optional `__launch_bounds__(...)`, outside comments.
pub(crate) fn kernel_names(source: &str) -> Vec<String> {
    let mut names = Vec::new();
    let source = without_comments(source);
    let mut rest = source.as_str();
    while let Some(at) = rest.find("__global__") {
        rest = &rest[at + "__global__".len()..];
        let mut s = rest.trim_start();
        let Some(after_void) = s.strip_prefix("void") else {
            continue;
        };
        s = after_void.trim_start();
        if let Some(after) = s.strip_prefix("__launch_bounds__") {
            let after = after.trim_start();
            let Some(inner) = after.strip_prefix('(') else {
                continue;
            };
            let mut depth = 1usize;
            let mut end = None;
            for (k, c) in inner.char_indices() {
                match c {
                    '(' => depth += 1,
                    ')' => {
                        depth -= 1;
                        if depth == 0 {
                            end = Some(k);
                            break;
                        }
                    }
                    _ => {}
                }
            }
            let Some(end) = end else { continue };
            s = inner[end + 1..].trim_start();
        }
        let name: String = s
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect();
        let starts_well = name.chars().next().is_some_and(|c| !c.is_ascii_digit());
        if starts_well && s[name.len()..].trim_start().starts_with('(') && !names.contains(&name) {
            names.push(name);
        }
    }
    names
}

/// The C++ file compiled for `source`: the shim, the source as written (its line numbers kept in
/// the compiler's messages) and a trampoline and parameter report per kernel.
fn translation_unit(source: &str) -> String {
    let mut unit = String::from("#include \"cuda_shim.h\"\n#line 1 \"kernel.cu\"\n");
    unit.push_str(source);
    unit.push_str("\n#line 1 \"sparse_sim_trampolines.cpp\"\n");
    for name in kernel_names(source) {
        unit.push_str(&format!(
            "extern \"C\" int sparse_sim_launch_{name}(const unsigned *grid, const unsigned *block, \
             int mode, void **args, char *message, unsigned long message_len) {{\n    return \
             sparse_sim::launch({name}, grid, block, mode, args, message, message_len);\n}}\n\
             extern \"C\" unsigned sparse_sim_params_{name}(unsigned *sizes, int *floats, \
             unsigned cap) {{\n    return sparse_sim::params({name}, sizes, floats, cap);\n}}\n"
        ));
    }
    unit
}

/// A 128-bit FNV-1a hash of `parts` (two 64-bit hashes with different offsets), as hex: stable
/// across processes and builds, unlike std's hasher.
fn stable_hash(parts: &[&[u8]]) -> String {
    let mut out = String::new();
    for offset in [0xcbf2_9ce4_8422_2325u64, 0x6c62_272e_07bb_0142] {
        let mut h = offset;
        for part in parts {
            for &b in part.iter().chain(&(part.len() as u64).to_le_bytes()) {
                h ^= u64::from(b);
                h = h.wrapping_mul(0x0000_0100_0000_01b3);
            }
        }
        out.push_str(&format!("{h:016x}"));
    }
    out
}

fn cache_root() -> PathBuf {
    if let Some(dir) = std::env::var_os("SPARSE_GPU_SIM_CACHE").filter(|v| !v.is_empty()) {
        return PathBuf::from(dir);
    }
    let user = std::env::var("USER").unwrap_or_default();
    let user: String = user
        .chars()
        .filter(|c| c.is_ascii_alphanumeric() || *c == '_' || *c == '-')
        .collect();
    std::env::temp_dir().join(format!("sparse-gpu-sim-{user}"))
}

fn create_private_dir(dir: &Path) -> std::io::Result<()> {
    let mut builder = std::fs::DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
    builder.create(dir)
}

/// The libraries loaded in this process, by source (never unloaded: kernels may be launched
/// again at any time).
static LIBRARIES: Mutex<Option<HashMap<String, Arc<Library>>>> = Mutex::new(None);

/// The compiled library of `source`: loaded in this process, or from the disk cache, or compiled
/// now.
fn library(compiler: &Path, source: &str) -> Result<Arc<Library>, GpuError> {
    if let Some(lib) = LIBRARIES
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .as_ref()
        .and_then(|m| m.get(source))
    {
        return Ok(Arc::clone(lib));
    }
    if source.contains('\0') {
        return Err(GpuError::Invalid("the CUDA source holds a NUL byte".into()));
    }
    let flags = FLAGS.join(" ");
    let key = stable_hash(&[
        source.as_bytes(),
        SHIM.as_bytes(),
        compiler.as_os_str().as_encoded_bytes(),
        flags.as_bytes(),
        env!("CARGO_PKG_VERSION").as_bytes(),
    ]);
    let root = cache_root();
    let dir = root.join(&key);
    let lib_path = dir.join("libkernel.so");
    if !lib_path.is_file() {
        compile(compiler, source, &root, &dir)?;
    }
    // SAFETY: the library is one this module compiled from the shim and a kernel source (or the
    // same found in the cache, under its hash); its initializers are those of the C++ standard
    // library and the shim's `thread_local`s, which have no side effects beyond memory.
    let lib = unsafe { Library::new(&lib_path) }.map_err(|e| {
        GpuError::Unavailable(format!(
            "the simulator could not load {}: {e}",
            lib_path.display()
        ))
    })?;
    let lib = Arc::new(lib);
    LIBRARIES
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .get_or_insert_with(HashMap::new)
        .insert(source.to_string(), Arc::clone(&lib));
    Ok(lib)
}

/// Compiles `source` into `dir/libkernel.so`: in a fresh directory first, renamed to `dir` when
/// done, so that another process never sees half a library.
fn compile(compiler: &Path, source: &str, root: &Path, dir: &Path) -> Result<(), GpuError> {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let io = |what: &str, e: std::io::Error| {
        GpuError::Unavailable(format!("the simulator could not {what}: {e}"))
    };
    create_private_dir(root).map_err(|e| io(&format!("create {}", root.display()), e))?;
    let work = root.join(format!(
        "tmp-{}-{}",
        std::process::id(),
        COUNTER.fetch_add(1, Ordering::Relaxed)
    ));
    create_private_dir(&work).map_err(|e| io(&format!("create {}", work.display()), e))?;
    let result = (|| {
        let write = |name: &str, text: &str| {
            std::fs::write(work.join(name), text)
                .map_err(|e| io(&format!("write {}", work.join(name).display()), e))
        };
        write("cuda_shim.h", SHIM)?;
        write("kernel.cu", source)?;
        write("sim.cpp", &translation_unit(source))?;
        let output = Command::new(compiler)
            .args(FLAGS)
            .arg("-o")
            .arg("libkernel.so")
            .arg("sim.cpp")
            .current_dir(&work)
            .output()
            .map_err(|e| io(&format!("run {}", compiler.display()), e))?;
        if !output.status.success() {
            let mut log = String::from_utf8_lossy(&output.stderr).into_owned();
            log.push_str(&String::from_utf8_lossy(&output.stdout));
            return Err(GpuError::Nvrtc {
                program: "kernel.cu".into(),
                status: format!(
                    "the simulator's C++ compiler ({}) failed: {}",
                    compiler.display(),
                    output.status
                ),
                log,
            });
        }
        match std::fs::rename(&work, dir) {
            Ok(()) => Ok(()),
            // Another process (or thread) finished the same library first: use theirs.
            Err(_) if dir.join("libkernel.so").is_file() => Ok(()),
            Err(e) => Err(io(&format!("move the library to {}", dir.display()), e)),
        }
    })();
    let _ = std::fs::remove_dir_all(&work);
    result
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kernels_are_found_by_their_declarations() {
        let source = r#"
__device__ __forceinline__ double twice(double v) { return 2 * v; }
extern "C" __global__ void spmv(int m, const double *__restrict__ x) {}
extern "C" __global__ void __launch_bounds__(256) reduce_2(int m) {}
__global__ void plain ( int m ) {}
// __global__ in a comment is skipped when no `void NAME(` follows
// extern "C" __global__ void commented(int m) {}
/* __global__ void
   also_commented(int m) {} */
const char *s = "/* not a comment */"; __global__ void after_string(int m) {}
"#;
        assert_eq!(
            kernel_names(source),
            ["spmv", "reduce_2", "plain", "after_string"]
        );
    }

    #[test]
    fn hashes_are_stable_and_separate_parts() {
        assert_eq!(stable_hash(&[b"ab", b"c"]).len(), 32);
        assert_eq!(stable_hash(&[b"ab", b"c"]), stable_hash(&[b"ab", b"c"]));
        assert_ne!(stable_hash(&[b"ab", b"c"]), stable_hash(&[b"a", b"bc"]));
    }

    #[test]
    fn barriers_are_detected() {
        assert!(uses_barriers("x = __shfl_down_sync(~0u, x, 1);"));
        assert!(!uses_barriers("y[i] = x[i];"));
        assert_eq!(run_mode("y[i] = x[i];"), 0);
        assert_eq!(run_mode("__shared__ int s[4]; __syncthreads();"), 3);
        assert_eq!(run_mode("__shared__ int s[4];"), 2);
    }
}
