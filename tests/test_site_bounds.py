"""``site``: an |Ω(x)| too wide for the exact counter is reported as a bound, never dropped or guessed."""

from __future__ import annotations

import functools

from models_site import densenet

import pybridge.site.commands as site_commands
from pybridge.errors import SiteError
from pybridge.site.fork import Site
from pybridge.site.graph import extract
from pybridge.site.omega import DownsetCounter, brute_force_downsets
from pybridge.site.synthetic import chain


def _too_wide(*args: object, **kwargs: object) -> list[int]:
    raise SiteError("a union too wide for the exact counter")


def test_bounds_when_the_counter_budget_is_exceeded(monkeypatch) -> None:
    m, x = densenet()
    graph = extract(m, (x,), "densenet", method="fx")
    exact, _ = site_commands.site_report("densenet", graph, raw=False)
    assert exact.omega_bounds == {}
    # the one-pass count gives up (as on a poset whose overlapping lower covers exceed the budget): the
    # objects are counted one by one, with a counter of 4 states
    monkeypatch.setattr(site_commands, "omega_sizes", _too_wide)
    monkeypatch.setattr(site_commands, "DownsetCounter", functools.partial(DownsetCounter, budget=4))
    bounded, _ = site_commands.site_report("densenet", graph, raw=False)
    assert bounded.omega_bounds  # some objects were too wide for a budget of 4 states
    poset = Site(graph.normalized()).poset()
    for name, text in bounded.omega_bounds.items():
        k = poset.down[poset.index[name]].bit_count()
        assert text == f"{k + 1} <= |Omega(x)| <= 2^{k}"
        true = exact.omega[name]
        assert k + 1 <= true <= 2**k
    for name, n in bounded.omega.items():  # the rest are exact
        assert n == exact.omega[name]
    small = min(bounded.omega, key=lambda nm: poset.down[poset.index[nm]].bit_count())
    assert bounded.omega[small] == brute_force_downsets(poset, poset.down[poset.index[small]])


def test_site_counts_every_omega_in_one_pass_without_recounting(monkeypatch) -> None:
    """|Ω(x)| of every object comes from the one pass up the Hasse diagram (1 + |Ω(y)| on a chain), not
    from the general counter object by object (which made a 2,000-layer chain take 31 s)."""

    def refuse(self: DownsetCounter, mask: int) -> int:
        raise AssertionError("the general counter was called")

    monkeypatch.setattr(DownsetCounter, "count", refuse)
    n = 3000
    rep, _ = site_commands.site_report("chain", chain(n), raw=False)
    assert rep.omega_bounds == {}
    assert rep.omega == {"x": n + 2, **{f"l{i}": n - i + 1 for i in range(n)}}
