//! The core's modules form layers, and a module imports only from layers
//! below it (ARCHITECTURE.md). This reads the sources and fails on any
//! import that goes up or sideways.

use std::path::Path;

/// Bottom to top; modules in one layer do not import each other.
const LAYERS: &[&[&str]] = &[
    &["dims", "dtype"],
    &["error"],
    &["shape"],
    &["tensor"],
    &["kernels"],
    &["op"],
    &["record"],
    &["ops"],
    &["random"],
    &["autodiff"],
    &["tape", "variable"],
    &["optim", "checkpoint", "operators"],
    &["graph"],
];

fn layer_of(module: &str) -> Option<usize> {
    LAYERS.iter().position(|l| l.contains(&module))
}

/// The top-level modules a source file names as `crate::<module>` (test
/// modules excluded: tests may use anything).
fn imports(src: &str) -> Vec<String> {
    let code = src.split("#[cfg(test)]").next().unwrap_or("");
    let mut out = Vec::new();
    for (i, _) in code.match_indices("crate::") {
        // `$crate::` in macros names the crate root's re-exports.
        if i > 0 && &code[i - 1..i] == "$" {
            continue;
        }
        let rest = &code[i + "crate::".len()..];
        let name: String = rest
            .chars()
            .take_while(|c| c.is_ascii_lowercase() || *c == '_')
            .collect();
        if !name.is_empty() && rest[name.len()..].starts_with("::") {
            out.push(name);
        }
    }
    out
}

fn visit(dir: &Path, files: &mut Vec<std::path::PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let p = entry.unwrap().path();
        if p.is_dir() {
            visit(&p, files);
        } else if p.extension().is_some_and(|e| e == "rs") {
            files.push(p);
        }
    }
}

#[test]
fn imports_only_go_down() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    visit(&src, &mut files);
    let mut bad = Vec::new();
    for f in &files {
        let rel = f.strip_prefix(&src).unwrap();
        let top = rel
            .components()
            .next()
            .unwrap()
            .as_os_str()
            .to_string_lossy()
            .trim_end_matches(".rs")
            .to_string();
        if top == "lib" {
            continue;
        }
        let own = layer_of(&top).unwrap_or_else(|| panic!("{top} is in no layer of LAYERS"));
        for dep in imports(&std::fs::read_to_string(f).unwrap()) {
            if dep == top {
                continue;
            }
            match layer_of(&dep) {
                Some(l) if l < own => {}
                _ => bad.push(format!("{} imports crate::{dep}", rel.display())),
            }
        }
    }
    bad.sort();
    bad.dedup();
    assert!(
        bad.is_empty(),
        "imports that do not go down:\n{}",
        bad.join("\n")
    );
}
