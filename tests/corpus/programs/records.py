"""Data processing: grouping, validation, cleaning and summarising records held in arrays."""

import dataclasses
import math
from collections import OrderedDict, defaultdict, namedtuple

import numpy as np

DOMAIN = "data processing"

Reading = namedtuple("Reading", "sensor value")


class ValidationError(ValueError):
    def __init__(self, field, value):
        super().__init__(f"invalid {field}: {value!r}")
        self.field = field
        self.value = value


@dataclasses.dataclass
class Summary:
    count: int = 0
    total: float = 0.0
    flagged: list = dataclasses.field(default_factory=list)


def group_means(keys, values):
    sums = defaultdict(float)
    counts = defaultdict(int)
    for k, v in zip(keys, values):
        sums[int(k)] += v
        counts[int(k)] += 1
    return {k: sums[k] / counts[k] for k in sorted(sums)}


def validate_ages(ages, max_age=130):
    cleaned = []
    for i, a in enumerate(ages):
        if a < 0 or a > max_age:
            raise ValidationError(f"age[{i}]", a)
        cleaned.append(int(a))
    return cleaned


def fill_missing(x, strategy="mean"):
    x = x.copy()
    mask = np.isnan(x)
    if not mask.any():
        return x, 0
    good = x[~mask]
    if strategy == "mean":
        fill = good.mean() if good.size else 0.0
    elif strategy == "previous":
        last = 0.0
        for i in range(len(x)):
            if mask[i]:
                x[i] = last
            else:
                last = x[i]
        return x, int(mask.sum())
    else:
        raise ValueError(f"unknown strategy {strategy!r}")
    x[mask] = fill
    return x, int(mask.sum())


def summarize_readings(readings, limit):
    per_sensor = {}
    for r in readings:
        s = per_sensor.setdefault(r.sensor, Summary())
        s.count += 1
        s.total += r.value
        if r.value > limit:
            s.flagged.append(r.value)
    return per_sensor


def merge_configs(defaults, overrides):
    merged = dict(defaults)
    unknown = []
    for key, value in overrides.items():
        if key not in defaults:
            unknown.append(key)
            continue
        if isinstance(defaults[key], dict):
            merged[key] = {**defaults[key], **value}
        else:
            merged[key] = type(defaults[key])(value)
    return merged, unknown


def top_k_products(names, sales, k):
    totals = {}
    for name, amount in zip(names, sales):
        totals[name] = totals.get(name, 0) + amount
    ranked = sorted(totals.items(), key=lambda kv: (-kv[1], kv[0]))
    return ranked[:k]


def pivot_counts(rows, cols):
    row_labels = sorted(set(rows.tolist()))
    col_labels = sorted(set(cols.tolist()))
    ri = {v: i for i, v in enumerate(row_labels)}
    ci = {v: i for i, v in enumerate(col_labels)}
    table = np.zeros((len(row_labels), len(col_labels)), dtype=int)
    for r, c in zip(rows, cols):
        table[ri[r], ci[c]] += 1
    return row_labels, col_labels, table


def inventory_update(stock, orders):
    stock = dict(stock)
    backorders = []
    for item, qty in orders:
        have = stock.get(item, 0)
        if qty <= have:
            stock[item] = have - qty
        else:
            stock[item] = 0
            backorders.append((item, qty - have))
    empty = {k for k, v in stock.items() if v == 0}
    return stock, backorders, empty


def parse_records(table):
    out = []
    errors = 0
    for row in table:
        try:
            ident = int(row[0])
            score = float(row[1])
            if math.isnan(score):
                raise ValueError("missing score")
        except (ValueError, OverflowError):
            errors += 1
            continue
        out.append({"id": ident, "score": score})
    return out, errors


def session_lengths(timestamps, user_ids, gap=30.0):
    last_seen = {}
    sessions = defaultdict(list)
    for t, u in zip(timestamps, user_ids):
        u = int(u)
        if u in last_seen and t - last_seen[u][1] <= gap:
            start, _ = last_seen[u]
            last_seen[u] = (start, t)
        else:
            if u in last_seen:
                start, end = last_seen[u]
                sessions[u].append(end - start)
            last_seen[u] = (t, t)
    for u, (start, end) in last_seen.items():
        sessions[u].append(end - start)
    return dict(sessions)


def lru_cache_hits(requests, capacity):
    cache = OrderedDict()
    hits = misses = 0
    for key in requests:
        key = int(key)
        if key in cache:
            cache.move_to_end(key)
            hits += 1
        else:
            misses += 1
            cache[key] = True
            if len(cache) > capacity:
                cache.popitem(last=False)
    return hits, misses, list(cache)


def normalize_columns(data):
    data = data.astype(float)
    report = {}
    for j in range(data.shape[1]):
        col = data[:, j]
        lo, hi = col.min(), col.max()
        if hi == lo:
            report[j] = "constant"
            data[:, j] = 0.0
            continue
        data[:, j] = (col - lo) / (hi - lo)
        report[j] = f"scaled from [{lo:g}, {hi:g}]"
    return data, report


def dedupe_by_key(ids, values):
    best = {}
    for i, v in zip(ids.tolist(), values):
        if i not in best or v > best[i]:
            best[i] = v
    keys = sorted(best)
    return np.array(keys, dtype=ids.dtype), np.array([best[k] for k in keys])


