//! `SceneBatch`: many [`LinearScene`]s concatenated into structure-of-arrays buffers.

use std::ops::Range;

use super::layout::{
    EXTREMES, HAS_EQUALITY, HAS_FRICTION, HAS_NONLINEAR, HAS_STIFFNESS, RATTLE, RowKind, SPAN_DYNAMICS, SPARSE,
    SceneHeader,
};
use super::linear_scene::LinearScene;
use super::observe::Recording;
use super::shared::OperatorOffsets;
use super::sparsity::{Compressed, encoded_len};
use crate::error::{Error, Result};
use crate::scheme::LagrangianIntegrator;
use crate::scheme::moreau_jean::{Activation, MoreauJeanOSI};
use crate::validate;

/// The entries of `mat` row by row (the layout's matrices are row-major; nalgebra's are
/// column-major).
fn row_major(mat: &nalgebra::DMatrix<f64>) -> impl Iterator<Item = f64> + '_ {
    let (rows, cols) = mat.shape();
    (0..rows).flat_map(move |i| (0..cols).map(move |j| mat[(i, j)]))
}

/// An offset into the batch's arrays, which the kernels index with u32.
fn offset(x: usize) -> Result<u32> {
    u32::try_from(x).map_err(|_| Error::Unsupported {
        what: "scene batch".into(),
        reason: "more than 2³² values: split it into several batches".into(),
    })
}

/// Scenes flattened for the batched steppers: one header per scene and two flat f64
/// arrays, `state` and `operators`.
#[derive(Clone, Debug, PartialEq)]
pub struct SceneBatch {
    /// Time step h.
    pub h: f64,
    /// θ of the Moreau–Jean scheme.
    pub theta: f64,
    /// γ of the activation test ỹ = y_k + γ h ẏ_k (for linear relations the `Predicted`
    /// rule is the `Current` one with γ + 1, which is how it is stored).
    pub gamma: f64,
    /// Whether that γ stands for the `Predicted` rule (exact for linear rows only).
    pub predicted: bool,
    /// The integrator of every scene: Moreau–Jean (θ, γ above) or nonsmooth RATTLE (scenes
    /// reduced by [`LinearScene::reduce_rattle`]).
    pub integrator: LagrangianIntegrator,
    /// The time of `state` (0 unless a run continues an earlier one): a harmonic F_ext is
    /// evaluated at t₀ + k h.
    pub t0: f64,
    /// Per-scene offsets.
    pub headers: Vec<SceneHeader>,
    /// q then v of every scene.
    pub state: Vec<f64>,
    /// The operators of every scene (see [`SceneHeader`]).
    pub operators: Vec<f64>,
    /// The [`RowKind`] codes of every scene's rows, each [`SPARSE`] scene's patterns after
    /// its codes (a scene with the rows and patterns of the scene before it shares them).
    pub row_kinds: Vec<u32>,
    /// [`SceneBatch::push`] stores a linear Moreau–Jean scene of at least this many rows by
    /// compressed rows where that halves its H, W⁻¹Hᵀ and Delassus matrix
    /// ([`Compressed::of`]): 1 unless set (the GPU engine's is
    /// [`GPU_COMPRESSED_FROM`](super::sparsity::GPU_COMPRESSED_FROM)); `usize::MAX` keeps every
    /// scene dense (the reference of the compressed layout).
    pub compress_from: usize,
    /// Whether the scenes' impacts are located inside the step: then [`SceneBatch::push`]
    /// stores what a sub-step builds W(τ) from ([`SPAN_DYNAMICS`]) in every scene that has it
    /// ([`LinearScene::sub_steps`]), and such a scene dense. False unless set.
    pub sub_steps: bool,
    /// What the engines record of every scene while stepping it (every scene's record has
    /// the same length: with stroboscopic samples the scenes have the same size).
    pub recording: Recording,
}

impl SceneBatch {
    /// An empty batch for steps of size `h` with `osi`.
    pub fn new(h: f64, osi: MoreauJeanOSI) -> Result<Self> {
        validate::scalar("time step h", h, h > 0.0, "must be > 0")?;
        MoreauJeanOSI::new(osi.theta, osi.gamma)?;
        let gamma = match osi.activation {
            Activation::Current => osi.gamma,
            Activation::Predicted => osi.gamma + 1.0,
        };
        Ok(Self {
            h,
            theta: osi.theta,
            gamma,
            predicted: osi.activation == Activation::Predicted,
            integrator: LagrangianIntegrator::MoreauJean,
            t0: 0.0,
            headers: Vec::new(),
            state: Vec::new(),
            operators: Vec::new(),
            row_kinds: Vec::new(),
            compress_from: 1,
            sub_steps: false,
            recording: Recording::default(),
        })
    }

