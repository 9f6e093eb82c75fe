"""Relations built from Python — with functions (scleronomous, rheonomous, Pfaffian,
coordinate-vector) and compliant — against Siconos's references and closed-form motions."""

import numpy as np
import pytest

import ricochet

G = 9.81


def ball(g=G, q0=(1.0, 0.0, 0.0)):
    """A ball of mass 1 and radius 0.1, q = (z, x, θ), at rest, under gravity g."""
    return ricochet.LagrangianLinearTIDS(q0=list(q0), v0=[0.0] * 3, mass=np.diag([1.0, 1.0, 0.004]), fext=[-g, 0.0, 0.0])


def test_scleronomous_floor_reproduces_siconos(siconos):
    # BouncingBallTS-Scleronomous: h(q) = z + 0.1 x, activation at q_k + h v_k, g = 10.
    ref = siconos("BouncingBallTS-Scleronomous.ref")
    calls = []

    def h(q):
        calls.append(q.copy())
        return [q[0] + 0.1 * q[1]]

    nsds = ricochet.Nsds()
    b = nsds.add("ball", ball(g=10.0))
    floor = ricochet.LagrangianScleronomousR(h, lambda q: [[1.0, 0.1, 0.0]])
    nsds.link("floor", ricochet.NewtonImpactNSL(0.9), floor, [b])
    trajectory = ricochet.TimeStepping(nsds, h=0.025, activation="predicted").run(ref[-1, 0])
    q, v, p, lam = trajectory.q, trajectory.v, np.nan_to_num(trajectory.p), np.nan_to_num(trajectory.lambda_)
    ours = np.column_stack([trajectory.t, q[:, 0], q[:, 1], v[:, 0], v[:, 1], p[:, 0], lam[:, 0]])
    assert ours.shape == ref.shape
    assert np.abs(ours - ref).max() <= 1e-9
    assert len(calls) > len(ref) and all(isinstance(c, np.ndarray) and c.shape == (3,) for c in calls)


def test_compliant_floor_reproduces_siconos(siconos):
    # BouncingBallTS-CompliantContact: a roof y = 0.7 − z (e = 1) and a floor spring
    # y = z − 0.1 + 0.01 λ ≥ 0 ⟂ λ ≥ 0.
    ref = siconos("BouncingBallTS-CompliantContact.ref")
    nsds = ricochet.Nsds()
    b = nsds.add("ball", ball())
    nsds.link("roof", ricochet.NewtonImpactNSL(1.0), ricochet.LagrangianLinearTIR([[-1.0, 0.0, 0.0]], b=[0.7]), [b])
    floor = ricochet.LagrangianCompliantLinearTIR([[1.0, 0.0, 0.0]], b=[-0.1], compliance=[[0.01]])
    nsds.link("floor", ricochet.ComplementarityConditionNSL(1), floor, [b])
    trajectory = ricochet.TimeStepping(nsds, h=5e-4).run(ref[-1, 0])
    p, lam = np.nan_to_num(trajectory.p), np.nan_to_num(trajectory.lambda_)
    ours = np.column_stack([trajectory.t, trajectory.q[:, 0], trajectory.v[:, 0], p[:, 0], lam[:, 0]])
    assert ours.shape == ref.shape
    assert np.abs(ours - ref).max() <= 1e-9


