"""Finance: loans, returns, drawdowns, valuation, trading rules, lot accounting."""

import functools
import itertools
import math
from collections import deque

import numpy as np

DOMAIN = "finance"


class InvalidRate(ValueError):
    pass


class InsufficientShares(Exception):
    def __init__(self, wanted, held):
        super().__init__(f"cannot sell {wanted} shares, only {held} held")
        self.wanted = wanted
        self.held = held


def amortization(principal, annual_rate, months):
    if months <= 0:
        raise ValueError("term must be at least one month")
    r = annual_rate / 12
    if r == 0:
        payment = principal / months
    else:
        payment = principal * r / (1 - (1 + r) ** -months)
    schedule = np.zeros((months, 3))
    balance = principal
    for m in range(months):
        interest = balance * r
        principal_part = payment - interest
        balance -= principal_part
        schedule[m] = [interest, principal_part, max(balance, 0.0)]
    return round(payment, 2), schedule


def simple_returns(prices):
    out = np.empty(len(prices) - 1) if len(prices) > 1 else np.empty(0)
    for i in range(1, len(prices)):
        out[i - 1] = prices[i] / prices[i - 1] - 1
    return out


def max_drawdown(prices):
    peak = -math.inf
    worst = 0.0
    peak_i = trough_i = start = 0
    for i, p in enumerate(prices):
        if p > peak:
            peak, start = p, i
        dd = (p - peak) / peak
        if dd < worst:
            worst, peak_i, trough_i = dd, start, i
    return worst, (peak_i, trough_i)


def compound_growth(deposit, rate, years, monthly=0.0):
    balance = deposit
    history = []
    for year in range(1, years + 1):
        for _ in range(12):
            balance = balance * (1 + rate / 12) + monthly
        history.append(round(balance, 2))
        if balance >= 1_000_000:
            print(f"millionaire in year {year}")
            break
    return balance, history


def npv(rate, cashflows):
    if rate <= -1:
        raise InvalidRate(f"rate {rate} must exceed -100%")
    return sum(cf / (1 + rate) ** t for t, cf in enumerate(cashflows))


def irr(cashflows, lo=-0.99, hi=1.0, tol=1e-9):
    def f(r):
        return sum(cf / (1 + r) ** t for t, cf in enumerate(cashflows))

    flo, fhi = f(lo), f(hi)
    if flo * fhi > 0:
        return None
    while hi - lo > tol:
        mid = (lo + hi) / 2
        fm = f(mid)
        if (fm > 0) == (flo > 0):
            lo, flo = mid, fm
        else:
            hi = mid
    return (lo + hi) / 2


def crossover_signals(prices, fast, slow):
    signals = []
    position = 0
    for t in range(slow, len(prices) + 1):
        f = prices[t - fast : t].mean()
        s = prices[t - slow : t].mean()
        if f > s and position <= 0:
            signals.append((t - 1, "buy"))
            position = 1
        elif f < s and position >= 0:
            signals.append((t - 1, "sell"))
            position = -1
    return signals


def rebalance(holdings, prices, targets, threshold=0.05):
    values = holdings * prices
    total = values.sum()
    if total == 0:
        return holdings.copy(), []
    trades = []
    new = holdings.astype(float)
    for i, target in enumerate(targets):
        weight = values[i] / total
        if abs(weight - target) > threshold:
            new[i] = target * total / prices[i]
            trades.append((i, round(float(new[i] - holdings[i]), 4)))
    return new, trades


def historical_var(returns, level=0.95):
    losses = sorted(-r for r in returns)
    if not losses:
        return float("nan")
    k = math.ceil(level * len(losses)) - 1
    return losses[k]


def sharpe(returns, risk_free=0.0, periods=252):
    excess = returns - risk_free / periods
    sd = excess.std(ddof=1) if len(excess) > 1 else 0.0
    if sd == 0:
        return math.inf if excess.mean() > 0 else 0.0
    return math.sqrt(periods) * excess.mean() / sd


def months_to_payoff(balance, annual_rate, payment):
    r = annual_rate / 12
    if payment <= balance * r:
        raise ValueError(f"payment {payment} never covers the interest")
    months = 0
    paid = 0.0
    while balance > 0:
        interest = balance * r
        step = min(payment, balance + interest)
        balance = balance + interest - step
        paid += step
        months += 1
    return months, round(paid, 2)


def fifo_gains(trades):
    lots = deque()
    realized = 0.0
    for side, qty, price in trades:
        if side == "buy":
            lots.append([qty, price])
            continue
        held = sum(lot[0] for lot in lots)
        if qty > held:
            raise InsufficientShares(qty, held)
        remaining = qty
        while remaining > 0:
            lot = lots[0]
            take = min(lot[0], remaining)
            realized += take * (price - lot[1])
            lot[0] -= take
            remaining -= take
            if lot[0] == 0:
                lots.popleft()
    return realized, [tuple(lot) for lot in lots]


def match_orders(bids, asks):
    bids = sorted(bids, key=lambda o: -o[0])
    asks = sorted(asks, key=lambda o: o[0])
    fills = []
    i = j = 0
    while i < len(bids) and j < len(asks) and bids[i][0] >= asks[j][0]:
        qty = min(bids[i][1], asks[j][1])
        fills.append(((bids[i][0] + asks[j][0]) / 2, qty))
        bids[i] = (bids[i][0], bids[i][1] - qty)
        asks[j] = (asks[j][0], asks[j][1] - qty)
        if bids[i][1] == 0:
            i += 1
        if asks[j][1] == 0:
            j += 1
    return fills