    /// An empty batch for nonsmooth RATTLE steps of size `h`.
    pub fn rattle(h: f64) -> Result<Self> {
        Ok(Self {
            integrator: LagrangianIntegrator::Rattle,
            ..Self::new(h, MoreauJeanOSI::default())?
        })
    }

    /// Appends a scene (built with this batch's h and θ, or for RATTLE). Its friction rows must be laid out
    /// as [`LinearScene::rows`] says (the engines index by it).
    pub fn push(&mut self, scene: &LinearScene) -> Result<()> {
        scene.check_rows()?;
        let flags = scene.header_flags(self.sub_steps);
        let span = scene.sub_steps.as_ref().filter(|_| flags & SPAN_DYNAMICS != 0);
        // Only linear Moreau–Jean scenes of a fixed W: nonlinear rows, and a located
        // sub-step's W(τ), rebuild their operators dense.
        let dense = HAS_NONLINEAR | RATTLE | SPAN_DYNAMICS;
        let compressed = if scene.ncontacts() >= self.compress_from && flags & dense == 0 {
            Compressed::of(&scene.h, &scene.winv_ht, &scene.delassus)
        } else {
            None
        };
        self.push_stored(
            flags,
            (scene.q0.as_slice(), scene.v0.as_slice()),
            (&scene.rows, compressed.as_ref()),
            |o, ops| {
                let mut put = |at: usize, values: &mut dyn Iterator<Item = f64>| {
                    for (x, value) in ops[at..].iter_mut().zip(values) {
                        *x = value;
                    }
                };
                if flags & HAS_STIFFNESS != 0 {
                    put(o.a, &mut row_major(&scene.a));
                    put(o.b, &mut row_major(&scene.b));
                }
                put(o.c, &mut scene.c.iter().copied());
                if let Some(c) = &compressed {
                    put(o.w_inv_ht, &mut c.winv_ht_values(&scene.winv_ht));
                    put(o.h, &mut c.h_values(&scene.h));
                    put(o.delassus, &mut c.delassus_values(&scene.delassus));
                } else {
                    put(o.w_inv_ht, &mut row_major(&scene.winv_ht));
                    put(o.h, &mut row_major(&scene.h));
                    put(o.delassus, &mut row_major(&scene.delassus));
                }
                put(o.offset, &mut scene.offset.iter().copied());
                put(o.restitution, &mut scene.restitution.iter().copied());
                put(o.feedback, &mut scene.feedback.iter().copied());
                put(o.mu, &mut scene.mu.iter().copied());
                put(o.c_harmonic, &mut scene.c_harmonic.iter().copied());
                put(
                    o.frequency,
                    &mut [scene.omega, scene.phase, scene.forcing_end].into_iter(),
                );
                if let Some(span) = span {
                    put(o.span_mass, &mut row_major(&span.mass));
                    put(o.span_damping, &mut row_major(&span.damping));
                    put(o.span_stiffness, &mut row_major(&span.stiffness));
                    put(o.span_force, &mut span.force.iter().copied());
                    put(o.span_amplitude, &mut span.amplitude.iter().copied());
                }
                if compressed.is_some() {
                    // (A compressed scene stores only what a linear row reads.)
                    return;
                }
                put(o.quadratic, &mut row_major(&scene.quadratic));
                put(o.w_inv, &mut row_major(&scene.w_inv));
                put(o.spheres, &mut scene.distance.iter().flatten().copied());
                put(o.lever, &mut scene.lever.iter().flatten().copied());
                if let Some(end) = &scene.end_kick {
                    if flags & HAS_STIFFNESS != 0 {
                        put(o.end_a, &mut row_major(&end.a));
                        put(o.end_b, &mut row_major(&end.b));
                    }
                    put(o.end_c, &mut end.c.iter().copied());
                    put(o.end_c_harmonic, &mut end.c_harmonic.iter().copied());
                    put(o.end_w_inv_ht, &mut row_major(&end.winv_ht));
                    put(o.end_delassus, &mut row_major(&end.delassus));
                    put(o.end_w_inv, &mut row_major(&end.w_inv));
                }
            },
        )
    }

    /// Appends a dense scene of initial state (`q0`, `v0`), rows of kinds `rows` and header
    /// `flags` (the rows' own bits, [`HAS_EQUALITY`] and [`HAS_FRICTION`], are set from `rows`)
    /// whose operators `fill` writes (into zeros, at the [`OperatorOffsets`] of its sizes):
    /// how a scene known in closed form writes its rows without a [`LinearScene`]. (A and B
    /// are stored only with [`HAS_STIFFNESS`].)
    pub fn push_operators(
        &mut self,
        flags: u32,
        q0: &[f64],
        v0: &[f64],
        rows: &[RowKind],
        fill: impl FnOnce(&OperatorOffsets, &mut [f64]),
    ) -> Result<()> {
        self.push_stored(flags, (q0, v0), (rows, None), fill)
    }

