//! Planning: body pairs → tasks, shared by both backends.
//!
//! A task is one set of points (a mesh's samples, a primitive's points, a
//! segment's cell walk) tested against one target (a field, a plane, a
//! sphere, a box), with the poses it needs; its points' global indices
//! follow the tasks before it (`thread_start`), so that one dispatch runs
//! every task's points and a contact record's point index names its task
//! and sample ([`super::compact`]).
//!
//! Each body's inverse first ([`inverses`]), then the pairs' tasks in pair
//! order, each task placed after the ones before it, so the plan of a
//! prefix of the pairs is a prefix of the whole plan: a [`Planner`] builds
//! it a prefix at a time (the GPU's chunked detect submits a chunk's pairs
//! before it plans the next), and counts the whole plan's [`Extent`]
//! without building it (no matrix copied, no primitive point made). The
//! plan is built on one core: it is a small part of a detect, and waking
//! the thread pool's sleeping workers to share it costs more than the
//! work (measured in `docs/bench/design-measurements.md`).

use glam::{Mat4, Vec3, Vec4};

use super::{
    Body, BodyShape, ColliderError, ColliderParams, ColliderShape, TASK_SAMPLES_BOX,
    TASK_SAMPLES_FIELD, TASK_SAMPLES_PLANE, TASK_SAMPLES_SPHERE, TASK_SEGMENT_FIELD,
};
use crate::stages::sampling::{FeatureKind, Sample};

/// One task: `struct Task` of shaders/collide.wgsl (the layout and the
/// `TASK_*` kinds are checked by tests/it/shader_layouts.rs).
#[repr(C)]
#[derive(Clone, Copy, Debug, bytemuck::Pod, bytemuck::Zeroable)]
pub struct Task {
    pub world_from_a: [[f32; 4]; 4],
    pub b_from_world: [[f32; 4]; 4],
    pub world_from_b: [[f32; 4]; 4],
    /// Plane (n, d), sphere (centre, r), box (half extents, 0), segment start.
    pub prim: [f32; 4],
    /// Segment end.
    pub prim2: [f32; 4],
    pub kind: u32,
    pub body: u32,
    pub other: u32,
    /// Shape index of the field (field tasks).
    pub field: u32,
    /// First point in the shape samples (or the extra points).
    pub sample_start: u32,
    pub sample_count: u32,
    /// Running total of point counts before this task.
    pub thread_start: u32,
    /// 1 when the points are in the extra (primitive) buffer.
    pub extra: u32,
    /// Index of the task's pair in the detect's pair list.
    pub pair: u32,
    pub _pad: [u32; 3],
}
const _: () = assert!(std::mem::size_of::<Task>() == 272);

pub(crate) struct Plan {
    pub tasks: Vec<Task>,
    /// Points on primitives, in their object frames.
    pub extra: Vec<Sample>,
    pub total_threads: usize,
}

/// First sample of each shape in the concatenated sample list.
pub(crate) fn sample_starts(shapes: &[ColliderShape]) -> Vec<u32> {
    let mut acc = 0u32;
    shapes
        .iter()
        .map(|s| {
            let start = acc;
            acc += s.samples.samples.len() as u32;
            start
        })
        .collect()
}

/// The bodies' `object_from_world`s, or the first body whose transform is
/// not finite or not invertible.
fn inverses(bodies: &[Body]) -> Result<Vec<Mat4>, ColliderError> {
    bodies
        .iter()
        .enumerate()
        .map(|(i, b)| check_transform(i, &b.world_from_object))
        .collect()
}

fn check_transform(i: usize, m: &Mat4) -> Result<Mat4, ColliderError> {
    let inv = m.inverse();
    if !m.is_finite() || !inv.is_finite() || m.determinant().abs() < 1e-12 {
        return Err(ColliderError::BadTransform(i));
    }
    Ok(inv)
}

/// Points on a sphere of `radius` (Fibonacci lattice) with outward normals.
pub fn sphere_points(radius: f32, n: u32, body: u32) -> Vec<Sample> {
    let golden = std::f32::consts::PI * (3.0 - 5f32.sqrt());
    (0..n.max(1))
        .map(|i| {
            let y = 1.0 - 2.0 * (i as f32 + 0.5) / n.max(1) as f32;
            let r = (1.0 - y * y).max(0.0).sqrt();
            let phi = golden * i as f32;
            let dir = Vec3::new(r * phi.cos(), y, r * phi.sin());
            Sample {
                position: dir * radius,
                normal: dir,
                kind: FeatureKind::Primitive,
                feature: body,
                sub: i,
            }
        })
        .collect()
}

