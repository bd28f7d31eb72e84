// Reading a mesh's distance field stored flat in `values` (Sundholm 2010,
// §5.2–5.3): the cell a point falls in, the value at a cell, the one-sided
// difference gradient, and the trilinear value at a point. Used by
// collide.wgsl and simulate_step.wgsl; the includer declares
// `values: array<f32>` (storage, read).

// FieldInfo in src/stages/collide/gpu.rs.
struct FieldInfo {
    origin: vec3<f32>,
    cell_size: f32,
    dims: vec3<u32>,
    offset: u32,
}

fn in_range(f: FieldInfo, c: vec3<i32>) -> bool {
    return all(c >= vec3<i32>(0)) && all(c < vec3<i32>(f.dims));
}

fn value(f: FieldInfo, c: vec3<i32>) -> f32 {
    let d = vec3<i32>(f.dims);
    return values[f.offset + u32(c.x + d.x * (c.y + d.y * c.z))];
}

fn cell_of(f: FieldInfo, p: vec3<f32>) -> vec3<i32> {
    return vec3<i32>(floor((p - f.origin) / f.cell_size + vec3<f32>(0.5)));
}

fn gradient(f: FieldInfo, c: vec3<i32>, p: vec3<f32>) -> vec3<f32> {
    let v = value(f, c);
    let offset = p - (f.origin + vec3<f32>(c) * f.cell_size);
    var g = vec3<f32>(0.0);
    for (var axis = 0; axis < 3; axis++) {
        var side = select(-1, 1, offset[axis] >= 0.0);
        var step = vec3<i32>(0);
        step[axis] = side;
        if !in_range(f, c + step) {
            side = -side;
            step[axis] = side;
        }
        if in_range(f, c + step) {
            g[axis] = (value(f, c + step) - v) * f32(side) / f.cell_size;
        }
    }
    return g;
}

fn trilinear(f: FieldInfo, p: vec3<f32>) -> f32 {
    let d = vec3<i32>(f.dims);
    let u = clamp((p - f.origin) / f.cell_size, vec3<f32>(0.0), vec3<f32>(d - vec3<i32>(1)));
    let i0 = min(vec3<i32>(floor(u)), max(d - vec3<i32>(2), vec3<i32>(0)));
    let t = u - vec3<f32>(i0);
    let hi = d - vec3<i32>(1);
    let a000 = value(f, min(i0 + vec3<i32>(0, 0, 0), hi));
    let a100 = value(f, min(i0 + vec3<i32>(1, 0, 0), hi));
    let a010 = value(f, min(i0 + vec3<i32>(0, 1, 0), hi));
    let a110 = value(f, min(i0 + vec3<i32>(1, 1, 0), hi));
    let a001 = value(f, min(i0 + vec3<i32>(0, 0, 1), hi));
    let a101 = value(f, min(i0 + vec3<i32>(1, 0, 1), hi));
    let a011 = value(f, min(i0 + vec3<i32>(0, 1, 1), hi));
    let a111 = value(f, min(i0 + vec3<i32>(1, 1, 1), hi));
    let x00 = a000 + (a100 - a000) * t.x;
    let x10 = a010 + (a110 - a010) * t.x;
    let x01 = a001 + (a101 - a001) * t.x;
    let x11 = a011 + (a111 - a011) * t.x;
    let y0 = x00 + (x10 - x00) * t.y;
    let y1 = x01 + (x11 - x01) * t.y;
    return y0 + (y1 - y0) * t.z;
}
