//! The pool-sharing policy of `kernels::parallel`, in a process of its own
//! (no other test may take the pool meanwhile).

use std::time::Duration;

use tapers::kernels::parallel;

#[test]
fn contended_pool_sends_every_thread_inline_for_a_while() {
    rayon::ThreadPoolBuilder::new()
        .num_threads(2)
        .build_global()
        .expect("first pool");
    // Small work never takes the pool; large work does when it is free,
    // and a nested request from the holder is granted.
    assert!(!parallel(10, 100, |p| p));
    parallel(1000, 100, |held| {
        assert!(held, "free pool");
        assert!(parallel(1000, 100, |p| p), "nested request");
        // Another thread finds the pool taken: it runs inline...
        std::thread::scope(|s| {
            s.spawn(|| assert!(!parallel(1000, 100, |p| p)));
        });
    });
    // ...and for a while nobody takes the pool, not even the former holder.
    assert!(!parallel(1000, 100, |p| p));
    std::thread::sleep(Duration::from_millis(80));
    assert!(parallel(1000, 100, |p| p), "contention has passed");
}
