//! The SI units of the templates' parameters and coordinates, for the plots' axes and
//! `ricochet templates`. Every parameter of every template (but `linear`, whose matrices have
//! the units the user gives them) has an entry: `tests/scenes.rs` checks it, so a new
//! parameter cannot go without one. "" is a pure number (a restitution, a friction
//! coefficient, a count).

use super::template::Template;

/// The unit of `parameter` of `template`; `None` where none is declared (`linear`).
pub fn parameter_unit(template: Template, parameter: &str) -> Option<&'static str> {
    use Template::*;
    let unit = match (template, parameter) {
        (Linear, _) => return None,
        // The names whose meaning differs between templates.
        (ImpactOscillator, "amplitude") => "N",
        (ImpactOscillator, "frequency") => "rad/s",
        (RockingBlock, "amplitude") => "m/s²",
        (RockingBlock, "frequency") => "Hz",
        (Woodpecker, "spring") => "N·m/rad",
        (CubicResistor, "capacitance") => "F",
        (CubicResistor, "beta") => "V/A³",
        (CubicResistor, "source" | "voltage") => "V",
        (DiscPile, x) if x.strip_prefix('x').is_some_and(|i| i.parse::<usize>().is_ok()) => "m",
        (_, name) => match name {
            "mass" | "mass0" | "mass1" | "pin_mass" | "slider_mass" => "kg",
            "radius" | "height" | "gap" | "approach" | "spacing" | "length" | "position" | "stagger" | "width"
            | "crank" | "rod" | "stop" | "arm" | "distance" | "offset" | "drop" => "m",
            "velocity" | "speed" | "vx" | "vy" | "vz" | "sleeve_velocity" => "m/s",
            "angle" | "phase" | "heading" | "incline" | "tilt" => "rad",
            "angular_velocity"
            | "wx"
            | "wy"
            | "wz"
            | "follow"
            | "english"
            | "sleeve_angular_velocity"
            | "bird_angular_velocity" => "rad/s",
            "gravity" => "m/s²",
            "stiffness" => "N/m",
            "damping" => "N·s/m",
            "young" => "Pa",
            "section" => "m²",
            "density" => "kg/m³",
            "inertia" => "kg·m²",
            "duration" => "s",
            "restitution"
            | "tangential_restitution"
            | "table_restitution"
            | "beak_restitution"
            | "friction"
            | "table_friction"
            | "ball_friction"
            | "balls"
            | "beads"
            | "nodes"
            | "discs" => "",
            _ => return None,
        },
    };
    Some(unit)
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
