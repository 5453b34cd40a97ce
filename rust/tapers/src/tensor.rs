//! Immutable tensors: typed ndarray storage behind a shared pointer, plus an id.
//!
//! A [`Tensor`] never changes after creation, so clones are cheap (`Arc`) and
//! tensors can be shared between threads freely. The id identifies the tensor on
//! tapes: a clone keeps the id (it *is* the same tensor), a new op result gets a
//! fresh one.

use std::fmt;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use ndarray::{ArcArray, ArrayD, IxDyn};

use crate::dtype::{DType, Num, Scalar};
use crate::error::{Error, Result};
use crate::shape::{checked_numel, ShapeDisplay};

/// Identifies a tensor (or a variable's handle) on tapes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct TensorId(pub(crate) u64);

impl TensorId {
    /// A fresh id, never handed out before in this process.
    pub fn fresh() -> TensorId {
        static NEXT: AtomicU64 = AtomicU64::new(1);
        TensorId(NEXT.fetch_add(1, Ordering::Relaxed))
    }

    /// The raw number, for display and debugging.
    pub fn as_u64(self) -> u64 {
        self.0
    }
}

/// Lists every dtype as `(Variant, element type)` to a macro, so storage,
/// dispatch and element impls are written once for all of them.
#[macro_export]
#[doc(hidden)]
macro_rules! for_each_dtype {
    ([$($m:tt)*] $(($($args:tt)*))?) => {
        $($m)*!{ $($($args)*)? ;
            (F32, f32), (F64, f64), (I32, i32), (I64, i64), (Bool, bool),
            (U8, u8), (I8, i8), (I16, i16), (U16, u16), (U32, u32), (U64, u64),
            (F16, $crate::dtype::f16), (BF16, $crate::dtype::bf16),
            (C64, $crate::dtype::c64), (C128, $crate::dtype::c128)
        }
    };
}

macro_rules! storage_enum {
    (; $(($v:ident, $t:ty)),*) => {
        /// The typed element storage of a tensor: one variant per [`DType`].
        #[derive(Clone)]
        pub enum Storage {
            $(
                #[doc = concat!("`", stringify!($t), "` elements.")]
                $v(ArcArray<$t, IxDyn>),
            )*
        }

        impl Storage {
            /// The dtype of the elements.
            #[inline]
            pub fn dtype(&self) -> DType {
                match self {
                    $(Storage::$v(_) => DType::$v,)*
                }
            }
        }

        $(element!($t, $v);)*
    };
}

/// Applies an expression to the array inside a [`Storage`], whatever its dtype.
#[macro_export]
#[doc(hidden)]
macro_rules! with_storage {
    ($s:expr, $a:ident => $body:expr) => {
        $crate::for_each_dtype!([$crate::with_storage_arms] ($s, $a => $body))
    };
}

#[macro_export]
#[doc(hidden)]
macro_rules! with_storage_arms {
    ($s:expr, $a:ident => $body:expr; $(($v:ident, $t:ty)),*) => {
        match $s {
            $($crate::Storage::$v($a) => $body,)*
        }
    };
}

/// Maps the array inside a [`Storage`] to a new array of the same dtype.
#[macro_export]
#[doc(hidden)]
macro_rules! map_storage {
    ($s:expr, $a:ident => $body:expr) => {
        $crate::for_each_dtype!([$crate::map_storage_arms] ($s, $a => $body))
    };
}

#[macro_export]
#[doc(hidden)]
macro_rules! map_storage_arms {
    ($s:expr, $a:ident => $body:expr; $(($v:ident, $t:ty)),*) => {
        match $s {
            $($crate::Storage::$v($a) => $crate::Storage::$v($body),)*
        }
    };
}

