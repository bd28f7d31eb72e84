//! The GPU radix sort against a stable CPU sort.
//!
//! The sort works on tiles of 2048 keys and scans each digit's row of tile
//! counts 2048 tiles (4,194,304 keys) per step, so the sizes straddle those
//! multiples; pass counts are odd (a final copy) and even.

use crate::common;

use collidoscope::gpu::{GpuContext, RadixSort};

const TILE: usize = 2048;
const SCAN_STEP: usize = TILE * TILE;

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

/// Sorts `keys` (values: their indices) by their low `bits` bits on the GPU
/// and compares every pair with a stable CPU sort.
fn check(sort: &RadixSort, gpu: &GpuContext, keys: &[u32], bits: u32) {
    let values: Vec<u32> = (0..keys.len() as u32).collect();
    let (k, v) = sort.sort_pairs(gpu, keys, &values, bits).expect("GPU sort");
    assert_eq!((k.len(), v.len()), (keys.len(), keys.len()));
    let mask = u32::MAX >> (32 - bits);
    let mut expected: Vec<(u32, u32)> = keys.iter().copied().zip(values).collect();
    expected.sort_by_key(|&(key, _)| key & mask); // stable, like the radix sort
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
    // counts, sizes that are not multiples of the tile, and tiny inputs.
    check(&sort, &gpu, &keys(10_000, 7, 0x7), 30);
    check(&sort, &gpu, &keys(70_001, 11, 0x3fff_ffff), 30);
    check(&sort, &gpu, &keys(5_000, 3, 0xfff), 12);
    check(&sort, &gpu, &keys(3_333, 5, 0x7ff), 11);
    check(&sort, &gpu, &keys(1_000, 9, u32::MAX), 32);
    check(&sort, &gpu, &[5, 5, 1], 30);
    check(&sort, &gpu, &[42], 30);
    check(&sort, &gpu, &[], 30);
}

#[test]
fn sizes_around_tile_multiples() {
    let gpu = common::gpu();
    let sort = RadixSort::new(&gpu);
    for (seed, n) in [
        TILE - 1,
        TILE,
        TILE + 1,
        2 * TILE - 1,
        2 * TILE + 1,
        7 * TILE,
    ]
    .into_iter()
    .enumerate()
    {
        check(&sort, &gpu, &keys(n, 13 + seed as u32, 0x3fff_ffff), 30);
    }
}

#[test]
fn sizes_around_the_scan_step() {
    let gpu = common::gpu();
    let sort = RadixSort::new(&gpu);
    // Hundreds of tiles in one step, then 2049 tiles in two steps, the
    // second of one tile.
    check(&sort, &gpu, &keys(300_001, 17, 0x3fff_ffff), 30);
    check(&sort, &gpu, &keys(600_000, 19, u32::MAX), 32);
    check(&sort, &gpu, &keys(SCAN_STEP + 1, 23, 0x3fff_ffff), 30);
}

#[test]
fn stable_with_equal_and_presorted_keys() {
    let gpu = common::gpu();
    let sort = RadixSort::new(&gpu);
    check(&sort, &gpu, &vec![0x2aaa_aaaa; 300_000], 30);
    check(&sort, &gpu, &vec![0; 5_000], 32);
    let ascending: Vec<u32> = (0..100_000).map(|i| i * 7).collect();
    let descending: Vec<u32> = ascending.iter().rev().copied().collect();
    check(&sort, &gpu, &ascending, 30);
    check(&sort, &gpu, &descending, 30);
}

#[test]
fn odd_bit_counts_ignore_the_bits_above() {
    let gpu = common::gpu();
    let sort = RadixSort::new(&gpu);
    // Random 32-bit keys: only the low `bits` order them (1 to 4 passes).
    for bits in [1, 7, 9, 16, 17, 25] {
        check(&sort, &gpu, &keys(20_000, 31 + bits, u32::MAX), bits);
    }
}