/// Points [`box_points`] makes.
const BOX_POINTS: usize = 26;

/// Corners, edge midpoints and face centres of a centred box
/// ([`BOX_POINTS`]).
pub fn box_points(half: Vec3, body: u32) -> Vec<Sample> {
    let mut out = Vec::new();
    for x in -1..=1 {
        for y in -1..=1 {
            for z in -1..=1 {
                let s = Vec3::new(x as f32, y as f32, z as f32);
                if s == Vec3::ZERO {
                    continue;
                }
                out.push(Sample {
                    position: s * half,
                    normal: s.normalize(),
                    kind: FeatureKind::Primitive,
                    feature: body,
                    sub: out.len() as u32,
                });
            }
        }
    }
    out
}

pub(crate) fn plan(
    shapes: &[ColliderShape],
    bodies: &[Body],
    pairs: &[(usize, usize)],
    params: &ColliderParams,
) -> Result<Plan, ColliderError> {
    Planner::new(shapes, bodies, pairs, params)?.finish()
}

/// How much a plan holds: tasks, points tested and primitive points.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Extent {
    pub tasks: usize,
    pub points: usize,
    pub extra: usize,
}

impl std::ops::AddAssign for Extent {
    fn add_assign(&mut self, o: Extent) {
        self.tasks += o.tasks;
        self.points += o.points;
        self.extra += o.extra;
    }
}

/// A plan built a prefix of the pairs at a time, so that the GPU can start
/// on the first pairs' points while the host plans the rest (the chunked
/// detect, `super::gpu::chunked`). The plan of every prefix is the
/// prefix of the whole plan: tasks are placed in pair order.
pub(crate) struct Planner<'a> {
    input: PlanInput<'a>,
    pairs: &'a [(usize, usize)],
    /// Pairs planned so far.
    next: usize,
    pub plan: Plan,
}

impl<'a> Planner<'a> {
    /// Checks every body (transform, shape) and inverts the transforms;
    /// plans nothing yet.
    pub(crate) fn new(
        shapes: &'a [ColliderShape],
        bodies: &'a [Body],
        pairs: &'a [(usize, usize)],
        params: &'a ColliderParams,
    ) -> Result<Self, ColliderError> {
        let inverses = inverses(bodies)?;
        for (i, b) in bodies.iter().enumerate() {
            check_shape(i, b, shapes.len())?;
        }
        Ok(Planner {
            input: PlanInput {
                starts: sample_starts(shapes),
                shapes,
                bodies,
                inverses,
                params,
            },
            pairs,
            next: 0,
            plan: Plan {
                // At most two tasks a pair.
                tasks: Vec::with_capacity(2 * pairs.len()),
                extra: Vec::new(),
                total_threads: 0,
            },
        })
    }

    /// The whole plan's extent, without building it (no matrix is
    /// copied, no primitive point made): what the GPU's buffers need.
    pub(crate) fn extent(&self) -> Result<Extent, ColliderError> {
        let mut all = Extent::default();
        for &pair in self.pairs {
            all += self.input.pair_extent(pair)?;
        }
        check_points(all.points)?;
        Ok(all)
    }

    /// Plans pairs until the plan tests at least `points` points or every
    /// pair is planned.
    pub(crate) fn plan_until(&mut self, points: usize) -> Result<(), ColliderError> {
        while self.plan.total_threads < points && self.next < self.pairs.len() {
            let p = self.next;
            self.input.push_pair(&mut self.plan, p, self.pairs[p])?;
            self.next += 1;
        }
        check_points(self.plan.total_threads)
    }

    /// The plan of every pair.
    pub(crate) fn finish(mut self) -> Result<Plan, ColliderError> {
        self.plan_until(usize::MAX)?;
        Ok(self.plan)
    }
}

/// A dispatch numbers its points in 32 bits.
fn check_points(points: usize) -> Result<(), ColliderError> {
    if points > u32::MAX as usize {
        return Err(ColliderError::TooMany(points));
    }
    Ok(())
}

