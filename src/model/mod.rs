//! Modelling, in Siconos's vocabulary: dynamical systems, relations, non-smooth laws,
//! interactions and the [`Nsds`] of one scene. Every builder validates its input and
//! returns a [`Result`](crate::Result).

pub mod diagonal;
pub mod dynamical_system;
pub mod first_order_linear;
pub mod first_order_nonlinear;
pub mod force;
pub mod interaction;
pub mod lagrangian;
pub mod nonsmooth_law;
pub mod nsds;
pub mod relation;

pub use diagonal::LagrangianLinearDiagonalDS;
pub use dynamical_system::{DynamicalSystem, LagrangianDS, LagrangianLinearTIDS};
pub use first_order_linear::FirstOrderLinearDS;
pub use first_order_nonlinear::FirstOrderNonLinearDS;
pub use force::{ExternalForce, Force, Harmonic};
pub use interaction::{DsId, Interaction, InteractionId};
pub use lagrangian::LagrangianDynamics;
pub use nonsmooth_law::{
    ComplementarityConditionNSL, EqualityConditionNSL, MixedComplementarityConditionNSL, NewtonImpactFrictionNSL,
    NewtonImpactNSL, NonSmoothLaw, RelayNSL,
};
pub use nsds::Nsds;
pub use relation::{
    CoordinateVectorConstraint, CoordinateVectorOutputs, DiskDiskR, FirstOrderLinearR, FirstOrderLinearTIR,
    FirstOrderNonLinearR, FirstOrderOperators, FirstOrderType1R, FirstOrderType2R, Jacobian,
    LagrangianCompliantLinearTIR, LagrangianCompliantR, LagrangianLinearTIR, LagrangianRheonomousR,
    LagrangianScleronomousR, PfaffianR, PlanarContactR, Relation, SphereLDSSphereLDSR, SphereSphereR,
};
