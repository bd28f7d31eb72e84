//! Open test meshes whose winding number sits near ½ over large regions:
//! a sphere with a missing cap, a sphere with a slit, and a scan-like
//! open shell with noise. They are built exactly as
//! `python/bench/open_meshes.py` builds them for the grid benchmark (its
//! docs say why and how): a latitude–longitude sphere of radius ½ about
//! the y axis, `stacks` bands and `2 × stacks` slices in the order of
//! `collidoscope::mesh::uv_sphere`, triangles left out by band and slice,
//! and the scan's noise an integer hash of each vertex's ring and slot,
//! so both sides give the same meshes up to float rounding.

use std::f64::consts::PI;

use collidoscope::mesh::Mesh;
use glam::Vec3;

/// The three meshes' names, as `open_meshes.NAMES`.
pub const NAMES: [&str; 3] = ["capless-sphere", "slit-sphere", "open-scan"];

/// A float in [0, 1) from two integers and a salt: the lowbias32 hash
/// (`open_meshes.hash01`).
pub fn hash01(a: u32, b: u32, salt: u32) -> f64 {
    let mut x =
        a.wrapping_mul(73_856_093) ^ b.wrapping_mul(19_349_663) ^ salt.wrapping_mul(83_492_791);
    x ^= x >> 16;
    x = x.wrapping_mul(0x7FEB_352D);
    x ^= x >> 15;
    x = x.wrapping_mul(0x846C_A68B);
    x ^= x >> 16;
    f64::from(x) / 2f64.powi(32)
}

/// The open scan's radius factor: low bumps and per-vertex noise.
fn scan_radius(ring: u32, slot: u32, polar: f64, azimuth: f64) -> f64 {
    let bumps = 0.06 * (3.0 * polar).sin() * (2.0 * azimuth).cos();
    1.0 + bumps + 0.004 * (2.0 * hash01(ring, slot, 1) - 1.0)
}

/// One triangle of the sphere: its corners, band (0 at the north pole),
/// slice and which of its quad's two it is.
struct Banded {
    corners: [u32; 3],
    band: u32,
    slice: u32,
    half: u32,
}

/// The mesh named `name` (one of [`NAMES`]) with `stacks` bands (at least
/// 6): about `4 × stacks²` triangles before any is left out.
pub fn open_mesh(name: &str, stacks: u32) -> Mesh {
    let stacks = stacks.max(6);
    let n = 2 * stacks;
    let scan = name == "open-scan";
    let vertex = |ring: u32, slot: u32| {
        let polar = PI * f64::from(ring) / f64::from(stacks);
        let azimuth = 2.0 * PI * f64::from(slot) / f64::from(n);
        let r = 0.5
            * if scan {
                scan_radius(ring, slot, polar, azimuth)
            } else {
                1.0
            };
        let (s, c) = (polar.sin(), polar.cos());
        if ring == 0 || ring == stacks {
            return Vec3::new(0.0, (r * c) as f32, 0.0);
        }
        Vec3::new(
            (r * s * azimuth.cos()) as f32,
            (r * c) as f32,
            (r * s * azimuth.sin()) as f32,
        )
    };
    let mut positions = vec![vertex(0, 0), vertex(stacks, 0)];
    for ring in 1..stacks {
        positions.extend((0..n).map(|slot| vertex(ring, slot)));
    }
    let at = |ring: u32, i: u32| 2 + (ring - 1) * n + i % n;
    let last = stacks - 1;
    let mut all = Vec::new();
    let mut push = |corners, band, slice, half| {
        all.push(Banded {
            corners,
            band,
            slice,
            half,
        })
    };
    for i in 0..n {
        push([at(1, i), 0, at(1, i + 1)], 0, i, 0);
        push([1, at(last, i), at(last, i + 1)], last, i, 0);
        for upper in 1..last {
            let lower = upper + 1;
            push([at(lower, i), at(upper, i), at(upper, i + 1)], upper, i, 0);
            push(
                [at(lower, i), at(upper, i + 1), at(lower, i + 1)],
                upper,
                i,
                1,
            );
        }
    }
    let keep = |t: &Banded| match name {
        "capless-sphere" => t.band >= stacks / 3,
        "slit-sphere" => {
            !(t.slice < (n / 16).max(1) && t.band >= stacks / 6 && t.band < 5 * stacks / 6)
        }
        "open-scan" => t.band < 2 * stacks / 3 && hash01(t.band * 2 + t.half, t.slice, 2) >= 0.002,
        _ => panic!("no open mesh {name:?}; one of {NAMES:?}"),
    };
    let kept: Vec<[u32; 3]> = all.iter().filter(|t| keep(t)).map(|t| t.corners).collect();
    // Only the vertices the triangles use, in their order.
    let mut index = vec![u32::MAX; positions.len()];
    for &v in kept.iter().flatten() {
        index[v as usize] = 0;
    }
    let mut used = Vec::new();
    for (v, slot) in index.iter_mut().enumerate() {
        if *slot == 0 {
            *slot = used.len() as u32;
            used.push(positions[v]);
        }
    }
    let triangles = kept.iter().map(|t| t.map(|v| index[v as usize])).collect();
    Mesh::new(name, used, triangles)
}
