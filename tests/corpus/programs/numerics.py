"""Numerical methods: root finding, quadrature, ODE steppers, linear solvers with fallbacks."""

import math

import numpy as np

DOMAIN = "numerical methods"


class NoSignChange(ValueError):
    pass


class ConvergenceError(RuntimeError):
    def __init__(self, message, iterations):
        super().__init__(message)
        self.iterations = iterations


class SingularMatrixError(ArithmeticError):
    pass


def bisect_root(coeffs, lo, hi, tol=1e-10):
    def f(x):
        return np.polyval(coeffs, x)

    flo, fhi = f(lo), f(hi)
    if flo * fhi > 0:
        raise NoSignChange(f"f({lo}) and f({hi}) have the same sign")
    it = 0
    while hi - lo > tol:
        mid = 0.5 * (lo + hi)
        fm = f(mid)
        if fm == 0:
            return mid, it
        if flo * fm < 0:
            hi = mid
        else:
            lo, flo = mid, fm
        it += 1
    return 0.5 * (lo + hi), it


def newton_sqrt(a, tol=1e-12, max_iter=50):
    if a < 0:
        raise ValueError(f"cannot take the square root of {a}")
    if a == 0:
        return 0.0
    x = a if a > 1 else 1.0
    for i in range(max_iter):
        nxt = 0.5 * (x + a / x)
        if math.isclose(nxt, x, rel_tol=tol):
            return nxt
        x = nxt
    raise ConvergenceError(f"no convergence after {max_iter} steps", max_iter)


def trapezoid(y, dx=1.0):
    total = 0.0
    for i in range(len(y) - 1):
        total += 0.5 * (y[i] + y[i + 1]) * dx
    return total


def simpson(kind, a, b, n):
    if n % 2:
        raise ValueError("simpson's rule needs an even number of intervals")
    funcs = {"sin": np.sin, "exp": np.exp, "poly": lambda t: t**3 - 2 * t}
    f = funcs[kind]
    xs = np.linspace(a, b, n + 1)
    w = np.zeros(n + 1)
    for i in range(n + 1):
        if i == 0 or i == n:
            w[i] = 1
        elif i % 2 == 1:
            w[i] = 4
        else:
            w[i] = 2
    h = (b - a) / n
    return h / 3 * np.sum(w * f(xs))


def euler_decay(y0, k, dt, steps):
    out = np.zeros(steps + 1)
    out[0] = y0
    y = y0
    for i in range(steps):
        y = y - k * y * dt
        out[i + 1] = y
    return out


def rk4_oscillator(state, dt, n_steps, omega=1.0):
    def deriv(s):
        return np.array([s[1], -(omega**2) * s[0]])

    energies = []
    s = np.asarray(state, dtype=float)
    for _ in range(n_steps):
        k1 = deriv(s)
        k2 = deriv(s + 0.5 * dt * k1)
        k3 = deriv(s + 0.5 * dt * k2)
        k4 = deriv(s + dt * k3)
        s = s + dt / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
        energies.append(0.5 * (s[1] ** 2 + omega**2 * s[0] ** 2))
    drift = max(energies) - min(energies) if energies else 0.0
    return s, drift


def gauss_solve(A, b):
    A = A.astype(float)
    b = b.astype(float)
    n = len(b)
    for k in range(n):
        p = k + int(np.argmax(np.abs(A[k:, k])))
        if abs(A[p, k]) < 1e-12:
            raise SingularMatrixError(f"matrix is singular at column {k}")
        if p != k:
            A[[k, p]] = A[[p, k]]
            b[[k, p]] = b[[p, k]]
        for i in range(k + 1, n):
            factor = A[i, k] / A[k, k]
            A[i, k:] -= factor * A[k, k:]
            b[i] -= factor * b[k]
    x = np.zeros(n)
    for i in range(n - 1, -1, -1):
        x[i] = (b[i] - A[i, i + 1 :] @ x[i + 1 :]) / A[i, i]
    return x


def solve_with_fallback(A, b):
    try:
        x = np.linalg.solve(A, b)
        method = "direct"
    except np.linalg.LinAlgError:
        x, *_ = np.linalg.lstsq(A, b, rcond=None)
        method = "least squares"
    residual = np.linalg.norm(A @ x - b)
    return x, method, residual


def jacobi(A, b, tol=1e-8, max_iter=200):
    d = np.diag(A)
    if np.any(d == 0):
        raise ZeroDivisionError("zero on the diagonal")
    R = A - np.diagflat(d)
    x = np.zeros_like(b, dtype=float)
    converged = False
    iterations = 0
    while iterations < max_iter:
        x_new = (b - R @ x) / d
        iterations += 1
        if np.max(np.abs(x_new - x)) < tol:
            x = x_new
            converged = True
            break
        x = x_new
    return x, iterations, converged


def power_iteration(A, iters, seed):
    rng = np.random.default_rng(seed)
    v = rng.standard_normal(A.shape[0])
    lam = 0.0
    for _ in range(iters):
        w = A @ v
        norm = np.linalg.norm(w)
        if norm == 0:
            return 0.0, v
        v = w / norm
        lam = float(v @ A @ v)
    return lam, v


