//! Every composed WGSL module parses and validates (no GPU needed), each WGSL struct has the
//! size and field offsets of its Rust twin, and the kernel's step stages are the CPU twin's.

use ricochet::batch::cpu::moreau_jean_pgs::{RATTLE_STAGES, STAGES};
use ricochet::batch::gpu::moreau_jean_pgs::Params;
use ricochet::batch::gpu::{Precision, shaders};
use ricochet::batch::layout::{HAS_STIFFNESS, HealthCounters, RATTLE, SPAN_DYNAMICS};
use ricochet::batch::{ChainParams, OperatorOffsets, SceneHeader, StepParams};

const SIZES: shaders::KernelSizes = shaders::KernelSizes {
    max_dof: 8,
    max_contacts: 4,
    fixed_dof: 0,
    fixed_contacts: 0,
    max_operators: 256,
    nonlinear: false,
    rattle: false,
    compressed: true,
    observers: 2,
    strobe: (10, 5, 3),
    record: 8 + 3 * 16 + 2 + 4 + 5 * 4,
    events: 4,
    events_at: 8 + 3 * 16,
    workgroup: 128,
    locate: false,
    span_operators: false,
};

fn module(precision: Precision) -> naga::Module {
    let source = shaders::moreau_jean_pgs(precision, SIZES);
    let module = naga::front::wgsl::parse_str(&source)
        .unwrap_or_else(|e| panic!("{precision:?}: {}", e.emit_to_string(&source)));
    naga::valid::Validator::new(naga::valid::ValidationFlags::all(), naga::valid::Capabilities::FLOAT64)
        .validate(&module)
        .unwrap_or_else(|e| panic!("{precision:?}: {e:?}"));
    module
}

/// (size, member offsets) of the WGSL struct `name`.
fn layout(module: &naga::Module, name: &str) -> (u32, Vec<u32>) {
    module
        .types
        .iter()
        .find_map(|(_, ty)| match &ty.inner {
            naga::TypeInner::Struct { members, span } if ty.name.as_deref() == Some(name) => {
                Some((*span, members.iter().map(|m| m.offset).collect()))
            }
            _ => None,
        })
        .unwrap_or_else(|| panic!("no struct {name}"))
}

#[test]
fn kernels_validate_in_both_precisions_and_for_fixed_sizes() {
    module(Precision::F32);
    module(Precision::F64);
    // The located step (f64 only, but it compiles in f32 too), with observers and events, and
    // with sub-steps that build their own operators of W(τ).
    for (precision, span_operators) in [(Precision::F32, false), (Precision::F64, false), (Precision::F64, true)] {
        let sizes = shaders::KernelSizes {
            locate: true,
            span_operators,
            ..SIZES
        };
        let source = shaders::moreau_jean_pgs(precision, sizes);
        let module = naga::front::wgsl::parse_str(&source)
            .unwrap_or_else(|e| panic!("{precision:?} located: {}", e.emit_to_string(&source)));
        naga::valid::Validator::new(naga::valid::ValidationFlags::all(), naga::valid::Capabilities::FLOAT64)
            .validate(&module)
            .unwrap_or_else(|e| panic!("{precision:?} located: {e:?}"));
    }
    // Fixed sizes (loops unroll), and the Newton loop for quadratic rows, in both precisions.
    // And RATTLE's step, linear and nonlinear.
    for (precision, nonlinear, rattle) in [
        (Precision::F32, false, false),
        (Precision::F32, true, false),
        (Precision::F64, true, false),
        (Precision::F32, false, true),
        (Precision::F64, true, true),
    ] {
        let sizes = shaders::KernelSizes {
            max_dof: 4,
            max_contacts: 4,
            fixed_dof: 3,
            fixed_contacts: 1,
            max_operators: 64,
            nonlinear,
            rattle,
            compressed: false,
            observers: 0,
            strobe: (0, 1, 0),
            record: 0,
            events: 0,
            events_at: 0,
            workgroup: 64,
            locate: false,
            span_operators: false,
        };
        let source = shaders::moreau_jean_pgs(precision, sizes);
        let module = naga::front::wgsl::parse_str(&source)
            .unwrap_or_else(|e| panic!("{precision:?} {nonlinear}: {}", e.emit_to_string(&source)));
        let mut validator =
            naga::valid::Validator::new(naga::valid::ValidationFlags::all(), naga::valid::Capabilities::FLOAT64);
        validator.validate(&module).unwrap();
    }
}

