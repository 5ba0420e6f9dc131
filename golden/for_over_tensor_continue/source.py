"""Seed example: for x in tensor with continue."""

import numpy as np

import staging


def f(values):
    total = 0.0
    for x in values:
        if x <= 0:
            continue
        total += x
    return total


SPECS = {"values": staging.TensorSpec([None], np.float64)}
