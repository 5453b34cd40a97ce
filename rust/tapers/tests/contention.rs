//! The pool-sharing policy of `kernels::parallel_section`, in a process of
//! its own (no other test may take the pool meanwhile).

use std::time::Duration;

use tapers::kernels::parallel_section;

#[test]
fn contended_pool_sends_every_thread_inline_for_a_while() {
    rayon::ThreadPoolBuilder::new()
        .num_threads(2)
        .build_global()
        .expect("first pool");
    // Small work never takes the pool; large work does when it is free,
    // and a nested request from the holder is granted.
    assert!(parallel_section(10, 100).is_none());
    let held = parallel_section(1000, 100).expect("free pool");
    assert!(parallel_section(1000, 100).is_some(), "nested request");
    // Another thread finds the pool taken: it runs inline...
    std::thread::scope(|s| {
        s.spawn(|| assert!(parallel_section(1000, 100).is_none()));
    });
    drop(held);
    // ...and for a while nobody takes the pool, not even the former holder.
    assert!(parallel_section(1000, 100).is_none());
    std::thread::sleep(Duration::from_millis(80));
    assert!(
        parallel_section(1000, 100).is_some(),
        "contention has passed"
    );
}
