"""The specialiser's transformations, each on a small readable function (ADR 0230)."""

from __future__ import annotations

import ast
import math
import random
import re
import textwrap
import types
from pathlib import Path

import pytest
from skidpad.engine import specialise
from specialise_samples import (
    Consts,
    Made,
    Pair,
    caller,
    corners,
    freed,
    helper,
    list_in_one_arm,
    lookup,
    make_pair,
    make_span,
    merged_records,
    reads_a_maybe,
    record_in_a_branch,
    records_or_none,
    replaces_a_field,
    replaces_an_unknown_field,
    runaway,
    scaled,
    scaled_by,
    scales,
    settle,
    stage_like,
    stores_in_a_branch,
    stores_into_its_own_record,
    unread_division,
    unsupported,
    uses_a_default,
    uses_lists,
    uses_records,
)

K = Consts(1.0 / 3.0, (0.1, -0.2, 0.30000000000000004, 7.0), "plain")
NO_INLINE = specialise.Plan(inline=frozenset(), fold=frozenset())


def build(fn, bound, plan=NO_INLINE):
    spec = specialise.specialise(fn, bound, plan)
    return spec, specialise.compile_specialised(spec)


def test_constants_fold_in_the_readable_grouping() -> None:
    spec, fast = build(scaled, {"k": K})
    assert "k." not in spec.text and repr(0.5 * K.gain) in spec.text
    for x in (0.0, -1.5, 3.7, 1e300):
        assert fast(x) == scaled(x, K)


def test_loops_unroll_and_known_branches_drop() -> None:
    spec, fast = build(corners, {"k": K})
    assert "for " not in spec.text and "if " not in spec.text and "atan" not in spec.text
    assert spec.text.count(" * x") == 4
    other = K._replace(mode="other")
    spec2, fast2 = build(corners, {"k": other})
    assert "# trig.atan_fast" in spec2.text  # the kernel inlined by its sign split
    for x in (-2.0, -0.3, 0.0, -0.0, 1e-12, 0.7, 5.0, 1e20, -1e300):
        assert fast(x) == corners(x, K)
        assert math.copysign(1.0, fast2(x)) == math.copysign(1.0, corners(x, other))
        assert fast2(x) == corners(x, other)
    assert math.isnan(fast(math.inf)) and math.isnan(corners(math.inf, K))


def test_calls_inline_with_renamed_locals_in_evaluation_order() -> None:
    plan = specialise.Plan(inline=frozenset({helper}), fold=frozenset())
    spec, fast = build(caller, {}, plan)
    assert not re.search(r"\bhelper\(", spec.text)
    assert spec.text.count("# specialise_samples.helper") == 2
    rng = random.Random(1)
    for _ in range(200):
        x, y = rng.uniform(-5, 5), rng.uniform(-5, 5)
        assert fast(x, y) == caller(x, y)


def test_records_are_values_their_fields_settled_once() -> None:
    # a record returned by an inlined call, rebuilt, unpacked and swapped: no record object
    # is built (the fields are locals), and every result is the readable function's bits
    plan = specialise.Plan(inline=frozenset({make_pair}), fold=frozenset())
    spec, fast = build(uses_records, {}, plan)
    assert "Pair" not in spec.text and "Pair" not in spec.namespace
    assert not re.search(r"\bmake_pair\(", spec.text)
    rng = random.Random(2)
    for _ in range(200):
        x, y = rng.uniform(-5, 5), rng.uniform(-5, 5)
        assert fast(x, y) == uses_records(x, y)
    # a record assigned in a branch whose test is not known is a real object after it
    spec2, fast2 = build(record_in_a_branch, {}, plan)
    for x, y in ((1.0, 2.0), (2.0, 1.0), (-0.5, -0.25)):
        assert fast2(x, y) == record_in_a_branch(x, y)


def test_a_records_replace_is_a_copy_with_its_fields_changed() -> None:
    # tire.sliding's shape: ``record._replace(field=...)`` of a record value is that record
    # with the field's value replaced; no record object and no call is left in the text
    plan = specialise.Plan(inline=frozenset({make_pair, freed}), fold=frozenset())
    spec, fast = build(replaces_a_field, {}, plan)
    assert "_replace" not in spec.text and "Pair" not in spec.text
    assert "return 0.0 + " in spec.text  # the replaced sum, read where it was replaced
    rng = random.Random(3)
    for _ in range(100):
        x, y = rng.uniform(-5, 5), rng.uniform(-5, 5)
        for slid in (False, True):
            assert fast(x, y, slid) == replaces_a_field(x, y, slid)
    with pytest.raises(specialise.Unsupported, match="_replace takes the record's fields"):
        specialise.specialise(replaces_an_unknown_field, {}, NO_INLINE)


