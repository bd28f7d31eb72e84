//! CPU reference colliders: one loop over tasks and points, each point
//! evaluated exactly as one shader invocation does
//! (`shaders/collide.wgsl`, keep the two in step).

use std::time::Instant;

use glam::{IVec3, Mat4, Vec3, Vec4Swizzles};

use super::{
    Body, ColliderError, ColliderParams, ColliderShape, Contact, ContactSet, TASK_SAMPLES_BOX,
    TASK_SAMPLES_FIELD, TASK_SAMPLES_PLANE, TASK_SAMPLES_SPHERE, TASK_SEGMENT_FIELD, Task, plan,
};
use crate::stages::sampling::{FeatureKind, Sample};
use crate::stages::sdf::GridSpec;
use crate::timing::Timings;

/// Contacts of `pairs` on the CPU, in canonical order (task, point).
pub fn detect_cpu(
    shapes: &[ColliderShape],
    bodies: &[Body],
    pairs: &[(usize, usize)],
    params: &ColliderParams,
) -> Result<ContactSet, ColliderError> {
    puffin::profile_function!();
    let start = Instant::now();
    let plan = plan(shapes, bodies, pairs, params)?;
    let all: Vec<&Sample> = shapes.iter().flat_map(|s| &s.samples.samples).collect();
    let mut contacts = Vec::new();
    for task in &plan.tasks {
        let field = FieldView::of(&shapes[task.field as usize]);
        if task.kind == TASK_SEGMENT_FIELD {
            contacts.extend(segment_against_field(
                task,
                &field,
                params.contact_threshold,
            ));
            continue;
        }
        for k in 0..task.sample_count {
            let i = (task.sample_start + k) as usize;
            let sample = if task.extra == 1 {
                &plan.extra[i]
            } else {
                all[i]
            };
            if let Some(mut c) = sample_against_target(task, sample, &field, params) {
                c.sample = k;
                contacts.push(c);
            }
        }
    }
    let mut timings = Timings::default();
    timings.push("contacts (cpu)", start.elapsed().as_secs_f64() * 1e3, None);
    Ok(ContactSet {
        contacts,
        tasks: plan.tasks.len(),
        tests: plan.total_threads,
        chunks: 0,
        timings,
    })
}

/// A field's grid and values, with the queries the colliders make.
#[derive(Clone, Copy)]
pub struct FieldView<'a> {
    pub grid: &'a GridSpec,
    pub values: &'a [f32],
}

impl<'a> FieldView<'a> {
    pub fn of(shape: &'a ColliderShape) -> Self {
        FieldView {
            grid: &shape.field.grid,
            values: &shape.field.values,
        }
    }

    fn dims(&self) -> IVec3 {
        self.grid.dims.as_ivec3()
    }

    pub fn value(&self, c: IVec3) -> f32 {
        let d = self.dims();
        self.values[(c.x + d.x * (c.y + d.y * c.z)) as usize]
    }

    fn in_range(&self, c: IVec3) -> bool {
        c.cmpge(IVec3::ZERO).all() && c.cmplt(self.dims()).all()
    }

    /// The cell containing `p` (object frame), if inside the grid.
    pub fn cell_of(&self, p: Vec3) -> Option<IVec3> {
        let c = ((p - self.grid.origin) / self.grid.cell_size + Vec3::splat(0.5))
            .floor()
            .as_ivec3();
        self.in_range(c).then_some(c)
    }

    /// One-sided differences toward the neighbour on `p`'s side of the cell
    /// centre (the other side at the grid's edge).
    pub fn gradient(&self, c: IVec3, p: Vec3) -> Vec3 {
        let v = self.value(c);
        let offset = p - self.grid.center(c.as_uvec3());
        let mut g = Vec3::ZERO;
        for axis in 0..3 {
            let mut side = if offset[axis] >= 0.0 { 1 } else { -1 };
            let mut step = IVec3::ZERO;
            step[axis] = side;
            if !self.in_range(c + step) {
                side = -side;
                step[axis] = side;
            }
            if self.in_range(c + step) {
                g[axis] = (self.value(c + step) - v) * side as f32 / self.grid.cell_size;
            }
        }
        g
    }

