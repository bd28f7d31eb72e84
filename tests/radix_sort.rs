//! The GPU radix sort against a stable CPU sort.

mod common;

use collidoscope::gpu::RadixSort;

/// xorshift32: reproducible keys without a dependency.
fn keys(n: usize, seed: u32, mask: u32) -> Vec<u32> {
    let mut s = seed;
    (0..n)
        .map(|_| {
            s ^= s << 13;
            s ^= s >> 17;
            s ^= s << 5;
            s & mask
        })
        .collect()
}

fn check(sort: &RadixSort, gpu: &collidoscope::gpu::GpuContext, keys: &[u32], bits: u32) {
    let values: Vec<u32> = (0..keys.len() as u32).collect();
    let (k, v) = sort.sort_pairs(gpu, keys, &values, bits).expect("GPU sort");
    let mut expected: Vec<(u32, u32)> = keys.iter().copied().zip(values).collect();
    expected.sort_by_key(|&(key, _)| key); // stable, like the radix sort
    for (i, (&(ek, ev), (&gk, &gv))) in expected.iter().zip(k.iter().zip(&v)).enumerate() {
        assert_eq!(
            (gk, gv),
            (ek, ev),
            "pair {i} of {} ({bits}-bit keys)",
            keys.len()
        );
    }
}

#[test]
fn gpu_radix_sort_matches_a_stable_cpu_sort() {
    let gpu = common::gpu();
    let sort = RadixSort::new(&gpu);
    // Many duplicates (8 distinct keys), 30-bit Morton-like keys, odd pass
    // counts, sizes that are not multiples of the block, and tiny inputs.
    check(&sort, &gpu, &keys(10_000, 7, 0x7), 30);
    check(&sort, &gpu, &keys(70_001, 11, 0x3fff_ffff), 30);
    check(&sort, &gpu, &keys(5_000, 3, 0xfff), 12);
    check(&sort, &gpu, &keys(3_333, 5, 0x7ff), 11);
    check(&sort, &gpu, &keys(1_000, 9, u32::MAX), 32);
    check(&sort, &gpu, &[5, 5, 1], 30);
    check(&sort, &gpu, &[42], 30);
}
