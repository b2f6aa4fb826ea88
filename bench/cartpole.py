"""The cart-pole model the benchmarks share (bench/scale.py, bench/vectors.py):
its dynamics written with Scaly expressions and, for the baselines, with NumPy
over a batch of states."""

import numpy as np

import scaly as sc

M_CART, M_POLE, LENGTH, G = 1.0, 0.1, 0.5, 9.81


def cartpole_dynamics(s, u):
    """Cart-pole: state (x, theta, xdot, thetadot), force u."""
    th, xd, thd = s[1], s[2], s[3]
    sin, cos = th.sin(), th.cos()
    denom = M_CART + M_POLE * sin * sin
    xdd = (u + M_POLE * sin * (LENGTH * thd * thd + G * cos)) / denom
    thdd = (-u * cos - M_POLE * LENGTH * thd * thd * cos * sin - (M_CART + M_POLE) * G * sin) / (
        LENGTH * denom)
    return sc.stack([xd, thd, xdd, thdd])


def cartpole_numpy(s, u):
    """The same dynamics for states stacked row by row (NumPy)."""
    th, xd, thd = s[:, 1], s[:, 2], s[:, 3]
    sin, cos = np.sin(th), np.cos(th)
    denom = M_CART + M_POLE * sin * sin
    xdd = (u + M_POLE * sin * (LENGTH * thd * thd + G * cos)) / denom
    thdd = (-u * cos - M_POLE * LENGTH * thd * thd * cos * sin - (M_CART + M_POLE) * G * sin) / (
        LENGTH * denom)
    return np.stack([xd, thd, xdd, thdd], axis=1)


def rk4_step(dynamics, s, u, h=0.01):
    """One RK4 step of `dynamics` (Scaly expressions or NumPy arrays alike)."""
    k1 = dynamics(s, u)
    k2 = dynamics(s + h / 2 * k1, u)
    k3 = dynamics(s + h / 2 * k2, u)
    k4 = dynamics(s + h * k3, u)
    return s + h / 6 * (k1 + 2 * k2 + 2 * k3 + k4)


def rk4_numpy(S, U):
    """One RK4 step of the batch (NumPy)."""
    return rk4_step(cartpole_numpy, S, U)