    /// Trilinear interpolation of the cell-centre values at `p` (clamped to
    /// the centres' box).
    pub fn trilinear(&self, p: Vec3) -> f32 {
        let d = self.dims();
        let u = ((p - self.grid.origin) / self.grid.cell_size)
            .clamp(Vec3::ZERO, (d - IVec3::ONE).as_vec3());
        let i0 = u
            .floor()
            .as_ivec3()
            .min((d - IVec3::splat(2)).max(IVec3::ZERO));
        let f = u - i0.as_vec3();
        let at = |dx: i32, dy: i32, dz: i32| {
            let c = (i0 + IVec3::new(dx, dy, dz)).min(d - IVec3::ONE);
            self.value(c)
        };
        let x00 = at(0, 0, 0) + (at(1, 0, 0) - at(0, 0, 0)) * f.x;
        let x10 = at(0, 1, 0) + (at(1, 1, 0) - at(0, 1, 0)) * f.x;
        let x01 = at(0, 0, 1) + (at(1, 0, 1) - at(0, 0, 1)) * f.x;
        let x11 = at(0, 1, 1) + (at(1, 1, 1) - at(0, 1, 1)) * f.x;
        let y0 = x00 + (x10 - x00) * f.y;
        let y1 = x01 + (x11 - x01) * f.y;
        y0 + (y1 - y0) * f.z
    }
}

pub(super) fn transform(m: &Mat4, p: Vec3) -> Vec3 {
    (*m * p.extend(1.0)).xyz()
}

fn rotate(m: &Mat4, v: Vec3) -> Vec3 {
    (*m * v.extend(0.0)).xyz()
}

/// One point of a task against its target (field, plane, sphere or box).
pub(crate) fn sample_against_target(
    task: &Task,
    sample: &Sample,
    field: &FieldView<'_>,
    params: &ColliderParams,
) -> Option<Contact> {
    let p_w = transform(&task.world_from_a(), sample.position);
    let contact = |normal: Vec3, depth: f32, depth_cell: f32| Contact {
        position: p_w,
        normal,
        depth,
        depth_cell,
        body: task.body,
        other: task.other,
        feature: sample.kind,
        sample: 0,
    };
    let prim = task.prim();
    // Distances are measured to the other surface grown by ε (module docs).
    let eps = params.contact_threshold;
    match task.kind {
        TASK_SAMPLES_FIELD => {
            let p_b = transform(&task.b_from_world(), p_w);
            let c = field.cell_of(p_b)?;
            let v = field.value(c) - eps;
            let (inside, depth) = if params.interpolated_depth {
                let vi = field.trilinear(p_b) - eps;
                (vi < 0.0, -vi)
            } else {
                (v < 0.0, -v)
            };
            if !inside {
                return None;
            }
            let g = field.gradient(c, p_b);
            if g.dot(g) <= 1e-30 {
                return None;
            }
            let n = rotate(&task.world_from_b(), g.normalize()).normalize();
            let sn = rotate(&task.world_from_a(), sample.normal);
            if params.reject_flipped && n.dot(sn) > 0.0 {
                return None;
            }
            Some(contact(n, depth.max(0.0), (-v).max(0.0)))
        }
        TASK_SAMPLES_PLANE => {
            let n = prim.xyz();
            let s = n.dot(p_w) - prim.w - eps;
            (s < 0.0).then(|| contact(n, -s, -s))
        }
        TASK_SAMPLES_SPHERE => {
            let r = p_w - prim.xyz();
            let d = r.length();
            let radius = prim.w + eps;
            if d >= radius {
                return None;
            }
            let n = if d > 1e-12 { r / d } else { Vec3::Y };
            Some(contact(n, radius - d, radius - d))
        }
        TASK_SAMPLES_BOX => {
            let p_l = transform(&task.b_from_world(), p_w);
            let gap = (prim.xyz() + Vec3::splat(eps)) - p_l.abs();
            if gap.min_element() <= 0.0 {
                return None;
            }
            let axis = if gap.x <= gap.y && gap.x <= gap.z {
                0
            } else if gap.y <= gap.z {
                1
            } else {
                2
            };
            let mut n_l = Vec3::ZERO;
            n_l[axis] = if p_l[axis] >= 0.0 { 1.0 } else { -1.0 };
            let n = rotate(&task.world_from_b(), n_l).normalize();
            Some(contact(n, gap[axis], gap[axis]))
        }
        _ => None,
    }
}

const INSIDE: u32 = 0;