def dividend_reinvest(shares, prices, dividends):
    cash = 0.0
    for price, div in zip(prices, dividends):
        cash += shares * div
        if price > 0 and cash >= price:
            bought = cash // price
            shares += bought
            cash -= bought * price
    return shares, round(cash, 6)


def cagr(start_value, end_value, years):
    try:
        return (end_value / start_value) ** (1 / years) - 1
    except ZeroDivisionError:
        return None


def portfolio_stats(weights, returns):
    w = np.asarray(weights, dtype=float)
    if not np.isclose(w.sum(), 1.0):
        raise ValueError(f"weights sum to {w.sum():.3f}, not 1")
    port = returns @ w
    growth = np.cumprod(1 + port)
    result = {"mean": port.mean(), "vol": port.std(), "final": growth[-1] if len(growth) else 1.0}
    return result


def log_returns(prices):
    with np.errstate(divide="ignore", invalid="ignore"):
        r = np.log(prices[1:] / prices[:-1])
    bad = [i for i, v in enumerate(r) if not np.isfinite(v)]
    r[bad] = np.nan
    print("%d bad prices out of %d" % (len(bad), len(prices)))
    return r


def running_totals(amounts, growth):
    totals = list(itertools.accumulate(amounts))
    factor = functools.reduce(lambda acc, g: acc * (1 + g), growth, 1.0)
    final = totals[-1] * factor if totals else 0.0
    return totals, factor, final


CASES = {
    amortization: [
        (10_000.0, 0.06, 12),
        (1200, 0.0, 3),
        (5000.0, 0.05, 0),
        (np.float64(2000.0), np.float64(0.12), 2),
    ],
    simple_returns: [
        (np.array([100.0, 110.0, 99.0]),),
        (np.array([5.0]),),
        (np.array([]),),
        (np.array([0.0, 1.0]),),
    ],
    max_drawdown: [
        (np.array([100.0, 120.0, 90.0, 95.0, 130.0, 80.0]),),
        (np.array([1.0, 2.0, 3.0]),),
        ([],),
        (np.array([10.0, np.nan, 5.0]),),
    ],
    compound_growth: [
        (1000.0, 0.05, 3),
        (900_000.0, 0.1, 5, 1000.0),
        (100.0, 0.02, 0),
    ],
    npv: [
        (0.1, [-100.0, 50.0, 60.0]),
        (0.0, np.array([-1.0, 1.0])),
        (-1.0, [1.0]),
        (np.float64(0.05), []),
    ],
    irr: [
        ([-100.0, 60.0, 60.0],),
        ([100.0, 50.0],),
        (np.array([-50.0, 0.0, 0.0, 80.0]),),
    ],
    crossover_signals: [
        (np.array([1.0, 2.0, 3.0, 2.0, 1.0, 1.0, 2.0, 4.0]), 2, 3),
        (np.array([1.0, 2.0]), 2, 5),
        (np.ones(4), 1, 2),
    ],
    rebalance: [
        (np.array([10, 5]), np.array([10.0, 20.0]), [0.7, 0.3]),
        (np.array([0, 0]), np.array([1.0, 1.0]), [0.5, 0.5]),
        (np.array([1.0, 1.0, 1.0]), np.array([1.0, 1.0, 1.0]), (0.34, 0.33, 0.33)),
    ],
    historical_var: [
        (np.array([0.01, -0.02, 0.03, -0.05, 0.0]),),
        ([],),
        (np.array([0.1]), 0.99),
    ],
    sharpe: [
        (np.array([0.01, 0.02, -0.005, 0.0]),),
        (np.array([0.01]),),
        (np.array([0.0, 0.0]), 0.01),
    ],
    months_to_payoff: [
        (1000.0, 0.12, 100.0),
        (0.0, 0.1, 50.0),
        (1000.0, 0.24, 10.0),
    ],
    fifo_gains: [
        ([("buy", 10, 5.0), ("buy", 5, 6.0), ("sell", 12, 7.0)],),
        ([],),
        ([("buy", 1, 1.0), ("sell", 2, 2.0)],),
    ],
    match_orders: [
        ([(101.0, 5), (100.0, 3)], [(99.0, 4), (100.5, 6)]),
        ([], [(1.0, 1)]),
        ([(10.0, 1)], [(11.0, 1)]),
    ],
    dividend_reinvest: [
        (10, np.array([20.0, 21.0, 19.0]), np.array([1.0, 1.0, 1.5])),
        (0, np.array([10.0]), np.array([5.0])),
        (3.0, [0.0, 2.0], [1.0, 1.0]),
    ],
    cagr: [
        (100.0, 150.0, 3),
        (0.0, 10.0, 2),
        (np.float64(100.0), np.float64(50.0), 2),
        (np.float64(0.0), np.float64(5.0), 1),
    ],
    portfolio_stats: [
        ([0.6, 0.4], np.array([[0.01, 0.02], [-0.01, 0.03], [0.02, -0.01]])),
        ([0.5, 0.6], np.zeros((2, 2))),
        (np.array([1.0]), np.zeros((0, 1))),
    ],
    log_returns: [
        (np.array([100.0, 105.0, 0.0, 50.0]),),
        (np.array([10.0]),),
        (np.array([1.0, 2.0, 4.0]),),
    ],
    running_totals: [
        (np.array([100.0, 50.0, -20.0]), [0.1, -0.05]),
        ([], []),
        ([1, 2, 3], np.array([0.5])),
    ],
}
