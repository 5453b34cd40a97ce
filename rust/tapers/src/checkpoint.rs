//! Checkpoint files in the [safetensors] format, which PyTorch and the
//! Hugging Face tools read and write: an 8-byte header length, a JSON header
//! naming each tensor's dtype, shape and byte range, then the raw
//! little-endian data.
//!
//! Reading validates everything before returning anything: the header, every
//! tensor's dtype (those tapers has: F32, F64, I32, I64, BOOL), that each
//! byte range matches its shape and lies inside the file, and that the ranges
//! tile the data exactly. Errors name the file and the tensor.
//!
//! [safetensors]: https://huggingface.co/docs/safetensors

use std::collections::HashMap;
use std::path::Path;

use safetensors::tensor::{Dtype, TensorView};
use safetensors::SafeTensors;

use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::tensor::Tensor;
use crate::{with_dtype, with_storage};

/// The safetensors dtype of each tapers dtype it can store (it has no complex128).
const ST_DTYPES: [(DType, Dtype); 14] = [
    (DType::F32, Dtype::F32),
    (DType::F64, Dtype::F64),
    (DType::I32, Dtype::I32),
    (DType::I64, Dtype::I64),
    (DType::Bool, Dtype::BOOL),
    (DType::U8, Dtype::U8),
    (DType::I8, Dtype::I8),
    (DType::I16, Dtype::I16),
    (DType::U16, Dtype::U16),
    (DType::U32, Dtype::U32),
    (DType::U64, Dtype::U64),
    (DType::F16, Dtype::F16),
    (DType::BF16, Dtype::BF16),
    (DType::C64, Dtype::C64),
];

fn st_dtype(d: DType) -> Result<Dtype> {
    ST_DTYPES
        .iter()
        .find(|p| p.0 == d)
        .map(|p| p.1)
        .ok_or_else(|| Error::invalid(format!("checkpoint: safetensors cannot store {d} tensors")))
}

/// Little-endian bytes of one element, and back.
trait Le: Sized + Copy {
    const N: usize;
    fn put(self, out: &mut Vec<u8>);
    fn get(b: &[u8]) -> Self;
}

macro_rules! le {
    ($($t:ty),*) => {$(
        impl Le for $t {
            const N: usize = std::mem::size_of::<$t>();
            fn put(self, out: &mut Vec<u8>) {
                out.extend_from_slice(&self.to_le_bytes());
            }
            fn get(b: &[u8]) -> Self {
                <$t>::from_le_bytes(b.try_into().expect("chunks_exact gives N bytes"))
            }
        }
    )*};
}
le!(
    f32,
    f64,
    i8,
    i16,
    i32,
    i64,
    u8,
    u16,
    u32,
    u64,
    crate::dtype::f16,
    crate::dtype::bf16
);

impl<T: Le> Le for num_complex::Complex<T> {
    const N: usize = 2 * T::N;
    fn put(self, out: &mut Vec<u8>) {
        self.re.put(out);
        self.im.put(out);
    }
    fn get(b: &[u8]) -> Self {
        num_complex::Complex::new(T::get(&b[..T::N]), T::get(&b[T::N..]))
    }
}

impl Le for bool {
    const N: usize = 1;
    fn put(self, out: &mut Vec<u8>) {
        out.push(self as u8);
    }
    fn get(b: &[u8]) -> Self {
        b[0] == 1
    }
}

/// Little-endian bytes of a tensor, row-major.
fn to_bytes(t: &Tensor) -> Vec<u8> {
    with_storage!(t.storage(), a => {
        let mut out = Vec::with_capacity(t.numel() * t.dtype().size_of());
        a.iter().for_each(|v| v.put(&mut out));
        out
    })
}