#[test]
fn wgsl_structs_match_their_rust_twins() {
    let module = module(Precision::F32);
    let (size, offsets) = layout(&module, "SceneHeader");
    assert_eq!(size as usize, size_of::<SceneHeader>());
    assert_eq!(
        offsets.iter().take(6).map(|&o| o as usize).collect::<Vec<_>>(),
        [
            std::mem::offset_of!(SceneHeader, ndof),
            std::mem::offset_of!(SceneHeader, ncontacts),
            std::mem::offset_of!(SceneHeader, state_offset),
            std::mem::offset_of!(SceneHeader, operator_offset),
            std::mem::offset_of!(SceneHeader, flags),
            std::mem::offset_of!(SceneHeader, row_offset),
        ]
    );
    let (size, offsets) = layout(&module, "HealthCounters");
    assert_eq!(size as usize, size_of::<HealthCounters>());
    assert_eq!(
        offsets.iter().map(|&o| o as usize).collect::<Vec<_>>(),
        [
            std::mem::offset_of!(HealthCounters, impacts),
            std::mem::offset_of!(HealthCounters, contact_steps),
            std::mem::offset_of!(HealthCounters, last_impact),
            std::mem::offset_of!(HealthCounters, max_iterations),
            std::mem::offset_of!(HealthCounters, flags),
            std::mem::offset_of!(HealthCounters, steps),
        ]
    );
}

#[test]
fn chain_kernels_validate_in_both_precisions() {
    for precision in [Precision::F32, Precision::F64] {
        let source = shaders::chain_jacobi(precision);
        let module = naga::front::wgsl::parse_str(&source)
            .unwrap_or_else(|e| panic!("{precision:?}: {}", e.emit_to_string(&source)));
        naga::valid::Validator::new(naga::valid::ValidationFlags::all(), naga::valid::Capabilities::FLOAT64)
            .validate(&module)
            .unwrap_or_else(|e| panic!("{precision:?}: {e:?}"));
        for entry in ["prepare", "sweep", "update"] {
            assert!(
                module.entry_points.iter().any(|e| e.name == entry),
                "no entry point {entry}"
            );
        }
        // ChainParams has the layout of its Rust twin in the kernel's precision.
        let (size, offsets) = layout(&module, "ChainParams");
        let expected = match precision {
            Precision::F32 => (size_of::<ChainParams<f32>>(), ChainParams::<f32>::offsets()),
            Precision::F64 => (size_of::<ChainParams<f64>>(), ChainParams::<f64>::offsets()),
        };
        assert_eq!(
            (size as usize, offsets.iter().map(|&o| o as usize).collect::<Vec<_>>()),
            expected,
            "{precision:?}"
        );
    }
}

