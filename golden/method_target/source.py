"""The golden function is itself a bound method."""

import numpy as np

import staging


# golden: function=ACCUMULATOR.run
class Accumulator:
    def __init__(self, start):
        self.start = start

    def run(self, values):
        total = self.start
        for v in values:
            total = total + v
        return total


ACCUMULATOR = Accumulator(10.0)


SPECS = {"values": staging.TensorSpec([None], np.float64)}
