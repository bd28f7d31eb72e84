//!include shared/particles.wgsl
// Impact maps (Knott 2003 §3.4.2–3.4.3): one point per impact, drawn
// indirectly with the impacts pass's count, into an atlas of one
// map_res² square per collider (collider i in rows [i·res, (i+1)·res)).
// Three R32Float targets blend: count (add), sub-frame time as a fraction
// of the frame (min), impact speed (max).

@group(0) @binding(0) var<uniform> frame: Frame;
@group(0) @binding(1) var<storage, read> emitters: array<Emitter>;
@group(0) @binding(2) var<storage, read> colliders: array<Collider>;
@group(0) @binding(3) var<storage, read> impacts: array<Impact>;

struct MapPoint {
    @builtin(position) clip: vec4<f32>,
    @location(0) time: f32,
    @location(1) speed: f32,
}

@vertex
fn map_vertex(@builtin(vertex_index) i: u32) -> MapPoint {
    var out: MapPoint;
    if i >= frame.capacity {
        // Beyond the record buffer: outside the viewport, culled (§3.4.2).
        out.clip = vec4<f32>(-2.0, -2.0, 0.0, 1.0);
        return out;
    }
    let hit = impacts[i];
    let res = f32(frame.map_res);
    let uv = map_uv(colliders[hit.collider], hit.p);
    let texel = min(floor(uv * res), vec2<f32>(res - 1.0));
    let x = (texel.x + 0.5) / res;
    let y = (f32(hit.collider) * res + texel.y + 0.5) / (res * f32(frame.num_colliders));
    out.clip = vec4<f32>(2.0 * x - 1.0, 1.0 - 2.0 * y, 0.0, 1.0);
    out.time = hit.t / frame.dt;
    out.speed = hit.speed;
    return out;
}

struct MapTexel {
    @location(0) count: f32,
    @location(1) time: f32,
    @location(2) speed: f32,
}

@fragment
fn map_fragment(p: MapPoint) -> MapTexel {
    return MapTexel(1.0, p.time, p.speed);
}
