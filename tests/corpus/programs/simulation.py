"""Simulation: random walks with seeded generators, cellular automata, particles, epidemics."""

import math
from collections import deque

import numpy as np

DOMAIN = "simulation"


class UnstableSchemeError(Exception):
    pass


def random_walk(n_steps, seed):
    rng = np.random.default_rng(seed)
    position = 0
    positions = [position]
    returns = 0
    for _ in range(n_steps):
        step = 1 if rng.random() < 0.5 else -1
        position += step
        positions.append(position)
        if position == 0:
            returns += 1
    max_distance = max(abs(p) for p in positions)
    return position, returns, max_distance


def walk_until_exit(rng, bound, max_steps=1000):
    pos = 0
    steps = 0
    while abs(pos) < bound and steps < max_steps:
        pos += rng.choice([-1, 1])
        steps += 1
    return steps, pos


def elementary_ca(rule, cells, generations):
    table = [(rule >> i) & 1 for i in range(8)]
    history = [cells.copy()]
    current = cells.copy()
    n = len(current)
    for _ in range(generations):
        nxt = np.zeros_like(current)
        for i in range(n):
            left = current[(i - 1) % n]
            right = current[(i + 1) % n]
            index = 4 * left + 2 * current[i] + right
            nxt[i] = table[index]
        history.append(nxt)
        current = nxt
    return np.array(history)


def life_steps(board, max_steps):
    populations = []
    for step in range(max_steps):
        neighbours = sum(
            np.roll(np.roll(board, dy, axis=0), dx, axis=1)
            for dy in (-1, 0, 1)
            for dx in (-1, 0, 1)
            if (dy, dx) != (0, 0)
        )
        new = ((neighbours == 3) | ((board == 1) & (neighbours == 2))).astype(board.dtype)
        populations.append(int(new.sum()))
        if np.array_equal(new, board):
            break
        board = new
    return board, populations


def bouncing_particles(pos, vel, box, dt, steps):
    pos = pos.copy()
    vel = vel.copy()
    bounces = {"left": 0, "right": 0}
    for _ in range(steps):
        pos += vel * dt
        for i in range(len(pos)):
            if pos[i] < 0:
                pos[i] = -pos[i]
                vel[i] = -vel[i]
                bounces["left"] += 1
            elif pos[i] > box:
                pos[i] = 2 * box - pos[i]
                vel[i] = -vel[i]
                bounces["right"] += 1
    return pos, vel, bounces


def sir_model(s, i, r, beta, gamma, days):
    n = s + i + r
    peak, peak_day = i, 0
    for day in range(1, days + 1):
        new_inf = beta * s * i / n
        new_rec = gamma * i
        s, i, r = s - new_inf, i + new_inf - new_rec, r + new_rec
        if i > peak:
            peak, peak_day = i, day
    print(f"peak of {peak:.1f} infected on day {peak_day}")
    return {"peak_day": peak_day, "peak": peak, "final": (s, i, r)}


def monte_carlo_pi(n, seed):
    rng = np.random.default_rng(seed)
    inside = 0
    for _ in range(n):
        x, y = rng.random(2)
        if x * x + y * y <= 1.0:
            inside += 1
    return 4 * inside / n


def gamblers_ruin(stake, goal, p, seed, max_rounds=10_000):
    rng = np.random.default_rng(seed)
    rounds = 0
    while 0 < stake < goal:
        if rounds >= max_rounds:
            return rounds, stake, "timeout"
        if rng.random() < p:
            stake += 1
        else:
            stake -= 1
        rounds += 1
    outcome = "won" if stake >= goal else "ruined"
    return rounds, stake, outcome


def bank_queue(arrivals, service_times):
    queue = deque()
    clock = 0.0
    waits = []
    longest = 0
    for t, service in zip(arrivals, service_times):
        while queue and queue[0] <= t:
            queue.popleft()
        start = max(t, clock)
        waits.append(start - t)
        clock = start + service
        queue.append(clock)
        longest = max(longest, len(queue))
    if not waits:
        return 0.0, 0
    return sum(waits) / len(waits), longest


