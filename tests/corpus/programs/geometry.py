"""Geometry: polygons, hulls, intersections, transforms, nearest neighbours."""

import math

import numpy as np

DOMAIN = "geometry"


class DegenerateGeometry(ValueError):
    pass


def polygon_area(xs, ys):
    n = len(xs)
    if n < 3:
        return 0.0
    area = 0.0
    for i in range(n):
        j = (i + 1) % n
        area += xs[i] * ys[j] - xs[j] * ys[i]
    return abs(area) / 2


def point_in_polygon(px, py, poly):
    inside = False
    n = len(poly)
    j = n - 1
    for i in range(n):
        xi, yi = poly[i]
        xj, yj = poly[j]
        if (yi > py) != (yj > py):
            x_cross = (xj - xi) * (py - yi) / (yj - yi) + xi
            if px < x_cross:
                inside = not inside
        j = i
    return inside


def convex_hull(points):
    pts = sorted(map(tuple, points))
    if len(pts) <= 2:
        return pts

    def cross(o, a, b):
        return (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0])

    lower = []
    for p in pts:
        while len(lower) >= 2 and cross(lower[-2], lower[-1], p) <= 0:
            lower.pop()
        lower.append(p)
    upper = []
    for p in reversed(pts):
        while len(upper) >= 2 and cross(upper[-2], upper[-1], p) <= 0:
            upper.pop()
        upper.append(p)
    return lower[:-1] + upper[:-1]


def closest_pair(points):
    n = len(points)
    if n < 2:
        raise DegenerateGeometry("need two points")
    best = math.inf
    pair = None
    for i in range(n):
        for j in range(i + 1, n):
            d = np.hypot(*(points[i] - points[j]))
            if d < best:
                best, pair = d, (i, j)
    return best, pair


def line_intersection(p1, p2, p3, p4):
    d = (p1[0] - p2[0]) * (p3[1] - p4[1]) - (p1[1] - p2[1]) * (p3[0] - p4[0])
    if d == 0:
        raise DegenerateGeometry("lines are parallel")
    a = p1[0] * p2[1] - p1[1] * p2[0]
    b = p3[0] * p4[1] - p3[1] * p4[0]
    x = (a * (p3[0] - p4[0]) - (p1[0] - p2[0]) * b) / d
    y = (a * (p3[1] - p4[1]) - (p1[1] - p2[1]) * b) / d
    return x, y


def centroid(points, weights=None):
    if weights is None:
        weights = np.ones(len(points))
    total = weights.sum()
    if total == 0:
        raise ZeroDivisionError("weights sum to zero")
    cx = cy = 0.0
    for (x, y), w in zip(points, weights):
        cx += w * x
        cy += w * y
    return cx / total, cy / total


def distance_matrix(points):
    n = len(points)
    d = np.zeros((n, n))
    for i in range(n):
        for j in range(i + 1, n):
            d[i, j] = d[j, i] = math.dist(points[i], points[j])
    return d


def rotate(points, degrees, about=(0.0, 0.0)):
    theta = math.radians(degrees)
    c, s = math.cos(theta), math.sin(theta)
    out = np.empty_like(points, dtype=float)
    ox, oy = about
    for k, (x, y) in enumerate(points):
        dx, dy = x - ox, y - oy
        out[k] = (ox + c * dx - s * dy, oy + s * dx + c * dy)
    return out


def bounding_box(points):
    if len(points) == 0:
        return None
    xmin = ymin = math.inf
    xmax = ymax = -math.inf
    for x, y in points:
        xmin, xmax = min(xmin, x), max(xmax, x)
        ymin, ymax = min(ymin, y), max(ymax, y)
    return {"xmin": xmin, "ymin": ymin, "width": xmax - xmin, "height": ymax - ymin}


def triangle_kind(a, b, c):
    sides = sorted([a, b, c])
    if sides[0] <= 0:
        raise DegenerateGeometry(f"side lengths must be positive: {sides}")
    if sides[0] + sides[1] <= sides[2]:
        return "impossible"
    kind = "scalene"
    if a == b == c:
        kind = "equilateral"
    elif a == b or b == c or a == c:
        kind = "isosceles"
    sq = sides[0] ** 2 + sides[1] ** 2
    if math.isclose(sq, sides[2] ** 2):
        kind += " right"
    return kind


def path_length(points, closed=False):
    total = 0.0
    segments = []
    for p, q in zip(points[:-1], points[1:]):
        seg = float(np.linalg.norm(q - p))
        segments.append(seg)
        total += seg
    if closed and len(points) > 2:
        total += float(np.linalg.norm(points[0] - points[-1]))
    return total, segments


def nearest_neighbor_tour(points):
    n = len(points)
    if n == 0:
        return [], 0.0
    unvisited = set(range(1, n))
    tour = [0]
    length = 0.0
    while unvisited:
        last = points[tour[-1]]
        nxt = min(unvisited, key=lambda i: np.sum((points[i] - last) ** 2))
        length += math.sqrt(np.sum((points[nxt] - last) ** 2))
        tour.append(nxt)
        unvisited.remove(nxt)
    return tour, length


