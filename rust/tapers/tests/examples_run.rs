//! Runs the crate's examples (which `cargo test` builds next to the tests) and
//! checks they succeed: each one asserts its own results.

use std::path::PathBuf;
use std::process::Command;

fn example(name: &str) -> PathBuf {
    // target/<profile>/deps/<this test> -> target/<profile>/examples/<name>
    let exe = std::env::current_exe().expect("test binary path");
    let dir = exe.parent().and_then(|d| d.parent()).expect("target dir");
    dir.join("examples").join(name)
}

#[test]
fn examples_run_and_check_their_results() {
    for name in ["gradient", "linear_model", "threads"] {
        let path = example(name);
        assert!(
            path.exists(),
            "example {name} was not built at {}",
            path.display()
        );
        let out = Command::new(&path).output().expect("example runs");
        assert!(
            out.status.success(),
            "example {name} failed:\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}
