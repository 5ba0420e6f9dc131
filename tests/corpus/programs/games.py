"""Games: board evaluation, dice, card scoring, puzzles."""

import itertools
from collections import Counter

import numpy as np

DOMAIN = "games"


class IllegalMove(Exception):
    pass


def tictactoe_winner(board):
    lines = list(board) + list(board.T) + [board.diagonal(), np.fliplr(board).diagonal()]
    for line in lines:
        if line[0] != 0 and np.all(line == line[0]):
            return "X" if line[0] == 1 else "O"
    if np.all(board != 0):
        return "draw"
    return None


def life_score(board, generations):
    score = 0
    history = set()
    for g in range(generations):
        key = board.tobytes()
        if key in history:
            print(f"cycle detected at generation {g}")
            break
        history.add(key)
        padded = np.pad(board, 1)
        n = sum(
            padded[1 + dy : padded.shape[0] - 1 + dy, 1 + dx : padded.shape[1] - 1 + dx]
            for dy in (-1, 0, 1)
            for dx in (-1, 0, 1)
            if dy or dx
        )
        board = np.where((n == 3) | ((board == 1) & (n == 2)), 1, 0)
        score += int(board.sum())
    return score


def dice_histogram(n_rolls, n_dice, seed):
    rng = np.random.default_rng(seed)
    totals = Counter()
    doubles = 0
    for _ in range(n_rolls):
        roll = rng.integers(1, 7, size=n_dice)
        totals[int(roll.sum())] += 1
        if n_dice >= 2 and len(set(roll.tolist())) < n_dice:
            doubles += 1
    return dict(sorted(totals.items())), doubles


def blackjack_value(cards):
    total = 0
    aces = 0
    for c in cards:
        if c == 1:
            aces += 1
            total += 11
        elif c >= 10:
            total += 10
        else:
            total += c
    while total > 21 and aces:
        total -= 10
        aces -= 1
    if total > 21:
        return "bust"
    return total


def connect_four_drop(board, column, player):
    if not 0 <= column < board.shape[1]:
        raise IllegalMove(f"column {column} does not exist")
    board = board.copy()
    for row in range(board.shape[0] - 1, -1, -1):
        if board[row, column] == 0:
            board[row, column] = player
            return board, row
    raise IllegalMove(f"column {column} is full")


def minesweeper_counts(mines):
    rows, cols = mines.shape
    counts = np.zeros((rows, cols), dtype=int)
    for r in range(rows):
        for c in range(cols):
            if mines[r, c]:
                counts[r, c] = -1
                continue
            total = 0
            for dr in (-1, 0, 1):
                for dc in (-1, 0, 1):
                    rr, cc = r + dr, c + dc
                    if 0 <= rr < rows and 0 <= cc < cols and mines[rr, cc]:
                        total += 1
            counts[r, c] = total
    return counts


def merge_row_2048(row):
    tiles = [v for v in row if v != 0]
    merged = []
    score = 0
    skip = False
    for i, v in enumerate(tiles):
        if skip:
            skip = False
            continue
        if i + 1 < len(tiles) and tiles[i + 1] == v:
            merged.append(v * 2)
            score += v * 2
            skip = True
        else:
            merged.append(v)
    merged += [0] * (len(row) - len(merged))
    return np.array(merged, dtype=row.dtype), score


def bowling_score(rolls):
    score = 0
    i = 0
    for frame in range(10):
        if i >= len(rolls):
            raise IndexError(f"game ended early in frame {frame + 1}")
        if rolls[i] == 10:
            score += 10 + rolls[i + 1] + rolls[i + 2]
            i += 1
        elif rolls[i] + rolls[i + 1] == 10:
            score += 10 + rolls[i + 2]
            i += 2
        else:
            score += rolls[i] + rolls[i + 1]
            i += 2
    return score


def rps_tournament(moves_a, moves_b):
    beats = {0: 2, 1: 0, 2: 1}
    wins = {"a": 0, "b": 0, "tie": 0}
    streak = best_streak = 0
    for a, b in zip(moves_a, moves_b):
        if a == b:
            wins["tie"] += 1
            streak = 0
        elif beats[int(a)] == b:
            wins["a"] += 1
            streak += 1
            best_streak = max(best_streak, streak)
        else:
            wins["b"] += 1
            streak = 0
    return wins, best_streak


def snake_moves(size, moves):
    body = [(0, 0)]
    deltas = {"U": (-1, 0), "D": (1, 0), "L": (0, -1), "R": (0, 1)}
    food = {(0, 2), (2, 2), (1, 1)}
    eaten = 0
    for step, m in enumerate(moves):
        dy, dx = deltas[m]
        head = (body[0][0] + dy, body[0][1] + dx)
        if not (0 <= head[0] < size and 0 <= head[1] < size) or head in body[:-1]:
            return step, eaten, "crashed"
        body.insert(0, head)
        if head in food:
            food.discard(head)
            eaten += 1
        else:
            body.pop()
    return len(moves), eaten, "alive"


def sudoku_valid(grid):
    n = grid.shape[0]
    box = int(round(n**0.5))
    for i in range(n):
        row = [v for v in grid[i] if v]
        col = [v for v in grid[:, i] if v]
        if len(row) != len(set(row)) or len(col) != len(set(col)):
            return False
    for r in range(0, n, box):
        for c in range(0, n, box):
            cells = grid[r : r + box, c : c + box].ravel()
            cells = cells[cells > 0]
            if len(np.unique(cells)) != len(cells):
                return False
    return True


