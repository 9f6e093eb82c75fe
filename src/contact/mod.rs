//! What the scene-parallel engine ([`crate::batch`]) and the large-scene engine
//! ([`crate::large_scene`]) share, so that a fix to a local solve is made once: values in
//! lockstep lanes ([`lanes`]) and the exact local solves of one Coulomb contact with their
//! cone projection and natural map ([`local`]), three-vectors in a fixed order ([`vector`]), each the twin of the same-named WGSL function.

pub mod lanes;
pub mod local;
pub mod vector;