/// Cohen–Sutherland outcode of `p` against the box `[lo, hi]`.
fn outcode(p: Vec3, lo: Vec3, hi: Vec3) -> u32 {
    let mut code = INSIDE;
    for axis in 0..3 {
        if p[axis] < lo[axis] {
            code |= 1 << (2 * axis);
        } else if p[axis] > hi[axis] {
            code |= 2 << (2 * axis);
        }
    }
    code
}

/// Clips the segment `p0–p1` to the box by Cohen–Sutherland; `None` when
/// it lies wholly outside.
pub(crate) fn clip_segment_to_box(
    mut p0: Vec3,
    mut p1: Vec3,
    lo: Vec3,
    hi: Vec3,
) -> Option<(Vec3, Vec3)> {
    let mut c0 = outcode(p0, lo, hi);
    let mut c1 = outcode(p1, lo, hi);
    for _ in 0..8 {
        if c0 | c1 == INSIDE {
            return Some((p0, p1));
        }
        if c0 & c1 != 0 {
            return None;
        }
        let c = if c0 != INSIDE { c0 } else { c1 };
        let bit = c.trailing_zeros();
        let axis = (bit / 2) as usize;
        let bound = if bit % 2 == 0 { lo[axis] } else { hi[axis] };
        let d = p1 - p0;
        let t = (bound - p0[axis]) / d[axis];
        let mut p = p0 + d * t;
        p[axis] = bound;
        if c == c0 {
            p0 = p;
            c0 = outcode(p0, lo, hi);
        } else {
            p1 = p;
            c1 = outcode(p1, lo, hi);
        }
    }
    None
}

/// The cells an exact voxel walk (Amanatides–Woo) visits from `q0` to `q1`
/// (both inside the grid box, object frame), calling `visit` until it
/// returns true; returns that cell.
pub(crate) fn voxel_walk(
    grid: &GridSpec,
    q0: Vec3,
    q1: Vec3,
    mut visit: impl FnMut(IVec3) -> bool,
) -> Option<IVec3> {
    let h = grid.cell_size;
    let lo = grid.origin - Vec3::splat(0.5 * h);
    let dims = grid.dims.as_ivec3();
    let clamp_cell = |q: Vec3| {
        ((q - lo) / h)
            .floor()
            .as_ivec3()
            .clamp(IVec3::ZERO, dims - IVec3::ONE)
    };
    let mut cell = clamp_cell(q0);
    let end = clamp_cell(q1);
    let d = q1 - q0;
    let mut step = IVec3::ZERO;
    let mut t_max = Vec3::splat(1e30);
    let mut t_delta = Vec3::splat(1e30);
    for axis in 0..3 {
        if d[axis] > 0.0 {
            step[axis] = 1;
            t_delta[axis] = h / d[axis];
            t_max[axis] = (lo[axis] + (cell[axis] + 1) as f32 * h - q0[axis]) / d[axis];
        } else if d[axis] < 0.0 {
            step[axis] = -1;
            t_delta[axis] = -h / d[axis];
            t_max[axis] = (lo[axis] + cell[axis] as f32 * h - q0[axis]) / d[axis];
        }
    }
    let limit = dims.x + dims.y + dims.z + 3;
    for _ in 0..limit {
        if visit(cell) {
            return Some(cell);
        }
        if cell == end {
            break;
        }
        let axis = if t_max.x <= t_max.y && t_max.x <= t_max.z {
            0
        } else if t_max.y <= t_max.z {
            1
        } else {
            2
        };
        if t_max[axis] > 1.0 {
            break;
        }
        cell[axis] += step[axis];
        if cell[axis] < 0 || cell[axis] >= dims[axis] {
            break;
        }
        t_max[axis] += t_delta[axis];
    }
    None
}

/// The segment of a task against its field: the first cell whose value is
/// below the contact threshold `eps`.
pub(crate) fn segment_against_field(
    task: &Task,
    field: &FieldView<'_>,
    eps: f32,
) -> Option<Contact> {
    let p0_w = Vec3::from_slice(&task.prim[..3]);
    let p1_w = Vec3::from_slice(&task.prim2[..3]);
    let b_from_world = task.b_from_world();
    let q0 = transform(&b_from_world, p0_w);
    let q1 = transform(&b_from_world, p1_w);
    let bounds = field.grid.bounds();
    let (c0, c1) = clip_segment_to_box(q0, q1, bounds.min, bounds.max)?;
    let cell = voxel_walk(field.grid, c0, c1, |c| field.value(c) - eps < 0.0)?;
    let v = field.value(cell) - eps;
    let position = transform(&task.world_from_b(), field.grid.center(cell.as_uvec3()));
    let dir = position - p0_w;
    let normal = if dir.length_squared() > 1e-30 {
        dir.normalize()
    } else {
        (p1_w - p0_w).normalize_or_zero()
    };
    Some(Contact {
        position,
        normal,
        depth: -v,
        depth_cell: -v,
        body: task.body,
        other: task.other,
        feature: FeatureKind::Cell,
        sample: 0,
    })
}

