"""Graph algorithms on adjacency matrices and lists: traversal, shortest paths, components."""

import heapq
import math
from collections import defaultdict, deque

import numpy as np

DOMAIN = "graph algorithms"


class CycleError(Exception):
    def __init__(self, nodes):
        super().__init__(f"graph has a cycle through {sorted(nodes)}")
        self.nodes = nodes


def bfs_distances(adj, source):
    n = adj.shape[0]
    dist = [-1] * n
    dist[source] = 0
    queue = deque([source])
    while queue:
        u = queue.popleft()
        for v in range(n):
            if adj[u, v] and dist[v] < 0:
                dist[v] = dist[u] + 1
                queue.append(v)
    return dist


def dfs_order(adj_list, start):
    visited = set()
    order = []

    def visit(u):
        visited.add(u)
        order.append(u)
        for v in adj_list.get(u, []):
            if v not in visited:
                visit(v)

    visit(start)
    return order


def dijkstra(weights, source):
    n = len(weights)
    dist = np.full(n, np.inf)
    dist[source] = 0.0
    heap = [(0.0, source)]
    done = set()
    while heap:
        d, u = heapq.heappop(heap)
        if u in done:
            continue
        done.add(u)
        for v in range(n):
            w = weights[u][v]
            if w > 0 and d + w < dist[v]:
                dist[v] = d + w
                heapq.heappush(heap, (dist[v], v))
    return dist


def count_components(n, edges):
    parent = list(range(n))

    def find(x):
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    components = n
    for a, b in edges:
        ra, rb = find(a), find(b)
        if ra != rb:
            parent[ra] = rb
            components -= 1
    return components


def topo_sort(adj):
    n = adj.shape[0]
    indegree = adj.sum(axis=0)
    ready = deque(i for i in range(n) if indegree[i] == 0)
    order = []
    while ready:
        u = ready.popleft()
        order.append(u)
        for v in np.nonzero(adj[u])[0]:
            indegree[v] -= 1
            if indegree[v] == 0:
                ready.append(int(v))
    if len(order) < n:
        raise CycleError(set(range(n)) - set(order))
    return order


def has_cycle_undirected(adj):
    n = len(adj)
    seen = [False] * n
    for start in range(n):
        if seen[start]:
            continue
        stack = [(start, -1)]
        while stack:
            u, parent = stack.pop()
            if seen[u]:
                return True
            seen[u] = True
            for v in range(n):
                if adj[u][v] and v != parent:
                    stack.append((v, u))
    return False


def floyd_warshall(w):
    d = w.astype(float).copy()
    n = len(d)
    for i in range(n):
        if d[i, i] > 0:
            d[i, i] = 0
    for k in range(n):
        for i in range(n):
            for j in range(n):
                if d[i, k] + d[k, j] < d[i, j]:
                    d[i, j] = d[i, k] + d[k, j]
    negative = any(d[i, i] < 0 for i in range(n))
    return d, negative


def prim_mst(weights):
    n = weights.shape[0]
    if n == 0:
        return 0.0, []
    in_tree = np.zeros(n, dtype=bool)
    in_tree[0] = True
    total = 0.0
    edges = []
    for _ in range(n - 1):
        best = (math.inf, -1, -1)
        for u in range(n):
            if not in_tree[u]:
                continue
            for v in range(n):
                if not in_tree[v] and weights[u, v] > 0 and weights[u, v] < best[0]:
                    best = (weights[u, v], u, v)
        if best[1] < 0:
            raise ValueError("graph is disconnected")
        total += best[0]
        edges.append((best[1], best[2]))
        in_tree[best[2]] = True
    return total, edges


def is_bipartite(adj_list, n):
    color = {}
    for s in range(n):
        if s in color:
            continue
        color[s] = 0
        queue = deque([s])
        while queue:
            u = queue.popleft()
            for v in adj_list[u]:
                if v not in color:
                    color[v] = 1 - color[u]
                    queue.append(v)
                elif color[v] == color[u]:
                    return False, None
    return True, [color[i] for i in range(n)]


def shortest_path(adj, s, t):
    n = len(adj)
    prev = [None] * n
    seen = {s}
    q = deque([s])
    while q:
        u = q.popleft()
        if u == t:
            break
        for v in np.flatnonzero(adj[u]):
            v = int(v)
            if v not in seen:
                seen.add(v)
                prev[v] = u
                q.append(v)
    if t not in seen:
        return None
    path = [t]
    while path[-1] != s:
        path.append(prev[path[-1]])
    return path[::-1]


def degree_stats(adj):
    degrees = adj.sum(axis=1)
    stats = defaultdict(list)
    for node, deg in enumerate(degrees):
        stats[int(deg)].append(node)
    isolated = stats.get(0, [])
    hubs = stats[max(stats)] if stats else []
    return dict(stats), isolated, hubs


def count_islands(grid):
    rows, cols = grid.shape
    seen = np.zeros_like(grid, dtype=bool)
    islands = 0
    sizes = []
    for r in range(rows):
        for c in range(cols):
            if grid[r, c] == 1 and not seen[r, c]:
                islands += 1
                size = 0
                stack = [(r, c)]
                seen[r, c] = True
                while stack:
                    y, x = stack.pop()
                    size += 1
                    for ny, nx in ((y + 1, x), (y - 1, x), (y, x + 1), (y, x - 1)):
                        if 0 <= ny < rows and 0 <= nx < cols:
                            if grid[ny, nx] == 1 and not seen[ny, nx]:
                                seen[ny, nx] = True
                                stack.append((ny, nx))
                sizes.append(size)
    return islands, sorted(sizes, reverse=True)


