"""``site``: an |Ω(x)| too wide for the exact counter is reported as a bound, never dropped or guessed."""

from __future__ import annotations

import functools

from models_site import densenet

import pybridge.site.commands as site_commands
from pybridge.site.fork import Site
from pybridge.site.graph import extract
from pybridge.site.omega import DownsetCounter, brute_force_downsets


def test_bounds_when_the_counter_budget_is_exceeded(monkeypatch) -> None:
    m, x = densenet()
    graph = extract(m, (x,), "densenet", method="fx")
    exact, _ = site_commands.site_report("densenet", graph, raw=False)
    assert exact.omega_bounds == {}
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