/// What [`plan`] builds the pairs' tasks from.
struct PlanInput<'a> {
    shapes: &'a [ColliderShape],
    bodies: &'a [Body],
    /// Each shape's first sample among all shapes' ([`sample_starts`]).
    starts: Vec<u32>,
    /// Each body's `object_from_world`.
    inverses: Vec<Mat4>,
    params: &'a ColliderParams,
}

/// A body's shape, checked: a mesh's shape exists, a primitive's
/// parameters are finite and not degenerate.
fn check_shape(i: usize, body: &Body, shapes: usize) -> Result<(), ColliderError> {
    let bad = |why| Err(ColliderError::BadPrimitive(i, why));
    match body.shape {
        BodyShape::Mesh(s) if s >= shapes => Err(ColliderError::NoSuchShape(i, s, shapes)),
        BodyShape::Plane { normal, offset }
            if !(normal.is_finite() && offset.is_finite() && normal.length() > 1e-6) =>
        {
            bad("the plane needs a non-zero normal")
        }
        BodyShape::Sphere { radius } if !(radius.is_finite() && radius > 0.0) => {
            bad("the radius must be > 0")
        }
        BodyShape::Cuboid { half_extents }
            if !(half_extents.is_finite() && half_extents.min_element() > 0.0) =>
        {
            bad("half extents must be > 0")
        }
        BodyShape::Segment { a, b } if !(a.is_finite() && b.is_finite()) => {
            bad("segment ends must be finite")
        }
        _ => Ok(()),
    }
}