#[test]
fn step_params_and_dispatch_params_match_their_wgsl_declarations() {
    // StepParams is generic over the kernel's real type: its WGSL twin in both precisions.
    for (precision, size, offsets) in [
        (
            Precision::F32,
            size_of::<StepParams<f32>>(),
            StepParams::<f32>::offsets(),
        ),
        (
            Precision::F64,
            size_of::<StepParams<f64>>(),
            StepParams::<f64>::offsets(),
        ),
    ] {
        let module = module(precision);
        let (wgsl_size, wgsl_offsets) = layout(&module, "StepParams");
        assert_eq!(wgsl_size as usize, size, "{precision:?}");
        assert_eq!(
            wgsl_offsets.iter().map(|&o| o as usize).collect::<Vec<_>>(),
            offsets,
            "{precision:?}"
        );
        // The bytes the host uploads have the struct's size.
        let params = StepParams::<f64> {
            h: 1.0,
            theta: 0.5,
            gamma: 0.5,
            tolerance: 1e-9,
            newton_tolerance: 1e-6,
            position_tolerance: 1e-13,
            t0: 0.0,
            max_iterations: 7,
            newton_max_iterations: 9,
        };
        let bytes = params.to_bytes(precision.size(), |x, out| match precision {
            Precision::F32 => out.extend_from_slice(&(x as f32).to_ne_bytes()),
            Precision::F64 => out.extend_from_slice(&x.to_ne_bytes()),
        });
        assert_eq!(bytes.len(), size, "{precision:?}");
        let at = |o: usize| u32::from_ne_bytes(bytes[o..o + 4].try_into().unwrap());
        assert_eq!(at(offsets[7]), 7);
        assert_eq!(at(offsets[8]), 9);
    }
    let (size, offsets) = layout(&module(Precision::F32), "Params");
    assert_eq!(size as usize, size_of::<Params>());
    assert_eq!(
        offsets.iter().map(|&o| o as usize).collect::<Vec<_>>(),
        [
            std::mem::offset_of!(Params, scenes),
            std::mem::offset_of!(Params, steps),
            std::mem::offset_of!(Params, stride),
            std::mem::offset_of!(Params, probe),
            std::mem::offset_of!(Params, zero),
        ]
    );
}

#[test]
fn operator_offsets_are_one_layout_for_host_and_kernel() {
    // The generated WGSL function computes what the Rust one does: evaluate it with naga's
    // constant evaluator is not possible (n, m are arguments), so check the text's order and
    // the closed forms of the lengths instead.
    let wgsl = OperatorOffsets::WGSL;
    let blocks = [
        "a",
        "b",
        "c",
        "w_inv_ht",
        "h",
        "delassus",
        "offset",
        "restitution",
        "feedback",
        "mu",
        "c_harmonic",
        "frequency",
        "span_mass",
        "span_damping",
        "span_stiffness",
        "span_force",
        "span_amplitude",
        "quadratic",
        "w_inv",
        "spheres",
        "lever",
    ];
    let positions: Vec<usize> = blocks
        .iter()
        .map(|b| {
            wgsl.find(&format!("    o.{b} = k;"))
                .unwrap_or_else(|| panic!("no block {b}"))
        })
        .collect();
    assert!(positions.windows(2).all(|w| w[0] < w[1]), "blocks out of order");
    for (n, m) in [(1, 1), (3, 2), (8, 5)] {
        // Dense, with stiffness: A, B, H, W⁻¹Hᵀ and D stored whole.
        let o = SceneHeader::dense_offsets(n, m, HAS_STIFFNESS);
        // Moreau–Jean's blocks end where RATTLE's end kick begins.
        assert_eq!(o.end_a, 3 * n * n + 2 * n + 3 * n * m + m * m + 13 * m + 3);
        assert_eq!(o.quadratic, 2 * n * n + 2 * n + 2 * n * m + m * m + 4 * m + 3);
        assert_eq!(o.spheres, o.end_a - 9 * m);
        assert_eq!(o.lever, o.end_a - 3 * m);
        assert_eq!(o.end, o.end_a + 3 * n * n + 2 * n + n * m + m * m);
        assert_eq!(SceneHeader::operator_len(n, m, HAS_STIFFNESS), o.end_a);
        assert_eq!(SceneHeader::operator_len(n, m, RATTLE | HAS_STIFFNESS), o.end);
        // Without stiffness A and B (and the end kick's) are not stored.
        let o = SceneHeader::dense_offsets(n, m, 0);
        assert_eq!((o.a, o.b, o.c), (0, 0, 0));
        assert_eq!(o.end_a, n * n + 2 * n + 3 * n * m + m * m + 13 * m + 3);
        assert_eq!(o.end, o.end_a + n * n + 2 * n + n * m + m * m);
        // Compressed: nh entries of H and W⁻¹Hᵀ, nd of D.
        let (nh, nd) = (2 * m, 3 * m);
        let o = OperatorOffsets::new(n, m, 0, nh, nd, 0);
        assert_eq!(o.quadratic, 2 * n + 2 * nh + nd + 4 * m + 3);
        // A located run's stiff scene: M, C, K, f₀ and a before Y, within RATTLE's bound.
        let o = SceneHeader::dense_offsets(n, m, HAS_STIFFNESS | SPAN_DYNAMICS);
        assert_eq!(o.quadratic - o.span_mass, 3 * n * n + 2 * n);
        assert_eq!(o.end_a, 6 * n * n + 4 * n + 3 * n * m + m * m + 13 * m + 3);
        assert!(o.end_a <= SceneHeader::operator_len(n, m, RATTLE | HAS_STIFFNESS));
    }
    // The WGSL function takes the same parameters.
    assert!(wgsl.contains("fn operator_offsets(n: u32, m: u32, s: u32, nh: u32, nd: u32, w: u32, )"));
}

