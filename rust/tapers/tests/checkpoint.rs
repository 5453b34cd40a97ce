//! safetensors checkpoints from Rust: round trip, and every way a file can be bad.

use tapers::{checkpoint, Error, Tensor};

fn tensors() -> Vec<(String, Tensor)> {
    vec![
        (
            "w".into(),
            Tensor::from_vec(vec![1.5f32, -2.0, 3.25], &[3]).unwrap(),
        ),
        (
            "d".into(),
            Tensor::from_vec(vec![0.1f64; 4], &[2, 2]).unwrap(),
        ),
        ("i".into(), Tensor::from_vec(vec![7i32, -8], &[2]).unwrap()),
        ("l".into(), Tensor::scalar(i64::MAX)),
        (
            "mask".into(),
            Tensor::from_vec(vec![true, false], &[2]).unwrap(),
        ),
        (
            "empty".into(),
            Tensor::from_vec(Vec::<f32>::new(), &[0, 3]).unwrap(),
        ),
    ]
}

#[test]
fn round_trip_keeps_names_dtypes_shapes_and_values() {
    let dir = std::env::temp_dir().join(format!("tapers-ckpt-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("a.safetensors");
    let meta = [("format".to_string(), "test".to_string())]
        .into_iter()
        .collect();
    checkpoint::save(&path, &tensors(), Some(meta)).unwrap();
    let loaded = checkpoint::load(&path).unwrap();
    assert_eq!(loaded.metadata["format"], "test");
    let mut want = tensors();
    want.sort_by(|a, b| a.0.cmp(&b.0));
    let mut got = loaded.tensors;
    got.sort_by(|a, b| a.0.cmp(&b.0));
    for ((n1, t1), (n2, t2)) in want.iter().zip(&got) {
        assert_eq!(n1, n2);
        assert_eq!(t1.dtype(), t2.dtype());
        assert_eq!(t1.shape(), t2.shape());
        // Debug prints the values after the id: compare everything but the id.
        let body = |t: &Tensor| {
            let d = format!("{t:?}");
            d[d.find(", ").unwrap()..].to_string()
        };
        assert_eq!(body(t1), body(t2));
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn bad_files_are_errors_not_panics() {
    let dir = std::env::temp_dir().join(format!("tapers-ckpt-bad-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("a.safetensors");
    checkpoint::save(&path, &tensors(), None).unwrap();
    let bytes = std::fs::read(&path).unwrap();
    // Every truncation is corrupt, none panics.
    for cut in 0..bytes.len() {
        assert!(
            matches!(checkpoint::parse(&bytes[..cut]), Err(Error::DataLoss(_))),
            "cut at {cut}"
        );
    }
    // Flipped bytes anywhere: an error or (in the data) other values, never a panic.
    for i in 0..bytes.len() {
        let mut b = bytes.clone();
        b[i] ^= 0xA5;
        let _ = checkpoint::parse(&b);
    }
    assert!(matches!(
        checkpoint::load(&dir.join("missing")),
        Err(Error::NotFound(_))
    ));
    let dup = vec![
        ("x".to_string(), Tensor::scalar(1.0f32)),
        ("x".to_string(), Tensor::scalar(2.0f32)),
    ];
    assert!(checkpoint::save(&dir.join("dup"), &dup, None).is_err());
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn unsupported_dtypes_are_named() {
    // A float8 tensor, as PyTorch might write: header + 1 byte.
    let header = br#"{"h":{"dtype":"F8_E5M2","shape":[1],"data_offsets":[0,1]}}"#;
    let mut bytes = (header.len() as u64).to_le_bytes().to_vec();
    bytes.extend_from_slice(header);
    bytes.push(60);
    let err = checkpoint::parse(&bytes).unwrap_err().to_string();
    assert!(err.contains("'h'") && err.contains("F8_E5M2"), "{err}");
    // A float16 tensor loads (1.0 is 0x3c00).
    let header = br#"{"h":{"dtype":"F16","shape":[1],"data_offsets":[0,2]}}"#;
    let mut bytes = (header.len() as u64).to_le_bytes().to_vec();
    bytes.extend_from_slice(header);
    bytes.extend_from_slice(&[0, 60]);
    let loaded = checkpoint::parse(&bytes).unwrap();
    assert_eq!(loaded.tensors[0].1.dtype(), tapers::DType::F16);
    assert_eq!(loaded.tensors[0].1.to_f64_scalar().unwrap(), 1.0);
}