def horner(coeffs, x):
    result = 0
    for c in coeffs:
        result = result * x + c
    return result


def golden_section_min(a, b, tol=1e-6):
    evaluations = 0

    def f(x):
        nonlocal evaluations
        evaluations += 1
        return (x - 2) ** 2 + math.sin(3 * x)

    invphi = (math.sqrt(5) - 1) / 2
    c = b - invphi * (b - a)
    d = a + invphi * (b - a)
    while abs(b - a) > tol:
        if f(c) < f(d):
            b = d
        else:
            a = c
        c = b - invphi * (b - a)
        d = a + invphi * (b - a)
    return (a + b) / 2, evaluations


def fixed_point_cos(x0, tol=1e-10, max_iter=100):
    history = [x0]
    x = x0
    for i in range(max_iter):
        x_new = math.cos(x)
        history.append(x_new)
        if abs(x_new - x) < tol:
            break
        x = x_new
    else:
        raise ConvergenceError("fixed point iteration did not settle", max_iter)
    return x_new, len(history)


def central_gradient(name, x, h=1e-5):
    functions = {
        "square": lambda v: v * v,
        "exp": np.exp,
        "cube": lambda v: v**3,
    }
    f = functions[name]
    grad = np.zeros_like(x)
    for i in range(x.size):
        step = np.zeros_like(x)
        step[i] = h
        grad[i] = (np.sum(f(x + step)) - np.sum(f(x - step))) / (2 * h)
    return grad


def adaptive_simpson(a, b, eps=1e-8, max_depth=20):
    calls = 0

    def f(x):
        nonlocal calls
        calls += 1
        return math.exp(-x * x)

    def simpson_step(lo, hi, flo, fhi):
        mid = (lo + hi) / 2
        fm = f(mid)
        return mid, fm, (hi - lo) / 6 * (flo + 4 * fm + fhi)

    def recurse(lo, hi, flo, fhi, whole, mid, fm, eps, depth):
        lm, flm, left = simpson_step(lo, mid, flo, fm)
        rm, frm, right = simpson_step(mid, hi, fm, fhi)
        delta = left + right - whole
        if depth <= 0 or abs(delta) <= 15 * eps:
            return left + right + delta / 15
        return recurse(lo, mid, flo, fm, left, lm, flm, eps / 2, depth - 1) + recurse(
            mid, hi, fm, fhi, right, rm, frm, eps / 2, depth - 1
        )

    fa, fb = f(a), f(b)
    m, fm, whole = simpson_step(a, b, fa, fb)
    value = recurse(a, b, fa, fb, whole, m, fm, eps, max_depth)
    return value, calls


def cholesky_logdet(A):
    try:
        L = np.linalg.cholesky(A)
    except np.linalg.LinAlgError:
        L = None
    if L is None:
        sign, logdet = np.linalg.slogdet(A)
        if sign <= 0:
            return float("nan")
        return logdet
    return 2.0 * np.sum(np.log(np.diag(L)))


def secant(c, x0, x1, max_iter=40):
    """Root of x**3 - c by the secant method."""
    f0 = x0**3 - c
    f1 = x1**3 - c
    steps = []
    for _ in range(max_iter):
        if f1 == f0:
            break
        x2 = x1 - f1 * (x1 - x0) / (f1 - f0)
        steps.append(abs(x2 - x1))
        x0, f0 = x1, f1
        x1, f1 = x2, x2**3 - c
        if steps[-1] < 1e-12:
            break
    return x1, len(steps)


def tridiagonal_solve(lower, diag, upper, rhs):
    n = len(diag)
    c = np.zeros(n)
    d = np.zeros(n)
    if n == 0:
        return d
    c[0] = upper[0] / diag[0] if n > 1 else 0.0
    d[0] = rhs[0] / diag[0]
    for i in range(1, n):
        denom = diag[i] - lower[i - 1] * c[i - 1]
        if i < n - 1:
            c[i] = upper[i] / denom
        d[i] = (rhs[i] - lower[i - 1] * d[i - 1]) / denom
    x = np.zeros(n)
    x[-1] = d[-1]
    for i in reversed(range(n - 1)):
        x[i] = d[i] - c[i] * x[i + 1]
    return x


def binomial_pmf(n, p):
    if not 0.0 <= p <= 1.0:
        raise ValueError(f"p={p} is not a probability")
    pmf = np.array([math.comb(n, k) * p**k * (1 - p) ** (n - k) for k in range(n + 1)])
    total = math.fsum(pmf)
    mean = sum(k * q for k, q in enumerate(pmf))
    return pmf, total, mean


def gcd_table(values):
    n = len(values)
    table = np.zeros((n, n), dtype=int)
    for i in range(n):
        for j in range(i, n):
            g = math.gcd(int(values[i]), int(values[j]))
            table[i, j] = table[j, i] = g
    coprime = sum(1 for i in range(n) for j in range(i + 1, n) if table[i, j] == 1)
    return table, coprime