/// Writes `tensors` (name, value) and string `metadata` to `path`, replacing
/// it atomically: the data goes to a temporary file next to it first, so a
/// failed or interrupted save never leaves a half-written checkpoint.
pub fn save(
    path: &Path,
    tensors: &[(String, Tensor)],
    metadata: Option<HashMap<String, String>>,
) -> Result<()> {
    let mut seen = std::collections::HashSet::new();
    for (name, _) in tensors {
        if !seen.insert(name.as_str()) {
            return Err(Error::invalid(format!(
                "checkpoint: the name '{name}' is used twice"
            )));
        }
    }
    let bytes: Vec<Vec<u8>> = tensors.iter().map(|(_, t)| to_bytes(t)).collect();
    let views = tensors
        .iter()
        .zip(&bytes)
        .map(|((name, t), b)| {
            TensorView::new(st_dtype(t.dtype())?, t.shape().to_vec(), b)
                .map(|v| (name.clone(), v))
                .map_err(|e| Error::invalid(format!("checkpoint: tensor '{name}': {e}")))
        })
        .collect::<Result<Vec<_>>>()?;
    let buffer = safetensors::serialize(views, metadata)
        .map_err(|e| Error::invalid(format!("checkpoint: {e}")))?;
    let io = |e: std::io::Error| Error::Io(format!("{}: {e}", path.display()));
    let tmp = path.with_extension(format!(
        "{}tmp{}",
        path.extension()
            .map(|e| format!("{}.", e.to_string_lossy()))
            .unwrap_or_default(),
        std::process::id()
    ));
    std::fs::write(&tmp, &buffer).map_err(io)?;
    std::fs::rename(&tmp, path).map_err(|e| {
        let _ = std::fs::remove_file(&tmp);
        io(e)
    })
}

/// A checkpoint read back: tensors by name, in the file's order, and its
/// string metadata.
#[derive(Debug, Default)]
pub struct Loaded {
    /// `(name, tensor)` pairs.
    pub tensors: Vec<(String, Tensor)>,
    /// The `__metadata__` strings, if any.
    pub metadata: HashMap<String, String>,
}

/// Reads a safetensors file. Every tensor is checked before any is returned.
pub fn load(path: &Path) -> Result<Loaded> {
    let bytes = std::fs::read(path).map_err(|e| match e.kind() {
        std::io::ErrorKind::NotFound => {
            Error::NotFound(format!("checkpoint {} does not exist", path.display()))
        }
        _ => Error::Io(format!("{}: {e}", path.display())),
    })?;
    parse(&bytes).map_err(|e| match e {
        Error::DataLoss(m) => Error::DataLoss(format!("checkpoint {}: {m}", path.display())),
        other => other,
    })
}

/// [`load`] from bytes in memory.
pub fn parse(bytes: &[u8]) -> Result<Loaded> {
    let corrupt = |m: String| Error::DataLoss(m);
    // One parse of the header: it validates every byte range against the
    // file's length, and gives the data's start (after the 8-byte length).
    let (header_len, meta) = SafeTensors::read_metadata(bytes)
        .map_err(|e| corrupt(format!("not a valid safetensors file ({e})")))?;
    let data_start = 8 + header_len;
    let names = meta.offset_keys();
    let mut tensors = Vec::with_capacity(names.len());
    for name in names {
        let info = meta
            .info(&name)
            .ok_or_else(|| corrupt(format!("tensor '{name}' is not in the header")))?;
        let (begin, end) = info.data_offsets;
        let data = bytes
            .get(data_start + begin..data_start + end)
            .ok_or_else(|| {
                corrupt(format!(
                    "tensor '{name}': bytes {begin}..{end} are outside the file"
                ))
            })?;
        let shape = info.shape.clone();
        let Some(&(dtype, _)) = ST_DTYPES.iter().find(|p| p.1 == info.dtype) else {
            return Err(Error::invalid(format!(
                "checkpoint tensor '{name}' has dtype {:?}, which tapers does not support",
                info.dtype
            )));
        };
        if dtype == DType::Bool {
            if let Some(b) = data.iter().find(|&&b| b > 1) {
                return Err(corrupt(format!("tensor '{name}': byte {b} is not a bool")));
            }
        }
        let t = with_dtype!(dtype, T => Tensor::from_vec(decode::<T>(data), &shape))
            .map_err(|e| corrupt(format!("tensor '{name}': {e}")))?;
        tensors.push((name, t));
    }
    Ok(Loaded {
        tensors,
        metadata: meta.metadata().clone().unwrap_or_default(),
    })
}

fn decode<T: Le>(data: &[u8]) -> Vec<T> {
    data.chunks_exact(T::N).map(T::get).collect()
}
