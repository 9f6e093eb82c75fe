//! One definition of what the host shares with the WGSL kernels: the step parameters
//! ([`StepParams`], [`ChainParams`]) and the blocks of a scene's operators ([`OperatorOffsets`]). Each is
//! declared once, by a macro that writes both the Rust item and its WGSL twin
//! ([`StepParams::WGSL`], [`OperatorOffsets::WGSL`]), which the shader composition puts in
//! front of the kernels; no coefficient travels by position.

/// Declares a `#[repr(C)]` struct generic over the kernel's real type `R`, its `real` fields
/// first and its `u32` fields after them (so no padding falls between fields), with `WGSL`,
/// the same struct in WGSL (`real` is the kernel's alias of f32 or f64).
macro_rules! shared_struct {
    (
        $(#[$meta:meta])*
        $name:ident {
            real { $($(#[$rdoc:meta])* $real:ident,)* }
            u32 { $($(#[$udoc:meta])* $int:ident,)* }
        }
    ) => {
        $(#[$meta])*
        #[repr(C)]
        #[derive(Clone, Copy, Debug, PartialEq)]
        pub struct $name<R> {
            $($(#[$rdoc])* pub $real: R,)*
            $($(#[$udoc])* pub $int: u32,)*
        }

        impl<R: Copy> $name<R> {
            /// The struct in WGSL.
            pub const WGSL: &'static str = concat!(
                "struct ", stringify!($name), " {\n",
                $("    ", stringify!($real), ": real,\n",)*
                $("    ", stringify!($int), ": u32,\n",)*
                "}\n"
            );

            /// The byte offset of each field, in declaration order: what the WGSL struct's
            /// members must be at (a test compares them with naga's layout).
            pub fn offsets() -> Vec<usize> {
                vec![
                    $(std::mem::offset_of!(Self, $real),)*
                    $(std::mem::offset_of!(Self, $int),)*
                ]
            }

            /// The same parameters with the real fields converted by `f`.
            pub fn map<S>(&self, f: impl Fn(R) -> S) -> $name<S> {
                $name {
                    $($real: f(self.$real),)*
                    $($int: self.$int,)*
                }
            }

            /// The bytes of the struct, each real written by `real` (as the kernel's
            /// precision), padded to a multiple of `real_size` bytes as WGSL pads it.
            pub fn to_bytes(&self, real_size: usize, real: impl Fn(R, &mut Vec<u8>)) -> Vec<u8> {
                let mut out = Vec::new();
                $(real(self.$real, &mut out);)*
                $(out.extend_from_slice(&self.$int.to_ne_bytes());)*
                out.resize(out.len().next_multiple_of(real_size), 0);
                out
            }
        }
    };
}

/// Declares [`OperatorOffsets`]: where each block of a scene's operators starts, the blocks
/// laid out in the order given with the sizes given (expressions of the size parameters);
/// and `WGSL`, the same struct and `operator_offsets(…)` in WGSL.
macro_rules! operator_layout {
    (($($p:ident),*) => $($(#[$doc:meta])* $block:ident: $size:expr,)*) => {
        /// Where each block of one scene's operators starts (indices within the scene), all
        /// dense matrices row-major. "Rows" are the rows of the step's MLCP (contacts and
        /// equalities).
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        pub struct OperatorOffsets {
            $($(#[$doc])* pub $block: usize,)*
            /// The number of operators.
            pub end: usize,
        }

        impl OperatorOffsets {
            /// The offsets for the block sizes of the given parameters.
            #[allow(unused_assignments)]
            pub fn new($($p: usize),*) -> Self {
                let mut k = 0;
                $(let $block = k; k += $size;)*
                Self { $($block,)* end: k }
            }

            /// The struct and `operator_offsets(…)` in WGSL.
            pub const WGSL: &'static str = concat!(
                "struct OperatorOffsets {\n",
                $("    ", stringify!($block), ": u32,\n",)*
                "    end: u32,\n}\n",
                "// Twin: OperatorOffsets::new.\n",
                "fn operator_offsets(", $(stringify!($p), ": u32, ",)* ") -> OperatorOffsets {\n",
                "    var o: OperatorOffsets;\n    var k = 0u;\n",
                $("    o.", stringify!($block), " = k;\n    k = k + ", stringify!($size), ";\n",)*
                "    o.end = k;\n    return o;\n}\n"
            );
        }
    };
}

shared_struct! {
    /// The constants of a batched run of the scene-parallel Moreau–Jean step (the kernel's
    /// `step_params` binding, the CPU twin's `step`).
    StepParams {
        real {
            /// Time step h.
            h,
            /// θ of the θ-method.
            theta,
            /// γ of the activation predictor y + γ h ẏ ≤ 0.
            gamma,
            /// PGS stops when Siconos's error is ≤ this.
            tolerance,
            /// The Newton loop stops when ‖(G(q^{i−1}) − G(q^i))ᵀ λ‖ ≤ this.
            newton_tolerance,
            /// Nonsmooth RATTLE's stage 1 stops when every equality's |y| and every contact's
            /// complementarity residual is ≤ this (absolute, in the units of y).
            position_tolerance,
            /// The time of step 0 of the batch (its harmonic forcing's phase).
            t0,
        }
        u32 {
            /// At most this many PGS sweeps per MLCP.
            max_iterations,
            /// At most this many MLCP solves per step in the Newton loop (and in RATTLE's
            /// stage 1).
            newton_max_iterations,
        }
    }
}

shared_struct! {
    /// The constants of a contact-parallel bead-chain run (the kernel's `params` binding, the
    /// CPU twin's parameters): [`crate::batch::BeadChain::params`].
    ChainParams {
        real {
            /// Time step h.
            h,
            /// θ of the θ-method.
            theta,
            /// γ of the activation predictor y + γ h ẏ ≤ 0.
            gamma,
            /// Jacobi relaxation ω.
            omega,
            /// 1/m, the inverse bead mass.
            inv_mass,
            /// Bead radius R.
            radius,
            /// Gravity g.
            gravity,
            /// Restitution e.
            restitution,
        }
        u32 {
            /// Number of beads (and of contacts).
            beads,
        }
    }
}

operator_layout! {
    // n dof, m rows; s = n² with stiffness or damping, else 0 (A and B are not stored);
    // nh and nd the entries stored of H (and of W⁻¹Hᵀ) and of the Delassus matrix: m n and
    // m² when dense, the patterns' with compressed rows (`batch::sparsity`); w = n where the
    // scene keeps what a located sub-step's W(τ) is built from (`SPAN_DYNAMICS`), else 0.
    (n, m, s, nh, nd, w) =>
    /// A = W⁻¹ (h C + h²θ K), of v_free = v_k − A v_k − B q_k + c (n × n; s).
    a: s,
    /// B = W⁻¹ h K (n × n; s).
    b: s,
    /// c = W⁻¹ h f₀, the constant part of F_ext (n).
    c: n,
    /// W⁻¹Hᵀ (n × m; compressed: its transpose by H's pattern, nh).
    w_inv_ht: nh,
    /// H (m × n; compressed: by its row pattern, nh).
    h: nh,
    /// The Delassus matrix H W⁻¹ Hᵀ (m × m; compressed: by its row pattern, nd).
    delassus: nd,
    /// b, the constant of y = H q + b (m).
    offset: m,
    /// e, the restitution of each row (m).
    restitution: m,
    /// f, the Baumgarte feedback on y of each row (m).
    feedback: m,
    /// Coulomb's μ on each row of a friction contact, 0 on other rows (m); the rows' kinds
    /// are in the batch's `row_kinds`.
    mu: m,
    /// W⁻¹ h a, the harmonic part of the free velocity (n).
    c_harmonic: n,
    /// ω, φ and the end time of the harmonic F_ext.
    frequency: 3,
    /// M (n × n; w²): with C, K, f₀ and a below, what a located sub-step of length τ
    /// builds W(τ) = M + θτC + θ²τ²K and its operators from
    /// ([`SubStepDynamics`](crate::batch::linear_scene::SubStepDynamics)).
    span_mass: w * w,
    /// C (n × n; w²).
    span_damping: w * w,
    /// K (n × n; w²).
    span_stiffness: w * w,
    /// f₀, the constant part of F_ext (n; w).
    span_force: w,
    /// a, the amplitude of its harmonic part (n; w).
    span_amplitude: w,
    /// Y, the quadratic terms of y = H q + Y q² + b (m × n); from here on only scenes with
    /// nonlinear rows read their operators.
    quadratic: m * n,
    /// W⁻¹ (n × n).
    w_inv: n * n,
    /// The sphere–sphere gaps: per row dim, i₀ (−1: a fixed centre c), i₁, c (6 m).
    spheres: 6 * m,
    /// The lever terms of a planar rigid body's point: per row k, a, b of a cos q_k + b sin q_k
    /// added to y (a = b = 0: none) (3 m).
    lever: 3 * m,
    /// From here on only nonsmooth RATTLE scenes have operators, those of the kick that ends
    /// their step, v* = v½ − A_e v½ − B_e q_{n+1} + c_e, with M where the blocks above hold
    /// the half kick's W½ = M + (h/2) C: A_e = M⁻¹ (h/2) C (n × n; s).
    end_a: s,
    /// B_e = M⁻¹ (h/2) K (n × n; s).
    end_b: s,
    /// c_e = M⁻¹ (h/2) f₀ (n).
    end_c: n,
    /// M⁻¹ (h/2) a, the harmonic part of the end kick (n).
    end_c_harmonic: n,
    /// M⁻¹Hᵀ (n × m).
    end_w_inv_ht: n * m,
    /// H M⁻¹ Hᵀ, stage 2's Delassus matrix (m × m).
    end_delassus: m * m,
    /// M⁻¹ (n × n).
    end_w_inv: n * n,
}
