"""Models several test files share."""

import scaly as sc


@sc.function(sc.arg("z", 2), sc.arg("u", ()), outputs=sc.arg("znext"))
def euler(z, u):
    """One Euler step of the guide's model (kept as a procedure: .block())."""
    return sc.stack([z[0] + 0.1 * z[1], z[1] + 0.1 * u.sin()]).block()


@sc.function(sc.arg("zs", 20), sc.arg("us", 10), outputs=sc.arg("zn"))
def rollout(zs, us):
    """The guide's rollout: euler mapped over 10 stages."""
    return sc.vmap(euler, 10)(zs.reshape((10, 2)), us).vec()


@sc.function(sc.arg("v", 5), outputs=sc.arg("r"))
def inner(v):
    return (v.sin() * 2.0).block()


@sc.function(sc.arg("u", 5), outputs=sc.arg("s"))
def middle(u):
    return (inner(u * 3.0) + 1.0).block()


def spilling(name):
    """A function named `name` whose callees' temporaries spill: its entry needs
    a workspace (workspace_bytes > 0)."""
    def body(x):
        return middle(x + 0.5) * 2.0
    body.__name__ = body.__qualname__ = name
    return sc.function(sc.arg("x", 5), outputs=sc.arg("y"))(body)