def test_lists_are_slots_and_records_merge_across_a_branch() -> None:
    # a list of known length is one variable per item (stored by a known index, or by one
    # known when it runs), and a tuple rebound in a branch keeps its variables: no list or
    # tuple object is built until the function returns its result
    plan = specialise.Plan(inline=frozenset({scales}), fold=frozenset())
    spec, fast = build(uses_lists, {}, plan)
    body = spec.text.split("\n", 1)[1].split("\n    return ")[0]
    assert not re.search(r"\[|\blist\(|\btuple\(|= \(", body), body
    # the inlined call's list is computed in the merged tuple's variables: no copies
    assert "sc_2 = b2 * a" in body
    copies = re.findall(r"^ *(\w+ = [A-Za-z_]\w*)$", body, re.M)
    assert copies == ["cap_0 = b0", "cap_1 = b1", "cap_2 = b2"], body  # list() copies
    rng = random.Random(3)
    for _ in range(300):
        args = (
            rng.choice((0.3, 0.7, 2.0)), rng.uniform(-3, 3), rng.uniform(-3, 3),
            rng.uniform(-3, 3), rng.choice((-3, -1, 0, 1, 2)), rng.uniform(-1, 1),
            rng.random() < 0.5,
        )  # fmt: skip
        assert fast(*args) == uses_lists(*args)
    # an index past the end raises what the list raises
    for f in (fast, uses_lists):
        with pytest.raises(IndexError):
            f(0.7, 1.0, 2.0, 3.0, 3, 0.5, True)
    # a list bound in only one arm of a branch stays an object
    spec2, fast2 = build(list_in_one_arm, {}, NO_INLINE)
    for x, y in ((1.0, 2.0), (2.0, 1.0)):
        assert fast2(x, y) == list_in_one_arm(x, y)


def test_a_record_made_on_both_paths_of_a_branch_is_one_variable_per_field() -> None:
    plan = specialise.Plan(inline=frozenset({make_span}), fold=frozenset())
    spec, fast = build(merged_records, {}, plan)
    assert "Span(" not in spec.text, spec.text  # no record object is built
    for x, y in ((1.0, 2.0), (2.0, 1.0), (-0.5, -0.25), (3.0, 3.0)):
        assert fast(x, y) == merged_records(x, y)


def test_a_record_or_none_is_its_fields_and_a_flag() -> None:
    plan = specialise.Plan(inline=frozenset({make_span}), fold=frozenset())
    spec, fast = build(records_or_none, {}, plan)
    body = spec.text.split("\n    return ")[0]
    assert "Span(" not in body, body  # built only where it is returned
    found, total = spec.returned.items
    assert all(isinstance(v, specialise.Maybe) for v in found.items)
    cases = (((1.0, -2.0), (0.5, 4.0)), ((-1.0, 2.0), (3.0, -0.25)), ((0.0, 1e-300), (1.0, 2.0)))
    for xs, ys in cases:
        assert fast(xs, ys) == records_or_none(xs, ys)
    with pytest.raises(specialise.Unsupported, match="maybe None"):
        specialise.specialise(reads_a_maybe, {}, plan)


def test_a_renamed_body_keeps_its_values_without_the_moves() -> None:
    """``body_text(renamed)``: the caller's names for the results; the moves into them are
    folded away and the values are the readable function's."""
    plan = specialise.Plan(inline=frozenset({make_span}), fold=frozenset())
    spec = specialise.specialise(records_or_none, {}, plan)
    found, total = spec.returned.items
    renamed = {total.items[0].id: "t0", total.items[1].id: "t1"}
    for i, m in enumerate(found.items):
        renamed[m.flag] = f"on{i}"
        renamed[m.record.items[0].id] = f"lo{i}"
    text = spec.body_text(renamed)
    move = r"^ *(t[01]|on[01]|lo[01]) = (?!True|False)[A-Za-z_]\w*$"
    assert not re.search(move, text, re.M), text
    for xs, ys in (((1.0, -2.0), (0.5, 4.0)), ((-1.0, 2.0), (3.0, -0.25))):
        names = {"xs": xs, "ys": ys, **spec.namespace}
        exec(text, names)  # strict: allow dynamic-code -- the text under test
        (p0, p1), (t0, t1) = records_or_none(xs, ys)
        assert (names["t0"], names["t1"]) == (t0, t1)
        for i, p in enumerate((p0, p1)):
            assert names[f"on{i}"] == (p is not None)
            if p is not None:
                assert names[f"lo{i}"] == p.lo