def heat_diffusion(u0, alpha, steps):
    if alpha > 0.5:
        raise UnstableSchemeError(f"alpha={alpha} violates the stability limit 0.5")
    u = u0.astype(float)
    for _ in range(steps):
        u[1:-1] = u[1:-1] + alpha * (u[2:] - 2 * u[1:-1] + u[:-2])
    return u


def predator_prey(x, y, params, dt, steps):
    a, b, c, d = params
    traj = np.zeros((steps + 1, 2))
    traj[0] = x, y
    extinct_at = None
    for k in range(1, steps + 1):
        dx = a * x - b * x * y
        dy = d * x * y - c * y
        x, y = x + dt * dx, y + dt * dy
        traj[k] = (x, y)
        if x < 1e-3 or y < 1e-3:
            extinct_at = k
            break
    return traj, extinct_at


def ising_1d(spins, beta, sweeps, seed):
    rng = np.random.default_rng(seed)
    spins = spins.copy()
    n = len(spins)
    accepted = 0
    for _ in range(sweeps):
        for i in range(n):
            dE = 2 * spins[i] * (spins[i - 1] + spins[(i + 1) % n])
            if dE <= 0 or rng.random() < math.exp(-beta * dE):
                spins[i] = -spins[i]
                accepted += 1
    magnetisation = spins.mean() if n else 0.0
    return spins, accepted, magnetisation


def traffic_nasch(positions, speeds, length, vmax, p, steps, seed):
    rng = np.random.default_rng(seed)
    pos = list(positions)
    vel = list(speeds)
    n = len(pos)
    flow = 0
    for _ in range(steps):
        order = sorted(range(n), key=lambda k: pos[k])
        for j, k in enumerate(order):
            ahead = order[(j + 1) % n]
            gap = (pos[ahead] - pos[k] - 1) % length if n > 1 else length - 1
            v = min(vel[k] + 1, vmax, gap)
            if v > 0 and rng.random() < p:
                v -= 1
            vel[k] = v
        for k in range(n):
            new = pos[k] + vel[k]
            if new >= length:
                flow += 1
            pos[k] = new % length
    return pos, vel, flow


def forest_fire(grid, steps):
    grid = grid.copy()
    rows, cols = grid.shape
    burned = set()
    for _ in range(steps):
        burning = list(zip(*np.nonzero(grid == 2)))
        if not burning:
            break
        for r, c in burning:
            grid[r, c] = 0
            burned.add((int(r), int(c)))
            for dr, dc in ((1, 0), (-1, 0), (0, 1), (0, -1)):
                rr, cc = r + dr, c + dc
                if 0 <= rr < rows and 0 <= cc < cols and grid[rr, cc] == 1:
                    grid[rr, cc] = 2
    return grid, len(burned)


def inventory(demand, reorder_point, order_qty, lead_time, stock=20):
    pending = deque()
    stockouts = 0
    orders = 0
    levels = np.zeros(len(demand), dtype=int)
    for day, want in enumerate(demand):
        while pending and pending[0][0] == day:
            stock += pending.popleft()[1]
        if want > stock:
            stockouts += 1
            stock = 0
        else:
            stock -= want
        on_order = sum(q for _, q in pending)
        if stock + on_order <= reorder_point:
            pending.append((day + lead_time, order_qty))
            orders += 1
        levels[day] = stock
    return levels, stockouts, orders


def brownian_paths(n_paths, n_steps, sigma, seed):
    rng = np.random.default_rng(seed)
    paths = np.zeros((n_paths, n_steps + 1))
    for k in range(n_steps):
        paths[:, k + 1] = paths[:, k] + sigma * rng.normal(size=n_paths)
    crossed = [i for i in range(n_paths) if np.any(paths[i] > 1.0)]
    return paths[:, -1], crossed


