"""Sorting and searching: hand-written sorts, binary search, bisect, selection, windows."""

import bisect
import heapq

import numpy as np

DOMAIN = "sorting and searching"


class NotFound(LookupError):
    pass


def insertion_sort(a):
    a = a.copy()
    comparisons = 0
    for i in range(1, len(a)):
        key = a[i]
        j = i - 1
        while j >= 0:
            comparisons += 1
            if a[j] <= key:
                break
            a[j + 1] = a[j]
            j -= 1
        a[j + 1] = key
    return a, comparisons


def binary_search(sorted_arr, target):
    lo, hi = 0, len(sorted_arr) - 1
    while lo <= hi:
        mid = (lo + hi) // 2
        if sorted_arr[mid] == target:
            return mid
        if sorted_arr[mid] < target:
            lo = mid + 1
        else:
            hi = mid - 1
    raise NotFound(f"{target} not in array")


def grade_scores(scores, cutoffs=(60, 70, 80, 90), letters="FDCBA"):
    grades = []
    for s in scores:
        i = bisect.bisect_right(cutoffs, s)
        grades.append(letters[i])
    return grades


def merge_sort(xs):
    if len(xs) <= 1:
        return list(xs)
    mid = len(xs) // 2
    left, right = merge_sort(xs[:mid]), merge_sort(xs[mid:])
    merged = []
    i = j = 0
    while i < len(left) and j < len(right):
        if left[i] <= right[j]:
            merged.append(left[i])
            i += 1
        else:
            merged.append(right[j])
            j += 1
    merged.extend(left[i:])
    merged.extend(right[j:])
    return merged


def quickselect(values, k):
    if not 0 <= k < len(values):
        raise IndexError(f"k={k} out of range for {len(values)} values")
    arr = list(values)
    lo, hi = 0, len(arr) - 1
    while True:
        pivot = arr[(lo + hi) // 2]
        i, j = lo, hi
        while i <= j:
            while arr[i] < pivot:
                i += 1
            while arr[j] > pivot:
                j -= 1
            if i <= j:
                arr[i], arr[j] = arr[j], arr[i]
                i += 1
                j -= 1
        if k <= j:
            hi = j
        elif k >= i:
            lo = i
        else:
            return arr[k]


def counting_sort(a, max_value):
    counts = np.zeros(max_value + 1, dtype=int)
    for v in a:
        if v < 0 or v > max_value:
            raise ValueError(f"value {v} outside [0, {max_value}]")
        counts[v] += 1
    out = np.empty_like(a)
    pos = 0
    for v in range(max_value + 1):
        c = counts[v]
        out[pos : pos + c] = v
        pos += c
    return out


def two_sum(nums, target):
    seen = {}
    for i, x in enumerate(nums):
        need = target - x
        if need in seen:
            return seen[need], i
        seen[x] = i
    return None


def max_window_sum(values, k):
    if k > len(values) or k <= 0:
        return None
    window = sum(values[:k])
    best, best_start = window, 0
    for i in range(k, len(values)):
        window += values[i] - values[i - k]
        if window > best:
            best, best_start = window, i - k + 1
    return best, best_start


def merge_intervals(starts, ends):
    intervals = sorted(zip(starts.tolist(), ends.tolist()))
    merged = []
    for s, e in intervals:
        if merged and s <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], e)
        else:
            merged.append([s, e])
    total = sum(e - s for s, e in merged)
    return [tuple(m) for m in merged], total


def k_smallest(values, k):
    heap = []
    for v in values:
        if len(heap) < k:
            heapq.heappush(heap, -v)
        elif -heap[0] > v:
            heapq.heapreplace(heap, -v)
    return sorted(-h for h in heap)


def bubble_sort(arr):
    arr = arr.copy()
    n = len(arr)
    passes = 0
    for i in range(n):
        swapped = False
        for j in range(n - 1 - i):
            if arr[j] > arr[j + 1]:
                arr[j], arr[j + 1] = arr[j + 1], arr[j]
                swapped = True
        passes += 1
        if not swapped:
            break
    return arr, passes


def dedupe_keep_order(values):
    seen = set()
    out = []
    for v in values:
        key = round(float(v), 6)
        if key in seen:
            continue
        seen.add(key)
        out.append(v)
    return np.array(out, dtype=values.dtype)


def search_rotated(nums, target):
    lo, hi = 0, len(nums) - 1
    while lo <= hi:
        mid = (lo + hi) // 2
        if nums[mid] == target:
            return mid
        if nums[lo] <= nums[mid]:
            if nums[lo] <= target < nums[mid]:
                hi = mid - 1
            else:
                lo = mid + 1
        else:
            if nums[mid] < target <= nums[hi]:
                lo = mid + 1
            else:
                hi = mid - 1
    return -1