def pagerank(adj, damping=0.85, tol=1e-10, max_iter=100):
    n = adj.shape[0]
    out_deg = adj.sum(axis=1)
    rank = np.full(n, 1.0 / n)
    for it in range(max_iter):
        new = np.full(n, (1 - damping) / n)
        for u in range(n):
            if out_deg[u] == 0:
                new += damping * rank[u] / n
            else:
                new += damping * rank[u] * adj[u] / out_deg[u]
        if np.abs(new - rank).sum() < tol:
            return new, it + 1
        rank = new
    return rank, max_iter


def reachable_within(edges, start, budget):
    graph = defaultdict(list)
    for u, v, cost in edges:
        graph[u].append((v, cost))
        graph[v].append((u, cost))
    best = {start: 0}
    frontier = [(0, start)]
    while frontier:
        spent, u = heapq.heappop(frontier)
        if spent > best.get(u, math.inf):
            continue
        for v, cost in graph[u]:
            total = spent + cost
            if total <= budget and total < best.get(v, math.inf):
                best[v] = total
                heapq.heappush(frontier, (total, v))
    return sorted(best)


def triangle_count(adj):
    n = len(adj)
    count = 0
    for i in range(n):
        for j in range(i + 1, n):
            if not adj[i, j]:
                continue
            for k in range(j + 1, n):
                if adj[j, k] and adj[i, k]:
                    count += 1
    return count


_SQUARE = np.array([[0, 1, 0, 1], [1, 0, 1, 0], [0, 1, 0, 1], [1, 0, 1, 0]])
_DAG = np.array([[0, 1, 1, 0], [0, 0, 0, 1], [0, 0, 0, 1], [0, 0, 0, 0]])
_WEIGHTS = np.array([[0, 4, 1, 0], [4, 0, 2, 5], [1, 2, 0, 8], [0, 5, 8, 0]], dtype=float)

CASES = {
    bfs_distances: [
        (_SQUARE, 0),
        (np.zeros((3, 3), dtype=int), 1),
        (np.array([[0, 1, 0], [0, 0, 1], [0, 0, 0]], dtype=bool), 2),
    ],
    dfs_order: [
        ({0: [1, 2], 1: [3], 2: [3], 3: []}, 0),
        ({}, 5),
        ({0: [0, 1], 1: [0]}, 1),
    ],
    dijkstra: [
        (_WEIGHTS, 0),
        (np.zeros((3, 3)), 2),
        ([[0, 1.5], [1.5, 0]], 1),
    ],
    count_components: [
        (5, [(0, 1), (1, 2), (3, 4)]),
        (0, []),
        (3, np.array([[0, 0], [1, 1]])),
    ],
    topo_sort: [
        (_DAG.copy(),),
        (np.array([[0, 1], [1, 0]]),),
        (np.zeros((0, 0), dtype=int),),
    ],
    has_cycle_undirected: [
        (_SQUARE,),
        (np.array([[0, 1, 0], [1, 0, 1], [0, 1, 0]]),),
        ([],),
    ],
    floyd_warshall: [
        (np.where(_WEIGHTS > 0, _WEIGHTS, np.inf),),
        (np.array([[0.0, -1.0], [-1.0, 0.0]]),),
        (np.zeros((0, 0)),),
    ],
    prim_mst: [
        (_WEIGHTS,),
        (np.zeros((0, 0)),),
        (np.array([[0.0, 1.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, 0.0]]),),
    ],
    is_bipartite: [
        ({0: [1, 3], 1: [0, 2], 2: [1, 3], 3: [2, 0]}, 4),
        ({0: [1, 2], 1: [0, 2], 2: [0, 1]}, 3),
        ({}, 0),
    ],
    shortest_path: [
        (_SQUARE, 0, 2),
        (np.zeros((2, 2), dtype=int), 0, 1),
        (_SQUARE, 3, 3),
    ],
    degree_stats: [
        (np.array([[0, 1, 1], [1, 0, 0], [1, 0, 0]]),),
        (np.zeros((2, 2), dtype=int),),
        (np.zeros((0, 0), dtype=int),),
    ],
    count_islands: [
        (np.array([[1, 1, 0, 0], [0, 1, 0, 1], [1, 0, 0, 1]]),),
        (np.zeros((2, 3), dtype=int),),
        (np.ones((1, 1), dtype=int),),
    ],
    pagerank: [
        (np.array([[0, 1, 1], [1, 0, 0], [0, 1, 0]], dtype=float),),
        (np.zeros((2, 2)),),
        (np.array([[0.0, 1.0], [1.0, 0.0]]), 0.5, 1e-12, 3),
    ],
    reachable_within: [
        ([(0, 1, 2), (1, 2, 2), (0, 3, 5)], 0, 4),
        ([], 7, 10),
        ([(0, 1, 1.5)], 1, -1),
    ],
    triangle_count: [
        (np.array([[0, 1, 1, 1], [1, 0, 1, 0], [1, 1, 0, 1], [1, 0, 1, 0]]),),
        (np.zeros((3, 3), dtype=bool),),
        (np.zeros((0, 0)),),
    ],
}