def test_a_move_is_folded_only_where_no_value_is_lost() -> None:
    """A move stays where its source is read after it, or where its target is named
    between the source's making and the move."""
    folded = _folded

    assert folded("a = f(1)\nb = a * 2.0\nx = a\n", {"x": "x", "b": "b"}) == (
        "x = f(1)\nb = x * 2.0"
    )
    kept = folded("a = f(1)\nx = a\ny = a + x\n", {"x": "x", "y": "y"})
    assert "x = a" in kept or "y = x + x" in kept  # a read after the move: read as x
    assert folded("a = f(1)\nc = x\nx = a\n", {"x": "x", "c": "c"}) == (
        "a = f(1)\nc = x\nx = a"
    )  # x read between: its old value is needed
    assert folded("a = 1.0\na = f(a)\n", {"a": "b"}) == "b = 1.0\nb = f(b)"


def test_a_loop_that_breaks_is_kept_and_a_list_grows_by_append() -> None:
    # the loop that breaks on a test known only when it runs stays a loop; the list built
    # by append in a branch is its items, and the loop over it unrolls (its continue made
    # an else); what one pass hands the next (t, prev) is a variable, nothing else is
    w = (0.5, 1.5, 2.0)
    spec, fast = build(settle, {"w": w})
    assert spec.text.count("for ") == 1 and "break" in spec.text, spec.text
    assert "append" not in spec.text and "continue" not in spec.text, spec.text
    assert not re.search(r"^ *k = ", spec.text, re.M), spec.text  # k: no pass reads it
    # a sum the passes share is computed once, before the loop (the same operation)
    before_loop = spec.text.split("for ")[0]
    assert re.search(r"= x \+ cap$", before_loop, re.M), spec.text
    rng = random.Random(11)
    for _ in range(3000):
        x = 0.0 if rng.random() < 0.05 else rng.uniform(-3.0, 3.0)
        cap = rng.uniform(-2.0, 5.0)
        assert fast(x, cap) == settle(x, w, cap), (x, cap)


def _folded(text: str, outputs: dict) -> str:
    import ast

    stmts = ast.parse(text).body
    with specialise._Positions():
        return ast.unparse(ast.Module(specialise._moves_folded(stmts, outputs, "t"), []))


def test_a_branch_on_a_flag_the_branch_before_set_is_threaded_into_its_arms() -> None:
    text = (
        "if t > 0.0:\n    a = t * 2.0\n    f = True\nelse:\n    a = -t\n    f = False\n"
        "b = 3.0\nif f:\n    c = a + b\nelse:\n    c = a - b\n"
    )
    out = _folded(text, {"c": "c", "f": "f"})
    assert out.count("if ") == 1, out  # one test: each arm knows f
    for t in (1.5, -2.0, 0.0):
        want, got = {"t": t}, {"t": t}
        exec(text, want)  # strict: allow dynamic-code -- the texts under test
        exec(out, got)  # strict: allow dynamic-code -- the folded text under test
        assert (got["c"], got["f"]) == (want["c"], want["f"])
    # a flag one arm computes is not known at its end: the second test stays
    unknown = text.replace("    f = False\n", "    f = a > 1.0\n")
    assert _folded(unknown, {"c": "c", "f": "f"}).count("if ") == 2


