//! A run's plan: what the parts of a run need to know of its scenario — its steps, scene 0's
//! sizes and coordinate names, the drawn parameters, what the engines record, the summary's
//! columns and their units — worked out once, from one build of scene 0, before any chunk.
//! The chunk loop, the summary, the trajectories and the run's files read it instead of
//! rebuilding scene 0 each time one of them asks.

use std::collections::BTreeMap;

use super::Scenario;
use crate::batch::observe::Recording;
use crate::error::{Error, Result};

/// What a run of a scenario needs to know of it ([`Scenario::plan`]).
#[derive(Clone, Debug, PartialEq)]
pub struct Plan {
    /// Steps of every scene ([`Scenario::steps`]).
    pub steps: u32,
    /// Scene 0's degrees of freedom (every scene's: draws that change them are refused).
    pub dof: usize,
    /// Scene 0's rows (contacts and equalities).
    pub rows: usize,
    /// Scene 0's coordinate names, checked ([`Scenario::coordinates`]).
    pub coordinates: Vec<String>,
    /// The drawn parameters' names ([`Scenario::drawn_names`]).
    pub drawn: Vec<String>,
    /// A Saltelli design's parameters, in its order (none without one).
    pub saltelli: Vec<String>,
    /// What the engines record ([`Scenario::recording`]).
    pub recording: Recording,
    /// The summary's columns ([`super::summary_columns`]).
    pub columns: Vec<String>,
    /// The units of the columns whose unit is known ([`super::units::column_units`]).
    pub units: BTreeMap<String, String>,
}

impl Plan {
    /// (dof, rows) of every scene.
    pub fn sizes(&self) -> (usize, usize) {
        (self.dof, self.rows)
    }
}

impl Scenario {
    /// The run's [`Plan`], from one build of scene 0.
    pub fn plan(&self) -> Result<Plan> {
        let steps = u32::try_from(self.steps()).map_err(|_| Error::Scenario {
            what: "time".into(),
            reason: "more than 2³² steps".into(),
        })?;
        let first = self.sample(0)?.scene;
        let coordinates = self.checked_coordinates(first.coordinate_names())?;
        let (dof, rows) = (first.dof(), first.nsds()?.gap_rows().len());
        let drawn = self.drawn_names()?;
        let saltelli = match self.design {
            Some(_) => self
                .sampler()?
                .design()
                .map(|d| d.saltelli_parameters())
                .unwrap_or_default(),
            None => Vec::new(),
        };
        let observers = self.observers_of(&drawn, &coordinates, rows)?;
        let recording = self.recording_of(observers)?;
        let columns = super::summary::columns(self, &drawn, &coordinates)?;
        let units = super::units::units(self, (&drawn, &coordinates), &recording.observers);
        Ok(Plan {
            steps,
            dof,
            rows,
            coordinates,
            drawn,
            saltelli,
            recording,
            columns,
            units,
        })
    }
}