def running_balance(amounts, kinds, overdraft=0.0):
    balance = 0.0
    rejected = []
    history = np.zeros(len(amounts))
    for i, (amount, kind) in enumerate(zip(amounts, kinds)):
        if kind == "deposit":
            balance += amount
        elif kind == "withdraw":
            if balance - amount < -overdraft:
                rejected.append(i)
            else:
                balance -= amount
        else:
            raise ValidationError("kind", kind)
        history[i] = balance
    return history, rejected


def tally_events(codes, labels):
    counts = {}
    unknown = 0

    def bump(code):
        nonlocal unknown
        if code in labels:
            name = labels[code]
            counts[name] = counts.get(name, 0) + 1
        else:
            unknown += 1

    for c in codes:
        bump(int(c))
    line = ", ".join(f"{k}: {v}" for k, v in sorted(counts.items()))
    return line, unknown


class OverdrawnError(Exception):
    pass


def ledger(entries, limit):
    class Account:
        def __init__(self):
            self.balance = 0.0
            self.history = []

        def apply(self, amount):
            if self.balance + amount < -limit:
                raise OverdrawnError(f"{amount} would overdraw {self.balance}")
            self.balance += amount
            self.history.append(self.balance)

    acct = Account()
    attempts = failures = 0
    for amount in entries:
        try:
            acct.apply(amount)
        except OverdrawnError:
            failures += 1
        finally:
            attempts += 1
    return acct.balance, acct.history, f"{failures}/{attempts} rejected"


CASES = {
    group_means: [
        (np.array([1, 2, 1, 3, 2]), np.array([10.0, 20.0, 30.0, 5.0, 0.0])),
        (np.array([]), np.array([])),
        ([0, 0], [np.nan, 1.0]),
    ],
    validate_ages: [
        (np.array([25, 40, 7]),),
        (np.array([30, -1]),),
        ([],),
        (np.array([20.5, 131.0]), 140),
    ],
    fill_missing: [
        (np.array([1.0, np.nan, 3.0]),),
        (np.array([np.nan, 2.0, np.nan]), "previous"),
        (np.array([1.0, 2.0]),),
        (np.array([np.nan]), "median"),
        (np.array([np.nan, np.nan]),),
    ],
    summarize_readings: [
        ([Reading("a", 1.0), Reading("b", 5.0), Reading("a", 7.0)], 4.0),
        ([], 1.0),
        ([Reading("x", np.float64(2.0))], 0.0),
    ],
    merge_configs: [
        ({"lr": 0.1, "epochs": 10, "opt": {"beta": 0.9}}, {"lr": "0.5", "opt": {"beta": 0.99}}),
        ({"lr": 0.1}, {}),
        ({"epochs": 10}, {"epochs": 3.7, "bogus": 1}),
        ({"epochs": 10}, {"epochs": "many"}),
    ],
    top_k_products: [
        (["a", "b", "a", "c"], np.array([5.0, 3.0, 1.0, 6.0]), 2),
        ([], [], 3),
        (["x", "y"], [1, 1], 0),
    ],
    pivot_counts: [
        (np.array([1, 1, 2, 2, 2]), np.array([0, 1, 0, 0, 1])),
        (np.array([]), np.array([])),
        (np.array(["a", "b"]), np.array(["x", "x"])),
    ],
    inventory_update: [
        ({"apple": 5, "pear": 2}, [("apple", 3), ("pear", 5), ("kiwi", 1)]),
        ({}, []),
        ({"a": 1}, [("a", 1)]),
    ],
    parse_records: [
        ([("1", "2.5"), ("x", "3"), ("2", "nan"), ("3", "-1")],),
        ([],),
        (np.array([[1.0, 2.0], [np.inf, 1.0]]),),
    ],
    session_lengths: [
        (np.array([0.0, 10.0, 50.0, 55.0, 100.0]), np.array([1, 1, 1, 2, 2])),
        (np.array([]), np.array([])),
        ([0.0, 100.0], [7, 7], 200.0),
    ],
    lru_cache_hits: [
        (np.array([1, 2, 1, 3, 2, 4, 1]), 2),
        (np.array([]), 3),
        ([5, 5, 5], 0),
    ],
    normalize_columns: [
        (np.array([[1, 10], [2, 10], [3, 10]]),),
        (np.zeros((0, 2)),),
        (np.array([[np.nan, 1.0], [1.0, 2.0]]),),
    ],
    dedupe_by_key: [
        (np.array([3, 1, 3, 2]), np.array([1.0, 5.0, 4.0, 0.0])),
        (np.array([], dtype=np.int32), np.array([])),
        (np.array([1, 1]), np.array([np.nan, 2.0])),
    ],
    running_balance: [
        (np.array([100.0, 30.0, 90.0, 20.0]), ["deposit", "withdraw", "withdraw", "deposit"]),
        ([], []),
        ([10.0], ["transfer"]),
        ([5.0, 10.0], ["deposit", "withdraw"], 10.0),
    ],
    tally_events: [
        (np.array([1, 2, 1, 9]), {1: "login", 2: "logout"}),
        (np.array([], dtype=int), {}),
        ([3, 3], {3: "error"}),
    ],
    ledger: [
        (np.array([100.0, -150.0, -40.0, 20.0]), 50.0),
        (np.array([]), 0.0),
        ([-1.0], 0.0),
    ],
}