/// The argument names of the WGSL function `name`.
fn wgsl_arguments(module: &naga::Module, name: &str) -> Vec<String> {
    let (_, function) = module
        .functions
        .iter()
        .find(|(_, f)| f.name.as_deref() == Some(name))
        .unwrap_or_else(|| panic!("the kernel has no stage {name}"));
    function
        .arguments
        .iter()
        .map(|a| a.name.clone().unwrap_or_default())
        .collect()
}

/// The argument names of the twin's method `name` (after `&mut self` or `&self`), read from
/// its source.
fn twin_arguments(source: &str, name: &str) -> Vec<String> {
    let start = source
        .find(&format!("fn {name}("))
        .unwrap_or_else(|| panic!("the CPU twin has no stage {name}"));
    let signature = &source[start + name.len() + 4..];
    let signature = &signature[..signature.find(')').unwrap()];
    signature
        .split(',')
        .map(str::trim)
        .filter(|a| !a.is_empty() && !a.ends_with("self"))
        .map(|a| a.split(':').next().unwrap().trim().to_string())
        .collect()
}

/// Each of `stages` has its arguments in the kernel (`module`, parsed from `source`) and in
/// the `twin`'s source, and each names the other.
fn same_stages(stages: &[(&str, &[&str])], (module, source): (&naga::Module, &str), twin: &str) {
    for &(stage, arguments) in stages {
        assert_eq!(wgsl_arguments(module, stage), arguments, "kernel stage {stage}");
        assert_eq!(twin_arguments(twin, stage), arguments, "twin stage {stage}");
        assert!(
            source.contains(&format!("Twin: Group::{stage}")),
            "kernel stage {stage} names no twin"
        );
        assert!(
            twin.contains(&format!("Kernel: `{stage}`")),
            "twin stage {stage} names no kernel function"
        );
    }
}

