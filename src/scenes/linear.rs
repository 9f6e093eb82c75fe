//! A linear system written out: one `LagrangianLinearTIDS` M v̇ + C v + K q = F_ext with
//! contact rows y = H q + b, each under `NewtonImpactNSL(e_r)` — the `linear` template.

use nalgebra::{DMatrix, DVector};

use crate::error::{Error, Result};
use crate::model::{LagrangianLinearTIDS, LagrangianLinearTIR, NewtonImpactNSL, Nsds};
use crate::scenes::parameters::{Parameters, require_positive};

/// The operators of the system (n dofs, m contact rows).
#[derive(Clone, Debug, PartialEq)]
pub struct LinearSystem {
    /// M (n × n, symmetric positive definite).
    pub mass: DMatrix<f64>,
    /// K (n × n).
    pub stiffness: DMatrix<f64>,
    /// C (n × n).
    pub damping: DMatrix<f64>,
    /// F_ext (n).
    pub fext: DVector<f64>,
    /// q₀ (n).
    pub q0: DVector<f64>,
    /// v₀ (n).
    pub v0: DVector<f64>,
    /// H (m × n).
    pub h: DMatrix<f64>,
    /// b (m).
    pub b: DVector<f64>,
    /// Restitution e of each row (m).
    pub e: DVector<f64>,
}

impl LinearSystem {
    /// The system of the `linear` template, from `p` in this order: `mass` (required, gives
    /// n), `stiffness`, `damping` (n × n, default 0), `fext`, `q0`, `v0` (n entries, default
    /// 0), `h` (required, m × n), `b`, `e` (m entries, default 0).
    pub fn from_parameters(p: &mut dyn Parameters) -> Result<Self> {
        let mass = p.matrix("mass", None)?;
        // A positive definite M has a positive diagonal; a subnormal one passes Cholesky but
        // its inverse overflows (NaN rows).
        for i in 0..mass.nrows().min(mass.ncols()) {
            require_positive("linear", &format!("mass[{i}][{i}]"), mass[(i, i)])?;
        }
        let n = mass.nrows();
        let zero = DMatrix::zeros(n, n);
        let (stiffness, damping) = (p.matrix("stiffness", Some(&zero))?, p.matrix("damping", Some(&zero))?);
        let (fext, q0, v0) = (
            p.vector("fext", "", n, 0.0)?,
            p.vector("q0", "", n, 0.0)?,
            p.vector("v0", "", n, 0.0)?,
        );
        let h = p.matrix("h", None)?;
        let m = h.nrows();
        let (b, e) = (p.vector("b", "", m, 0.0)?, p.vector("e", "", m, 0.0)?);
        if h.ncols() != n {
            return Err(Error::Dimension {
                what: "scenario: contact rows `h`".into(),
                expected: format!("{m}x{n}"),
                got: format!("{}x{}", h.nrows(), h.ncols()),
            });
        }
        Ok(Self {
            mass,
            stiffness,
            damping,
            fext: DVector::from_vec(fext),
            q0: DVector::from_vec(q0),
            v0: DVector::from_vec(v0),
            h,
            b: DVector::from_vec(b),
            e: DVector::from_vec(e),
        })
    }

    /// The scene: system `system`, interactions `contact r` (one per row of H).
    pub fn nsds(&self) -> Result<Nsds> {
        let m = self.h.nrows();
        if (self.b.len(), self.e.len()) != (m, m) {
            return Err(Error::Dimension {
                what: "linear system: b and e".into(),
                expected: format!("{m} entries each (one per row of H)"),
                got: format!("{} and {}", self.b.len(), self.e.len()),
            });
        }
        let mut nsds = Nsds::new();
        let ds = LagrangianLinearTIDS::new(self.q0.clone(), self.v0.clone(), self.mass.clone())?
            .with_stiffness(self.stiffness.clone())?
            .with_damping(self.damping.clone())?
            .with_fext(self.fext.clone())?;
        let ds = nsds.add("system", ds);
        for r in 0..m {
            let relation =
                LagrangianLinearTIR::with_offset(self.h.rows(r, 1).into_owned(), DVector::from_element(1, self.b[r]))?;
            nsds.link(
                &format!("contact {r}"),
                NewtonImpactNSL::new(self.e[r])?,
                relation,
                &[ds],
            )?;
        }
        Ok(nsds)
    }
}
