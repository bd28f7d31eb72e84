// The sum of a vec2f over a workgroup of 64 invocations, the same value in
// every invocation: a tree reduction in workgroup memory, 6 float32
// additions on each part's way to the total (callers whose parts carry a
// rounding bound count them). Call in workgroup-uniform control flow.

var<workgroup> workgroup_sum_parts: array<vec2f, 64>;
var<workgroup> workgroup_sum_total: vec2f;

fn workgroup_sum_vec2(part: vec2f, lid: u32) -> vec2f {
    workgroup_sum_parts[lid] = part;
    for (var stride = 32u; stride > 0u; stride >>= 1u) {
        workgroupBarrier();
        if (lid < stride) {
            workgroup_sum_parts[lid] += workgroup_sum_parts[lid + stride];
        }
    }
    workgroupBarrier();
    if (lid == 0u) {
        workgroup_sum_total = workgroup_sum_parts[0];
    }
    return workgroupUniformLoad(&workgroup_sum_total);
}