#[test]
fn the_kernel_and_its_cpu_twin_have_the_same_stages() {
    let twin = [
        include_str!("../../src/batch/cpu/moreau_jean_stages.rs"),
        include_str!("../../src/batch/cpu/moreau_jean_stages/outputs.rs"),
        include_str!("../../src/batch/cpu/moreau_jean_stages/solve.rs"),
        include_str!("../../src/batch/cpu/moreau_jean_stages/newton.rs"),
        include_str!("../../src/batch/cpu/moreau_jean_stages/observe.rs"),
        include_str!("../../src/batch/cpu/moreau_jean_stages/rattle.rs"),
        include_str!("../../src/batch/cpu/moreau_jean_stages/forcing.rs"),
    ]
    .concat();
    let driver = include_str!("../../src/batch/cpu/moreau_jean_pgs.rs");
    // RATTLE's stages, in rattle_step: the same names, arguments and order in both.
    for nonlinear in [false, true] {
        let sizes = shaders::KernelSizes {
            nonlinear,
            rattle: true,
            ..SIZES
        };
        let source = shaders::moreau_jean_pgs(Precision::F64, sizes);
        let module = naga::front::wgsl::parse_str(&source).unwrap();
        same_stages(&RATTLE_STAGES, (&module, &source), &twin);
        let kernel = &source[source.find("fn rattle_step(").unwrap()..];
        let twin_step = &driver[driver.find("fn rattle_step<").unwrap()..];
        for (text, call) in [(kernel, ""), (twin_step, ".")] {
            let positions: Vec<usize> = RATTLE_STAGES
                .iter()
                .map(|(s, _)| {
                    text.find(&format!("{call}{s}("))
                        .unwrap_or_else(|| panic!("{s} not called"))
                })
                .collect();
            assert!(
                positions.windows(2).all(|w| w[0] < w[1]),
                "RATTLE stages called out of order"
            );
        }
    }
    for nonlinear in [false, true] {
        let source = shaders::moreau_jean_pgs(Precision::F64, shaders::KernelSizes { nonlinear, ..SIZES });
        let module = naga::front::wgsl::parse_str(&source).unwrap();
        same_stages(&STAGES, (&module, &source), &twin);
        // simulate calls the stages in the listed order, in both.
        let order = |text: &str, call: &dyn Fn(&str) -> String| -> Vec<usize> {
            STAGES
                .iter()
                .map(|(s, _)| text.find(&call(s)).unwrap_or_else(|| panic!("{s} not called")))
                .collect()
        };
        // (In the time loop: the observers' first sample comes before it. The loop's step,
        // `time_step`, is `solve_step` and its health.)
        let body = |name: &str| {
            let f = &source[source.find(&format!("fn {name}(")).unwrap()..];
            f[..f.find("\n}\n").unwrap()].to_string()
        };
        let time_loop = body("simulate");
        let time_loop = &time_loop[time_loop.find("for (var k = 0u; k < params.steps").unwrap()..];
        assert!(time_loop.contains("time_step();"), "{time_loop}");
        let kernel = &format!("{}{}{time_loop}", body("solve_step"), body("time_step"));
        // (The twin's loop body: `Group::solve_step`, then its health and observers.)
        let stages = include_str!("../../src/batch/cpu/moreau_jean_stages.rs");
        let solve = &stages[stages.find("fn solve_step(").unwrap()..];
        let solve = &solve[..solve.find("\n    }\n").unwrap()];
        let twin_driver = include_str!("../../src/batch/cpu/moreau_jean_pgs.rs");
        let twin_driver = &twin_driver[twin_driver.find("fn simulate<").unwrap()..];
        let twin_driver = &twin_driver[twin_driver.find("for _ in 0..block").unwrap()..];
        let twin_driver = &format!("{solve}{twin_driver}");
        for positions in [
            order(kernel, &|s| format!("{s}(")),
            order(twin_driver, &|s| format!(".{s}(")),
        ] {
            // harmonic_forcing is an argument of free_velocity: it appears after it on the line.
            let mut sorted = positions.clone();
            sorted.sort();
            assert_eq!(positions[2..], sorted[2..], "stages called out of order");
        }
    }
}

/// Every file under `dir` ending in `extension`, as (path, text).
fn sources(dir: &std::path::Path, extension: &str) -> Vec<(std::path::PathBuf, String)> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            found.extend(sources(&path, extension));
        } else if path.extension().is_some_and(|e| e == extension) {
            found.push((path.clone(), std::fs::read_to_string(&path).unwrap()));
        }
    }
    found
}

/// The names `text` defines after one of `keywords` (`fn`, `const`, …).
fn defined(text: &str, keywords: &[&str]) -> std::collections::BTreeSet<String> {
    let identifier = |s: &str| {
        s.chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect::<String>()
    };
    text.split_whitespace()
        .collect::<Vec<_>>()
        .windows(2)
        .filter(|w| keywords.contains(&w[0]))
        .map(|w| identifier(w[1]))
        .filter(|name| !name.is_empty())
        .collect()
}