def test_a_loop_unrolls_into_branches_that_keep_their_counter() -> None:
    # a while loop whose test is known only when it runs: each path knows its counter, so
    # the table reads fold (no subscript by a run-time index is left) and no loop remains
    w, t = (0.0, 1.0, 2.5, 4.0), (10.0, 12.0, 11.0, 9.0)
    spec, fast = build(lookup, {"w": w, "t": t})
    assert "while" not in spec.text and not re.search(r"\[[A-Za-z_]", spec.text), spec.text
    xs = [-1.0, 0.0, 0.5, 1.0, 1.5, 2.5, 3.0, 4.0, 9.0, math.inf, -math.inf, -0.0]
    for x in xs + [random.Random(4).uniform(-1, 5) for _ in range(100)]:
        assert fast(x) == lookup(x, w, t)
    assert math.isnan(fast(math.nan)) == math.isnan(lookup(math.nan, w, t))
    # a loop that runs past the end of its table raises where the readable loop raises
    spec2, fast2 = build(runaway, {"w": (1.0, 2.0)})
    assert fast2(1.5) == runaway(1.5, (1.0, 2.0)) == 1
    for f in (lambda x: fast2(x), lambda x: runaway(x, (1.0, 2.0))):
        with pytest.raises(IndexError):
            f(5.0)


def test_defaults_fill_missing_arguments_and_a_decided_test_drops_its_branch() -> None:
    plan = specialise.Plan(inline=frozenset({scaled_by}), fold=frozenset())
    spec, fast = build(uses_a_default, {"automatic": False}, plan)
    assert "x * 2.0" in spec.text and "x * 3.0" in spec.text
    assert "if " not in spec.text  # `x > 0.0 and False` is false whatever x is
    for x in (-2.0, 0.0, 1.5):
        assert fast(x) == uses_a_default(x, False)


def test_a_field_nothing_reads_is_dropped_only_if_it_cannot_raise() -> None:
    spec, fast = build(unread_division, {})
    assert "/" in spec.text  # kept: the readable function raises when y is zero
    assert fast(3.0, 2.0) == unread_division(3.0, 2.0)
    for f in (fast, unread_division):
        with pytest.raises(ZeroDivisionError):
            f(3.0, 0.0)


def test_an_unsupported_construct_is_refused_not_skipped() -> None:
    with pytest.raises(specialise.Unsupported):
        specialise.specialise(unsupported, {}, NO_INLINE)


def test_a_non_finite_constant_has_no_literal() -> None:
    with pytest.raises(specialise.Unfoldable):
        specialise.specialise(scaled, {"k": K._replace(gain=math.inf)}, NO_INLINE)


def failures_in_threads(work, threads: int) -> list[BaseException]:
    """Run ``work`` in ``threads`` threads side by side; what each raised (a thread's
    failure must fail the test, not vanish with the thread)."""
    import threading

    errors: list[BaseException] = []

    def guarded() -> None:
        try:
            work()
        except BaseException as exc:  # returned to the test
            errors.append(exc)

    running = [threading.Thread(target=guarded) for _ in range(threads)]
    for t in running:
        t.start()
    for t in running:
        t.join()
    return errors


def test_specialising_in_threads_side_by_side_gives_the_same_functions() -> None:
    """The positions the compiler needs are process-wide class attributes: without the lock,
    one thread leaving its compile deleted them under another's (parity's in-process runtimes
    run side by side in threads), and the other's compile failed."""
    plan = specialise.Plan(inline=frozenset({helper}), fold=frozenset())
    spec, _ = build(caller, {}, plan)
    expected = spec.text
    texts: list[str] = []

    def work() -> None:
        for _ in range(40):
            s, f = build(caller, {}, plan)
            texts.append(s.text)
            assert f(0.25, -1.5) == caller(0.25, -1.5)

    errors = failures_in_threads(work, 4)
    assert not errors, errors[:1]
    assert texts and all(t == expected for t in texts)


def test_parsing_in_threads_while_collections_switch_threads_never_fails() -> None:
    """CPython 3.11 counts the depth of a parse's tree conversion in one counter for all
    threads: a collection running a finaliser mid-parse lets another thread parse, and one of
    them fails ("AST constructor recursion depth mismatch"; two fuzz tasks recording side by
    side hit it). parse_source holds AST_LOCK; with plain ast.parse this fails on 3.11."""
    import gc
    import time

    text = "\n".join(f"x{i} = (a + b * c - d / e) if f else (g - h)" for i in range(300))

    class Litter:
        def __del__(self) -> None:
            time.sleep(0)  # a thread switch in the middle of a collection

    def work() -> None:
        for _ in range(20):
            for _ in range(20):
                item = Litter()
                item.cycle = item  # freed only by a collection, maybe mid-parse
            del item
            specialise.parse_source(text)

    errors = failures_in_threads(work, 3)
    gc.collect()
    assert not errors, errors[:1]


