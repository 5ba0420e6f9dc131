"""Text and state machines over arrays of character codes: tokenizers, encoders, parsers."""

import string

import numpy as np

DOMAIN = "text and state machines"


class ParseError(Exception):
    def __init__(self, position, message):
        super().__init__(f"at {position}: {message}")
        self.position = position


SPACE, DIGIT, ALPHA, OTHER = range(4)


def char_class(c):
    if c == 32:
        return SPACE
    if 48 <= c <= 57:
        return DIGIT
    if 65 <= c <= 90 or 97 <= c <= 122:
        return ALPHA
    return OTHER


def tokenize(codes):
    tokens = []
    start = None
    kind = None
    for i, c in enumerate(codes):
        k = char_class(c)
        if k != kind:
            if kind is not None and kind != SPACE:
                tokens.append((kind, start, i))
            start, kind = i, k
    if kind is not None and kind != SPACE:
        tokens.append((kind, start, len(codes)))
    return tokens


def rle_encode(values):
    runs = []
    i = 0
    n = len(values)
    while i < n:
        j = i
        while j + 1 < n and values[j + 1] == values[i]:
            j += 1
        runs.append((values[i], j - i + 1))
        i = j + 1
    return runs


def rle_decode(values, counts):
    if len(values) != len(counts):
        raise ValueError("values and counts differ in length")
    out = np.zeros(int(np.sum(counts)), dtype=values.dtype)
    pos = 0
    for v, c in zip(values, counts):
        if c < 0:
            raise ValueError(f"negative run length {c}")
        out[pos : pos + c] = v
        pos += c
    return out


def parse_int(codes):
    if len(codes) == 0:
        raise ParseError(0, "empty input")
    sign = 1
    i = 0
    if codes[0] == ord("-"):
        sign, i = -1, 1
    elif codes[0] == ord("+"):
        i = 1
    value = 0
    if i == len(codes):
        raise ParseError(i, "sign without digits")
    while i < len(codes):
        d = codes[i] - 48
        if d < 0 or d > 9:
            raise ParseError(i, f"unexpected character {chr(codes[i])!r}")
        value = value * 10 + d
        i += 1
    return sign * value


def balanced(codes):
    pairs = {ord(")"): ord("("), ord("]"): ord("["), ord("}"): ord("{")}
    openers = set(pairs.values())
    stack = []
    for i, c in enumerate(codes):
        if c in openers:
            stack.append(c)
        elif c in pairs:
            if not stack or stack.pop() != pairs[c]:
                return False, i
    return len(stack) == 0, len(codes)


def caesar(codes, shift):
    out = codes.copy()
    for i in range(len(out)):
        c = out[i]
        if 97 <= c <= 122:
            out[i] = (c - 97 + shift) % 26 + 97
        elif 65 <= c <= 90:
            out[i] = (c - 65 + shift) % 26 + 65
    return out


def vowel_stats(codes):
    vowels = set(map(ord, "aeiouAEIOU"))
    count = 0
    seen = set()
    for c in codes:
        if c in vowels:
            count += 1
            seen.add(chr(c).lower())
    return count, "".join(sorted(seen))


def word_frequencies(codes):
    freq = {}
    word = []
    for c in list(codes) + [32]:
        if chr(c) in string.ascii_letters:
            word.append(chr(c).lower())
        elif word:
            w = "".join(word)
            freq[w] = freq.get(w, 0) + 1
            word = []
    return dict(sorted(freq.items(), key=lambda kv: (-kv[1], kv[0])))


def traffic_light(events, start="red"):
    transitions = {
        ("red", "timer"): "green",
        ("green", "timer"): "yellow",
        ("yellow", "timer"): "red",
        ("green", "emergency"): "red",
        ("yellow", "emergency"): "red",
    }
    state = start
    log = [state]
    for e in events:
        state = transitions.get((state, e), state)
        log.append(state)
    return state, log


def edit_distance(a, b):
    m, n = len(a), len(b)
    dp = np.zeros((m + 1, n + 1), dtype=int)
    dp[:, 0] = np.arange(m + 1)
    dp[0, :] = np.arange(n + 1)
    for i in range(1, m + 1):
        for j in range(1, n + 1):
            cost = 0 if a[i - 1] == b[j - 1] else 1
            dp[i, j] = min(dp[i - 1, j] + 1, dp[i, j - 1] + 1, dp[i - 1, j - 1] + cost)
    return int(dp[m, n])


def common_prefix(rows):
    if not rows:
        return 0
    length = 0
    shortest = min(len(r) for r in rows)
    while length < shortest:
        c = rows[0][length]
        if any(r[length] != c for r in rows[1:]):
            break
        length += 1
    return length


def glob_match(pattern, text):
    p, t = 0, 0
    star, mark = -1, 0
    while t < len(text):
        if p < len(pattern) and (pattern[p] == ord("?") or pattern[p] == text[t]):
            p += 1
            t += 1
        elif p < len(pattern) and pattern[p] == ord("*"):
            star, mark = p, t
            p += 1
        elif star != -1:
            p = star + 1
            mark += 1
            t = mark
        else:
            return False
    while p < len(pattern) and pattern[p] == ord("*"):
        p += 1
    return p == len(pattern)


def luhn_valid(digits):
    total = 0
    for i, d in enumerate(reversed(digits)):
        if not 0 <= d <= 9:
            raise ValueError(f"not a digit: {d}")
        if i % 2 == 1:
            d = d * 2
            if d > 9:
                d -= 9
        total += d
    return total % 10 == 0 and len(digits) > 0


