//! Copies between host slices and mapped GL buffers, split over several threads when the
//! copy is large: one thread's `memcpy` into or out of a driver's mapped memory moves far less
//! than the bus does (BENCHMARKS.md, session 7).

use std::sync::OnceLock;

/// Floats per copying thread (8 MiB); shorter copies stay on the calling thread: starting threads costs
/// tens of microseconds.
const PARALLEL_FLOATS: usize = 1 << 21;

/// Threads for a copy of `len` floats: one per 8 MiB, at most the machine's parallelism and
/// at most 8.
pub(crate) fn threads_for(len: usize, parallelism: usize) -> usize {
    (len / PARALLEL_FLOATS).clamp(1, parallelism.clamp(1, 8))
}

/// `dst.copy_from_slice(src)`, in equal pieces on [`threads_for`] threads.
pub(crate) fn copy(src: &[f32], dst: &mut [f32]) {
    assert_eq!(src.len(), dst.len(), "host copy of unequal lengths");
    // Asked once: `available_parallelism` reads the cgroup's quota on Linux.
    static PARALLELISM: OnceLock<usize> = OnceLock::new();
    let par =
        *PARALLELISM.get_or_init(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    let t = threads_for(src.len(), par);
    if t == 1 {
        dst.copy_from_slice(src);
        return;
    }
    let piece = src.len().div_ceil(t);
    std::thread::scope(|scope| {
        for (d, s) in dst.chunks_mut(piece).zip(src.chunks(piece)) {
            scope.spawn(move || d.copy_from_slice(s));
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn large_copies_use_several_threads_and_small_ones_one() {
        assert_eq!(threads_for(0, 16), 1);
        assert_eq!(threads_for(PARALLEL_FLOATS - 1, 16), 1);
        assert_eq!(threads_for(4 * PARALLEL_FLOATS, 16), 4);
        assert_eq!(threads_for(100 * PARALLEL_FLOATS, 16), 8);
        assert_eq!(threads_for(100 * PARALLEL_FLOATS, 2), 2);
        assert_eq!(threads_for(100 * PARALLEL_FLOATS, 0), 1);
    }

    #[test]
    fn copies_every_element_in_order() {
        for len in [0, 1, 7, PARALLEL_FLOATS * 3 + 5] {
            let src: Vec<f32> = (0..len).map(|i| i as f32 * 0.5 - 3.0).collect();
            let mut dst = vec![f32::NAN; len];
            copy(&src, &mut dst);
            assert!(src
                .iter()
                .zip(&dst)
                .all(|(a, b)| a.to_bits() == b.to_bits()));
        }
    }
}