def test_a_rising_platform_carries_the_ball_at_its_speed():
    # y = z − r − u t (a platform rising at u), e = 0: once on it the ball moves at u (to
    # within one step of gravity where rounding leaves it a hair above and it flies for a
    # step), stays on it to g h², and the impulses balance its momentum exactly:
    # Σλ = m (v_N − v_0) + m g t_N.
    u, h = 0.5, 1e-3
    nsds = ricochet.Nsds()
    b = nsds.add("ball", ball(q0=(0.1, 0.0, 0.0)))
    platform = ricochet.LagrangianRheonomousR(
        lambda q, t: [q[0] - 0.1 - u * t],
        lambda q, t: [[1.0, 0.0, 0.0]],
        lambda q, t: [-u],
    )
    nsds.link("platform", ricochet.NewtonImpactNSL(0.0), platform, [b])
    trajectory = ricochet.TimeStepping(nsds, h=h, theta=1.0).run(1.0)
    t, v, y, lam = trajectory.t, trajectory.v[:, 0], trajectory.y[:, 0], trajectory.lambda_[1:, 0]
    assert np.abs(v[1:] - u).max() <= G * h + 1e-12
    assert (np.abs(v[1:] - u) < 1e-12).mean() > 0.9
    assert np.abs(y - (trajectory.q[:, 0] - 0.1 - u * t)).max() < 1e-15
    assert np.abs(y).max() <= 1.001 * G * h * h
    assert lam.sum() == pytest.approx(v[-1] - v[0] + G * t[-1], abs=1e-12)


def pushed_pair():
    """Masses 1 and 3 on a line pushed by +5 and −1 N, starting together at rest."""
    nsds = ricochet.Nsds()
    a = nsds.add("a", ricochet.LagrangianLinearTIDS(q0=[0.0], v0=[0.0], mass=[[1.0]], fext=[5.0]))
    b = nsds.add("b", ricochet.LagrangianLinearTIDS(q0=[0.0], v0=[0.0], mass=[[3.0]], fext=[-1.0]))
    return nsds, a, b


def test_linear_pfaffian_and_coordinate_vector_constraints_hold_two_masses_together():
    # v_a = v_b: the pair moves at the common acceleration (5 − 1)/4 = 1, which θ = ½
    # integrates exactly (x = ½ t²), and the constraint's impulse on a is −4 h (the force
    # 5 − 1·1 = 4 N taken away): λ = −4 h where the relation reads q_a − q_b (H = [1, −1]),
    # +4 h where it reads q_b − q_a (the coordinate-vector constraint's X_m1 q_b − X_m0 q_a).
    h = 1e-2
    runs = {}
    for kind, sign in [("linear", -1), ("pfaffian", -1), ("coordinate vector", 1), ("coordinate vector function", 1)]:
        nsds, a, b = pushed_pair()
        relation = {
            "linear": lambda: ricochet.LagrangianLinearTIR([[1.0, -1.0]]),
            "pfaffian": lambda: ricochet.PfaffianR(lambda q: [[1.0, -1.0]]),
            "coordinate vector": lambda: ricochet.CoordinateVectorConstraint((1, 1), x0=[[1.0]], x1=[[1.0]], offset=[0.0]),
            "coordinate vector function": lambda: ricochet.CoordinateVectorConstraint(
                (1, 1), constraint=lambda t, q: [q[1] - q[0]], jacobian=lambda t, q: [[-1.0, 1.0]], size=1
            ),
        }[kind]()
        nsds.link("together", ricochet.EqualityConditionNSL(1), relation, [a, b])
        trajectory = ricochet.TimeStepping(nsds, h=h).run(1.0)
        t, q, v = trajectory.t, trajectory.q, trajectory.v
        assert np.abs(q[:, 0] - q[:, 1]).max() <= 1e-13, kind
        assert np.abs(v[:, 0] - t).max() < 1e-12, kind
        assert np.abs(q[:, 0] - 0.5 * t**2).max() <= 1e-12, kind
        assert np.abs(trajectory.lambda_[1:, 0] - sign * 4 * h).max() < 1e-12, kind
        runs[kind] = trajectory
    assert np.array_equal(runs["coordinate vector"].q, runs["coordinate vector function"].q)


def pendulum(form, **settings):
    """A point mass on a massless rod of length 1 from the ground, started at 10°:
    x² + y² − 1 = 0 as Exudyn's quadratic coordinate-vector form or as c(t, q)."""
    angle = np.radians(10.0)
    bob = ricochet.LagrangianLinearTIDS(q0=[np.sin(angle), -np.cos(angle)], v0=[0.0, 0.0], mass=np.eye(2), fext=[0.0, -G])
    if form == "quadratic":
        rod = ricochet.CoordinateVectorConstraint((0, 2), y1=[[1.0, 1.0]], offset=[1.0], **settings)
    else:
        rod = ricochet.CoordinateVectorConstraint(
            (0, 2), constraint=lambda t, q: [q @ q - 1.0], jacobian=lambda t, q: [2 * q], size=1, **settings
        )
    nsds = ricochet.Nsds()
    i = nsds.add("bob", bob)
    nsds.link("rod", ricochet.EqualityConditionNSL(1), rod, [i])
    return nsds