    /// [`SceneBatch::push_operators`] for a scene stored dense or by the patterns
    /// `compressed` ([`SPARSE`]).
    fn push_stored(
        &mut self,
        flags: u32,
        (q0, v0): (&[f64], &[f64]),
        (rows, compressed): (&[RowKind], Option<&Compressed>),
        fill: impl FnOnce(&OperatorOffsets, &mut [f64]),
    ) -> Result<()> {
        let (n, m) = (q0.len(), rows.len());
        // The kernel and the twin test these bits before a row's kind: they follow the rows.
        let flags = flags & !(HAS_EQUALITY | HAS_FRICTION | SPARSE)
            | if compressed.is_some() { SPARSE } else { 0 }
            | if rows.contains(&RowKind::Equality) {
                HAS_EQUALITY
            } else {
                0
            }
            | if rows.iter().any(|k| k.is_normal()) {
                HAS_FRICTION
            } else {
                0
            };
        if (flags & RATTLE != 0) != (self.integrator == LagrangianIntegrator::Rattle) {
            return Err(Error::Unsupported {
                what: "scene batch".into(),
                reason: format!(
                    "a scene reduced for another integrator than the batch's ({:?})",
                    self.integrator
                ),
            });
        }
        if self.predicted && flags & HAS_NONLINEAR != 0 {
            return Err(Error::Unsupported {
                what: "scene with nonlinear rows".into(),
                reason: "the batched engines apply Activation::Predicted to linear rows only (as γ + 1)".into(),
            });
        }
        if v0.len() != n {
            return Err(Error::Dimension {
                what: "scene batch: v0".into(),
                expected: n.to_string(),
                got: v0.len().to_string(),
            });
        }
        let mut codes: Vec<u32> = rows.iter().map(|k| k.code()).collect();
        let entries = match compressed {
            Some(c) => {
                codes.extend(c.encode());
                (c.h.entries(), c.d.entries())
            }
            None => (m * n, m * m),
        };
        let header = SceneHeader {
            ndof: offset(n)?,
            ncontacts: offset(m)?,
            state_offset: offset(self.state.len())?,
            operator_offset: offset(self.operators.len())?,
            flags,
            row_offset: self.intern_rows(&codes)?,
            h_entries: offset(entries.0)?,
            delassus_entries: offset(entries.1)?,
        };
        self.headers.push(header);
        self.state.extend_from_slice(q0);
        self.state.extend_from_slice(v0);
        let start = self.operators.len();
        self.operators.resize(start + header.operators(), 0.0);
        fill(&header.offsets(), &mut self.operators[start..]);
        Ok(())
    }

    /// Appends the scenes of `other` (a batch of the same step), as pushing them one by one
    /// would.
    pub fn append(&mut self, other: &SceneBatch) -> Result<()> {
        if other.integrator != self.integrator {
            return Err(Error::Unsupported {
                what: "scene batch".into(),
                reason: "appending scenes of another integrator".into(),
            });
        }
        let (state, operators) = (offset(self.state.len())?, offset(self.operators.len())?);
        offset(self.state.len() + other.state.len())?;
        offset(self.operators.len() + other.operators.len())?;
        // (Interning appends at most other's row kinds: checked here, so that no scene is
        // half appended.)
        offset(self.row_kinds.len() + other.row_kinds.len())?;
        for h in &other.headers {
            let row_offset = self.intern_rows(other.structure_of(h))?;
            self.headers.push(SceneHeader {
                state_offset: h.state_offset + state,
                operator_offset: h.operator_offset + operators,
                row_offset,
                ..*h
            });
        }
        self.state.extend_from_slice(&other.state);
        self.operators.extend_from_slice(&other.operators);
        Ok(())
    }

    /// The offset in [`SceneBatch::row_kinds`] of a scene with rows and patterns `codes`
    /// ([`SceneBatch::structure_of`]): the scene before it's when that one has the same,
    /// else theirs appended.
    fn intern_rows(&mut self, codes: &[u32]) -> Result<u32> {
        if let Some(last) = self.headers.last()
            && self.structure_of(last) == codes
        {
            return Ok(last.row_offset);
        }
        let at = offset(self.row_kinds.len())?;
        offset(self.row_kinds.len() + codes.len())?;
        self.row_kinds.extend_from_slice(codes);
        Ok(at)
    }

    /// The row-kind codes of the scene of header `h`.
    pub fn rows_of(&self, h: &SceneHeader) -> &[u32] {
        &self.row_kinds[h.row_offset as usize..][..h.ncontacts as usize]
    }

