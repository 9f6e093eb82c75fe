//! The SI units of the templates' parameters and coordinates, for the plots' axes and
//! `ricochet templates`. A parameter's unit is declared where its template asks for it
//! ([`Parameters`](super::parameters::Parameters)), so a parameter cannot go without one;
//! "" is a pure number (a restitution, a friction coefficient, a count).

use super::template::{Declared, Template};

/// The unit of `parameter` of `template` as the template declares it
/// ([`Template::parameters`]; `""` for a pure number); `None` for `linear`'s, which are the
/// user's, and for a name the template does not ask for.
pub fn parameter_unit(template: Template, parameter: &str) -> Option<&'static str> {
    declared_unit(&template.parameters(), parameter)
}

/// The unit of `parameter` among the parameters `declared`: its own, or for an indexed
/// parameter the defaults did not ask for (`x5` of a disc pile of 6 discs, listed with 4) its
/// family's, that of the same name with index 0 (`x0`).
pub fn declared_unit(declared: &[Declared], parameter: &str) -> Option<&'static str> {
    let unit = |name: &str| declared.iter().find(|d| d.name == name).and_then(|d| d.unit);
    unit(parameter).or_else(|| {
        let stem = parameter.trim_end_matches(|c: char| c.is_ascii_digit());
        (stem.len() < parameter.len())
            .then(|| unit(&format!("{stem}0")))
            .flatten()
    })
}

/// The unit of a template's coordinate `name`: V for a circuit's voltage, rad for the angles
/// (`theta…`, `phi…`), m for the others; `None` for `linear`'s.
pub fn coordinate_unit(template: Template, name: &str) -> Option<&'static str> {
    match template {
        Template::Linear => None,
        Template::CubicResistor => Some("V"),
        _ if name.starts_with("theta") || name.starts_with("phi") => Some("rad"),
        _ => Some("m"),
    }
}