/// The twin contract, closed both ways: every kernel function or constant that a CPU twin's
/// doc names (`Kernel: \`name\``) is defined in the WGSL sources, and every `Twin: name` in
/// them names a function, constant, type or module of the Rust side (the last segment of a
/// path; a closure, "the `velocity` closure of …", is not checked). Two twin comments once
/// named kernel functions that did not exist.
#[test]
fn twin_comments_name_what_exists() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let wgsl = sources(&root.join("shaders"), "wgsl");
    let rust: Vec<_> = ["src/batch", "src/contact", "src/large_scene", "src/reference"]
        .iter()
        .flat_map(|dir| sources(&root.join(dir), "rs"))
        .collect();
    // The sources and the constants generated ahead of them.
    let composed = shaders::moreau_jean_pgs(Precision::F64, SIZES);
    let kernel_names = defined(
        &(wgsl
            .iter()
            .map(|(_, t)| t.as_str())
            .chain([composed.as_str()])
            .collect::<Vec<_>>())
        .join("\n"),
        &["fn", "const", "override", "struct"],
    );
    let mut rust_names = defined(
        &rust.iter().map(|(_, t)| t.as_str()).collect::<Vec<_>>().join("\n"),
        &["fn", "const", "struct", "enum", "type"],
    );
    rust_names.extend(
        rust.iter()
            .map(|(p, _)| p.file_stem().unwrap().to_string_lossy().into_owned()),
    );
    let mut missing = Vec::new();
    for (path, text) in &rust {
        // Doc comments joined, so that a `Kernel:` at a line's end is read with the next.
        let joined = text
            .lines()
            .map(str::trim_start)
            .collect::<Vec<_>>()
            .join(" ")
            .replace(" /// ", " ");
        for line in joined.split("Kernel: ").skip(1).map(|rest| format!("Kernel: {rest}")) {
            let line = line.split(". ").next().unwrap_or_default();
            let Some((_, named)) = line.split_once("Kernel: ") else {
                continue;
            };
            for name in named.split('`').skip(1).step_by(2) {
                if !kernel_names.contains(name) {
                    missing.push(format!("{}: Kernel: `{name}`", path.display()));
                }
            }
        }
    }
    // (The composed kernel too: the generated helpers' comments live in Rust strings.)
    let composed_source = (std::path::PathBuf::from("composed kernel"), composed.clone());
    for (path, text) in wgsl.iter().chain([&composed_source]) {
        for line in text.lines() {
            let Some((_, named)) = line.split_once("Twin: ").or_else(|| line.split_once("Twins: ")) else {
                continue;
            };
            let first = named.split_whitespace().next().unwrap_or_default();
            if first == "the" || first.starts_with("src/") {
                continue;
            }
            let name = first.rsplit("::").next().unwrap().trim_end_matches([',', '.', ';']);
            if !rust_names.contains(name) {
                missing.push(format!("{}: Twin: {name}", path.display()));
            }
        }
    }
    assert!(
        missing.is_empty(),
        "twin comments naming nothing:\n{}",
        missing.join("\n")
    );
    // The solve's named row functions exist on both sides.
    for name in [
        "normal_row",
        "equality_row",
        "friction_block",
        "friction_2d",
        "friction_3d",
    ] {
        assert!(kernel_names.contains(name) && rust_names.contains(name), "{name}");
    }
}

/// Kernel functions without a CPU twin: the entry point, the accessors of storage and of
/// the operators (the twin indexes its slices) and `is_finite` (the twin's `T::is_finite`).
const KERNEL_ONLY: [&str; 7] = [
    "main",
    "op",
    "wg_at",
    "d_at",
    "lever_angle",
    "lever_coefficients",
    "is_finite",
];