CASES = {
    bisect_root: [
        (np.array([1.0, 0.0, -2.0]), 0.0, 2.0),
        (np.array([1.0, -1.0]), 0.0, 2.0),
        (np.array([1.0, 0.0, 1.0]), -1.0, 1.0),
        (np.array([1.0, 0.0, -2.0]), 1.0, 1.0),
    ],
    newton_sqrt: [
        (2.0,),
        (np.float64(1e-6),),
        (0.0,),
        (-4.0,),
        (np.float64(144.0), 1e-12, 2),
    ],
    trapezoid: [
        (np.array([0.0, 1.0, 4.0, 9.0]), 0.5),
        (np.array([]),),
        (np.array([3.0]),),
        (np.array([1.0, np.nan, 2.0]), 1.0),
    ],
    simpson: [
        ("sin", 0.0, math.pi, 8),
        ("exp", 0.0, 1.0, 2),
        ("poly", -1.0, 2.0, 5),
        ("tan", 0.0, 1.0, 4),
    ],
    euler_decay: [
        (1.0, 0.5, 0.1, 10),
        (np.float64(2.0), 1.0, 0.01, 0),
        (-3.0, np.float64(0.2), 0.5, 4),
    ],
    rk4_oscillator: [
        (np.array([1.0, 0.0]), 0.1, 20),
        ([0.0, 1.0], 0.05, 0),
        (np.array([1.0, -1.0]), 0.2, 5, 2.0),
    ],
    gauss_solve: [
        (np.array([[2.0, 1.0], [1.0, 3.0]]), np.array([3.0, 5.0])),
        (np.array([[0.0, 1.0, 2.0], [1.0, 0.0, 3.0], [4.0, -3.0, 8.0]]), np.array([1.0, 2, 3])),
        (np.array([[1.0, 2.0], [2.0, 4.0]]), np.array([1.0, 2.0])),
        (np.array([[4, 1], [1, 3]]), np.array([1, 2])),
    ],
    solve_with_fallback: [
        (np.array([[3.0, 1.0], [1.0, 2.0]]), np.array([9.0, 8.0])),
        (np.array([[1.0, 2.0], [2.0, 4.0]]), np.array([1.0, 2.0])),
        (np.zeros((2, 2)), np.array([0.0, 1.0])),
    ],
    jacobi: [
        (np.array([[4.0, 1.0], [2.0, 5.0]]), np.array([1.0, 2.0])),
        (np.array([[1.0, 3.0], [3.0, 1.0]]), np.array([1.0, 1.0]), 1e-8, 10),
        (np.array([[0.0, 1.0], [1.0, 2.0]]), np.array([1.0, 1.0])),
        (np.array([[5.0, 0.0], [0.0, 2.0]]), np.array([0.0, 0.0])),
    ],
    power_iteration: [
        (np.array([[2.0, 0.0], [0.0, 1.0]]), 30, 0),
        (np.zeros((3, 3)), 5, 1),
        (np.array([[1.0, 2.0], [3.0, 4.0]]), 0, 2),
    ],
    horner: [
        ([1.0, -3.0, 2.0], np.array([0.0, 1.0, 2.0, 3.0])),
        ([], np.array([1.0, 2.0])),
        ([2, 0, 1], 3),
        ([1.5, -0.5], np.float32(2.0)),
    ],
    golden_section_min: [
        (0.0, 4.0),
        (1.0, 1.0),
        (np.float64(-1.0), np.float64(3.0), 1e-3),
    ],
    fixed_point_cos: [
        (1.0,),
        (0.7390851332151607,),
        (1.0, 1e-16, 5),
    ],
    central_gradient: [
        ("square", np.array([1.0, -2.0, 0.5])),
        ("exp", np.array([0.0])),
        ("cube", np.zeros(0)),
        ("log", np.array([1.0])),
    ],
    adaptive_simpson: [
        (0.0, 1.0),
        (-2.0, 2.0, 1e-6, 3),
        (1.0, 1.0),
    ],
    cholesky_logdet: [
        (np.array([[4.0, 2.0], [2.0, 3.0]]),),
        (np.array([[1.0, 2.0], [2.0, 1.0]]),),
        (np.array([[0.0, 0.0], [0.0, 0.0]]),),
        (np.array([[-2.0, 0.0], [0.0, -3.0]]),),
    ],
    secant: [
        (27.0, 1.0, 4.0),
        (8, 2, 2),
        (np.float64(-8.0), -1.0, -3.0, 3),
    ],
    tridiagonal_solve: [
        (np.array([1.0, 1.0]), np.array([4.0, 4.0, 4.0]), np.array([1.0, 1.0]), np.ones(3)),
        (np.array([]), np.array([2.0]), np.array([]), np.array([6.0])),
        (np.array([]), np.array([]), np.array([]), np.array([])),
    ],
    binomial_pmf: [
        (4, 0.5),
        (0, 0.3),
        (3, 1.5),
        (np.int64(5), np.float64(0.1)),
    ],
    gcd_table: [
        (np.array([12, 18, 35]),),
        (np.array([], dtype=int),),
        ([7, -14, 0],),
    ],
}
