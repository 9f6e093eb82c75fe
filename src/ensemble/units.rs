//! The units of a run's columns (`run.json`'s `units`, the plots' axes): the template's
//! parameters and coordinates ([`crate::scenes::units`]), their velocities, times, energies
//! and penetrations; the observables' from their signal and reduction. A column without a
//! known unit (a custom scene's coordinate, an output row's gap or impulse) has none.

use std::collections::BTreeMap;

use super::Scenario;
use super::custom::Scenes;
use crate::batch::observe::{Observer, Reduce, Signal};
use crate::engine::velocity_name;
use crate::error::Result;
use crate::scenes::units::{coordinate_unit, declared_unit};

/// Column name → unit, for the columns of `scenario`'s tables whose unit is known (pure
/// numbers left out). Read off the scenario's [`Plan`](super::Plan), whose errors are this function's.
pub fn column_units(scenario: &Scenario) -> Result<BTreeMap<String, String>> {
    Ok(scenario.plan()?.units)
}

/// [`column_units`] of scenes of `coordinates`, with the parameters `drawn` and `observers`
/// (those of `scenario.observe`, in order).
pub(super) fn units(
    scenario: &Scenario,
    (drawn, coordinates): (&[String], &[String]),
    observers: &[Observer],
) -> BTreeMap<String, String> {
    let mut units = BTreeMap::new();
    for (column, unit) in [
        ("t", "s"),
        ("last_impact_time", "s"),
        ("energy_initial", "J"),
        ("energy_change", "J"),
        ("max_penetration", "m"),
        ("ydot_before", "m/s"),
        ("ydot_after", "m/s"),
    ] {
        units.insert(column.to_string(), unit.to_string());
    }
    let template = match &scenario.scene {
        Scenes::Template(spec) => Some(spec.template),
        Scenes::Custom(..) => None,
    };
    let coordinate = |i: usize| template.and_then(|t| coordinate_unit(t, &coordinates[i]));
    if let Some(template) = template {
        let declared = template.parameters();
        for name in drawn {
            if let Some(unit) = declared_unit(&declared, name) {
                units.insert(name.clone(), unit.to_string());
            }
        }
        for (i, name) in coordinates.iter().enumerate() {
            if let Some(unit) = coordinate(i) {
                units.insert(name.clone(), unit.to_string());
                units.insert(velocity_name(name), format!("{unit}/s"));
            }
        }
    }
    for (spec, observer) in scenario.observe.iter().zip(observers) {
        let signal = match observer.signal {
            Signal::Q(i) => coordinate(i).map(String::from),
            Signal::V(i) => coordinate(i).map(|u| format!("{u}/s")),
            Signal::Energy => Some("J".to_string()),
            Signal::Y(_) | Signal::Ydot(_) | Signal::Lambda(_) => None,
        };
        let unit = match observer.reduce {
            Reduce::TimeOfMax | Reduce::TimeOfMin | Reduce::FirstAbove | Reduce::FirstBelow => Some("s".to_string()),
            Reduce::Integral => signal.map(|u| format!("{u}·s")),
            Reduce::Max | Reduce::Min | Reduce::Final | Reduce::Mean => signal,
            Reduce::EverAbove | Reduce::EverBelow => None,
        };
        if let Some(unit) = unit.filter(|u| !u.is_empty()) {
            units.insert(spec.name.clone(), unit);
        }
    }
    for spec in &scenario.derive {
        if let Some(unit) = &spec.unit {
            units.insert(spec.name.clone(), unit.clone());
        }
    }
    units.retain(|_, unit| !unit.is_empty());
    units
}

/// `name (unit)`, or `name` without a unit.
pub fn label(name: &str, units: &BTreeMap<String, String>) -> String {
    match units.get(name) {
        Some(unit) => format!("{name} ({unit})"),
        None => name.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::column_units;
    use crate::ensemble::Scenario;

    #[test]
    fn columns_take_the_template_units() {
        let scenario = Scenario::from_toml(
            "name = \"u\"\nscenes = 4\n[scene]\ntemplate = \"rocking_block\"\namplitude = { uniform = [1, 2] }\n\
             restitution = { uniform = [0, 0.5] }\n[time]\nstep = 1e-3\nfinal = 0.1\n\
             [[observe]]\nname = \"toppled\"\nsignal = \"theta\"\nreduce = \"first_above\"\nthreshold = 1\n\
             [[observe]]\nname = \"spin\"\nsignal = \"theta_dot\"\nreduce = \"max\"\n\
             [[observe]]\nname = \"swept\"\nsignal = \"x\"\nreduce = \"integral\"\n\
             [[observe]]\nname = \"push\"\nsignal = \"lambda0\"\nreduce = \"max\"\n",
        )
        .unwrap();
        let units = column_units(&scenario).unwrap();
        let unit = |c: &str| units.get(c).map(String::as_str);
        assert_eq!(
            unit("amplitude"),
            Some("m/s²"),
            "the rocking block's ground acceleration"
        );
        assert_eq!(unit("restitution"), None, "a pure number");
        assert_eq!(
            (unit("x"), unit("theta"), unit("theta_dot")),
            (Some("m"), Some("rad"), Some("rad/s"))
        );
        assert_eq!(
            (unit("toppled"), unit("spin"), unit("swept")),
            (Some("s"), Some("rad/s"), Some("m·s"))
        );
        assert_eq!(unit("push"), None, "an output row's impulse has no declared unit");
        assert_eq!((unit("t"), unit("energy_change")), (Some("s"), Some("J")));
    }
}