def to_base(n, base):
    if base < 2 or base > 36:
        raise ValueError(f"base {base} out of range")
    alphabet = string.digits + string.ascii_lowercase
    if n == 0:
        return "0"
    sign = "-" if n < 0 else ""
    n = abs(n)
    out = []
    while n:
        n, r = divmod(n, base)
        out.append(alphabet[r])
    return sign + "".join(reversed(out))


def csv_fields(codes, sep=44):
    fields = []
    current = []
    in_quotes = False
    for c in codes:
        if c == 34:
            in_quotes = not in_quotes
        elif c == sep and not in_quotes:
            fields.append(bytes(current).decode())
            current = []
        else:
            current.append(int(c))
    if in_quotes:
        raise ParseError(len(codes), "unterminated quote")
    fields.append(bytes(current).decode())
    return fields


def count_lines_words(codes):
    lines = words = 0
    in_word = False
    for c in codes:
        if c == 10:
            lines += 1
        if c in (10, 32, 9):
            in_word = False
        elif not in_word:
            in_word = True
            words += 1
    return lines, words, len(codes)


def evaluate_expression(codes):
    pos = 0

    def peek():
        return codes[pos] if pos < len(codes) else None

    def advance():
        nonlocal pos
        pos += 1

    def number():
        start = pos
        value = 0
        while peek() is not None and 48 <= peek() <= 57:
            value = value * 10 + int(peek() - 48)
            advance()
        if pos == start:
            raise ParseError(pos, "expected a number")
        return value

    def factor():
        if peek() == ord("("):
            advance()
            value = expr()
            if peek() != ord(")"):
                raise ParseError(pos, "missing ')'")
            advance()
            return value
        if peek() == ord("-"):
            advance()
            return -factor()
        return number()

    def term():
        value = factor()
        while peek() in (ord("*"), ord("/")):
            op = peek()
            advance()
            rhs = factor()
            value = value * rhs if op == ord("*") else value // rhs
        return value

    def expr():
        value = term()
        while peek() in (ord("+"), ord("-")):
            op = peek()
            advance()
            rhs = term()
            value = value + rhs if op == ord("+") else value - rhs
        return value

    result = expr()
    if pos != len(codes):
        raise ParseError(pos, "trailing input")
    return result


def _codes(text, dtype=np.int64):
    return np.array([ord(ch) for ch in text], dtype=dtype)


CASES = {
    tokenize: [
        (_codes("abc 12+x"),),
        (_codes(""),),
        (_codes("   "),),
        (_codes("x1", np.uint8),),
    ],
    rle_encode: [
        (np.array([1, 1, 2, 2, 2, 3, 1]),),
        (np.array([]),),
        ([5],),
        (np.array([np.nan, np.nan, 1.0]),),
    ],
    rle_decode: [
        (np.array([7, 8, 9]), np.array([2, 0, 3])),
        (np.array([], dtype=int), np.array([], dtype=int)),
        (np.array([1.5, 2.5]), np.array([2, -1])),
        (np.array([1, 2]), np.array([1])),
    ],
    parse_int: [
        (_codes("-1234"),),
        (_codes(""),),
        (_codes("+"),),
        (_codes("12a4"),),
        (_codes("007"),),
    ],
    balanced: [
        (_codes("([]{()})"),),
        (_codes("(]"),),
        (_codes("((("),),
        (_codes(""),),
    ],
    caesar: [
        (_codes("Hello, World"), 3),
        (_codes(""), 5),
        (_codes("xyz", np.int32), -1),
    ],
    vowel_stats: [
        (_codes("Programming in Python"),),
        (_codes("rhythm"),),
        (np.array([], dtype=int),),
    ],
    word_frequencies: [
        (_codes("the cat and the hat, the end"),),
        (_codes(""),),
        (_codes("A a a!"),),
    ],
    traffic_light: [
        (["timer", "timer", "emergency", "timer"],),
        ([],),
        (("timer", "bogus", "timer"), "green"),
    ],
    edit_distance: [
        (_codes("kitten"), _codes("sitting")),
        (_codes(""), _codes("abc")),
        (_codes("same"), _codes("same")),
    ],
    common_prefix: [
        ([_codes("interview"), _codes("internet"), _codes("interval")],),
        ([],),
        ([_codes("abc"), _codes("")],),
        ([_codes("solo")],),
    ],
    glob_match: [
        (_codes("a*b?c"), _codes("axxbyc")),
        (_codes("*"), _codes("")),
        (_codes("a?"), _codes("a")),
        (_codes(""), _codes("")),
    ],
    luhn_valid: [
        (np.array([4, 5, 3, 9, 1, 4, 8, 8, 0, 3, 4, 3, 6, 4, 6, 7]),),
        (np.array([1, 2, 3]),),
        (np.array([], dtype=int),),
        (np.array([1, 12]),),
    ],
    to_base: [
        (255, 16),
        (np.int64(-10), 2),
        (0, 7),
        (5, 1),
    ],
    csv_fields: [
        (_codes('a,"b,c",d'),),
        (_codes(""),),
        (_codes('"open'),),
        (_codes("x;y"), 59),
    ],
    count_lines_words: [
        (_codes("one two\nthree\n"),),
        (_codes(""),),
        (_codes("  \t "),),
    ],
    evaluate_expression: [
        (_codes("2*(3+4)-5"),),
        (_codes("-(8/3)"),),
        (_codes(""),),
        (_codes("1+"),),
        (_codes("7/0"),),
    ],
}