CASES = {
    random_walk: [
        (20, 0),
        (0, 1),
        (np.int64(15), 42),
    ],
    walk_until_exit: [
        (np.random.default_rng(3), 4),
        (np.random.default_rng(5), 0),
        (np.random.default_rng(7), 50, 10),
    ],
    elementary_ca: [
        (30, np.array([0, 0, 0, 1, 0, 0, 0], dtype=np.int8), 4),
        (110, np.array([1, 0, 1, 1]), 0),
        (90, np.array([], dtype=np.int64), 3),
    ],
    life_steps: [
        (np.pad(np.array([[0, 1, 0], [0, 1, 0], [0, 1, 0]]), 1), 4),
        (np.zeros((4, 4), dtype=np.int8), 5),
        (np.array([[1, 1, 0, 0], [1, 1, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0]]), 0),
        (np.array([[1, 1, 0, 0], [1, 1, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0]]), 3),
    ],
    bouncing_particles: [
        (np.array([0.5, 9.5]), np.array([-1.0, 2.0]), 10.0, 1.0, 3),
        (np.array([]), np.array([]), 1.0, 0.1, 5),
        (np.array([5.0]), np.array([0.0]), 10.0, 1.0, 0),
    ],
    sir_model: [
        (990.0, 10.0, 0.0, 0.3, 0.1, 60),
        (100.0, 0.0, 0.0, 0.5, 0.1, 10),
        (50, 50, 0, 0.2, 0.5, 0),
    ],
    monte_carlo_pi: [
        (200, 0),
        (1, 3),
        (0, 0),
    ],
    gamblers_ruin: [
        (5, 10, 0.5, 0),
        (0, 10, 0.5, 1),
        (3, 100, 0.5, 2, 50),
        (np.int64(2), 4, 0.9, 3),
    ],
    bank_queue: [
        (np.array([0.0, 1.0, 1.5, 5.0]), np.array([2.0, 2.0, 1.0, 0.5])),
        (np.array([]), np.array([])),
        ([0, 0, 0], [1, 1, 1]),
    ],
    heat_diffusion: [
        (np.array([0.0, 0.0, 100.0, 0.0, 0.0]), 0.25, 10),
        (np.array([1, 2, 3]), 0.5, 0),
        (np.array([0.0, 1.0]), 0.4, 3),
        (np.array([0.0, 1.0, 0.0]), 0.6, 3),
    ],
    predator_prey: [
        (10.0, 5.0, (1.1, 0.4, 0.4, 0.1), 0.01, 50),
        (0.0005, 2.0, (1.0, 0.5, 0.5, 0.2), 0.1, 10),
        (1.0, 1.0, (1.0, 1.0, 1.0, 1.0), 0.1, 0),
    ],
    ising_1d: [
        (np.array([1, -1, 1, 1, -1, -1]), 0.5, 3, 0),
        (np.array([], dtype=int), 1.0, 2, 1),
        (np.ones(4, dtype=int), 10.0, 0, 2),
    ],
    traffic_nasch: [
        ([0, 3, 7], [1, 0, 2], 12, 3, 0.3, 5, 0),
        ([2], [0], 5, 2, 0.0, 4, 1),
        ([], [], 10, 2, 0.5, 3, 2),
    ],
    forest_fire: [
        (np.array([[1, 1, 0], [2, 1, 1], [0, 1, 1]]), 5),
        (np.zeros((2, 2), dtype=int), 3),
        (np.array([[2, 1, 1, 1]]), 2),
    ],
    inventory: [
        (np.array([5, 7, 3, 9, 4, 6, 8]), 10, 15, 2),
        (np.array([], dtype=int), 5, 10, 1),
        ([30, 0, 0, 5], 0, 10, 1, 25),
    ],
    brownian_paths: [
        (4, 10, 0.5, 0),
        (2, 0, 1.0, 1),
        (0, 5, 1.0, 2),
    ],
}