def test_the_engine_parses_only_through_the_lock() -> None:
    """Every parse of the engine goes through specialise.parse_source (one place holds the
    lock), and every compile sits under AST_LOCK."""
    engine = Path(specialise.__file__).parent
    for path in sorted(engine.rglob("*.py")):
        text = path.read_text(encoding="utf-8")
        parses = text.count("ast.parse(")
        assert parses == (1 if path.name == "specialise.py" else 0), path
        for line_no, line in enumerate(text.splitlines(), 1):
            if re.search(r"(?<![.\w])compile\(", line) and "def " not in line:
                before = "\n".join(text.splitlines()[max(0, line_no - 4) : line_no - 1])
                held = re.search(r"^\s*with (AST_LOCK|_Positions\(\)):", before, re.MULTILINE)
                assert held, f"{path}:{line_no}: a compile outside AST_LOCK"


def test_a_declared_non_negative_kernel_argument_inlines_only_the_positive_side() -> None:
    """Plan.nonneg drops the sign test of a kernel whose argument the caller declares not
    below zero; without the declaration both sides are written (the check can fail)."""
    from skidpad.engine.fourwheel import tire

    both = specialise.Plan(inline=frozenset(), fold=frozenset())
    declared = both._replace(nonneg=frozenset({(tire.shape, "rho"), (tire.shape, "psi")}))
    plain = specialise.specialise(tire.shape, {"c": 1.6, "e": 0.5}, both).text
    split = specialise.specialise(tire.shape, {"c": 1.6, "e": 0.5}, declared).text
    assert "rho < 0.0" in plain and "psi < 0.0" in plain and "angle < 0.0" in plain
    assert "rho < 0.0" not in split and "psi < 0.0" not in split and "angle < 0.0" in split


def test_a_record_of_the_callers_values_is_read_and_stored_into() -> None:
    # a stage's shape (engine.fourwheel.stages): ``s`` a record of the caller's names, ``out``
    # a record the function stores into; what it returns and what ``out`` holds at the end
    # are the caller's to read, named in the text, with the readable function's bits
    name = lambda n: ast.Name(n, ast.Load())  # noqa: E731
    s = specialise.Agg(Pair, (name("x"), specialise.Agg(None, (name("y0"), name("y1")))))
    out = specialise.Agg(Made, (specialise.K(None), specialise.K(None)))
    plan = specialise.Plan(inline=frozenset({make_pair}), fold=frozenset())
    spec = specialise.specialise(stage_like, {"k": K, "s": s, "out": out}, plan)
    made = spec.records["out"]
    assert made.cls is Made and "out." not in spec.text and "Pair(" not in spec.text
    values = (*flat(made), *flat(spec.returned))
    use = specialise.NameUse()
    body = spec.body_text(None, use)
    assert {"x", "y1"} <= set(use.counts) and "x" not in use.stored  # (y0 is only passed on)
    text = "def f(x, y0, y1):\n" + textwrap.indent(body, "    ")
    text += f"    return ({', '.join(values)},)\n"
    names = dict(spec.namespace)
    exec(compile(text, "<sample>", "exec"), names)  # noqa: S102 -- the sample's own text
    rng = random.Random(5)
    for _ in range(200):
        x, y0, y1 = (rng.uniform(-4, 4) for _ in range(3))
        board = types.SimpleNamespace(pair=None, total=None)
        returned = stage_like(K, Pair(x, (y0, y1)), board)
        want = (board.pair.sum, *board.pair.parts, board.total.sum, *board.total.parts)
        assert names["f"](x, y0, y1) == (*want, *returned)
    with pytest.raises(specialise.Unsupported, match="a store to out.total"):
        specialise.specialise(stores_in_a_branch, {"s": s, "out": out}, NO_INLINE)
    # only a record the caller gave is stored into: the function's own record is an object
    # the readable function cannot change
    with pytest.raises(AttributeError):
        stores_into_its_own_record(1.0)
    with pytest.raises(specialise.Unsupported, match="a store to p.sum"):
        specialise.specialise(stores_into_its_own_record, {}, NO_INLINE)


def flat(v: object) -> list:
    """The items of a record value as the text names them (constants as their repr)."""
    if isinstance(v, specialise.Agg):
        return [text for item in v.items for text in flat(item)]
    if isinstance(v, specialise.K):
        return [repr(v.value)]
    return [ast.unparse(v)]
