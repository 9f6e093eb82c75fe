"""The contact geometry from Python against the impact laws and momentum balances:
sphere–sphere gaps (between systems and against a fixed sphere), sphere–plane, rotating discs
and spheres with friction, a planar body's point on a line."""

import numpy as np
import pytest

import ricochet

G = 9.81


def test_two_equal_elastic_balls_exchange_their_velocities():
    nsds = ricochet.Nsds()
    a = nsds.add("a", ricochet.LagrangianLinearTIDS(q0=[0.0], v0=[1.0], mass=[[1.0]]))
    b = nsds.add("b", ricochet.LagrangianLinearTIDS(q0=[0.5], v0=[0.0], mass=[[1.0]]))
    nsds.link("contact", ricochet.NewtonImpactNSL(1.0), ricochet.SphereSphereR(1, (1, 1), radii=0.2), [a, b])
    trajectory = ricochet.TimeStepping(nsds, h=1e-3).run(1.0)
    assert trajectory.v[-1].tolist() == pytest.approx([0.0, 1.0], abs=1e-15)
    assert np.abs(trajectory.v.sum(axis=1) - 1.0).max() < 1e-15
    assert trajectory.y[:, 0].min() > -1e-3
    assert (trajectory.lambda_[1:, 0] > 0).sum() == 1


def test_a_ball_on_a_fixed_sphere_rebounds_with_its_restitution():
    # Straight down onto a sphere fixed at the origin: the impact step gives v⁺ = −e v⁻.
    ball = ricochet.LagrangianLinearTIDS(q0=[0.0, 2.0], v0=[0.0, 0.0], mass=np.eye(2), fext=[0.0, -G])
    nsds = ricochet.Nsds()
    i = nsds.add("ball", ball)
    nsds.link("dome", ricochet.NewtonImpactNSL(0.5), ricochet.SphereSphereR.fixed(2, 2, centre=[0.0, 0.0], radii=1.0), [i])
    v = ricochet.TimeStepping(nsds, h=1e-3).run(1.0).v[:, 1]
    k = int(np.argmax(v > 0))
    assert k > 0 and v[k] == pytest.approx(-0.5 * v[k - 1], rel=1e-12)


def test_sphere_plane_is_the_linear_relation_it_stands_for():
    # The plane 2 y = 0.25 under a ball of radius 0.1: y_gap = y − 0.125 − 0.1.
    runs = []
    for relation in [
        ricochet.LagrangianLinearTIR.sphere_plane(2, 3, normal=[0.0, 2.0], d=0.25, radius=0.1),
        ricochet.LagrangianLinearTIR([[0.0, 1.0, 0.0]], b=[-0.225]),
    ]:
        ball = ricochet.LagrangianLinearTIDS(q0=[0.0, 1.0, 0.0], v0=[1.0, 0.0, 0.0], mass=np.diag([1.0, 1.0, 0.004]), fext=[0.0, -G, 0.0])
        nsds = ricochet.Nsds()
        i = nsds.add("ball", ball)
        nsds.link("plane", ricochet.NewtonImpactNSL(0.8), relation, [i])
        runs.append(ricochet.TimeStepping(nsds, h=1e-3).run(2.0))
    assert np.array_equal(runs[0].q, runs[1].q) and np.array_equal(runs[0].lambda_, runs[1].lambda_, equal_nan=True)
    assert runs[0].y[:, 0].min() > -1e-2