/// Like [`with_storage!`] for the real (ordered) dtypes, bool included; a
/// complex storage goes to the `$other` arm.
#[macro_export]
#[doc(hidden)]
macro_rules! with_real_storage {
    ($s:expr, $a:ident => $body:expr, $other:pat => $else:expr) => {
        match $s {
            $crate::Storage::F32($a) => $body,
            $crate::Storage::F64($a) => $body,
            $crate::Storage::I32($a) => $body,
            $crate::Storage::I64($a) => $body,
            $crate::Storage::Bool($a) => $body,
            $crate::Storage::U8($a) => $body,
            $crate::Storage::I8($a) => $body,
            $crate::Storage::I16($a) => $body,
            $crate::Storage::U16($a) => $body,
            $crate::Storage::U32($a) => $body,
            $crate::Storage::U64($a) => $body,
            $crate::Storage::F16($a) => $body,
            $crate::Storage::BF16($a) => $body,
            $other => $else,
        }
    };
}

/// Runs `$body` with the type alias `$T` naming the element type of `dtype`:
/// `with_dtype!(d, T => Tensor::full(shape, T::from_num(Num::Int(0))))`.
#[macro_export]
#[doc(hidden)]
macro_rules! with_dtype {
    ($d:expr, $T:ident => $body:expr) => {
        $crate::for_each_dtype!([$crate::with_dtype_arms] ($d, $T => $body))
    };
}

#[macro_export]
#[doc(hidden)]
macro_rules! with_dtype_arms {
    ($d:expr, $T:ident => $body:expr; $(($v:ident, $t:ty)),*) => {
        match $d {
            $($crate::DType::$v => {
                #[allow(dead_code)]
                type $T = $t;
                #[allow(unused_imports)]
                use $crate::{dtype::Scalar as _, Element as _};
                $body
            })*
        }
    };
}

impl Storage {
    /// The shape.
    #[inline(always)]
    pub fn shape(&self) -> &[usize] {
        // float32 inline at every caller (most tensors are float32, and every
        // op asks for shapes several times); the other dtypes out of line.
        match self {
            Storage::F32(a) => a.shape(),
            _ => self.shape_any(),
        }
    }

    #[inline(never)]
    fn shape_any(&self) -> &[usize] {
        with_storage!(self, a => a.shape())
    }
}

/// Element types a tensor can hold.
pub trait Element: Copy + Send + Sync + 'static + fmt::Debug + Scalar + PartialEq {
    /// The dtype tag of this element type.
    const DTYPE: DType;
    /// Wraps an array of this type as storage.
    fn wrap(a: ArcArray<Self, IxDyn>) -> Storage;
    /// Borrows the array if the storage has this type.
    fn unwrap(s: &Storage) -> Option<&ArcArray<Self, IxDyn>>;
}

macro_rules! element {
    ($t:ty, $v:ident) => {
        impl Element for $t {
            const DTYPE: DType = DType::$v;
            fn wrap(a: ArcArray<Self, IxDyn>) -> Storage {
                Storage::$v(a)
            }
            fn unwrap(s: &Storage) -> Option<&ArcArray<Self, IxDyn>> {
                match s {
                    Storage::$v(a) => Some(a),
                    _ => None,
                }
            }
        }
    };
}
for_each_dtype!([storage_enum]);

struct Inner {
    id: TensorId,
    data: Storage,
    /// Every element is exactly 1 (known at creation, never computed): lets
    /// `mul` skip a pass when a gradient seed of ones meets a product rule.
    all_ones: bool,
}

/// An immutable n-dimensional array with an identity that tapes can track.
///
/// ```
/// use tapers::Tensor;
/// let t = Tensor::from_vec(vec![1.0f32, 2.0, 3.0], &[3]).unwrap();
/// assert_eq!(t.shape(), &[3]);
/// assert_eq!(t.to_vec::<f32>().unwrap(), vec![1.0, 2.0, 3.0]);
/// ```
#[derive(Clone)]
pub struct Tensor(Arc<Inner>);