def knight_reach(n, start, max_moves):
    jumps = [(a, b) for a, b in itertools.product((-2, -1, 1, 2), repeat=2) if abs(a) != abs(b)]
    reached = {start: 0}
    frontier = [start]
    for move in range(1, max_moves + 1):
        nxt = []
        for r, c in frontier:
            for dr, dc in jumps:
                p = (r + dr, c + dc)
                if 0 <= p[0] < n and 0 <= p[1] < n and p not in reached:
                    reached[p] = move
                    nxt.append(p)
        if not nxt:
            break
        frontier = nxt
    return len(reached), max(reached.values())


def yahtzee_category(dice):
    counts = sorted(Counter(dice.tolist()).values(), reverse=True)
    faces = set(dice.tolist())
    if counts[0] == 5:
        return "yahtzee", 50
    if counts[0] == 4:
        return "four of a kind", int(dice.sum())
    if counts[:2] == [3, 2]:
        return "full house", 25
    for straight in ({1, 2, 3, 4, 5}, {2, 3, 4, 5, 6}):
        if straight <= faces:
            return "large straight", 40
    return "chance", int(dice.sum())


def war_card_game(deck_a, deck_b, max_rounds=100):
    a, b = list(deck_a), list(deck_b)
    rounds = 0
    while a and b and rounds < max_rounds:
        ca, cb = a.pop(0), b.pop(0)
        if ca > cb:
            a.extend([ca, cb])
        elif cb > ca:
            b.extend([cb, ca])
        rounds += 1
    winner = "a" if len(a) > len(b) else "b" if len(b) > len(a) else "none"
    return winner, rounds


def score_rounds(rounds, bonus_every=3):
    score = 0
    streak = 0

    def record(points):
        nonlocal score, streak
        if points > 0:
            streak += 1
            score += points
            if streak % bonus_every == 0:
                score += 10
                print("bonus!", end=" ")
        else:
            streak = 0

    for r in rounds:
        record(r)
    print("final", score, sep=": ")
    return score, streak


CASES = {
    tictactoe_winner: [
        (np.array([[1, 1, 1], [2, 2, 0], [0, 0, 0]]),),
        (np.array([[1, 2, 1], [1, 2, 2], [2, 1, 1]]),),
        (np.zeros((3, 3), dtype=int),),
        (np.array([[2, 1, 0], [1, 2, 0], [1, 0, 2]]),),
    ],
    life_score: [
        (np.array([[0, 0, 0, 0], [0, 1, 1, 0], [0, 1, 1, 0], [0, 0, 0, 0]]), 5),
        (np.array([[0, 1, 0], [0, 1, 0], [0, 1, 0]]), 4),
        (np.zeros((2, 2), dtype=int), 0),
    ],
    dice_histogram: [
        (20, 2, 0),
        (0, 3, 1),
        (5, 1, 2),
    ],
    blackjack_value: [
        ([1, 13],),
        (np.array([1, 1, 9]),),
        ([10, 9, 5],),
        ([],),
    ],
    connect_four_drop: [
        (np.zeros((3, 4), dtype=int), 1, 1),
        (np.array([[1, 0], [2, 0]]), 0, 2),
        (np.zeros((2, 2), dtype=int), 5, 1),
        (np.array([[0, 0], [1, 0]]), 0, 2),
    ],
    minesweeper_counts: [
        (np.array([[1, 0, 0], [0, 0, 1], [0, 0, 0]], dtype=bool),),
        (np.zeros((0, 0), dtype=bool),),
        (np.ones((2, 2), dtype=bool),),
    ],
    merge_row_2048: [
        (np.array([2, 2, 4, 4]),),
        (np.array([0, 0, 0, 0]),),
        (np.array([2, 0, 2, 2], dtype=np.int32),),
        (np.array([], dtype=int),),
    ],
    bowling_score: [
        ([10] * 12,),
        ([9, 1] * 10 + [9],),
        (np.array([3, 4] * 10),),
        ([1, 2, 3],),
    ],
    rps_tournament: [
        (np.array([0, 1, 2, 0, 0]), np.array([2, 0, 1, 0, 1])),
        (np.array([]), np.array([])),
        ([1, 1, 1], [0, 0, 0]),
    ],
    snake_moves: [
        (3, "RRDDLL"),
        (3, ""),
        (2, ["R", "R"]),
        (3, "RDLU"),
    ],
    sudoku_valid: [
        (np.array([[1, 2, 3, 4], [3, 4, 1, 2], [2, 1, 4, 3], [4, 3, 2, 1]]),),
        (np.array([[1, 1, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0]]),),
        (np.zeros((4, 4), dtype=int),),
        (np.array([[1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0]]),),
    ],
    knight_reach: [
        (5, (0, 0), 3),
        (1, (0, 0), 2),
        (8, (3, 3), 0),
    ],
    yahtzee_category: [
        (np.array([3, 3, 3, 3, 3]),),
        (np.array([2, 2, 5, 5, 5]),),
        (np.array([6, 2, 4, 3, 5]),),
        (np.array([1, 1, 2, 6, 4]),),
    ],
    war_card_game: [
        ([5, 2, 9], [3, 8, 1]),
        ([], [1, 2]),
        (np.array([4, 4]), np.array([4, 4]), 3),
    ],
    score_rounds: [
        (np.array([5, 3, 2, 0, 4]),),
        ([],),
        ([1, 1, 1, 1], 2),
    ],
}
