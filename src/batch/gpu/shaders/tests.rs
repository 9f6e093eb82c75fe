use wgpu::util::DeviceExt;

use super::{Precision, real};
use crate::batch::gpu::GpuContext;

/// An adapter with f64, or `None` after a notice (a failure under RICOCHET_REQUIRE_GPU=1).
fn f64_context() -> Option<GpuContext> {
    match GpuContext::new() {
        Ok(ctx) if ctx.supports_f64() => Some(ctx),
        other => {
            let why = other.err().map_or("no f64 on the adapter".into(), |e| e.to_string());
            assert!(std::env::var("RICOCHET_REQUIRE_GPU").as_deref() != Ok("1"), "{why}");
            eprintln!("SKIPPED: {why}");
            None
        }
    }
}

/// Runs `source`'s entry point `main` over `invocations` (workgroups of 64) on the f64
/// storage buffer `values` at binding 0, and returns the buffer afterwards.
fn run_on(ctx: &GpuContext, source: &str, values: &[f64], invocations: usize) -> Vec<f64> {
    let module = ctx.device.create_shader_module(wgpu::ShaderModuleDescriptor {
        label: Some("probe"),
        source: wgpu::ShaderSource::Wgsl(source.into()),
    });
    let pipeline = ctx.device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
        label: Some("probe"),
        layout: None,
        module: &module,
        entry_point: Some("main"),
        compilation_options: Default::default(),
        cache: None,
    });
    let buffer = ctx.device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
        label: Some("x"),
        contents: bytemuck::cast_slice(values),
        usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC,
    });
    let group = ctx.device.create_bind_group(&wgpu::BindGroupDescriptor {
        label: Some("x"),
        layout: &pipeline.get_bind_group_layout(0),
        entries: &[wgpu::BindGroupEntry {
            binding: 0,
            resource: buffer.as_entire_binding(),
        }],
    });
    let mut encoder = ctx.device.create_command_encoder(&Default::default());
    {
        let mut pass = encoder.begin_compute_pass(&Default::default());
        pass.set_pipeline(&pipeline);
        pass.set_bind_group(0, &group, &[]);
        pass.dispatch_workgroups((invocations as u32).div_ceil(64), 1, 1);
    }
    let [bytes] = crate::batch::gpu::buffers::read_back(ctx, encoder, [&buffer], || {});
    bytemuck::pod_collect_to_vec(&bytes.unwrap())
}

/// The f64 kernel's `sine_cosine` gives the bits of its CPU twin
/// (`batch::cpu::lever::sine_cosine`),
/// which the lever rows need for GPU f64 = CPU lanes bit for bit. Skips without an f64
/// adapter unless RICOCHET_REQUIRE_GPU=1.
#[test]
fn kernel_sine_cosine_is_the_cpu_twin_bit_for_bit() {
    let Some(ctx) = f64_context() else { return };
    let x: Vec<f64> = (-3000..3000).map(|i| f64::from(i) * 0.00731 + 1e-3).collect();
    let mut values: Vec<f64> = x.iter().flat_map(|&x| [x, 0.0]).collect();
    let source = real(Precision::F64)
        + "@group(0) @binding(0) var<storage, read_write> x: array<f64>;\n\
           @compute @workgroup_size(64)\n\
           fn main(@builtin(global_invocation_id) id: vec3<u32>) {\n\
               if (2u * id.x < arrayLength(&x)) {\n\
                   let sc = sine_cosine(x[2u * id.x]);\n\
                   x[2u * id.x] = sc.x;\n\
                   x[2u * id.x + 1u] = sc.y;\n\
               }\n\
           }\n";
    values = run_on(&ctx, &source, &values, x.len());
    let twin = |x: f64| {
        let (sin, cos) = crate::batch::cpu::lever::sine_cosine(x);
        [sin.to_bits(), cos.to_bits()]
    };
    let mismatches: Vec<_> = x
        .iter()
        .zip(values.chunks(2))
        .filter(|(x, g)| twin(**x) != [g[0].to_bits(), g[1].to_bits()])
        .map(|(x, g)| (*x, [g[0], g[1]], crate::batch::cpu::lever::sine_cosine(*x)))
        .take(5)
        .collect();
    assert!(mismatches.is_empty(), "(x, kernel, twin): {mismatches:?}");
}

