//! The compact contact record the GPU writes and the host reads back, and
//! its decoding into [`Contact`]s.
//!
//! A [`Contact`] holds 44 bytes, most of which the host knows already: the
//! GPU writes its contacts in (task, point) order (`shaders/colliders.wgsl`,
//! a stable compaction), so a record needs only the global index of its
//! point, from which the plan gives the task (bodies, target) and the
//! sample (feature kind, index, object-frame position). What is left is
//! the depth, the cell-centre depth and the normal, octahedral-encoded in
//! two 16-bit snorms (Cigolle et al., "A Survey of Efficient
//! Representations for Independent Unit Vectors", JCGT 2014): 16 bytes a
//! contact instead of 64. The position is recomputed on the host from the
//! sample and the pose with the CPU reference's arithmetic, so it is the
//! CPU's bit for bit.

use glam::{Mat4, Vec2, Vec3};

use super::cpu::transform;
use super::{ColliderShape, Contact, Plan, TASK_SEGMENT_FIELD, sample_starts};
use crate::stages::sampling::{FeatureKind, Sample};
use crate::stages::sdf_grid::GridSpec;

/// `struct Contact` of shaders/colliders.wgsl.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct GpuContact {
    /// Global point index: the task's `thread_start` plus the point's index
    /// within the task.
    pub point: u32,
    pub depth: f32,
    /// The bits of `depth_cell`; for a segment task (whose two depths are
    /// equal) the linear index of the contact's cell.
    pub aux: u32,
    /// The normal, [`decode_normal`].
    pub normal: u32,
}
const _: () = assert!(std::mem::size_of::<GpuContact>() == 16);

/// The encoding of a zero normal (a zero-length segment's): the snorm
/// value −32768, which the encoding of a unit vector never produces.
pub const ZERO_NORMAL: u32 = 0x8000_8000;

/// Largest angle (radians) between a unit vector and its decoded encoding.
/// Rounding moves the point in the octahedron's square by at most
/// √2·0.5/32767; the unnormalised vector (x, y, 1 − |x| − |y|) moves by at
/// most √3 times that and is at least 1/√3 long, so the direction turns by
/// at most 3·√2·0.5/32767 ≈ 6.5e-5. The tests check this bound.
pub const NORMAL_MAX_ERROR: f32 = 1.0e-4;

fn sign_not_zero(v: Vec2) -> Vec2 {
    Vec2::new(
        if v.x >= 0.0 { 1.0 } else { -1.0 },
        if v.y >= 0.0 { 1.0 } else { -1.0 },
    )
}

/// The unit vector of an octahedral code (`pack2x16snorm` layout: x in the
/// low 16 bits).
pub fn decode_normal(bits: u32) -> Vec3 {
    if bits == ZERO_NORMAL {
        return Vec3::ZERO;
    }
    let snorm = |h: u32| (f32::from(h as u16 as i16) / 32767.0).clamp(-1.0, 1.0);
    let p = Vec2::new(snorm(bits & 0xffff), snorm(bits >> 16));
    let z = 1.0 - p.x.abs() - p.y.abs();
    let xy = if z < 0.0 {
        (Vec2::ONE - Vec2::new(p.y, p.x).abs()) * sign_not_zero(p)
    } else {
        p
    };
    xy.extend(z).normalize()
}

/// The encoding the shader's `oct_encode` computes (WGSL's
/// `pack2x16snorm`: round half up of 32767·x).
pub fn encode_normal(n: Vec3) -> u32 {
    let l1 = n.x.abs() + n.y.abs() + n.z.abs();
    if l1 <= 0.0 {
        return ZERO_NORMAL;
    }
    let mut p = Vec2::new(n.x, n.y) / l1;
    if n.z < 0.0 {
        p = (Vec2::ONE - Vec2::new(p.y, p.x).abs()) * sign_not_zero(p);
    }
    let pack = |x: f32| ((0.5 + 32767.0 * x.clamp(-1.0, 1.0)).floor() as i16 as u16) as u32;
    pack(p.x) | (pack(p.y) << 16)
}

/// What decoding needs of one task, gathered once per detect.
struct TaskView<'a> {
    world_from_a: Mat4,
    world_from_b: Mat4,
    body: u32,
    other: u32,
    /// The points the task tests (empty for a segment).
    samples: &'a [Sample],
    /// The field's grid, for a segment task.
    segment: Option<&'a GridSpec>,
}

/// The contacts of `records` (any order in, the same order out), decoded
/// with the plan they were computed for; all cores. Per record: the task
/// by binary search over the tasks' first points (a small array), its
/// sample by index, the position by one transform.
pub(super) fn decode(
    records: &[GpuContact],
    plan: &Plan,
    shapes: &[ColliderShape],
) -> Result<Vec<Contact>, String> {
    use rayon::prelude::*;
    let starts = sample_starts(shapes);
    let all_samples = |start: u32, count: u32| -> &[Sample] {
        let i = start as usize;
        let shape = starts.partition_point(|&s| s as usize <= i).wrapping_sub(1);
        shapes
            .get(shape)
            .and_then(|s| {
                let local = i - starts[shape] as usize;
                s.samples.samples.get(local..local + count as usize)
            })
            .unwrap_or(&[])
    };
    let first_points: Vec<u32> = plan.tasks.iter().map(|t| t.thread_start).collect();
    let views: Vec<TaskView> = plan
        .tasks
        .iter()
        .map(|t| TaskView {
            world_from_a: t.world_from_a(),
            world_from_b: t.world_from_b(),
            body: t.body,
            other: t.other,
            samples: match (t.kind, t.extra) {
                (TASK_SEGMENT_FIELD, _) => &[],
                (_, 1) => plan
                    .extra
                    .get(t.sample_start as usize..(t.sample_start + t.sample_count) as usize)
                    .unwrap_or(&[]),
                _ => all_samples(t.sample_start, t.sample_count),
            },
            segment: (t.kind == TASK_SEGMENT_FIELD)
                .then(|| shapes.get(t.field as usize).map(|s| &s.field.grid))
                .flatten(),
        })
        .collect();
    records
        .par_iter()
        .map(|r| {
            let bad = || format!("record {r:?} names no point of the plan");
            let t = first_points
                .partition_point(|&s| s <= r.point)
                .checked_sub(1)
                .ok_or_else(bad)?;
            let task = &views[t];
            let k = r.point - first_points[t];
            let normal = decode_normal(r.normal);
            if let Some(grid) = task.segment {
                if r.aux as usize >= grid.num_cells() {
                    return Err(bad());
                }
                return Ok(Contact {
                    position: transform(&task.world_from_b, grid.center_of(r.aux as usize)),
                    normal,
                    depth: r.depth,
                    depth_cell: r.depth,
                    body: task.body,
                    other: task.other,
                    feature: FeatureKind::Cell,
                    sample: 0,
                });
            }
            let sample = task.samples.get(k as usize).ok_or_else(bad)?;
            Ok(Contact {
                position: transform(&task.world_from_a, sample.position),
                normal,
                depth: r.depth,
                depth_cell: f32::from_bits(r.aux),
                body: task.body,
                other: task.other,
                feature: sample.kind,
                sample: k,
            })
        })
        .collect()
}
