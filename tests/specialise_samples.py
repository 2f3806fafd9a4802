"""Small readable functions for tests/test_specialise.py (the specialiser reads their source)."""

from __future__ import annotations

from typing import NamedTuple

from skidpad.engine.smath.trig import atan_fast


class Consts(NamedTuple):
    gain: float
    offsets: tuple
    mode: str


def scaled(x: float, k: Consts) -> float:
    return k.gain * x + 0.5 * k.gain


def corners(x: float, k: Consts) -> float:
    total = 0.0
    for i in range(4):
        total = total + k.offsets[i] * x
    if k.mode == "plain":
        return total
    return total + atan_fast(x)


def helper(a: float, b: float) -> float:
    if a > b:
        return a - b
    return b - a


def caller(x: float, y: float) -> float:
    return helper(x, y) * 2.0 + helper(y * 3.0, x)


def unsupported(x: float) -> float:
    while x > 1.0:
        x = x * 0.5
    return x


class Pair(NamedTuple):
    sum: float
    parts: tuple


def make_pair(a: float, b: float) -> Pair:
    s = a + b
    return Pair(s, (a * 0.5, b - s))


def uses_records(x: float, y: float) -> float:
    p = make_pair(x, y)
    q = Pair(p.sum * 2.0, p.parts)
    lo, hi = q.parts
    hi, lo = lo, hi  # a swap: both read before either is stored
    r = Pair(x, (y, y))
    x = 3.0  # a parameter reassigned after a record captured it: the record keeps the old
    return q.sum - lo * hi + p.parts[1] * x + r.sum


def record_in_a_branch(x: float, y: float) -> float:
    p = make_pair(x, y)
    if x > y:
        p = Pair(x, (y, y))
    return p.sum + p.parts[0]


def unread_division(x: float, y: float) -> float:
    p = Pair(x / y, (x, y))  # the sum is never read, but dividing by zero raises
    return p.parts[0] * 2.0


def scales(n: int, a: float, b: tuple) -> list:
    out = [1.0] * n
    if not a < 0.5:
        for i in range(n):
            if b[i] > a:
                out[i] = b[i] * a
    return out


def uses_lists(a: float, b0: float, b1: float, b2: float, w: int, t: float, on: bool) -> tuple:
    cap = list((b0, b1, b2))
    sc = (1.0, 1.0, 1.0)  # rebound in a branch below: merged, one variable per item
    cap[w] += t  # an index known only when it runs
    if on:
        sc = tuple(scales(3, a, (b0, b1, b2)))
        for i in range(3):
            cap[i] *= sc[i]
    cap[-1] = cap[0] - sc[2]
    return tuple(cap) + sc


def list_in_one_arm(x: float, y: float) -> float:
    if x > y:
        out = [x, y]  # the other arm binds something else: an object after the branch
    else:
        out = list((y * 2.0, x))
    return out[0] * 3.0 + out[1]


def lookup(x: float, w: tuple, t: tuple) -> float:
    if x <= w[0]:
        return t[0]
    n = len(w) - 1
    if x >= w[n]:
        return t[n]
    i = 0  # a counter known along each path of the unrolled loop
    while x > w[i + 1]:
        i += 1
    return t[i] + (x - w[i]) * 0.5


def runaway(x: float, w: tuple) -> int:
    i = 0
    while x > w[i]:  # past the end of w when x is above every point: IndexError
        i += 1
    return i


def scaled_by(x: float, scale: float = 2.0) -> float:
    return x * scale


def uses_a_default(x: float, automatic: bool) -> float:
    y = scaled_by(x) + scaled_by(x, 3.0)
    if x > 0.0 and automatic:  # decided by a constant: the branch goes
        y = -y
    return y


class Span(NamedTuple):
    lo: float
    hi: float


def make_span(a: float, b: float) -> Span:
    m = a * b
    return Span(m - a, m + b)


def merged_records(x: float, y: float) -> float:
    if x > y:
        p = make_span(x, y)
    else:
        p = Span(y, x)  # a record of the same class on the other path: merged
    return p.lo * p.hi


def records_or_none(xs: tuple, ys: tuple) -> tuple:
    found = [None, None]
    total = [0.0, 0.0]
    for i in range(2):
        if xs[i] > 0.0:
            p = make_span(xs[i], ys[i])  # a record on one path, None on the other
            total[i] = p.lo * 2.0
        else:
            p = None
            total[i] = ys[i]
        found[i] = p
    return tuple(found), tuple(total)


def reads_a_maybe(x: float, y: float) -> float:
    if x > 0.0:
        p = make_span(x, y)
    else:
        p = None
    return p.lo  # None has no lo: refused, not guessed


def settle(x: float, w: tuple, cap: float) -> tuple:
    """A fixed point with a kept loop (break on a test known when it runs), a list built
    by append in a branch, an unrolled loop over it with continue."""
    if x == 0.0:
        t = 0.0
        prev = -1
    else:
        terms = []
        for k in w:
            terms.append((k, k * x))
        t = x
        prev = -1
        for _ in range(4):
            count = 0
            acc = 0.0
            for k, kx in terms:
                if kx * t > cap:
                    continue  # saturated: adds nothing
                count += 1
                acc += k * t * (x + cap)  # (x + cap): the same in every pass
            t = 0.5 * (t + acc)
            if count == prev:
                break
            prev = count
    return t, prev


def freed(p: Pair) -> Pair:
    return p._replace(sum=0.0)


def replaces_a_field(x: float, y: float, slid: bool) -> float:
    """A record's copy with one field replaced (``_replace``), in a branch."""
    p = make_pair(x, y)
    if slid:
        free = freed(p)
        return free.sum + free.parts[0] * y
    return p.sum + p.parts[0] * y


def replaces_an_unknown_field(x: float, y: float) -> float:
    p = Pair(x, (y, y))
    return p._replace(total=1.0).sum


class Made(NamedTuple):
    """What earlier stages made, as the specialiser holds it (a stage stores into it)."""

    pair: object
    total: object


def stage_like(k: Consts, s: Pair, out: object) -> tuple:
    """A stage over records: reads the caller's record ``s``, stores into ``out``, builds a
    record by keyword and joins tuples."""
    p = make_pair(s.sum * k.gain, s.parts[1])
    out.pair = p
    out.total = Pair(parts=(s.parts[0],), sum=p.sum + out.pair.parts[0])
    return out.pair.parts + (out.total.sum,) + k.offsets


def stores_in_a_branch(s: Pair, out: object, flag: bool) -> float:
    if flag:
        out.total = s.sum
    return 0.0


def stores_into_its_own_record(x: float) -> float:
    p = Pair(x, (x, x))
    p.sum = 2.0 * x  # a NamedTuple's field: the readable function raises AttributeError
    return p.sum