    /// The row-kind codes of the scene of header `h` and, when it is [`SPARSE`], its
    /// patterns after them: what scenes stepped alike share.
    pub fn structure_of(&self, h: &SceneHeader) -> &[u32] {
        let m = h.ncontacts as usize;
        let patterns = if h.flags & SPARSE != 0 {
            encoded_len(m, h.h_entries as usize, h.delassus_entries as usize)
        } else {
            0
        };
        &self.row_kinds[h.row_offset as usize..][..m + patterns]
    }

    /// The patterns of the [`SPARSE`] scene of header `h` (what follows its row kinds in
    /// [`SceneBatch::structure_of`]).
    pub fn patterns_of(&self, h: &SceneHeader) -> &[u32] {
        &self.structure_of(h)[h.ncontacts as usize..]
    }

    /// The largest (ndof, ncontacts) of any scene.
    pub fn max_sizes(&self) -> (usize, usize) {
        let n = self.headers.iter().map(|h| h.ndof as usize).max().unwrap_or(0);
        let m = self.headers.iter().map(|h| h.ncontacts as usize).max().unwrap_or(0);
        (n, m)
    }

    /// Number of scenes.
    pub fn len(&self) -> usize {
        self.headers.len()
    }

    /// Whether the batch has no scene.
    pub fn is_empty(&self) -> bool {
        self.headers.is_empty()
    }

    /// q of scene `s`.
    pub fn q(&self, s: usize) -> &[f64] {
        let hd = self.headers[s];
        &self.state[hd.state_offset as usize..][..hd.ndof as usize]
    }

    /// v of scene `s`.
    pub fn v(&self, s: usize) -> &[f64] {
        let hd = self.headers[s];
        &self.state[hd.state_offset as usize + hd.ndof as usize..][..hd.ndof as usize]
    }

    /// Consecutive scene ranges that fit bindings of `max_bytes` bytes with values of
    /// `value_size` bytes: state, operators, per-scene headers (32 B), health counters (16 B)
    /// and extremes ([`EXTREMES`] values per scene).
    pub fn chunks(&self, max_bytes: usize, value_size: usize) -> Result<Vec<Range<usize>>> {
        let max_values = max_bytes / value_size;
        let max_scenes = (max_bytes / size_of::<SceneHeader>()).min(max_values / EXTREMES);
        let mut ranges = Vec::new();
        let mut start = 0;
        let (mut state, mut ops) = (0, 0);
        for (s, hd) in self.headers.iter().enumerate() {
            let (n, m) = (hd.ndof as usize, hd.ncontacts as usize);
            // The state and the record (observers, samples, events) share the count: each
            // has its binding, and neither is larger than the two together.
            let sizes = (SceneHeader::state_len(n) + self.recording.len(n, m), hd.operators());
            if sizes.0.max(sizes.1) > max_values || max_scenes == 0 {
                return Err(Error::Unsupported {
                    what: format!("scene {s}"),
                    reason: "is too large for one device buffer".into(),
                });
            }
            if state + sizes.0 > max_values || ops + sizes.1 > max_values || s - start == max_scenes {
                ranges.push(start..s);
                (start, state, ops) = (s, 0, 0);
            }
            (state, ops) = (state + sizes.0, ops + sizes.1);
        }
        if start < self.len() {
            ranges.push(start..self.len());
        }
        Ok(ranges)
    }

    /// The scenes in `range` as a batch of their own (offsets re-based).
    pub fn slice(&self, range: Range<usize>) -> SceneBatch {
        let first = self.headers[range.start];
        let end =
            |f: fn(&SceneHeader) -> u32, total: usize| self.headers.get(range.end).map_or(total, |h| f(h) as usize);
        let mut sliced = SceneBatch {
            h: self.h,
            theta: self.theta,
            gamma: self.gamma,
            predicted: self.predicted,
            integrator: self.integrator,
            t0: self.t0,
            state: self.state[first.state_offset as usize..end(|h| h.state_offset, self.state.len())].to_vec(),
            operators: self.operators[first.operator_offset as usize..end(|h| h.operator_offset, self.operators.len())]
                .to_vec(),
            headers: Vec::with_capacity(range.len()),
            row_kinds: Vec::new(),
            compress_from: self.compress_from,
            sub_steps: self.sub_steps,
            recording: self.recording.clone(),
        };
        for h in &self.headers[range] {
            // (Within the offsets of this batch: interning cannot overflow them.)
            let row_offset = sliced.intern_rows(self.structure_of(h)).unwrap_or(h.row_offset);
            sliced.headers.push(SceneHeader {
                state_offset: h.state_offset - first.state_offset,
                operator_offset: h.operator_offset - first.operator_offset,
                row_offset,
                ..*h
            });
        }
        sliced
    }
}
