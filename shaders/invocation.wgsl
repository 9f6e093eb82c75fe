// The index of an invocation of a kernel of 64-wide workgroups dispatched as (x, y) groups,
// which lifts wgpu's 65 535 groups per dimension. Twin: batch::gpu::kernel::groups.
fn invocation(gid: vec3<u32>, groups: vec3<u32>) -> u32 {
    return gid.x + gid.y * groups.x * 64u;
}
