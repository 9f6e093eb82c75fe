//! Every composed WGSL module parses and validates (no GPU needed), and each WGSL struct has
//! the size and field offsets of its Rust twin.

use ricochet::batch::SceneHeader;
use ricochet::batch::gpu::{Precision, shaders};
use ricochet::batch::layout::HealthCounters;

const SIZES: shaders::KernelSizes = shaders::KernelSizes {
    max_dof: 8,
    max_contacts: 4,
    fixed_dof: 0,
    fixed_contacts: 0,
    nonlinear: false,
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
    // Fixed sizes (loops unroll), and the Newton loop for quadratic rows, in both precisions.
    for (precision, nonlinear) in [(Precision::F32, false), (Precision::F32, true), (Precision::F64, true)] {
        let sizes = shaders::KernelSizes {
            max_dof: 4,
            max_contacts: 4,
            fixed_dof: 3,
            fixed_contacts: 1,
            nonlinear,
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
        offsets.iter().take(5).map(|&o| o as usize).collect::<Vec<_>>(),
        [
            std::mem::offset_of!(SceneHeader, ndof),
            std::mem::offset_of!(SceneHeader, ncontacts),
            std::mem::offset_of!(SceneHeader, state_offset),
            std::mem::offset_of!(SceneHeader, operator_offset),
            std::mem::offset_of!(SceneHeader, flags),
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