/// How far one point of a task is from each decision that float rounding
/// could flip between the backends, measured in the CPU's arithmetic.
/// Lengths are in the frame where the decision is made (the field's object
/// frame, the world for primitives); `None` where the decision is not made.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct DecisionMargins {
    /// Distance of the point to the nearest face between two cells: which
    /// cell (and value) the point reads.
    pub cell_face: Option<f32>,
    /// Distance of the point to its cell's centre plane on the nearest
    /// axis: which neighbour the finite difference uses.
    pub cell_centre: Option<f32>,
    /// |value| of the inside test when it is computed (interpolated depth,
    /// plane, sphere, box), not a stored cell value.
    pub inside: Option<f32>,
    /// |n · n_sample| of the flipped-normal rejection.
    pub flip: Option<f32>,
    /// Gap between the two nearest box faces (which face gives the normal).
    pub face_choice: Option<f32>,
    /// The largest coordinate magnitude met on the way (world or object
    /// frame, translations included): rounding errors scale with it.
    pub scale: f32,
}

fn max_abs(v: Vec3) -> f32 {
    v.abs().max_element()
}

/// The [`DecisionMargins`] of `sample` in `task` (not segment tasks).
pub(crate) fn decision_margins(
    task: &Task,
    sample: &Sample,
    field: &FieldView<'_>,
    params: &ColliderParams,
) -> DecisionMargins {
    let world_from_a = task.world_from_a();
    let p_w = transform(&world_from_a, sample.position);
    let mut m = DecisionMargins {
        scale: max_abs(p_w)
            .max(max_abs(sample.position))
            .max(max_abs(world_from_a.w_axis.xyz()))
            .max(1.0),
        ..DecisionMargins::default()
    };
    let prim = task.prim();
    let eps = params.contact_threshold;
    match task.kind {
        TASK_SAMPLES_FIELD => {
            let b_from_world = task.b_from_world();
            let p_b = transform(&b_from_world, p_w);
            m.scale = m
                .scale
                .max(max_abs(p_b))
                .max(max_abs(b_from_world.w_axis.xyz()));
            let h = field.grid.cell_size;
            let u = (p_b - field.grid.origin) / h + Vec3::splat(0.5);
            let to_face = (u - u.round()).abs().min_element() * h;
            m.cell_face = Some(to_face);
            let Some(c) = field.cell_of(p_b) else {
                return m;
            };
            let offset = p_b - field.grid.center(c.as_uvec3());
            m.cell_centre = Some(offset.abs().min_element());
            if params.interpolated_depth {
                m.inside = Some((field.trilinear(p_b) - eps).abs());
            }
            let g = field.gradient(c, p_b);
            if params.reject_flipped && g.dot(g) > 1e-30 {
                let n = rotate(&task.world_from_b(), g.normalize()).normalize();
                let sn = rotate(&world_from_a, sample.normal);
                m.flip = Some(n.dot(sn).abs());
            }
        }
        TASK_SAMPLES_PLANE => {
            m.inside = Some((prim.xyz().dot(p_w) - prim.w - eps).abs());
            m.scale = m.scale.max(prim.w.abs());
        }
        TASK_SAMPLES_SPHERE => {
            m.inside = Some(((p_w - prim.xyz()).length() - (prim.w + eps)).abs());
            m.scale = m.scale.max(max_abs(prim.xyz()));
        }
        TASK_SAMPLES_BOX => {
            let b_from_world = task.b_from_world();
            let p_l = transform(&b_from_world, p_w);
            m.scale = m.scale.max(max_abs(b_from_world.w_axis.xyz()));
            let mut gap = ((prim.xyz() + Vec3::splat(eps)) - p_l.abs()).to_array();
            gap.sort_by(f32::total_cmp);
            m.inside = Some(gap[0].abs());
            m.face_choice = Some(gap[1] - gap[0]);
        }
        _ => {}
    }
    m
}