def first_bad_version(flags):
    lo, hi = 0, len(flags)
    probes = []
    while lo < hi:
        mid = lo + (hi - lo) // 2
        probes.append(mid)
        if flags[mid]:
            hi = mid
        else:
            lo = mid + 1
    return (lo if lo < len(flags) else None), probes


def insert_sorted(sorted_list, values):
    result = list(sorted_list)
    positions = []
    for v in values:
        pos = bisect.bisect_left(result, v)
        result.insert(pos, v)
        positions.append(pos)
    return result, positions


def argsort_stable(keys):
    idx = list(range(len(keys)))
    idx.sort(key=lambda i: keys[i])
    ranks = np.empty(len(keys), dtype=np.int64)
    for r, i in enumerate(idx):
        ranks[i] = r
    return idx, ranks


def longest_increasing_run(a):
    if a.size == 0:
        return 0, -1
    best, start, cur_start = 1, 0, 0
    for i in range(1, a.size):
        if a[i] <= a[i - 1]:
            cur_start = i
            continue
        if i - cur_start + 1 > best:
            best, start = i - cur_start + 1, cur_start
    return best, start


CASES = {
    insertion_sort: [
        (np.array([5, 2, 4, 6, 1, 3]),),
        (np.array([]),),
        (np.array([1.0, np.nan, -0.0, 0.0]),),
        (np.array([3, 2, 1], dtype=np.uint8),),
    ],
    binary_search: [
        (np.array([1, 3, 5, 7, 9, 11]), 7),
        (np.array([1, 3, 5]), 4),
        (np.array([]), 1),
        (np.array([0.5, 1.5]), np.float64(0.5)),
    ],
    grade_scores: [
        (np.array([55, 60, 75.5, 89.9, 100]),),
        ([],),
        ([70, 70], (50, 70), "LMH"),
    ],
    merge_sort: [
        ([5, 1, 4, 2, 3],),
        (np.array([2.0, -1.0, 2.0]),),
        ([],),
    ],
    quickselect: [
        ([7, 2, 9, 4, 1], 2),
        (np.array([3.0, 1.0, 2.0]), 0),
        ([], 0),
        ([5], 1),
    ],
    counting_sort: [
        (np.array([3, 1, 2, 3, 0]), 3),
        (np.array([], dtype=int), 2),
        (np.array([1, 5]), 4),
        (np.array([2, 2], dtype=np.int8), 2),
    ],
    two_sum: [
        (np.array([2, 7, 11, 15]), 9),
        (np.array([1, 2]), 10),
        ([], 0),
        (np.array([0.5, 0.25, 0.25]), 0.5),
    ],
    max_window_sum: [
        (np.array([1, -2, 3, 10, -4, 7, 2, -5]), 3),
        (np.array([1, 2]), 5),
        ([4.0, -1.0], 1),
        (np.array([1, 2, 3]), 0),
    ],
    merge_intervals: [
        (np.array([1, 2, 8, 15]), np.array([3, 6, 10, 18])),
        (np.array([]), np.array([])),
        (np.array([1.5, 1.5]), np.array([1.5, 2.0])),
    ],
    k_smallest: [
        (np.array([5, 1, 9, 3, 7]), 2),
        ([], 3),
        (np.array([2.0, 1.0]), 0),
    ],
    bubble_sort: [
        (np.array([4, 3, 2, 1]),),
        (np.array([1, 2, 3]),),
        (np.array([], dtype=float),),
    ],
    dedupe_keep_order: [
        (np.array([1.0, 2.0, 1.0000000001, 3.0, 2.0]),),
        (np.array([], dtype=np.float32),),
        (np.array([5, 5, 5]),),
    ],
    search_rotated: [
        (np.array([4, 5, 6, 7, 0, 1, 2]), 0),
        (np.array([4, 5, 6, 7, 0, 1, 2]), 3),
        (np.array([]), 5),
        ([1], 1),
    ],
    first_bad_version: [
        (np.array([False, False, True, True, True]),),
        (np.array([False, False]),),
        ([],),
    ],
    insert_sorted: [
        ([1, 3, 5], np.array([4, 0, 6])),
        ([], []),
        ([2.0, 2.0], [2.0]),
    ],
    argsort_stable: [
        (np.array([3.0, 1.0, 2.0, 1.0]),),
        (np.array([]),),
        (["b", "a", "c"],),
    ],
    longest_increasing_run: [
        (np.array([1, 2, 0, 3, 4, 5, 1]),),
        (np.array([]),),
        (np.array([5.0, 4.0, 3.0]),),
        (np.array([1.0, np.nan, 2.0, 3.0]),),
    ],
}