impl PlanInput<'_> {
    /// Pair `(i, j)` with its mesh body first, and that body's shape;
    /// `None` when neither is a mesh (such a pair has no tasks).
    fn mesh_first(
        &self,
        (i, j): (usize, usize),
    ) -> Result<Option<(usize, usize, usize)>, ColliderError> {
        let bodies = self.bodies;
        if i >= bodies.len() || j >= bodies.len() {
            return Err(ColliderError::NoSuchBody(i, j, bodies.len()));
        }
        Ok(match (bodies[i].shape, bodies[j].shape) {
            (BodyShape::Mesh(si), _) => Some((i, j, si)),
            (_, BodyShape::Mesh(sj)) => Some((j, i, sj)),
            _ => None,
        })
    }

    /// The extent of the tasks [`PlanInput::push_pair`] makes of a pair
    /// (the tests check the two agree for every kind of pair).
    fn pair_extent(&self, pair: (usize, usize)) -> Result<Extent, ColliderError> {
        let Some((_, j, si)) = self.mesh_first(pair)? else {
            return Ok(Extent::default());
        };
        let samples = |s: usize| self.shapes[s].samples.samples.len();
        let (tasks, points, extra) = match self.bodies[j].shape {
            BodyShape::Mesh(sj) => (2, samples(si) + samples(sj), 0),
            BodyShape::Plane { .. } => (1, samples(si), 0),
            BodyShape::Sphere { .. } => {
                let n = self.params.sphere_points.max(1) as usize;
                (2, samples(si) + n, n)
            }
            BodyShape::Cuboid { .. } => (2, samples(si) + BOX_POINTS, BOX_POINTS),
            BodyShape::Segment { .. } => (1, 1, 0),
        };
        Ok(Extent {
            tasks,
            points,
            extra,
        })
    }

    /// Appends the tasks of pair `p`, bodies `(i, j)`, to `plan`: a mesh's
    /// samples against the other body (field, plane, sphere, box), and for
    /// a mesh or a solid primitive the other way round too; for a segment,
    /// the mesh's field along it.
    fn push_pair(
        &self,
        plan: &mut Plan,
        p: usize,
        (i, j): (usize, usize),
    ) -> Result<(), ColliderError> {
        let (shapes, bodies, inverses, params) =
            (self.shapes, self.bodies, &self.inverses, self.params);
        let starts = &self.starts;
        let Some((i, j, si)) = self.mesh_first((i, j))? else {
            return Ok(());
        };
        let base = |a: usize, b: usize| Task {
            world_from_a: bodies[a].world_from_object.to_cols_array_2d(),
            b_from_world: inverses[b].to_cols_array_2d(),
            world_from_b: bodies[b].world_from_object.to_cols_array_2d(),
            prim: [0.0; 4],
            prim2: [0.0; 4],
            kind: TASK_SAMPLES_FIELD,
            body: a as u32,
            other: b as u32,
            field: 0,
            sample_start: 0,
            sample_count: 0,
            thread_start: 0,
            extra: 0,
            pair: p as u32,
            _pad: [0; 3],
        };
        // Samples of mesh body `a` against target `b`.
        let samples_of = |a: usize, shape: usize, b: usize| Task {
            sample_start: starts[shape],
            sample_count: shapes[shape].samples.samples.len() as u32,
            ..base(a, b)
        };
        // Each task placed after the ones before it.
        let push = |plan: &mut Plan, mut task: Task| {
            task.thread_start = plan.total_threads as u32;
            plan.total_threads += task.sample_count as usize;
            plan.tasks.push(task);
        };
        // A primitive's points against the mesh's field, the points
        // appended to the plan's extra points.
        let push_primitive_points = |plan: &mut Plan, points: Vec<Sample>| {
            let task = Task {
                field: si as u32,
                sample_start: plan.extra.len() as u32,
                sample_count: points.len() as u32,
                extra: 1,
                ..base(j, i)
            };
            push(plan, task);
            plan.extra.extend(points);
        };
        let wj = bodies[j].world_from_object;
        match bodies[j].shape {
            BodyShape::Mesh(sj) => {
                let a_in_b = Task {
                    field: sj as u32,
                    ..samples_of(i, si, j)
                };
                push(plan, a_in_b);
                let b_in_a = Task {
                    field: si as u32,
                    ..samples_of(j, sj, i)
                };
                push(plan, b_in_a);
            }
            BodyShape::Plane { normal, offset } => {
                let n_obj = normal.normalize();
                let n = wj.transform_vector3(n_obj).normalize();
                let d = n.dot(wj.transform_point3(n_obj * offset));
                let plane = Task {
                    kind: TASK_SAMPLES_PLANE,
                    prim: n.extend(d).to_array(),
                    ..samples_of(i, si, j)
                };
                push(plan, plane);
            }
            BodyShape::Sphere { radius } => {
                let c = wj.transform_point3(Vec3::ZERO);
                let sphere = Task {
                    kind: TASK_SAMPLES_SPHERE,
                    prim: c.extend(radius).to_array(),
                    ..samples_of(i, si, j)
                };
                push(plan, sphere);
                let points = sphere_points(radius, params.sphere_points, j as u32);
                push_primitive_points(plan, points);
            }
            BodyShape::Cuboid { half_extents } => {
                let cuboid = Task {
                    kind: TASK_SAMPLES_BOX,
                    prim: half_extents.extend(0.0).to_array(),
                    ..samples_of(i, si, j)
                };
                push(plan, cuboid);
                push_primitive_points(plan, box_points(half_extents, j as u32));
            }
            BodyShape::Segment { a, b } => {
                let segment = Task {
                    kind: TASK_SEGMENT_FIELD,
                    field: si as u32,
                    prim: wj.transform_point3(a).extend(1.0).to_array(),
                    prim2: wj.transform_point3(b).extend(1.0).to_array(),
                    sample_count: 1,
                    // The mesh is the body penetrated by the line's points:
                    // world_from_b / b_from_world are the mesh's. The mesh
                    // is reported as `body`, the segment as `other`.
                    body: i as u32,
                    other: j as u32,
                    ..base(j, i)
                };
                push(plan, segment);
            }
        }
        Ok(())
    }
}