/// Every function of the scene-parallel kernel names its CPU twin (`Twin:` in the comment
/// just above it; `twin_comments_name_what_exists` checks the name) or is one of
/// [`KERNEL_ONLY`], each of which exists: 17 of them named none, so that a helper could
/// change on one side only.
#[test]
fn every_kernel_function_names_its_twin() {
    let mut functions = Vec::new();
    let mut unnamed = Vec::new();
    // Without and with the located step (located_off.wgsl, or located.wgsl and its roots).
    for locate in [false, true] {
        let composed = shaders::moreau_jean_pgs(Precision::F64, shaders::KernelSizes { locate, ..SIZES });
        let lines: Vec<&str> = composed.lines().collect();
        for (i, line) in lines.iter().enumerate() {
            let Some(name) = line.strip_prefix("fn ").and_then(|rest| rest.split('(').next()) else {
                continue;
            };
            functions.push(name.to_string());
            // The comment block above (generated helpers included), down to a blank line.
            let comment: Vec<&str> = lines[..i]
                .iter()
                .rev()
                .skip_while(|l| l.starts_with('@'))
                .take_while(|l| l.starts_with("//"))
                .copied()
                .collect();
            let named = comment.iter().any(|l| l.contains("Twin:") || l.contains("Twins:"));
            if !named && !KERNEL_ONLY.contains(&name) {
                unnamed.push(name.to_string());
            }
        }
    }
    assert!(unnamed.is_empty(), "kernel functions naming no twin: {unnamed:?}");
    for name in KERNEL_ONLY {
        assert!(functions.iter().any(|f| f == name), "{name} is no kernel function");
    }
}

/// The calls of each function in `block` (and the blocks inside it), counted by callee.
fn count_calls(block: &naga::Block, calls: &mut std::collections::HashMap<naga::Handle<naga::Function>, usize>) {
    for statement in block.iter() {
        match statement {
            naga::Statement::Call { function, .. } => *calls.entry(*function).or_default() += 1,
            naga::Statement::Block(inner) => count_calls(inner, calls),
            naga::Statement::If { accept, reject, .. } => {
                count_calls(accept, calls);
                count_calls(reject, calls);
            }
            naga::Statement::Switch { cases, .. } => cases.iter().for_each(|case| count_calls(&case.body, calls)),
            naga::Statement::Loop { body, continuing, .. } => {
                count_calls(body, calls);
                count_calls(continuing, calls);
            }
            _ => {}
        }
    }
}

/// The located kernel takes every pass of the step's stages at one call site, and each
/// decision between passes at one: a shader compiler inlines every call, and lavapipe runs
/// every branch masked in every step, so that six call sites of the stages (and several of
/// each decision) cost it twice the time of the located ball ensemble (BENCHMARKS.md §2.3.2).
#[test]
fn the_located_kernel_calls_its_stages_and_decisions_once() {
    let source = shaders::moreau_jean_pgs(Precision::F64, shaders::KernelSizes { locate: true, ..SIZES });
    let module = naga::front::wgsl::parse_str(&source).unwrap_or_else(|e| panic!("{}", e.emit_to_string(&source)));
    let mut calls = std::collections::HashMap::new();
    for (_, function) in module.functions.iter() {
        count_calls(&function.body, &mut calls);
    }
    for entry in &module.entry_points {
        count_calls(&entry.function.body, &mut calls);
    }
    let once = [
        "solve_step",
        "sub_step",
        "located_step",
        "locate_impacts",
        "after_pass",
        "walk_start",
        "next_trial",
        "walk_end",
        "trial_found",
        "crossings",
        "refine_trial",
        "refine",
        "refine_end",
        "touchdown",
        "settle",
        "impact",
        "impacted",
    ];
    for name in once {
        let (handle, _) = module
            .functions
            .iter()
            .find(|(_, f)| f.name.as_deref() == Some(name))
            .unwrap_or_else(|| panic!("the located kernel has no {name}"));
        assert_eq!(calls.get(&handle).copied().unwrap_or(0), 1, "calls of {name}");
    }
}