def circle_from_three(p, q, r):
    ax, ay = p
    bx, by = q
    cx, cy = r
    d = 2 * (ax * (by - cy) + bx * (cy - ay) + cx * (ay - by))
    if abs(d) < 1e-12:
        raise DegenerateGeometry("points are collinear")
    ux = (
        (ax**2 + ay**2) * (by - cy) + (bx**2 + by**2) * (cy - ay) + (cx**2 + cy**2) * (ay - by)
    ) / d
    uy = (
        (ax**2 + ay**2) * (cx - bx) + (bx**2 + by**2) * (ax - cx) + (cx**2 + cy**2) * (bx - ax)
    ) / d
    radius = math.hypot(ax - ux, ay - uy)
    return (ux, uy), radius


def grid_cells(points, cell):
    buckets = {}
    for i, (x, y) in enumerate(points):
        key = (int(x // cell), int(y // cell))
        buckets.setdefault(key, []).append(i)
    crowded = [k for k, v in buckets.items() if len(v) > 1]
    return buckets, crowded


CASES = {
    polygon_area: [
        (np.array([0.0, 4.0, 4.0, 0.0]), np.array([0.0, 0.0, 3.0, 3.0])),
        (np.array([0.0, 1.0]), np.array([0.0, 1.0])),
        ([0, 2, 1], [0, 0, 5]),
    ],
    point_in_polygon: [
        (1.0, 1.0, np.array([[0.0, 0.0], [4.0, 0.0], [4.0, 4.0], [0.0, 4.0]])),
        (5.0, 1.0, np.array([[0.0, 0.0], [4.0, 0.0], [4.0, 4.0], [0.0, 4.0]])),
        (0.0, 0.0, np.zeros((0, 2))),
    ],
    convex_hull: [
        (np.array([[0, 0], [1, 1], [2, 2], [2, 0], [0, 2], [1, 0]]),),
        (np.array([[1.0, 1.0]]),),
        (np.zeros((0, 2)),),
    ],
    closest_pair: [
        (np.array([[0.0, 0.0], [5.0, 5.0], [1.0, 1.0], [5.0, 6.0]]),),
        (np.array([[1.0, 2.0]]),),
        (np.array([[0.0, 0.0], [0.0, 0.0]]),),
    ],
    line_intersection: [
        ((0.0, 0.0), (2.0, 2.0), (0.0, 2.0), (2.0, 0.0)),
        ((0, 0), (1, 1), (0, 1), (1, 2)),
        (np.array([0.0, 0.0]), np.array([1.0, 0.0]), np.array([0.5, -1.0]), np.array([0.5, 1.0])),
    ],
    centroid: [
        (np.array([[0.0, 0.0], [2.0, 0.0], [1.0, 3.0]]),),
        (np.array([[1.0, 1.0], [3.0, 3.0]]), np.array([3.0, 1.0])),
        (np.array([[1.0, 1.0]]), np.array([0.0])),
        (np.zeros((0, 2)),),
    ],
    distance_matrix: [
        (np.array([[0.0, 0.0], [3.0, 4.0], [6.0, 8.0]]),),
        (np.zeros((0, 2)),),
        ([(1, 1), (1, 1)],),
    ],
    rotate: [
        (np.array([[1.0, 0.0], [0.0, 1.0]]), 90),
        (np.zeros((0, 2)), 45.0),
        (np.array([[2, 2]]), 180, (1.0, 1.0)),
    ],
    bounding_box: [
        (np.array([[1.0, 5.0], [-2.0, 3.0], [4.0, -1.0]]),),
        (np.zeros((0, 2)),),
        ([(0, 0)],),
    ],
    triangle_kind: [
        (3.0, 4.0, 5.0),
        (2, 2, 2),
        (1.0, 1.0, 3.0),
        (0.0, 1.0, 1.0),
        (np.float64(1.0), np.float64(1.0), np.float64(2.0) ** 0.5),
    ],
    path_length: [
        (np.array([[0.0, 0.0], [3.0, 4.0], [3.0, 0.0]]), True),
        (np.zeros((1, 2)),),
        (np.zeros((0, 2)), True),
    ],
    nearest_neighbor_tour: [
        (np.array([[0.0, 0.0], [5.0, 0.0], [1.0, 0.0], [2.0, 1.0]]),),
        (np.zeros((0, 2)),),
        (np.array([[1.0, 1.0]]),),
    ],
    circle_from_three: [
        ((0.0, 1.0), (1.0, 0.0), (0.0, -1.0)),
        ((0.0, 0.0), (1.0, 1.0), (2.0, 2.0)),
        (np.array([1.0, 0.0]), np.array([0.0, 1.0]), np.array([-1.0, 0.0])),
    ],
    grid_cells: [
        (np.array([[0.5, 0.5], [0.7, 0.2], [3.0, 1.0], [-0.5, 0.0]]), 1.0),
        (np.zeros((0, 2)), 2.0),
        ([(1, 1), (2, 2)], 5),
    ],
}
