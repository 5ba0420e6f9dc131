"""Writes to subscripts and attributes go through ag__.setitem / ag__.setattr."""

import types

import numpy as np

import staging


def f(x):
    d = {"count": 0}
    d["value"] = x * 2.0
    d["count"] += 1
    state = types.SimpleNamespace()
    state.total, d["last"] = x, x + 1.0
    return d["value"] + state.total + d["last"] * d["count"]


SPECS = {"x": staging.TensorSpec([], np.float64)}