def test_a_sliding_disc_rolls_at_two_thirds_of_its_speed():
    # A disc (R = 0.5, I = ½ m R²) launched sliding at 2 m/s: friction keeps m v_x − (I/R) ω,
    # and rolling (v_x + R ω = 0) is reached at v_x = 2 / (1 + ½) = 4/3.
    radius, mu = 0.5, 0.4
    inertia = 0.5 * radius**2
    disc = ricochet.LagrangianLinearTIDS(q0=[0.0, radius, 0.0], v0=[2.0, 0.0, 0.0], mass=np.diag([1.0, 1.0, inertia]), fext=[0.0, -G, 0.0])
    nsds = ricochet.Nsds()
    i = nsds.add("disc", disc)
    floor = ricochet.PlanarContactR(3, point=(0.0, 0.0), normal=(0.0, 1.0), offset=0.0, radius=radius)
    nsds.link("floor", ricochet.NewtonImpactFrictionNSL(0.0, 0.0, mu, 2), floor, [i])
    trajectory = ricochet.TimeStepping(nsds, h=1e-3).run(1.0)
    v, omega = trajectory.v[:, 0], trajectory.v[:, 2]
    assert np.abs(v - (inertia / radius) * omega - 2.0).max() < 1e-12
    assert v[-1] == pytest.approx(4 / 3, abs=1e-12)
    assert v[-1] + radius * omega[-1] == pytest.approx(0.0, abs=1e-12)
    # It rolls from t = v₀ / (3 μ g), sliding before.
    rolling = trajectory.t[np.argmax(np.abs(v + radius * omega) < 1e-12)]
    assert rolling == pytest.approx(2.0 / (3 * mu * G), abs=2e-3)
    normal, tangent = trajectory.lambda_[1:, 0], trajectory.lambda_[1:, 1]
    assert np.all(np.abs(tangent) <= mu * normal + 1e-15)
    assert np.abs(trajectory.q[:, 1] - radius).max() < 1e-12


@pytest.mark.parametrize("dim", [2, 3])
def test_rough_spheres_and_discs_balance_their_momenta(dim):
    # An off-centre collision with friction, no gravity: the linear momentum is kept, and
    # each body's spin changes by its radius times the same tangential impulse, so equal
    # bodies spin alike.
    radius, mu = 1.0, 0.3
    if dim == 2:
        n, inertia = 3, 0.5 * radius**2
        states = [([0.0, 0.0, 0.0], [1.0, 0.0, 0.0]), ([2.5, 1.0, 0.0], [0.0, 0.0, 0.0])]
        relation, law = ricochet.DiskDiskR((3, 3), (radius, radius)), ricochet.NewtonImpactFrictionNSL(0.5, 0.0, mu, 2)
    else:
        n, inertia = 6, 0.4 * radius**2
        states = [([0.0] * 6, [1.0, 0.0, 0.0, 0.0, 0.0, 0.0]), ([2.5, 1.0, 0.3, 0.0, 0.0, 0.0], [0.0] * 6)]
        relation, law = ricochet.SphereLDSSphereLDSR((6, 6), (radius, radius)), ricochet.NewtonImpactFrictionNSL(0.5, 0.0, mu, 3)
    mass = np.diag([1.0] * dim + [inertia] * (n - dim))
    nsds = ricochet.Nsds()
    ids = [nsds.add(f"body {k}", ricochet.LagrangianLinearTIDS(q0=q, v0=v, mass=mass)) for k, (q, v) in enumerate(states)]
    nsds.link("contact", law, relation, ids)
    trajectory = ricochet.TimeStepping(nsds, h=1e-3).run(1.5)
    v0, v1 = trajectory.v[:, :n], trajectory.v[:, n:]
    assert np.abs(v0[:, :dim] + v1[:, :dim] - states[0][1][:dim]).max() < 1e-12
    assert np.abs(v0[:, dim:] - v1[:, dim:]).max() < 1e-12
    assert np.abs(v1[-1, dim:]).max() > 1e-3  # friction did spin them
    lam = trajectory.lambda_[1:]
    assert np.all(np.linalg.norm(lam[:, 1:], axis=1) <= mu * lam[:, 0] + 1e-12)
    assert trajectory.y[:, 0].min() > -1e-2


def test_bad_contacts_are_value_errors():
    with pytest.raises(ValueError, match="dimension"):
        ricochet.SphereSphereR(4, (4, 4), radii=1.0)
    with pytest.raises(ValueError):
        ricochet.SphereSphereR.fixed(2, 2, centre=[0.0], radii=1.0)
    with pytest.raises(ValueError):
        ricochet.DiskDiskR((2, 3), (1.0, 1.0))
    with pytest.raises(ValueError, match="radius"):
        ricochet.PlanarContactR(3, point=(0.0, 0.0), normal=(0.0, 1.0), radius=-1.0)
    with pytest.raises(ValueError, match="normal"):
        ricochet.LagrangianLinearTIR.sphere_plane(2, 2, normal=[0.0, 0.0], d=0.0, radius=0.1)