impl Task {
    pub(crate) fn world_from_a(&self) -> Mat4 {
        Mat4::from_cols_array_2d(&self.world_from_a)
    }
    pub(crate) fn b_from_world(&self) -> Mat4 {
        Mat4::from_cols_array_2d(&self.b_from_world)
    }
    pub(crate) fn world_from_b(&self) -> Mat4 {
        Mat4::from_cols_array_2d(&self.world_from_b)
    }
    pub(crate) fn prim(&self) -> Vec4 {
        Vec4::from(self.prim)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mesh::{box_mesh, uv_sphere};
    use crate::stages::sampling::SamplingParams;
    use crate::stages::sdf::SdfParams;

    /// Every kind of pair, both ways round: the extent counted without
    /// building the plan is the plan's, and a plan built a prefix of the
    /// pairs at a time is the plan built at once.
    #[test]
    fn extents_and_prefix_plans_agree_with_the_whole_plan() {
        let sdf = SdfParams {
            resolution: 8,
            ..SdfParams::default()
        };
        let shapes: Vec<ColliderShape> = [box_mesh(1), uv_sphere(4, 8)]
            .iter()
            .map(|m| ColliderShape::from_mesh(m, &sdf, &SamplingParams::default()).unwrap())
            .collect();
        let at = |i: usize| Mat4::from_translation(Vec3::new(i as f32, 0.5, 0.0));
        let kinds = [
            BodyShape::Mesh(0),
            BodyShape::Mesh(1),
            BodyShape::Plane {
                normal: Vec3::Y,
                offset: 0.0,
            },
            BodyShape::Sphere { radius: 0.5 },
            BodyShape::Cuboid {
                half_extents: Vec3::splat(0.3),
            },
            BodyShape::Segment {
                a: Vec3::ZERO,
                b: Vec3::X,
            },
        ];
        let bodies: Vec<Body> = kinds
            .iter()
            .enumerate()
            .map(|(i, &shape)| Body {
                shape,
                world_from_object: at(i),
            })
            .collect();
        let pairs: Vec<(usize, usize)> = (0..bodies.len())
            .flat_map(|i| (0..bodies.len()).map(move |j| (i, j)))
            .filter(|(i, j)| i != j)
            .collect();
        let params = ColliderParams {
            sphere_points: 37,
            ..ColliderParams::default()
        };
        let whole = plan(&shapes, &bodies, &pairs, &params).unwrap();
        for (p, &pair) in pairs.iter().enumerate() {
            let one = plan(&shapes, &bodies, &[pair], &params).unwrap();
            let planner = Planner::new(&shapes, &bodies, &pairs[p..=p], &params).unwrap();
            let counted = planner.extent().unwrap();
            let built = Extent {
                tasks: one.tasks.len(),
                points: one.total_threads,
                extra: one.extra.len(),
            };
            assert_eq!(
                counted, built,
                "pair {pair:?}: {:?} and {:?}",
                kinds[pair.0], kinds[pair.1]
            );
        }
        let mut planner = Planner::new(&shapes, &bodies, &pairs, &params).unwrap();
        let all = planner.extent().unwrap();
        assert_eq!(
            (all.tasks, all.points, all.extra),
            (whole.tasks.len(), whole.total_threads, whole.extra.len())
        );
        assert!(all.tasks > 0 && all.extra > 0, "{all:?}");
        for step in [1, all.points / 3, all.points / 2] {
            planner.plan_until(step).unwrap();
            let prefix = &planner.plan;
            assert!(prefix.total_threads >= step.min(all.points), "{step}");
            let n = prefix.tasks.len();
            assert_eq!(
                bytemuck::cast_slice::<Task, u8>(&prefix.tasks),
                bytemuck::cast_slice::<Task, u8>(&whole.tasks[..n]),
                "the first {n} tasks"
            );
            assert_eq!(prefix.extra, whole.extra[..prefix.extra.len()]);
        }
        let done = planner.finish().unwrap();
        assert_eq!(
            bytemuck::cast_slice::<Task, u8>(&done.tasks),
            bytemuck::cast_slice::<Task, u8>(&whole.tasks)
        );
        assert_eq!(done.total_threads, whole.total_threads);
    }

    /// The first body with a singular or non-finite transform is named.
    #[test]
    fn the_first_bad_transform_is_named_by_its_body() {
        for n in [3, 600] {
            let mut bodies: Vec<Body> = (0..n)
                .map(|i| Body {
                    shape: BodyShape::Sphere { radius: 1.0 },
                    world_from_object: Mat4::from_translation(Vec3::splat(i as f32)),
                })
                .collect();
            assert!(inverses(&bodies).is_ok());
            bodies[n - 1].world_from_object = Mat4::from_scale(Vec3::new(1.0, 0.0, 1.0));
            bodies[n - 2].world_from_object.w_axis.x = f32::NAN;
            match inverses(&bodies) {
                Err(ColliderError::BadTransform(i)) => assert_eq!(i, n - 2, "{n} bodies"),
                other => panic!("{n} bodies: {other:?}"),
            }
        }
    }
}