/// Storage of `shape` with every element `v` (one allocation for the
/// elements, one for the shared array).
fn full_storage<T: Element>(shape: &[usize], v: T) -> Result<Storage> {
    let n = check_alloc(shape, T::DTYPE)?;
    let mut data = Vec::new();
    data.try_reserve_exact(n)
        .map_err(|_| too_large(shape, T::DTYPE))?;
    data.resize(n, v);
    let a =
        ArrayD::from_shape_vec(IxDyn(shape), data).map_err(|e| Error::invalid(e.to_string()))?;
    Ok(T::wrap(a.into_shared()))
}

impl Tensor {
    /// Wraps storage as a new tensor with a fresh id.
    pub fn from_storage(data: Storage) -> Tensor {
        Tensor::with_hint(data, false)
    }

    pub(crate) fn with_hint(data: Storage, all_ones: bool) -> Tensor {
        Tensor(Arc::new(Inner {
            id: TensorId::fresh(),
            data,
            all_ones,
        }))
    }

    /// Whether every element is known to be exactly 1 (made by `ones`, or a
    /// broadcast of a one-element tensor holding 1). `false` means unknown.
    pub(crate) fn is_all_ones(&self) -> bool {
        self.0.all_ones
    }

    /// A new tensor from an owned ndarray.
    pub fn from_array<T: Element>(a: ArrayD<T>) -> Tensor {
        Tensor::from_storage(T::wrap(a.into_shared()))
    }

    /// A new tensor from a flat vector in row-major order.
    pub fn from_vec<T: Element>(data: Vec<T>, shape: &[usize]) -> Result<Tensor> {
        let n = checked_numel(shape).ok_or_else(|| too_large(shape, T::DTYPE))?;
        if n != data.len() {
            return Err(Error::invalid(format!(
                "Cannot create a tensor of shape {} from {} values",
                ShapeDisplay::of(shape),
                data.len()
            )));
        }
        let a = ArrayD::from_shape_vec(IxDyn(shape), data)
            .map_err(|e| Error::invalid(e.to_string()))?;
        Ok(Tensor::from_array(a))
    }

    /// A rank-0 tensor.
    pub fn scalar<T: Element>(v: T) -> Tensor {
        Tensor::from_array(ArrayD::from_elem(IxDyn(&[]), v))
    }

    /// A tensor of the given shape with every element `v`.
    pub fn full<T: Element>(shape: &[usize], v: T) -> Result<Tensor> {
        full_storage(shape, v).map(Tensor::from_storage)
    }

    /// Zeros of a shape and dtype.
    pub fn zeros(shape: &[usize], dtype: DType) -> Result<Tensor> {
        with_dtype!(dtype, T => Tensor::full(shape, T::from_num(Num::Int(0))))
    }

    /// Ones of a shape and dtype.
    pub fn ones(shape: &[usize], dtype: DType) -> Result<Tensor> {
        // A scalar 1 seeds nearly every backward pass (a scalar loss): its
        // elements are shared by all of them (tensors never change), each
        // seed still a tensor of its own.
        if shape.is_empty() {
            const N: usize = DType::ALL.len();
            static SCALAR: [std::sync::OnceLock<Storage>; N] =
                [const { std::sync::OnceLock::new() }; N];
            let slot = DType::ALL.iter().position(|&d| d == dtype).unwrap_or(0);
            let s = SCALAR[slot].get_or_init(|| {
                with_dtype!(dtype, T => T::wrap(ArcArray::from_elem(IxDyn(&[]), T::from_num(Num::Int(1)))))
            });
            return Ok(Tensor::with_hint(s.clone(), true));
        }
        let s = with_dtype!(dtype, T => full_storage(shape, T::from_num(Num::Int(1))))?;
        Ok(Tensor::with_hint(s, true))
    }

    /// A scalar of `dtype` holding `v` (converted by TensorFlow's cast rules).
    pub fn scalar_of(dtype: DType, v: f64) -> Tensor {
        Tensor::scalar_num(dtype, Num::Float(v))
    }

