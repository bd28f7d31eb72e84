//!include shared/field_lookup.wgsl

// The field-contact test of a sample point against a body's distance field,
// as collide.wgsl's TASK_SAMPLES_FIELD tasks and simulate_step.wgsl's
// narrow phase make it (CPU reference: src/stages/collide/cpu.rs): the
// point, in the field's frame, touches where the field's value less the
// contact threshold `eps` is negative (the other body grown by a skin of
// ε) — the value of the point's cell, or the trilinear value with
// `interpolated` — and the field's gradient there is defined. The caller
// turns the normal into its frame and may reject flipped normals.

struct FieldContact {
    hit: bool,
    // ε less the value tested (trilinear with `interpolated`): > 0 on a hit.
    depth: f32,
    // ε less the cell's value (`depth` without interpolation).
    cell_depth: f32,
    // The unit gradient, in the field's frame.
    normal: vec3<f32>,
}

fn field_contact(f: FieldInfo, p: vec3<f32>, eps: f32, interpolated: bool) -> FieldContact {
    let miss = FieldContact(false, 0.0, 0.0, vec3<f32>(0.0));
    let c = cell_of(f, p);
    if !in_range(f, c) {
        return miss;
    }
    let v = value(f, c) - eps;
    var tested = v;
    if interpolated {
        tested = trilinear(f, p) - eps;
    }
    if !(tested < 0.0) {
        return miss;
    }
    let g = gradient(f, c, p);
    if dot(g, g) <= 1e-30 {
        return miss;
    }
    return FieldContact(true, -tested, -v, normalize(g));
}