def test_a_pendulum_on_a_quadratic_coordinate_vector_constraint():
    h, period = 1e-3, 2 * np.pi * np.sqrt(1.0 / G) * (1 + np.radians(10.0) ** 2 / 16)
    runs = {}
    for form in ["quadratic", "function"]:
        sim = ricochet.TimeStepping(pendulum(form), h=h, stabilization="projection")
        trajectory = sim.run(2 * period)
        x, y = trajectory.q[:, 0], trajectory.q[:, 1]
        assert trajectory.constraint_residual.max() < 1e-10
        assert np.abs(x**2 + y**2 - 1).max() < 1e-10
        # Back at its start after two periods (the large-angle period to second order).
        crossings = np.nonzero((x[:-1] < 0) & (x[1:] >= 0))[0]
        assert len(crossings) == 2
        assert trajectory.t[crossings[1]] - trajectory.t[crossings[0]] == pytest.approx(period, rel=2e-3)
        assert np.abs(trajectory.energy - trajectory.energy[0]).max() < 1e-3 * abs(trajectory.energy[0])
        runs[form] = trajectory
    assert np.abs(runs["quadratic"].q - runs["function"].q).max() < 1e-10
    # Switched off, the rod lets the bob fall freely.
    sim = ricochet.TimeStepping(pendulum("quadratic"), h=h)
    sim.set_active(0, False)
    fall = sim.run(0.5)
    assert np.abs(fall.v[:, 1] + G * fall.t).max() < 1e-12
    with pytest.raises(ValueError, match="interaction 1"):
        sim.set_active(1, True)


def test_bad_relations_are_value_errors_naming_the_function():
    nsds = ricochet.Nsds()
    b = nsds.add("ball", ball())
    with pytest.raises(ValueError, match="G0"):
        wrong = ricochet.LagrangianScleronomousR(lambda q: [q[0]], lambda q: [[1.0, 0.0]])
        nsds.link("floor", ricochet.NewtonImpactNSL(0.5), wrong, [b])
    with pytest.raises(ZeroDivisionError):
        raising = ricochet.LagrangianScleronomousR(lambda q: [1 / 0], lambda q: [[1.0, 0.0, 0.0]])
        nsds.link("floor", ricochet.NewtonImpactNSL(0.5), raising, [b])
    with pytest.raises(ValueError, match="size"):
        ricochet.CoordinateVectorConstraint((0, 3), constraint=lambda t, q: [q[0]], jacobian=lambda t, q: [[1.0, 0, 0]])
    with pytest.raises(ValueError, match="marker|rows|columns|X_m1"):
        ricochet.CoordinateVectorConstraint((0, 3), x1=[[1.0, 0.0]], offset=[0.0])


def test_a_relation_that_raises_mid_run_stops_it_with_the_samples_before():
    def h(q):
        if q[0] < 0.5:
            raise RuntimeError("the floor broke")
        return [q[0] - 0.1]

    nsds = ricochet.Nsds()
    b = nsds.add("ball", ball())
    nsds.link("floor", ricochet.NewtonImpactNSL(0.5), ricochet.LagrangianScleronomousR(h, lambda q: [[1.0, 0.0, 0.0]]), [b])
    sim = ricochet.TimeStepping(nsds, h=1e-3)
    with pytest.raises(RuntimeError, match="the floor broke") as caught:
        sim.run(1.0)
    kept = caught.value.trajectory
    # z = 1 − g t²/2 passes 0.5 at t ≈ 0.319: the samples up to there are kept.
    assert 0.3 < kept.t[-1] < 0.33
    assert kept.q[-1, 0] >= 0.5 - 1e-2
