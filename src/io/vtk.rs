//! VTK XML files that ParaView and VisIt open: PolyData (`.vtp`), one vertex per point with
//! point arrays, and a Collection (`.pvd`) indexing them by time. ASCII, every value in
//! Rust's shortest round-trip form, so that a reader gets the f64 bits back. Format:
//! "VTK File Formats", VTK User's Guide 11th ed., Kitware, 2010, pp. 488–495
//! (<https://docs.vtk.org/en/latest/design_documents/VTKFileFormats.html>).

use std::fmt::Write as _;

/// One point array of a PolyData file: a name and, per point, its components.
pub struct PointArray<'a> {
    /// The array's name (e.g. `radius`, `velocity`).
    pub name: &'a str,
    /// Components per point (1 or 3).
    pub components: usize,
    /// The values, point after point (`components` × points).
    pub values: &'a [f64],
}

/// The text of a `.vtp` file: `points` as vertices (one `Verts` cell each) with `arrays`
/// as PointData.
pub fn polydata(points: &[[f64; 3]], arrays: &[PointArray]) -> String {
    let n = points.len();
    let mut text = String::with_capacity(64 * n * (1 + arrays.len()));
    text.push_str("<?xml version=\"1.0\"?>\n<VTKFile type=\"PolyData\" version=\"1.0\" byte_order=\"LittleEndian\" header_type=\"UInt64\">\n<PolyData>\n");
    let _ = writeln!(
        text,
        "<Piece NumberOfPoints=\"{n}\" NumberOfVerts=\"{n}\" NumberOfLines=\"0\" NumberOfStrips=\"0\" NumberOfPolys=\"0\">"
    );
    text.push_str("<Points>\n");
    data_array(
        &mut text,
        "Float64",
        None,
        3,
        points.iter().flatten().map(|x| format!("{x:?}")),
    );
    text.push_str("</Points>\n<Verts>\n");
    data_array(
        &mut text,
        "Int64",
        Some("connectivity"),
        1,
        (0..n).map(|k| k.to_string()),
    );
    data_array(&mut text, "Int64", Some("offsets"), 1, (1..=n).map(|k| k.to_string()));
    text.push_str("</Verts>\n<PointData>\n");
    for a in arrays {
        data_array(
            &mut text,
            "Float64",
            Some(a.name),
            a.components,
            a.values.iter().map(|x| format!("{x:?}")),
        );
    }
    text.push_str("</PointData>\n</Piece>\n</PolyData>\n</VTKFile>\n");
    text
}

/// One `DataArray` element, its values on one line.
fn data_array(
    text: &mut String,
    ty: &str,
    name: Option<&str>,
    components: usize,
    values: impl Iterator<Item = String>,
) {
    let name = name.map(|n| format!(" Name=\"{n}\"")).unwrap_or_default();
    let _ = write!(
        text,
        "<DataArray type=\"{ty}\"{name} NumberOfComponents=\"{components}\" format=\"ascii\">"
    );
    for (k, v) in values.enumerate() {
        if k > 0 {
            text.push(' ');
        }
        text.push_str(&v);
    }
    text.push_str("</DataArray>\n");
}

/// The text of a `.pvd` collection: each `(time, file)` as a DataSet, `file` relative to the
/// `.pvd`.
pub fn collection(entries: &[(f64, String)]) -> String {
    let mut text = String::from(
        "<?xml version=\"1.0\"?>\n<VTKFile type=\"Collection\" version=\"1.0\" byte_order=\"LittleEndian\">\n<Collection>\n",
    );
    for (time, file) in entries {
        let _ = writeln!(
            text,
            "<DataSet timestep=\"{time:?}\" group=\"\" part=\"0\" file=\"{file}\"/>"
        );
    }
    text.push_str("</Collection>\n</VTKFile>\n");
    text
}
