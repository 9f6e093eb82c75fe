"""Large scenes from Python: a shipped hopper runs in-process and writes its files, and its
VTK snapshots are read back by an XML parser of its own (the standard library's), checked
against the run's final state and the VTK format's structure."""

import os
import xml.etree.ElementTree as ET

import numpy as np
import pytest

import ricochet


def _array(piece: ET.Element, path: str) -> np.ndarray:
    node = piece.find(path)
    assert node is not None, path
    values = np.array(node.text.split(), dtype=float)
    components = int(node.get("NumberOfComponents", "1"))
    return values.reshape(-1, components) if components > 1 else values


def test_a_large_scene_runs_and_its_vtk_snapshots_read_back(tmp_path):
    text = ricochet.scenarios()["hopper_2d"].replace("discs = 1000", "discs = 150").replace("final = 2.0", "final = 0.1")
    text = text.replace("width = 30.0", "width = 14.0").replace("snapshots = 200", "snapshots = 50")
    result = ricochet.run_large_scene(text, tmp_path, backend="cpu", progress=False)
    assert result["bodies"] == 150 and result["steps"] == 200
    assert result["engine"].startswith("large-scene cpu")
    series, final = result["series"], result["final"]
    assert series.dtype.names[0] == "t" and "discharged" in series.dtype.names
    assert len(final) == 150

    index = ET.parse(tmp_path / "snapshots.pvd").getroot()
    assert index.get("type") == "Collection"
    datasets = index.findall("./Collection/DataSet")
    assert [float(d.get("timestep")) for d in datasets] == pytest.approx([0.0, 0.025, 0.05, 0.075, 0.1])
    last = ET.parse(tmp_path / datasets[-1].get("file")).getroot()
    assert last.get("type") == "PolyData"
    piece = last.find("./PolyData/Piece")
    assert int(piece.get("NumberOfPoints")) == 150 == int(piece.get("NumberOfVerts"))
    points = _array(piece, "./Points/DataArray")
    offsets = [a for a in piece.findall("./Verts/DataArray") if a.get("Name") == "offsets"][0]
    assert np.array_equal(np.array(offsets.text.split(), dtype=int), np.arange(1, 151))
    named = {a.get("Name"): a for a in piece.findall("./PointData/DataArray")}
    assert set(named) == {"radius", "mass", "velocity", "angular_velocity", "present"}
    radius = np.array(named["radius"].text.split(), dtype=float)
    velocity = np.array(named["velocity"].text.split(), dtype=float).reshape(-1, 3)
    np.testing.assert_array_equal(points[:, 0], final["x"])
    np.testing.assert_array_equal(points[:, 1], final["y"])
    np.testing.assert_array_equal(radius, final["radius"])
    np.testing.assert_array_equal(velocity[:, 0], final["vx"])
    assert os.path.isfile(tmp_path / "series.csv")


def test_a_finished_large_run_leaves_nothing_to_resume(tmp_path):
    text = ricochet.scenarios()["pyramid_2d"].replace("rows = 14", "rows = 5").replace("final = 2.0", "final = 0.05")
    result = ricochet.run_large_scene(text, tmp_path, backend="cpu", progress=False)
    assert result["resumed_steps"] == 0 and result["steps"] == 50
    # (The module is built without pictures: no final.png, and no notice about it.)
    assert result["notice"] is None and not (tmp_path / "final.png").exists()
    assert not (tmp_path / ".checkpoint").exists()
    with pytest.raises(ValueError, match="nothing to resume"):
        ricochet.run_large_scene(text, tmp_path, backend="cpu", progress=False, resume=True)