    /// A scalar of `dtype` holding `v` (converted by TensorFlow's cast rules).
    pub fn scalar_num(dtype: DType, v: Num) -> Tensor {
        with_dtype!(dtype, T => Tensor::scalar(T::from_num(v)))
    }

    /// The tensor's id on tapes.
    #[inline]
    pub fn id(&self) -> TensorId {
        self.0.id
    }

    /// The element storage.
    pub fn storage(&self) -> &Storage {
        &self.0.data
    }

    /// The dtype.
    #[inline]
    pub fn dtype(&self) -> DType {
        self.0.data.dtype()
    }

    /// The shape.
    #[inline]
    pub fn shape(&self) -> &[usize] {
        self.0.data.shape()
    }

    /// The number of dimensions.
    #[inline]
    pub fn rank(&self) -> usize {
        self.shape().len()
    }

    /// The number of elements.
    #[inline]
    pub fn numel(&self) -> usize {
        self.shape().iter().product()
    }

    /// Borrows the typed array, or fails naming the actual dtype.
    pub fn array<T: Element>(&self) -> Result<&ArcArray<T, IxDyn>> {
        T::unwrap(&self.0.data).ok_or_else(|| {
            Error::invalid(format!(
                "expected a {} tensor but got a {} tensor",
                T::DTYPE,
                self.dtype()
            ))
        })
    }

    /// Copies the elements out in row-major order.
    pub fn to_vec<T: Element>(&self) -> Result<Vec<T>> {
        Ok(self.array::<T>()?.iter().copied().collect())
    }

    /// The value of a one-element tensor converted to f64.
    pub fn to_f64_scalar(&self) -> Result<f64> {
        if self.numel() != 1 {
            return Err(Error::invalid(format!(
                "only tensors with one element can be converted to a scalar, got shape {}",
                ShapeDisplay::of(self.shape())
            )));
        }
        Ok(
            with_storage!(&self.0.data, a => a.iter().next().map(|&v| crate::dtype::ToF64::to_f64(v)).unwrap_or(0.0)),
        )
    }

    /// The storage, moved out if this is the only handle (so a caller can
    /// write in place), else a cheap clone sharing the buffer (copy-on-write).
    pub fn into_storage(self) -> Storage {
        match Arc::try_unwrap(self.0) {
            Ok(inner) => inner.data,
            Err(shared) => shared.data.clone(),
        }
    }

    /// A tensor sharing this one's elements under a new id.
    ///
    /// Used for op outputs that are value-identical to an input (identity,
    /// variable reads): the tape needs a distinct tensor, the memory does not.
    pub fn alias(&self) -> Tensor {
        Tensor::with_hint(self.0.data.clone(), self.0.all_ones)
    }
}

/// Checks, before an op allocates its output, that memory for it can be had:
/// the element count must not overflow, and an output of 64 MiB or more is
/// first reserved (and released) with `try_reserve`, so that a request the
/// allocator refuses becomes [`Error::ResourceExhausted`] instead of Rust's
/// allocation-failure abort. Reserving without touching maps no pages, so the
/// probe costs one `mmap`/`munmap` pair next to filling that much memory.
///
/// Ops whose output can be much larger than their inputs call this: creation
/// ops, broadcasting, tiling, padding, gathers, products and one-hot.
pub(crate) fn check_alloc(shape: &[usize], dtype: DType) -> Result<usize> {
    // More than 2^63 - 1 elements is a bad shape (TF's InvalidArgumentError),
    // not a large one.
    let n = checked_numel(shape)
        .filter(|&n| n <= i64::MAX as usize)
        .ok_or_else(|| {
            Error::invalid(format!(
                "Shape {} would have more than 2**63 - 1 elements",
                ShapeDisplay::of(shape)
            ))
        })?;
    let bytes = n
        .checked_mul(dtype.size_of())
        .ok_or_else(|| too_large(shape, dtype))?;
    if bytes >= 1 << 26 {
        if memory_budget().is_some_and(|b| bytes as u64 > b) {
            return Err(too_large(shape, dtype));
        }
        Vec::<u8>::new()
            .try_reserve_exact(bytes)
            .map_err(|_| too_large(shape, dtype))?;
    }
    Ok(n)
}

