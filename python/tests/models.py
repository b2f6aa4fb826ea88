"""Models several test files share."""

import scaly as sc


def rollout_model(block=True):
    """The guide's rollout, one Euler step mapped over 10 stages, traced afresh (new
    Function objects at each call). The step is kept as a procedure (.block()) unless
    `block` is false."""
    @sc.function(sc.arg("z", 2), sc.arg("u", ()), outputs=sc.arg("znext"))
    def euler(z, u):
        step = sc.stack([z[0] + 0.1 * z[1], z[1] + 0.1 * u.sin()])
        return step.block() if block else step

    @sc.function(sc.arg("zs", 20), sc.arg("us", 10), outputs=sc.arg("zn"))
    def rollout(zs, us):
        return sc.vmap(euler, 10)(zs.reshape((10, 2)), us).vec()
    return rollout


rollout = rollout_model()


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