/// The shared local solves (`contact_local.wgsl`) in f64 give their twins' bits
/// (`contact::local::friction_2d`, `friction_3d`) on random contacts: separating,
/// sticking and sliding, diagonal and full blocks.
#[test]
fn kernel_local_solves_are_their_twins_bit_for_bit() {
    use crate::contact::lanes::Lanes;
    use crate::contact::local::{friction_2d, friction_3d};
    use rand::{RngExt, SeedableRng};
    let Some(ctx) = f64_context() else { return };
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(7);
    // Per case: w (9, row-major), q (3), λ (3), μ, then the kernel's 2-D (2) and 3-D (3) results.
    const STRIDE: usize = 21;
    let cases = 4000;
    let mut values = vec![0.0f64; STRIDE * cases];
    for (k, case) in values.chunks_mut(STRIDE).enumerate() {
        let a: [f64; 9] = std::array::from_fn(|_| rng.random::<f64>() - 0.5);
        // W = AᵀA + diag, or diagonal for even cases.
        for i in 0..3 {
            for j in 0..3 {
                let full: f64 = (0..3).map(|l| a[3 * l + i] * a[3 * l + j]).sum();
                case[3 * i + j] = if k % 2 == 0 {
                    if i == j { 0.5 + rng.random::<f64>() } else { 0.0 }
                } else {
                    full + if i == j { 0.2 } else { 0.0 }
                };
            }
        }
        for x in &mut case[9..15] {
            *x = 2.0 * rng.random::<f64>() - 1.0;
        }
        case[15] = rng.random::<f64>();
        if k % 4 == 2 {
            // A sphere's block, diag(w_N, w_T, w_T), from a sliding or sticking warm start.
            case[8] = case[4];
            case[14] = 0.0;
        }
    }
    let source = real(Precision::F64)
        + &format!(
            "const SLIDE_ITERATIONS: u32 = {}u;\n",
            crate::contact::local::SLIDE_ITERATIONS
        )
        + super::CONTACT_LOCAL
        + "@group(0) @binding(0) var<storage, read_write> x: array<f64>;\n\
           @compute @workgroup_size(64)\n\
           fn main(@builtin(global_invocation_id) id: vec3<u32>) {\n\
               let b = 21u * id.x;\n\
               if (b >= arrayLength(&x)) { return; }\n\
               var w: array<vec3<f64>, 3>;\n\
               for (var i = 0u; i < 3u; i++) { w[i] = vec3<f64>(x[b + 3u * i], x[b + 3u * i + 1u], x[b + 3u * i + 2u]); }\n\
               let q = vec3<f64>(x[b + 9u], x[b + 10u], x[b + 11u]);\n\
               let lam = vec3<f64>(x[b + 12u], x[b + 13u], x[b + 14u]);\n\
               let mu = x[b + 15u];\n\
               let w2 = array<vec2<f64>, 2>(vec2<f64>(w[0][0], w[0][1]), vec2<f64>(w[1][0], w[1][1]));\n\
               let two = friction_2d(w2, vec2<f64>(q[0], q[1]), mu);\n\
               let three = friction_3d(w, q, lam, mu);\n\
               x[b + 16u] = two[0]; x[b + 17u] = two[1];\n\
               x[b + 18u] = three[0]; x[b + 19u] = three[1]; x[b + 20u] = three[2];\n\
           }\n";
    let kernel = run_on(&ctx, &source, &values, cases);
    let one = |x: f64| Lanes::<f64, 1>([x]);
    let mut mismatches = Vec::new();
    for (k, case) in kernel.chunks(STRIDE).enumerate() {
        let w: [[Lanes<f64, 1>; 3]; 3] = std::array::from_fn(|i| std::array::from_fn(|j| one(case[3 * i + j])));
        let q = [one(case[9]), one(case[10]), one(case[11])];
        let lam = [one(case[12]), one(case[13]), one(case[14])];
        let mu = one(case[15]);
        let two = friction_2d([[w[0][0], w[0][1]], [w[1][0], w[1][1]]], [q[0], q[1]], mu);
        let three = friction_3d(w, q, lam, mu);
        let twin = [two[0], two[1], three[0], three[1], three[2]].map(|x| x.0[0].to_bits());
        let got: Vec<u64> = case[16..21].iter().map(|x| x.to_bits()).collect();
        if got != twin {
            mismatches.push((k, case[16..21].to_vec(), twin.map(f64::from_bits)));
        }
    }
    assert!(
        mismatches.is_empty(),
        "{} of {cases} differ; (case, kernel, twin): {:?}",
        mismatches.len(),
        &mismatches[..mismatches.len().min(4)]
    );
}