/// How many bytes one more allocation could be backed by now, where the
/// system says (Linux): available memory plus free swap, capped by the
/// process's memory cgroup (v2 `memory.max` or v1 `memory.limit_in_bytes`,
/// less its usage) and by `RLIMIT_AS` (less the address space in use).
///
/// The allocator only reserves address space, so a request far beyond this
/// would be granted and then killed by the kernel's OOM killer when its pages
/// are touched; [`check_alloc`] refuses it first. Read afresh on each large
/// request (a few small `/proc` and `/sys` reads next to 64 MiB of work).
fn memory_budget() -> Option<u64> {
    let read = |p: &str| std::fs::read_to_string(p).ok();
    let field = |text: &str, key: &str| -> Option<u64> {
        let line = text.lines().find(|l| l.starts_with(key))?;
        let kb: u64 = line[key.len()..]
            .trim()
            .trim_end_matches("kB")
            .trim()
            .parse()
            .ok()?;
        Some(kb * 1024)
    };
    let mut budget: Option<u64> = None;
    let mut cap = |v: u64| budget = Some(budget.map_or(v, |b| b.min(v)));
    if let Some(m) = read("/proc/meminfo") {
        if let Some(avail) = field(&m, "MemAvailable:") {
            cap(avail.saturating_add(field(&m, "SwapFree:").unwrap_or(0)));
        }
    }
    // The memory cgroup: its limit less its usage.
    let num = |s: Option<String>| s.and_then(|s| s.trim().parse::<u64>().ok());
    if let Some(groups) = read("/proc/self/cgroup") {
        for line in groups.lines() {
            let mut parts = line.splitn(3, ':');
            let (_, ctl, path) = (parts.next(), parts.next(), parts.next().unwrap_or("/"));
            let (limit, usage) = match ctl {
                Some("") => {
                    let dir = format!("/sys/fs/cgroup{}", path.trim_end_matches('/'));
                    (
                        num(read(&format!("{dir}/memory.max"))),
                        num(read(&format!("{dir}/memory.current"))),
                    )
                }
                Some(c) if c.split(',').any(|c| c == "memory") => {
                    let local = format!("/sys/fs/cgroup/memory{}", path.trim_end_matches('/'));
                    let dir = if read(&format!("{local}/memory.limit_in_bytes")).is_some() {
                        local
                    } else {
                        "/sys/fs/cgroup/memory".to_string()
                    };
                    (
                        num(read(&format!("{dir}/memory.limit_in_bytes"))),
                        num(read(&format!("{dir}/memory.usage_in_bytes"))),
                    )
                }
                _ => continue,
            };
            if let Some(l) = limit {
                cap(l.saturating_sub(usage.unwrap_or(0)));
            }
        }
    }
    // RLIMIT_AS, less the address space already mapped.
    if let Some(limits) = read("/proc/self/limits") {
        let soft = limits
            .lines()
            .find(|l| l.starts_with("Max address space"))
            .and_then(|l| l.split_whitespace().nth(3))
            .and_then(|v| v.parse::<u64>().ok());
        if let Some(soft) = soft {
            let used = read("/proc/self/status").and_then(|s| field(&s, "VmSize:"));
            cap(soft.saturating_sub(used.unwrap_or(0)));
        }
    }
    budget
}

pub(crate) fn too_large(shape: &[usize], dtype: DType) -> Error {
    Error::ResourceExhausted {
        shape: ShapeDisplay::of(shape),
        dtype,
    }
}

impl fmt::Debug for Tensor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "Tensor(id={}, dtype={}, shape={}, ",
            self.0.id.0,
            self.dtype(),
            ShapeDisplay::of(self.shape())
        )?;
        with_storage!(&self.0.data, a => write!(f, "{a:?}"))?;
        f.write_str(")")
    }
}
