//! `ricochet plot`: one column of a run's table against another.

/// Draws `y` against `x` of a run directory's `table`, titled with its scenario, seed
/// and scene count.
#[cfg(feature = "plots")]
pub fn plot(dir: &std::path::Path, (x, y): (&str, &str), table: &str, out: &std::path::Path) -> ricochet::Result<()> {
    use ricochet::ensemble::Table;
    use ricochet::ensemble::output::RunFiles;

    if !["summary", "events", "strobe"].contains(&table) {
        return Err(ricochet::Error::Scenario {
            what: format!("--table {table}"),
            reason: "expected summary, events or strobe".into(),
        });
    }
    let run = RunFiles::read(dir)?;
    let rows = match table {
        "summary" => run.summary.clone(),
        "events" => run.events.clone().unwrap_or_else(|| Table::new(Vec::new())),
        _ => run.strobe.clone().unwrap_or_else(|| Table::new(Vec::new())),
    };
    if rows.columns.is_empty() {
        return Err(ricochet::Error::Parse {
            file: dir.join(format!("{table}.*")).display().to_string(),
            reason: "not in this run (its scenario has no [events] or [strobe])".into(),
        });
    }
    // A summary column (a drawn parameter, say) joins an events or strobe row by its scene.
    let mut rows = rows;
    for name in [x, y] {
        if rows.index(name).is_none() && run.summary.index(name).is_some() {
            rows = ricochet::ensemble::table::join_by_scene(&rows, &run.summary, name)?;
        }
    }
    let info = run.info;
    let run = ricochet::ensemble::plots::Run::title(&info.scenario, (info.scenes, info.seed), info.shard);
    let title = format!("{run}: {y} vs {x}");
    ricochet::ensemble::plots::scatter(out, &rows, (x, y), &title, &info.units)
}

#[cfg(not(feature = "plots"))]
pub fn plot(_: &std::path::Path, _: (&str, &str), _: &str, _: &std::path::Path) -> ricochet::Result<()> {
    Err(ricochet::Error::Unsupported {
        what: "ricochet plot".into(),
        reason: "this build has no `plots` feature".into(),
    })
}
