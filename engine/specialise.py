"""The specialiser: a readable function and the constants of one definition -> fast Python.

:func:`specialise` reads the syntax tree of a readable function (``ast``, from its source)
and writes a new function whose remaining parameters are the ones not bound to a constant.
It only *moves* work, never changes it, so the result gives the readable function's bits by
construction:

* **fold constants**: a parameter bound to a constant, a module-level name, an attribute or
  an item of a constant, and an operation whose operands are all constants are evaluated now
  (the same IEEE operation on the same operands, in the same grouping: the tree is folded
  bottom-up, never reassociated) and written as the ``repr`` of the value;
* **drop constant branches**: an ``if`` (or ``x if c else y``, ``and``/``or``) whose test
  folds to a constant keeps only the branch taken (``x and False`` is false, ``x or True``
  true, when reading ``x`` calls nothing);
* **keep what a path knows**: a value bound in a branch whose test is not known stays known
  along that branch, and is assigned at its end if anything after may read it;
* **unroll** a ``for`` over a constant iterable (``range(4)``, a tuple of a definition),
  and a ``while`` into branches: at a test known only when it runs, one arm runs the body
  and the loop again, the other the rest of the block (so a counter stays a constant along
  each path; a test that would index past a table's end raises there, as it does);
* **inline** the calls of the functions it is asked to inline (and the declared sign splits
  of the fast kernels, :data:`engine.smath.kernels.SIGN_SPLIT`), with their locals renamed and
  their ``return`` turned into assignments (a parameter left out takes its default); a
  call is inlined only where it runs
  unconditionally in its statement (never in the untaken arm of ``x if c else y`` or of
  ``and``/``or``), before the statement, in evaluation order;
* **call foldable functions** (declared pure functions of constants, such as a parameter
  set's derived constants) once, now;
* **keep a list as its slots**: a list of known length bound to a local (``[1.0] * n``,
  ``list(capacity)``) is one variable per item; ``x[i] = v`` and ``x[i] += v`` with ``i``
  known assign that item's variable, with ``i`` known only when it runs a chain of tests
  on ``i`` picks it (or raises ``IndexError``, as the list would); ``tuple(x)`` is a record
  of the items' values at that point;
* **join tuples**: ``a + b`` of two tuple values (records included) is the tuple of their
  items, no object built;
* **take records of the caller's values**: a parameter bound to a record (:class:`Agg`)
  whose fields are names of the caller's text (or constants, or records) reads its fields
  as those names; a store to one of its fields, ``out.f = v`` (outside branches, in the
  function's own body), makes it the record with that field replaced, and the record as
  the body leaves it is :attr:`Specialised.records`;
* **build a record by keyword**: ``Record(a, f=v)`` is the record value, its arguments read
  in the order they are written, a field left out taking its default;
* **copy a record with fields replaced**: ``r._replace(field=v)`` of a record value is the
  same record with ``field``'s value ``v`` (no call; ``_replace`` of anything else is refused);
* **merge a record across the arms of a branch**: a tuple or record bound before a branch
  whose test is not known, and bound again inside it to a tuple or record of the same
  shape, is kept as one variable per field, assigned in the arm that rebinds it;
* **name each copied value once**: a copy ``x = y`` of a value the body makes is removed by
  calling the value ``x`` from where it is made (see :func:`_coalesce`).

Nothing of a definition's strings reaches the text: only numbers (``repr`` of a float or an
int), the names of the readable functions' own locals, and names bound in the generated
function's namespace. No physics is written here; the text is the readable text, moved.
A ``'§ name'`` marker statement becomes a ``# name`` comment: each inlined call is marked
with the function it came from (the stage boundaries of a generated body).
"""

from __future__ import annotations

import ast
import inspect
import keyword
import operator
import textwrap
import threading  # strict: allow banned-import -- a lock for process-wide ast state
from collections.abc import Callable, Iterable
from math import isfinite
from types import FunctionType
from typing import NamedTuple

from skidpad.engine.smath.kernels import SIGN_SPLIT

RESULT = "__result__"

#: Held by every conversion between Python's syntax-tree objects and the compiler's
#: (``ast.parse``, ``compile`` of a tree, ``ast.unparse`` under :class:`_Positions`). CPython
#: 3.11 counts the depth of that conversion in one counter shared by all threads: a thread
#: switch in the middle of one (a collection running a finaliser) and another thread's parse
#: make one of them fail with "AST constructor recursion depth mismatch" (cpython gh-106905).
#: Two fuzz tasks recording side by side in threads hit it. Re-entrant: a holder may nest.
AST_LOCK = threading.RLock()


def parse_source(text: str) -> ast.Module:
    """The syntax tree of ``text`` (``ast.parse``), one thread at a time (:data:`AST_LOCK`)."""
    with AST_LOCK:
        return ast.parse(text)


#: a function made at run time (no source file) carries its text in this attribute (the
#: mutation test makes its variants of the readable functions so)
SOURCE_ATTRIBUTE = "specialise_source"
_BINOPS = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
    ast.FloorDiv: operator.floordiv,
    ast.Mod: operator.mod,
}
_CMPOPS = {
    ast.Lt: operator.lt,
    ast.LtE: operator.le,
    ast.Gt: operator.gt,
    ast.GtE: operator.ge,
    ast.Eq: operator.eq,
    ast.NotEq: operator.ne,
    ast.Is: operator.is_,
    ast.IsNot: operator.is_not,
}
#: the built-ins a readable function may name, all pure functions of their arguments (called
#: now on constant arguments); any other name of no module is an error
BUILTINS = {
    f.__name__: f
    for f in (range, len, abs, enumerate, zip, tuple, list, float, int, min, max, bool)
}
PURE_BUILTINS = frozenset(BUILTINS.values())


class Unfoldable(ValueError):
    """A constant is not finite: it has no literal to fold into the specialised function."""


class Unsupported(ValueError):
    """The readable function uses a construct the specialiser does not move (a bug to fix in
    the specialiser, never a reason to write the function differently)."""


class K(NamedTuple):
    """A value known at specialisation time (``hint``: a name for it, if it needs one)."""

    value: object
    hint: str = ""


class Agg(NamedTuple):
    """A record or tuple whose fields are values of the generated code (records as values):
    ``cls`` is a ``NamedTuple`` class, or ``None`` for a plain tuple; each item a :class:`K`,
    an :class:`Agg` or an expression. Bound to a local, its items are *settled* (each
    expression assigned once to a name of its own) and the local stands for them: a field
    read is a name read, and no record is built unless something needs the object."""

    cls: type | None
    items: tuple


class Maybe(NamedTuple):
    """A record or ``None``, decided when the code runs: a local bound to a record on one
    path of a branch and to ``None`` on the other. ``flag`` names the variable that holds
    whether the record is there; ``record``'s items are variables assigned on that path.
    Its fields are not read (on the other path there are none): it is passed on whole."""

    flag: str
    record: Agg


def _seq_fields(cls: type | None, n: int) -> Iterable:
    """The field names of a record class, or the indices of a tuple or list of ``n``."""
    return cls._fields if _is_record_class(cls) else range(n)


def _is_record_class(value: object) -> bool:
    return isinstance(value, type) and issubclass(value, tuple) and hasattr(value, "_fields")


class Plan(NamedTuple):
    """What to do with one readable function."""

    inline: frozenset  # functions whose calls are inlined
    fold: frozenset  # pure functions of constants, called now when their arguments are known
    #: (function, local): in ``function``, a kernel called on the name ``local`` is given a
    #: value that is not below zero (or nan), so only its positive side is inlined. A claim the
    #: caller declares and a test checks (``tire.shape_nonneg``), never a guess.
    nonneg: frozenset = frozenset()


class _Parsed(NamedTuple):
    args: tuple[str, ...]
    body: list
    assigned: frozenset  # every local the function assigns (parameters included)
    reassigned: frozenset  # the locals its body assigns
    loads: dict  # local -> how many times its body reads it
    defaults: tuple  # the values of its last parameters' defaults


_PARSED: dict = {}


def _parse(fn: Callable, inlined: bool) -> _Parsed:
    """The syntax tree of ``fn`` (cached), with ``return`` lowered to assignments of
    ``RESULT`` when it is to be inlined."""
    key = (fn, inlined)
    got = _PARSED.get(key)
    if got is not None:
        return got
    text = getattr(fn, SOURCE_ATTRIBUTE, None) or inspect.getsource(fn)
    tree = parse_source(textwrap.dedent(text))
    fdef = tree.body[0]
    if not isinstance(fdef, ast.FunctionDef):
        raise Unsupported(f"{fn.__qualname__}: not a plain function")
    a = fdef.args
    if a.vararg or a.kwarg or a.kwonlyargs or a.posonlyargs:
        raise Unsupported(f"{fn.__qualname__}: only plain positional parameters")
    body = list(fdef.body)
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
        body = body[1:]  # the docstring
    if inlined:
        body, _ = _lower(body)
    args = tuple(x.arg for x in a.args)
    stored: set = set()
    for node in body:
        stored |= _stores(node)
    loads: dict[str, int] = {}
    for node in body:
        for n in ast.walk(node):
            if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load):
                loads[n.id] = loads.get(n.id, 0) + 1
    defaults = tuple(getattr(fn, "__defaults__", None) or ())
    got = _Parsed(args, body, frozenset(stored | set(args)), frozenset(stored), loads, defaults)
    _PARSED[key] = got
    return got


_STORES: dict = {}


def _stores(node: ast.AST) -> frozenset:
    """The names ``node`` (a statement of a parsed function, kept alive by ``_PARSED``)
    assigns, cached by the node."""
    got = _STORES.get(node)
    if got is None:
        got = _STORES[node] = frozenset(
            n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)
        )
    return got


def _has_return(node: ast.AST) -> bool:
    return any(isinstance(n, ast.Return) for n in ast.walk(node))


def _lower(stmts: list) -> tuple[list, bool]:
    """``stmts`` with every ``return e`` made ``RESULT = e`` and what follows a branch that
    returned moved into the branches that did not; and whether every path returned."""
    out: list = []
    for i, s in enumerate(stmts):
        if isinstance(s, ast.Return):
            value = s.value if s.value is not None else ast.Constant(None)
            out.append(ast.Assign(targets=[ast.Name(RESULT, ast.Store())], value=value))
            return out, True
        if isinstance(s, ast.If) and _has_return(s):
            rest = stmts[i + 1 :]
            body, tb = _lower(s.body)
            orelse, te = _lower(s.orelse)
            if rest and not tb:
                body, tb = _lower(s.body + rest)
            if rest and not te:
                orelse, te = _lower(s.orelse + rest)
            out.append(ast.If(test=s.test, body=body or [ast.Pass()], orelse=orelse))
            return out, tb and te
        if _has_return(s):
            raise Unsupported("a return inside a loop or a with block")
        out.append(s)
    return out, False


class _Unit:
    """The whole generated function: its names and the namespace it runs in."""

    def __init__(self, plan: Plan) -> None:
        self.plan = plan
        self.used: set[str] = set()
        self.globals: dict[str, object] = {}
        self.by_id: dict[int, str] = {}
        self.keep: list = []  # the objects named, kept alive (by_id is keyed by identity)
        self.count = 0
        self.sides: dict = {}  # (kernel side, depth, results) -> its inlined body, with holes
        #: names assigned once in the whole generated body: a record's field may stand for one
        #: without a copy (the settled fields, the unassigned parameters of the function)
        self.stable: set[str] = set()
        self.result_record: Agg | None = None  # what the last inlined call returned, if a record
        self.returned: object = None  # what the specialised function's final return gives

    def field_name(self, hint: str) -> str:
        """A name for one settled field of a record, unique in the generated function."""
        self.count += 1
        name = f"_{hint.strip('_') or 'f'}_r{self.count}"
        while name in self.used:
            self.count += 1
            name = f"_{hint.strip('_') or 'f'}_r{self.count}"
        self.used.add(name)
        self.stable.add(name)
        return name

    def fresh(self, base: str) -> str:
        base = base.strip("_") or "t"
        name = base
        while name in self.used or keyword.iskeyword(name):
            self.count += 1
            name = f"{base}_{self.count}"
        self.used.add(name)
        return name

    def global_name(self, value: object, hint: str) -> str:
        """The namespace name of a constant that has no literal."""
        got = self.by_id.get(id(value))  # strict: allow hash-id -- identity of a live object
        if got is not None:
            return got
        if BUILTINS.get(hint) is value and hint not in self.used:
            name = hint
            self.used.add(name)
        else:
            name = self.fresh(getattr(value, "__name__", hint) or hint)
        self.by_id[id(value)] = name  # strict: allow hash-id -- identity of a live object
        self.keep.append(value)
        self.globals[name] = value
        return name


def literal(value: object, unit: _Unit, hint: str) -> ast.expr:
    """``value`` as an expression: a number's ``repr``, or a name bound in the namespace."""
    if value is None or isinstance(value, bool | str):
        return ast.Constant(value)
    if isinstance(value, int | float):
        if isinstance(value, float) and not isfinite(value):
            raise Unfoldable(f"cannot fold the non-finite constant {value!r}")
        if value < 0 or (value == 0 and str(value).startswith("-")):
            return ast.UnaryOp(ast.USub(), ast.Constant(-value))
        return ast.Constant(value)
    if isinstance(value, tuple) and all(
        isinstance(v, int | float) and not isinstance(v, bool) for v in value
    ):
        if len(value) <= 8:
            return ast.Tuple([literal(v, unit, hint) for v in value], ast.Load())
    return ast.Name(unit.global_name(value, hint), ast.Load())


class _Scope:
    """One function instance being written: the readable function or one inlined call."""

    def __init__(self, unit: _Unit, fn: Callable, parsed: _Parsed) -> None:
        self.unit = unit
        self.fn = fn
        self.parsed = parsed
        self.globals = fn.__globals__
        self.env: dict[str, K] = {}  # locals whose value is known here
        #: locals that stand for a settled record or tuple, or for a name assigned once
        self.records: dict[str, Agg | ast.Name] = {}
        #: the locals in ``records`` whose fields are variables, assigned again where the
        #: readable code stores an item or rebinds the local (a list, a merged record)
        self.slotted: set[str] = set()
        #: the result may stay a record (a call assigned to one name, not one in an expression)
        self.result_may_be_record = False
        self.names: dict[str, str] = {}  # local -> its name in the generated text
        self.depth = 0  # inside branches whose test is not constant
        self.list_depth: dict[str, int] = {}  # a list held as a value -> the depth it was bound
        self.pending: list = []  # statements a call inlined from the current statement needs
        self.chain: frozenset = frozenset({fn})  # the calls being inlined here (no recursion)
        self.given: frozenset = frozenset()  # the parameters bound to records of the caller

    def inlines(self, fn: object) -> bool:
        """Whether a call of ``fn`` is inlined here."""
        try:
            wanted = fn in self.unit.plan.inline or fn in SIGN_SPLIT
        except TypeError:  # not hashable: not a function
            return False
        return wanted and fn not in self.chain

    level = 0  # how deep in inlined calls this scope is (0: the specialised function)

    def name_of(self, local: str) -> str:
        """The name of ``local`` in the text. An inlined call's locals are dead once it has
        run, so calls inlined at the same depth share names (``_r_2``): the function keeps
        few locals (CPython clears every one at each return, and numbers beyond 255 cost an
        extra instruction to read)."""
        got = self.names.get(local)
        if got is None:
            if self.level == 0:
                got = self.unit.fresh(local)
            else:
                got = f"_{local.strip('_') or 'unused'}_{self.level}"
                self.unit.used.add(got)
            self.names[local] = got
        return got

    # ------------------------------------------------------------------ expressions
    def value(self, node: ast.expr, hoist: bool = True) -> K | ast.expr:
        """``node`` rebuilt: a :class:`K` where it is known now, else an expression
        (``hoist``: a call in it may be inlined before the statement)."""
        rule = _VALUE_RULES.get(type(node))
        if rule is None:
            raise Unsupported(f"{self.fn.__qualname__}: {type(node).__name__} expressions")
        return rule(self, node, hoist)

    def _constant(self, node: ast.Constant, hoist: bool) -> K:
        return K(node.value)

    def _name(self, node: ast.Name, hoist: bool) -> K | ast.expr:
        name = node.id
        got = self.env.get(name)
        if got is not None:
            return got
        record = self.records.get(name)
        if isinstance(record, ast.Name):
            return ast.Name(record.id, ast.Load())
        if record is not None:
            return record
        if name in self.parsed.assigned:
            return ast.Name(self.name_of(name), ast.Load())
        if name in self.globals:
            return K(self.globals[name], name)
        if name in BUILTINS:
            return K(BUILTINS[name], name)
        raise Unsupported(f"{self.fn.__qualname__}: unknown name {name}")

    def _attribute(self, node: ast.Attribute, hoist: bool) -> K | ast.expr:
        base = self.value(node.value, hoist)
        if isinstance(base, K):
            obj, attr = base.value, node.attr
            return K(getattr(obj, attr), attr)
        if isinstance(base, Maybe):
            raise Unsupported(f"{self.fn.__qualname__}: field {node.attr} of a value maybe None")
        if isinstance(base, Agg):
            if not _is_record_class(base.cls) or node.attr not in base.cls._fields:
                raise Unsupported(f"{self.fn.__qualname__}: field {node.attr} of a record")
            return self._field(base, base.cls._fields.index(node.attr))
        return ast.Attribute(base, node.attr, ast.Load())

    def _field(self, record: Agg, index: int) -> K | Agg | ast.expr:
        """One field of a record value; the others are dropped, which is only allowed when
        dropping them drops no call."""
        for i, item in enumerate(record.items):
            if item.__class__ is ast.Name or i == index or isinstance(item, K | Agg):
                continue
            if _calls(item):
                raise Unsupported(f"{self.fn.__qualname__}: a field read drops a call or a divide")
        item = record.items[index]
        return ast.Name(item.id, ast.Load()) if isinstance(item, ast.Name) else item

    def _subscript(self, node: ast.Subscript, hoist: bool) -> K | ast.expr:
        base = self.value(node.value, hoist)
        index = self.value(node.slice, hoist)
        if isinstance(base, K) and isinstance(index, K):
            try:
                return K(base.value[index.value])
            except LookupError:  # raised when it runs, as the readable function raises it
                self.raises = True
        if isinstance(base, Agg) and isinstance(index, K) and isinstance(index.value, int):
            return self._field(base, index.value)
        return ast.Subscript(self.expr(base, "c"), self.expr(index, "i"), ast.Load())

    def _binop(self, node: ast.BinOp, hoist: bool) -> K | ast.expr:
        left = self.value(node.left, hoist)
        right = self.value(node.right, hoist)
        if isinstance(left, K) and isinstance(right, K):
            op = _BINOPS.get(type(node.op))
            folded = _fold(op, left.value, right.value) if op is not None else None
            if folded is not None:
                return folded
        if (
            isinstance(node.op, ast.Mult)
            and isinstance(left, Agg)
            and left.cls is list
            and isinstance(right, K)
            and type(right.value) is int
            and all(isinstance(i, K) for i in left.items)
        ):  # [1.0] * n: the same constants n times (a list of values would share them)
            return Agg(list, left.items * max(right.value, 0))
        if isinstance(node.op, ast.Add) and (isinstance(left, Agg) or isinstance(right, Agg)):
            joined = _joined(left, right)  # tuple + tuple: the items of both, in order
            if joined is not None:
                return joined
        return ast.BinOp(self.expr(left, "c"), node.op, self.expr(right, "c"))

    def _unaryop(self, node: ast.UnaryOp, hoist: bool) -> K | ast.expr:
        operand = self.value(node.operand, hoist)
        if isinstance(operand, K):
            v = operand.value
            if isinstance(node.op, ast.USub) and isinstance(v, int | float):
                return K(-v)
            if isinstance(node.op, ast.Not):
                return K(not v)
        return ast.UnaryOp(node.op, self.expr(operand, "c"))

    def _compare(self, node: ast.Compare, hoist: bool) -> K | ast.expr:
        parts = [self.value(node.left, hoist)]
        parts += [self.value(c, hoist) for c in node.comparators]
        if len(node.ops) == 1 and isinstance(parts[0], K) and isinstance(parts[1], K):
            return K(_CMPOPS[type(node.ops[0])](parts[0].value, parts[1].value))
        return ast.Compare(
            self.expr(parts[0], "c"), node.ops, [self.expr(p, "c") for p in parts[1:]]
        )

    def _ifexp(self, node: ast.IfExp, hoist: bool) -> K | ast.expr:
        test = self.value(node.test, hoist)
        if isinstance(test, K):
            return self.value(node.body if test.value else node.orelse, hoist)
        return ast.IfExp(
            self.expr(test, "c"),
            self.expr(self.value(node.body, False), "c"),
            self.expr(self.value(node.orelse, False), "c"),
        )

    def _sequence(self, node: ast.Tuple | ast.List, hoist: bool) -> K | ast.expr:
        items = [self.value(e, hoist) for e in node.elts]
        if isinstance(node, ast.Tuple) and all(isinstance(i, K) for i in items):
            return K(tuple(i.value for i in items))
        return Agg(None if isinstance(node, ast.Tuple) else list, tuple(items))

    def _boolop(self, node: ast.BoolOp, hoist: bool) -> K | ast.expr:
        is_and = isinstance(node.op, ast.And)
        kept: list = []
        for i, operand in enumerate(node.values):
            v = self.value(operand, hoist and not kept and i == 0)
            if isinstance(v, K):
                decided = (not v.value) if is_and else bool(v.value)
                if decided:  # this operand is the result when reached
                    if not kept:
                        return v
                    kept.append(self.expr(v, "c"))
                    break
                if i == len(node.values) - 1:
                    if not kept:
                        return v
                    kept.append(self.expr(v, "c"))
                continue  # a neutral operand
            kept.append(self.expr(v, "c"))
        if len(kept) == 1:
            return kept[0]
        return ast.BoolOp(node.op, kept)

    @staticmethod
    def _sequence_value(v: object) -> Agg | None:
        """``v`` as a record value if it is a tuple, list or record of known length."""
        if isinstance(v, Agg):
            return v
        if isinstance(v, K) and type(v.value) in (tuple, list):
            return Agg(None, tuple(K(x) for x in v.value))
        return None

    def expr(self, v: K | Agg | ast.expr, hint: str) -> ast.expr:
        """``v`` as an expression (a record value builds its object here)."""
        if isinstance(v, K):
            return literal(v.value, self.unit, v.hint or hint)
        if isinstance(v, Agg):
            items = [self.expr(i, hint) for i in v.items]
            if v.cls is None:
                return ast.Tuple(items, ast.Load())
            if v.cls is list:
                return ast.List(items, ast.Load())
            return ast.Call(literal(v.cls, self.unit, v.cls.__name__), items, [])
        if isinstance(v, Maybe):
            made = self.expr(v.record, hint)
            return ast.IfExp(ast.Name(v.flag, ast.Load()), made, ast.Constant(None))
        return v

    def _call(self, node: ast.Call, hoist: bool) -> K | ast.expr:
        replaced = self._replace(node, hoist)
        if replaced is not None:
            return replaced
        func = self.value(node.func, hoist)
        if node.keywords and isinstance(func, K) and _is_record_class(func.value):
            return self._record_by_name(func.value, node, hoist)
        if node.keywords or any(isinstance(a, ast.Starred) for a in node.args):
            raise Unsupported(f"{self.fn.__qualname__}: keyword or starred arguments")
        args = [self.value(a, hoist) for a in node.args]
        if isinstance(func, K):
            fn = func.value
            plan = self.unit.plan
            if fn in (tuple, list, len) and len(args) == 1:
                seq = self._sequence_value(args[0]) if fn is list else args[0]
                if isinstance(seq, Agg):  # a copy of the items, or their number
                    if fn is len:
                        return K(len(seq.items))
                    return Agg(list if fn is list else None, seq.items)
            if _is_record_class(fn):  # a record is a value: built only if something needs it
                if all(isinstance(a, K) for a in args):
                    return K(fn(*(a.value for a in args)))
                return Agg(fn, tuple(args))
            if all(isinstance(a, K) for a in args) and (fn in plan.fold or fn in PURE_BUILTINS):
                return K(fn(*(a.value for a in args)))
            if (fn is max or fn is min) and len(args) == 2 and hoist:
                return self._extremum(fn, args)
            if hoist and self.inlines(fn):
                # the result lives until the statement has run: a name of this depth
                self.calls += 1
                result = f"_{fn.__name__.strip('_')}{self.calls}_{self.level}"
                self.unit.used.add(result)
                nonneg = self._nonneg(node.args)
                self.pending += self.inline_call(fn, args, [result], nonneg, record_ok=True)
                record, self.unit.result_record = self.unit.result_record, None
                return ast.Name(result, ast.Load()) if record is None else record
            func = literal(fn, self.unit, func.hint or "f")
        return ast.Call(func, [self.expr(a, "c") for a in args], [])

    def _record_by_name(self, cls: type, node: ast.Call, hoist: bool) -> Agg:
        """``Record(a, field=value, ...)``: the record value, its arguments read in the order
        they are written (as Python evaluates them), a field left out taking its default."""
        fields = cls._fields
        named = [k.arg for k in node.keywords]
        if (
            any(isinstance(a, ast.Starred) for a in node.args)
            or None in named
            or len(set(named)) != len(named)
            or set(named) & set(fields[: len(node.args)])
            or not set(named) <= set(fields)
        ):
            raise Unsupported(f"{self.fn.__qualname__}: {cls.__name__} built from unknown fields")
        given = dict(zip(fields, (self.value(a, hoist) for a in node.args), strict=False))
        for k in node.keywords:
            given[k.arg] = self.value(k.value, hoist)
        defaults = cls._field_defaults
        missing = [f for f in fields if f not in given and f not in defaults]
        if missing:
            raise Unsupported(f"{self.fn.__qualname__}: {cls.__name__} without {missing}")
        return Agg(cls, tuple(given[f] if f in given else K(defaults[f]) for f in fields))

    def _replace(self, node: ast.Call, hoist: bool) -> Agg | None:
        """``record._replace(field=value, ...)`` of a record value: the same record with those
        fields' values (a NamedTuple's copy, built only if something needs the object); None
        for any other call."""
        if not _replaces(node):
            return None
        base = self.value(node.func.value, hoist)
        if not (isinstance(base, Agg) and _is_record_class(base.cls)):
            return None
        fields = base.cls._fields
        if node.args or any(k.arg not in fields for k in node.keywords):
            raise Unsupported(f"{self.fn.__qualname__}: _replace takes the record's fields")
        items = list(base.items)
        for k in node.keywords:
            items[fields.index(k.arg)] = self.value(k.value, hoist)
        return Agg(base.cls, tuple(items))

    def _extremum(self, fn: Callable, args: list) -> ast.expr:
        """``max(a, b)`` as CPython computes it, ``b if b > a else a`` (``min``: ``<``): the
        first argument unless the second compares greater (less), so a tie, a signed zero or
        a nan gives what the call gives. Each argument is evaluated once, in order."""
        a, b = (self._operand(x) for x in args)
        op = ast.Gt() if fn is max else ast.Lt()
        return ast.IfExp(ast.Compare(b, [op], [a]), b, a)

    def _operand(self, v: K | Agg | ast.expr) -> ast.expr:
        """``v`` as a literal or a name (a computed value assigned, before the statement, to a
        name of its own)."""
        if isinstance(v, K | ast.Name):
            return self.expr(v, "m")
        name = self.unit.field_name("m")
        self.pending.append(_assign(name, self.expr(v, "m")))
        return ast.Name(name, ast.Load())

    # ------------------------------------------------------------------ inlining
    def _nonneg(self, args: list) -> bool:
        """Whether a kernel's one readable argument is a name declared not below zero."""
        return (
            len(args) == 1
            and isinstance(args[0], ast.Name)
            and (self.fn, args[0].id) in self.unit.plan.nonneg
        )

    def inline_call(
        self,
        fn: Callable,
        args: list,
        targets: list[str],
        nonneg: bool = False,
        record_ok: bool = False,
    ) -> list:
        """The statements of ``targets = fn(*args)`` with ``fn``'s body inlined (``targets``
        one name, or several for a function returning a tuple; ``nonneg``: a kernel's argument
        is declared not below zero, and only its positive side is written)."""
        out: list = [ast.Expr(ast.Constant(f"§ {_label(fn)} -> {', '.join(targets)}"))]
        if fn in SIGN_SPLIT:
            neg, pos = SIGN_SPLIT[fn]
            # a side is a leaf: its rare fallbacks call the kernels, never inline them
            self.chain, chain = self.chain | _KERNELS, self.chain
            (x,) = args
            if isinstance(x, K):
                out += self.inline_call(neg if x.value < 0.0 else pos, args, targets)
                self.chain = chain
                return out
            if not isinstance(x, ast.Name):
                name = f"_x_{self.level + 1}"
                out.append(_assign(name, x))
                x = ast.Name(name, ast.Load())
            if nonneg:
                out += self._side(pos, x.id, targets)
                self.chain = chain
                return out
            test = ast.Compare(x, [ast.Lt()], [ast.Constant(0.0)])
            body = self._side(neg, x.id, targets)
            orelse = self._side(pos, x.id, targets)
            self.chain = chain
            return [*out, ast.If(test, body, orelse)]
        parsed = _parse(fn, inlined=True)
        missing = len(parsed.args) - len(args)
        if isinstance(fn, FunctionType) and 0 < missing <= len(parsed.defaults):
            args = [*args, *(K(v) for v in parsed.defaults[len(parsed.defaults) - missing :])]
        if not isinstance(fn, FunctionType) or len(args) != len(parsed.args):
            raise Unsupported(f"cannot inline {fn!r} with {len(args)} arguments")
        scope = _Scope(self.unit, fn, parsed)
        scope.chain = self.chain | {fn}
        scope.level = self.level + 1
        for param, arg in zip(parsed.args, args, strict=True):
            if isinstance(arg, K):
                scope.env[param] = arg
            elif isinstance(arg, ast.Name) and param not in parsed.reassigned:
                scope.names[param] = arg.id
            elif isinstance(arg, Agg) and param not in parsed.reassigned:
                made, scope.records[param] = self._settle(arg, param)
                out += made
            else:
                name = scope.name_of(param)
                out.append(_assign(name, arg))
        if len(targets) == 1:
            scope.names[RESULT] = targets[0]
            scope.result_may_be_record = record_ok
            return out + scope.block(parsed.body)
        scope.tuple_result = targets
        return out + scope.block(parsed.body)

    def _side(self, side: Callable, x: str, targets: list[str]) -> list:
        """A kernel side inlined for the argument named ``x``. Its text at one depth differs
        only in the argument's and the results' names, so it is written once per depth and
        copied with those names (most of a specialised CommonRoad body is kernels)."""
        key = (side, self.level + 1, len(targets))
        template = self.unit.sides.get(key)
        if template is None:
            holes = [f"\x00{i}" for i in range(len(targets))]
            body = self.inline_call(side, [ast.Name("\x00x", ast.Load())], holes)[1:]
            template = self.unit.sides[key] = body
        names = {"\x00x": x, **{f"\x00{i}": t for i, t in enumerate(targets)}}
        return _clone(template, names)

    # ------------------------------------------------------------------ statements
    tuple_result: list[str] | None = None

    def block(self, stmts: Iterable) -> list:
        out: list = []
        stmts = list(stmts)
        for k, s in enumerate(stmts):
            if isinstance(s, ast.While):  # the loop takes the rest of the block with it
                return out + self._while(s, stmts[k + 1 :], 0)
            out += self.statement(s)
            if out and isinstance(out[-1], ast.Return):
                break  # what follows a return (after a known branch) never runs
        return out

    loops = 0  # unrolled loops the current statement is in (their bodies run again)
    raises = False  # the expression just read raises when it runs (an index past the end)

    def _snapshot(self) -> tuple:
        return dict(self.env), dict(self.records), set(self.slotted)

    def _restore(self, saved: tuple) -> None:
        self.env, self.records, self.slotted = dict(saved[0]), dict(saved[1]), set(saved[2])

    def _arm(
        self, write: Callable, stores: set, nodes: list, saved: tuple, ends: dict | None = None
    ) -> list:
        """One path of a branch whose test is not known, written by ``write()`` from the
        knowledge before the branch: what it binds to a known value or a record stays so
        along it (``i = 0`` then ``t[i]`` folds) and is assigned at its end when anything
        after the branch may read it (``nodes``: the statements the branch stands for).
        ``ends``, if given, receives those values instead, for :meth:`_merge` to assign."""
        self._restore(saved)
        made = write()
        if not (made and isinstance(made[-1], ast.Return | ast.Break)):
            held = {
                local: v
                for local, v in self.records.items()
                if isinstance(v, Agg | Maybe) and local not in self.slotted
            }
            for local in sorted(stores & (set(self.env) | set(held))):
                if self.loops or self.parsed.loads.get(local, 0) > _loads_in(nodes, local):
                    v = self.env.get(local) or held[local]
                    if ends is not None:
                        ends[local] = v
                    else:
                        made.append(_assign(self.name_of(local), self.expr(v, local)))
        self._restore(saved)
        return made

    def _merge(self, ends: tuple[dict, dict], arms: tuple[list, list]) -> None:
        """After a branch whose test is not known: each local whose paths end with a value
        (``ends``, one dict per arm) is assigned at the end of each arm (``arms``). A record
        on both paths (one class) becomes one variable per field; a record on one path and
        ``None`` on the other the same plus a variable saying which; anything else its
        object (or constant)."""
        for local in sorted(set(ends[0]) | set(ends[1])):
            self._forget(local)
            a, b = ends[0].get(local), ends[1].get(local)
            shape = _merged_shape(a, b)
            if shape is None:  # each path assigns its value as it is
                for arm, v in zip(arms, (a, b), strict=True):
                    if v is not None:
                        arm.append(_assign(self.name_of(local), self.expr(v, local)))
                continue
            base = local.strip("_") or "s"  # one name per merge: each path's values stay apart
            fields = _seq_fields(shape.cls, len(shape.items))
            flag = None
            if not (isinstance(a, Agg) and isinstance(b, Agg)):
                flag = self.unit.fresh(f"{base}_some")
            # a record on one path only keeps its constant fields as constants: they are
            # read only where the record is, and there they are that constant
            present = a if isinstance(a, Agg) else b
            kept = [flag is not None and isinstance(i, K) for i in present.items]
            slots = [
                None if keep else self.unit.fresh(f"{base}_{f}")
                for f, keep in zip(fields, kept, strict=True)
            ]
            names = tuple(
                i if n is None else ast.Name(n, ast.Load())
                for n, i in zip(slots, present.items, strict=True)
            )
            for arm, v in zip(arms, (a, b), strict=True):
                if flag is not None:
                    arm.append(_assign(flag, ast.Constant(isinstance(v, Agg))))
                if isinstance(v, Agg):
                    arm += [
                        _assign(n, self.expr(i, n))
                        for n, i in zip(slots, v.items, strict=True)
                        if n is not None
                    ]
            record = Agg(shape.cls, names)
            if flag is None:
                self.records[local] = record
                self.slotted.add(local)
            else:
                self.records[local] = Maybe(flag, record)

    def _while(self, s: ast.While, rest: list, trips: int) -> list:
        """``while test: body`` and the rest of its block, unrolled: a known test runs the
        body or leaves; a test known only when it runs is a branch whose one arm runs the
        body and the loop again, the other the rest of the block (each arm keeps what it
        knows, so a counter stays a constant along each path)."""
        exits = (ast.Break, ast.Continue, ast.Return)
        if s.orelse or any(isinstance(n, exits) for n in ast.walk(s)):
            raise Unsupported(f"{self.fn.__qualname__}: a loop with else, break or return")
        if trips > WHILE_TRIPS:
            raise Unsupported(f"{self.fn.__qualname__}: a loop of more than {WHILE_TRIPS} trips")
        self.pending = []
        self.raises = False
        test = _truth(self.value(s.test))
        pending, self.pending = self.pending, []
        if self.raises:  # the test raises here, as the readable loop's would: nothing follows
            message = ast.Constant("tuple index out of range")
            unreached = ast.Raise(ast.Call(ast.Name("IndexError", ast.Load()), [message], []))
            return [*pending, ast.Expr(self.expr(test, "c")), unreached]
        if isinstance(test, K):
            if not test.value:
                return pending + self.block(rest)
            self.loops += 1
            body = self.block(s.body)
            self.loops -= 1
            return pending + body + self._while(s, rest, trips + 1)
        test_expr = self.expr(test, "c")
        pending, self.pending = pending + self.pending, []
        nodes = [s, *rest]
        stores: set = set()
        for node in nodes:
            stores |= _stores(node)
        out = pending + self._materialise(nodes, records_only=True)
        saved = self._snapshot()
        self.depth += 1

        def again() -> list:
            self.loops += 1
            body = self.block(s.body)
            self.loops -= 1
            return body + self._while(s, rest, trips + 1)

        then = self._arm(again, stores, nodes, saved)
        done = self._arm(lambda: self.block(rest), stores, nodes, saved)
        self.depth -= 1
        for local in sorted(stores):  # assigned on every path: a variable from here on
            self.env.pop(local, None)
        return [*out, ast.If(test_expr, then or [ast.Pass()], done)]

    calls = 0  # calls inlined from the current statement

    def statement(self, s: ast.stmt) -> list:  # noqa: PLR0911, PLR0912
        self.pending = []
        self.calls = 0
        if isinstance(s, ast.Assign) and len(s.targets) == 1:
            made = self._assign(s.targets[0], s.value)
        elif isinstance(s, ast.Assign):  # a = b = value
            v = self.value(s.value)
            made = []
            for t in s.targets:
                made += self._bind(t, v)
        elif isinstance(s, ast.AugAssign):
            made = self._augassign(s)
        elif isinstance(s, ast.If):
            made = self._if(s)
        elif isinstance(s, ast.For):
            made = self._for(s)
        elif isinstance(s, ast.Return):
            v = self.value(s.value) if s.value is not None else K(None)
            if self.level == 0 and self.depth == 0:
                self.unit.returned = v
            made = [ast.Return(self.expr(v, "c"))]
        elif isinstance(s, ast.Expr):
            if isinstance(s.value, ast.Constant):
                return []
            appended = _appended(s.value)
            if appended is not None:
                made = self._append(*appended)
            else:
                made = [ast.Expr(self.expr(self.value(s.value), "c"))]
        elif isinstance(s, ast.Pass):
            made = []
        elif isinstance(s, ast.Break) and self.kept is not None:
            made = [*self._leave_pass(), ast.Break()]
        elif isinstance(s, ast.Raise):
            made = [ast.Raise(self.expr(self.value(s.exc), "c"), None)]
        else:
            raise Unsupported(f"{self.fn.__qualname__}: {type(s).__name__} statements")
        pending, self.pending = self.pending, []
        return pending + made

    def _assign(self, target: ast.expr, value: ast.expr) -> list:
        names = target.elts if isinstance(target, ast.Tuple) else [target]
        if _replaces(value):  # a record's copy with some fields changed: a value, not a call
            return self._bind(target, self.value(value))
        if isinstance(value, ast.Call) and all(isinstance(e, ast.Name) for e in names):
            func = self.value(value.func)
            fn = func.value if isinstance(func, K) else None
            if fn is not None and self.inlines(fn):
                args = [self.value(a) for a in value.args]
                locals_ = [e.id for e in names]
                if RESULT in locals_:
                    if self.tuple_result is not None:
                        targets = list(self.tuple_result)
                    else:
                        targets = [self.name_of(RESULT)]
                else:
                    for local in locals_:
                        self._forget(local)
                    targets = [self.name_of(local) for local in locals_]
                read = set().union(*(_names_read(a) for a in args))
                nonneg = self._nonneg(value.args)
                if len(locals_) == 1 and not read & set(targets):
                    # one name: what the call returns may stay a record (its fields settled)
                    out = self.inline_call(fn, args, targets, nonneg, record_ok=True)
                    record, self.unit.result_record = self.unit.result_record, None
                    if record is None:
                        return out
                    return out + self._bind(names[0], record)
                if not read & set(targets):
                    return self.inline_call(fn, args, targets, nonneg)
                temps = [self.unit.fresh(t) for t in targets]
                out = self.inline_call(fn, args, temps, nonneg)
                return out + [
                    _assign(t, ast.Name(m, ast.Load())) for t, m in zip(targets, temps, strict=True)
                ]  # noqa: E501
        if (
            isinstance(value, ast.Call)
            and isinstance(target, ast.Tuple)
            and all(isinstance(e, ast.Name | ast.Subscript) for e in names)
        ):  # a, x[i] = f(...): the call's results in names of their own, then stored
            func = self.value(value.func)
            fn = func.value if isinstance(func, K) else None
            if fn is not None and self.inlines(fn):
                args = [self.value(a) for a in value.args]
                temps = [self.unit.fresh("r") for _ in names]
                out = self.inline_call(fn, args, temps, self._nonneg(value.args))
                for e, m in zip(names, temps, strict=True):
                    out += self._bind(e, ast.Name(m, ast.Load()))
                return out
        return self._bind(target, self.value(value))

    def _bind(self, target: ast.expr, v: K | Agg | ast.expr) -> list:
        if isinstance(target, ast.Subscript):
            return self._store_item(target, None, v)
        if isinstance(target, ast.Attribute):
            return self._store_field(target, v)
        if isinstance(target, ast.Name):
            if target.id == RESULT and self.tuple_result is not None:
                return self._bind_tuple_result(v)
            if target.id in self.slotted:
                seq = self._sequence_value(v)
                if seq is not None and self._fits(target.id, seq):
                    return self._assign_slots(target.id, seq)
                if self.depth > 0:
                    raise Unsupported(
                        f"{self.fn.__qualname__}: {target.id} bound to another shape in a branch"
                    )
                self._forget(target.id)
            if isinstance(v, Agg) and v.cls is list and target.id != RESULT and self.depth == 0:
                # (in a branch, the other arm may bind the name to anything: an object)
                return self._new_slots(target.id, v)
            if isinstance(v, K) and target.id != RESULT:  # in a branch: known along its path
                self.env[target.id] = v
                return []
            # a record bound in a branch stays one until the branch's end (_arm, _merge); so
            # does a list begun empty there, grown by append (other lists there, and what an
            # inlined call returns from a branch, are objects)
            record_here = isinstance(v, Agg) and (
                self.depth == 0
                or (target.id != RESULT and (v.cls is not list or not v.items))
            )
            if record_here:
                made = self._bind_record(target.id, v)
                if v.cls is list:
                    self.list_depth[target.id] = self.depth
                return made
            if isinstance(v, Maybe) and target.id != RESULT:
                self._forget(target.id)
                self.records[target.id] = v
                return []
            if (
                isinstance(v, ast.Name)
                and v.id in self.unit.stable
                and self.depth == 0
                and self.level > 0
                and target.id != RESULT
            ):  # in an inlined call, a second name for a value assigned once: no move (the
                # specialised function's own locals are what its caller reads: assigned)
                self._forget(target.id)
                self.records[target.id] = v
                return []
            self._forget(target.id)
            return [_assign(self.name_of(target.id), self.expr(v, target.id))]
        if isinstance(target, ast.Tuple) and isinstance(v, K):
            out = []
            for e, item in zip(target.elts, v.value, strict=True):
                out += self._bind(e, K(item))
            return out
        if isinstance(target, ast.Tuple) and isinstance(v, Agg):
            if len(v.items) != len(target.elts):
                raise Unsupported(f"{self.fn.__qualname__}: unpacking {len(v.items)} values")
            out = []
            stored = {self.name_of(n.id) for n in ast.walk(target) if isinstance(n, ast.Name)}
            if stored & _names_read(v):  # a, b = b, a: every value read before any store
                out, v = self._settle(v, "t", copy_all=True)
            for e, item in zip(target.elts, v.items, strict=True):
                out += self._bind(e, item)
            return out
        if isinstance(target, ast.Tuple) and all(isinstance(e, ast.Name) for e in target.elts):
            for e in target.elts:
                self._forget(e.id)
            elts = [ast.Name(self.name_of(e.id), ast.Store()) for e in target.elts]
            return [ast.Assign([ast.Tuple(elts, ast.Store())], self.expr(v, "t"))]
        raise Unsupported(f"{self.fn.__qualname__}: assignment to {ast.dump(target)[:40]}")

    def _store_field(self, target: ast.Attribute, v: K | Agg | ast.expr) -> list:
        """``record.field = v`` of a record the specialised function was given
        (:func:`specialise`'s ``bound``): the record stands for the same fields with this one
        replaced, ``v`` settled in a name of its own. Only in the function's own body, outside
        branches: the caller reads the record's final fields (:attr:`Specialised.records`)."""
        base = target.value
        given = (
            isinstance(base, ast.Name)
            and base.id in self.given
            and base.id not in self.parsed.reassigned
        )  # (a record the function made is a NamedTuple: a store to it raises)
        record = self.records.get(base.id) if given else None
        if not (
            isinstance(record, Agg)
            and _is_record_class(record.cls)
            and target.attr in record.cls._fields
            and self.level == 0
            and self.depth == 0
        ):
            raise Unsupported(f"{self.fn.__qualname__}: a store to {ast.unparse(target)}")
        index = record.cls._fields.index(target.attr)
        if isinstance(v, Maybe):
            raise Unsupported(f"{self.fn.__qualname__}: {target.attr} stored maybe None")
        out, settled = self._settle(Agg(None, (v,)), f"{base.id}_{target.attr}")
        items = record.items[:index] + settled.items + record.items[index + 1 :]
        self.records[base.id] = Agg(record.cls, items)
        return out

    def _bind_record(self, local: str, v: Agg) -> list:
        """``local = v`` for a record value: its fields settled, ``local`` stands for them
        (the result of an inlined call assigned to one name hands them to the caller)."""
        out, settled = self._settle(v, self.name_of(local) if local == RESULT else local)
        if local == RESULT:
            if not self.result_may_be_record:
                return out + [_assign(self.name_of(RESULT), self.expr(settled, RESULT))]
            self.unit.result_record = settled
            return out
        self._forget(local)
        self.records[local] = settled
        return out

    def _settle(self, v: Agg, hint: str, copy_all: bool = False) -> tuple[list, Agg]:
        """Statements giving each field of ``v`` a name assigned once (a constant stays one; a
        name assigned once already is kept unless ``copy_all``), and the settled record."""
        out: list = []
        items: list = []
        for field, item in zip(_seq_fields(v.cls, len(v.items)), v.items, strict=True):
            if isinstance(item, K | Maybe):
                items.append(item)
            elif isinstance(item, Agg):
                made, sub = self._settle(item, f"{hint}_{field}", copy_all)
                out += made
                items.append(sub)
            elif isinstance(item, ast.Name) and item.id in self.unit.stable and not copy_all:
                items.append(item)
            else:
                name = self.unit.field_name(f"{hint}_{field}")
                out.append(_assign(name, item))
                items.append(ast.Name(name, ast.Load()))
        return out, Agg(v.cls, tuple(items))

    def _bind_tuple_result(self, v: K | Agg | ast.expr) -> list:
        targets = self.tuple_result
        if isinstance(v, Agg):
            if len(v.items) != len(targets):
                raise Unsupported(f"{self.fn.__qualname__}: returns no tuple of {len(targets)}")
            v = ast.Tuple([self.expr(i, "t") for i in v.items], ast.Load())
        if isinstance(v, K):
            return [
                _assign(t, literal(x, self.unit, t)) for t, x in zip(targets, v.value, strict=True)
            ]  # noqa: E501
        if not isinstance(v, ast.Tuple) or len(v.elts) != len(targets):
            raise Unsupported(f"{self.fn.__qualname__}: returns no tuple of {len(targets)}")
        read = {n.id for e in v.elts for n in ast.walk(e) if isinstance(n, ast.Name)}
        if read & set(targets):
            elts = [ast.Name(t, ast.Store()) for t in targets]
            return [ast.Assign([ast.Tuple(elts, ast.Store())], v)]
        return [_assign(t, e) for t, e in zip(targets, v.elts, strict=True)]

    def _forget(self, local: str) -> None:
        self.env.pop(local, None)
        self.records.pop(local, None)
        self.slotted.discard(local)
        self.list_depth.pop(local, None)

    def _append(self, local: str, item: ast.expr) -> list:
        """``local.append(item)`` for a list the specialiser holds as a value: one item
        longer, its value settled here (a list bound outside the current branch is refused:
        the other path would not see the item)."""
        held = self.records.get(local)
        if held is None and local not in self.env:  # a list object: its own append
            return [ast.Expr(self.expr(self.value(ast.Call(
                ast.Attribute(ast.Name(local, ast.Load()), "append", ast.Load()), [item], []
            )), "c"))]  # fmt: skip
        if not (
            isinstance(held, Agg)
            and held.cls is list
            and self.list_depth.get(local) == self.depth
        ):
            raise Unsupported(f"{self.fn.__qualname__}: append to {local}, not a list value here")
        v = self.value(item)
        out: list = []
        if local in self.slotted:  # one more variable
            if isinstance(v, Agg):
                raise Unsupported(f"{self.fn.__qualname__}: a record appended to {local}")
            (name,) = self._slot_names(f"{local}_{len(held.items)}", 1)
            self.records[local] = Agg(list, (*held.items, ast.Name(name, ast.Load())))
            return [_assign(name, self.expr(v, name))]
        if isinstance(v, Agg):
            out, v = self._settle(v, f"{local}_{len(held.items)}")
        elif not isinstance(v, K | ast.Name):
            name = self.unit.field_name(f"{local}_{len(held.items)}")
            out = [_assign(name, self.expr(v, name))]
            v = ast.Name(name, ast.Load())
        self.records[local] = Agg(list, (*held.items, v))
        return out

    # ------------------------------------------------------------------ slots
    def _slot_names(self, local: str, n: int) -> list[str]:
        """The variables of ``local``'s items (an inlined call's are shared by the calls
        inlined at its depth, as its other locals are). They are assigned more than once,
        so never stable: a record that takes their values copies them."""
        base = local.strip("_") or "s"
        if self.level == 0:
            return [self.unit.fresh(f"{base}_{i}") for i in range(n)]
        names = [f"_{base}_{i}_s{self.level}" for i in range(n)]
        self.unit.used.update(names)
        return names

    def _new_slots(self, local: str, v: Agg) -> list:
        """``local = v``, ``v`` a list (or a record to merge across a branch): one variable
        per item, assigned here."""
        self._forget(local)
        names = self._slot_names(local, len(v.items))
        out: list = []
        for name, item in zip(names, v.items, strict=True):
            if isinstance(item, Agg):
                raise Unsupported(f"{self.fn.__qualname__}: a list of records in {local}")
            out.append(_assign(name, self.expr(item, name)))
        self.records[local] = Agg(v.cls, tuple(ast.Name(n, ast.Load()) for n in names))
        self.slotted.add(local)
        self.list_depth[local] = self.depth
        return out

    def _fits(self, local: str, v: Agg) -> bool:
        """Whether ``v`` can be stored in ``local``'s variables: as many items, and of the
        same kind (a tuple, a list or one record class) where a branch may store it."""
        held = self.records[local]
        same_kind = v.cls is held.cls or self.depth == 0
        return (
            same_kind
            and len(v.items) == len(held.items)
            and not any(isinstance(i, Agg | Maybe) for i in v.items)
            and all(isinstance(i, ast.Name) for i in held.items)
        )

    def _assign_slots(self, local: str, v: Agg) -> list:
        """``local = v`` into ``local``'s variables (every value read before any store)."""
        held = self.records[local]
        names = [n.id for n in held.items]
        out: list = []
        if _names_read(v) & set(names):
            out, v = self._settle(v, local, copy_all=True)
        out += [_assign(n, self.expr(i, n)) for n, i in zip(names, v.items, strict=True)]
        self.records[local] = Agg(v.cls, held.items)
        return out

    def _store_item(self, target: ast.Subscript, op: ast.operator | None, v: object) -> list:
        """``x[i] = v`` (``op`` None) or ``x[i] op= v`` for a list ``x`` kept as slots."""
        base = target.value
        if not (isinstance(base, ast.Name) and base.id in self.slotted):
            raise Unsupported(f"{self.fn.__qualname__}: an item stored in a value not a list")
        held = self.records[base.id]
        if held.cls is not list:
            raise Unsupported(f"{self.fn.__qualname__}: an item stored in a tuple")
        names = [n.id if isinstance(n, ast.Name) else "" for n in held.items]
        index = self.value(target.slice)
        n = len(names)
        if not all(names) and not (isinstance(index, K) and op is None and self.depth == 0):
            raise Unsupported(f"{self.fn.__qualname__}: a list holding a record stored into")

        def store(name: str, value: ast.expr) -> ast.stmt:
            if op is None:
                return _assign(name, value)
            return ast.AugAssign(ast.Name(name, ast.Store()), op, value)

        message = ast.Constant("list index out of range")
        out_of_range = ast.Raise(ast.Call(ast.Name("IndexError", ast.Load()), [message], []), None)
        if isinstance(index, K):
            i = index.value
            if type(i) is not int:  # raised when it runs, as the readable store raises it
                message = ast.Constant(f"list indices must be integers, not {type(i).__name__}")
                error = ast.Call(ast.Name("TypeError", ast.Load()), [message], [])
                return [ast.Raise(error, None)]
            if not -n <= i < n:
                return [out_of_range]
            if op is None and isinstance(v, Agg | Maybe) and self.depth == 0:
                # a record in a list: the item stands for it (no branch stores into it)
                items = list(held.items)
                items[i % n] = v
                self.records[base.id] = Agg(list, tuple(items))
                return []
            if not names[i % n]:
                raise Unsupported(f"{self.fn.__qualname__}: a value stored over a record")
            return [store(names[i % n], self.expr(v, names[i % n]))]
        # an index known only when it runs: one test per item, in order, the value once
        j = self._operand(index)
        value = self._operand(v)
        chain: list = [out_of_range]
        for k in reversed(range(n)):
            test = ast.BoolOp(
                ast.Or(),
                [
                    ast.Compare(j, [ast.Eq()], [ast.Constant(k)]),
                    ast.Compare(j, [ast.Eq()], [literal(k - n, self.unit, "i")]),
                ],
            )
            chain = [ast.If(test, [store(names[k], value)], chain)]
        return chain

    def _materialise(
        self, stmts: list, records_only: bool = False, keep: frozenset = frozenset()
    ) -> list:
        """Assignments of the known locals that ``stmts`` (a branch or a loop body) assign:
        after a branch whose test is not known, they are ordinary variables (``records_only``:
        the records alone, for a branch after which the block ends)."""
        out: list = []
        if not self.env and not self.records:
            return out
        assigned: set = set()
        for s in stmts:
            assigned |= _stores(s)
        assigned -= self.slotted  # already variables
        assigned -= keep  # rebound on every path before any read: the old value is dead
        known = set(self.records) if records_only else set(self.env) | set(self.records)
        for local in sorted(assigned & known):
            held = self.env.get(local) or self.records.get(local)
            seq = self._sequence_value(held)
            if seq is not None and _rebinds_as_sequence(stmts, local):
                out += self._new_slots(local, seq)  # one variable per field, merged
            elif local in self.env:
                v = self.env.pop(local)
                out.append(_assign(self.name_of(local), literal(v.value, self.unit, local)))
            else:  # the record object, built now
                record = self.records.pop(local)
                out.append(_assign(self.name_of(local), self.expr(record, local)))
        return out

    def _augassign(self, s: ast.AugAssign) -> list:
        if isinstance(s.target, ast.Subscript):
            v = self.value(s.value)
            return self._store_item(s.target, s.op, v)
        if not isinstance(s.target, ast.Name) or s.target.id in self.slotted:
            raise Unsupported(f"{self.fn.__qualname__}: augmented assignment to a non-name")
        v = self.value(s.value)
        local = s.target.id
        op = _BINOPS.get(type(s.op))
        if local in self.env and isinstance(v, K) and op is not None:
            folded = _fold(op, self.env[local].value, v.value)
            if folded is not None:
                self.env[local] = folded
                return []
        out = self._materialise([s])
        target = ast.Name(self.name_of(local), ast.Store())
        return [*out, ast.AugAssign(target, s.op, self.expr(v, local))]

    def _if(self, s: ast.If) -> list:
        test = _truth(self.value(s.test))
        if isinstance(test, K):
            pending, self.pending = self.pending, []
            return pending + self.block(s.body if test.value else s.orelse)
        test_expr = self.expr(test, "c")
        pending, self.pending = self.pending, []
        rebound = _rebound_on_both_paths(s)
        out = pending + self._materialise([*s.body, *s.orelse], keep=rebound)
        stores: set = set()
        for node in (*s.body, *s.orelse):
            stores |= _stores(node)
        saved = self._snapshot()
        self.depth += 1
        ends: tuple[dict, dict] = ({}, {})
        body = self._arm(lambda: self.block(s.body), stores, [s], saved, ends[0])
        orelse = self._arm(lambda: self.block(s.orelse), stores, [s], saved, ends[1])
        self.depth -= 1
        for local in rebound:  # its value before the branch is not read again
            if local not in self.slotted:
                self._forget(local)
        self._merge(ends, (body, orelse))
        return [*out, ast.If(test_expr, body or [ast.Pass()], orelse)]

    def _for(self, s: ast.For) -> list:
        it = self.value(s.iter)
        if s.orelse:
            raise Unsupported(f"{self.fn.__qualname__}: a loop with else")
        if isinstance(it, Agg):  # a list or tuple of known length: its items, in order
            items: Iterable = it.items
        elif isinstance(it, K):
            items = [K(x) for x in it.value]
        else:
            raise Unsupported(f"{self.fn.__qualname__}: a loop over values not known now")
        if _breaks(s.body):  # left when it runs: kept a loop
            return self._kept_loop(s, it)
        body = _continue_lowered(s)
        pending, self.pending = self.pending, []
        out = pending
        self.loops += 1
        for item in items:
            out += self._bind_loop(s.target, item)
            out += self.block(body)
        self.loops -= 1
        return out

    #: in a kept loop's body: the locals it assigns that a later pass or the code after the
    #: loop reads (see _kept_loop); None outside one
    kept: frozenset | None = None

    def _kept_loop(self, s: ast.For, it: object) -> list:
        """``for _ in range(n)`` whose body may ``break`` on a test known only when it runs:
        written as a loop. What the body assigns is a variable before it and at its end
        (each pass starts from the variables); inside one pass, what it knows it keeps."""
        if not (
            isinstance(it, K)
            and isinstance(it.value, range)
            and isinstance(s.target, ast.Name)
            and s.target.id not in self.parsed.loads
        ):
            raise Unsupported(f"{self.fn.__qualname__}: a loop with break over {s.iter!r}")
        if _breaks(s.body, (ast.Continue, ast.Return)):
            raise Unsupported(f"{self.fn.__qualname__}: a kept loop with continue or return")
        stores: set = set()
        for st in s.body:
            stores |= _stores(st)
        # what a pass must leave in variables: what the next pass or the code after reads
        kept_here = frozenset(_carried(s.body, stores) | self._read_after(s, stores))
        pending, self.pending = self.pending, []
        out = pending + self._materialise(s.body, keep=frozenset(stores) - kept_here)
        for local in sorted(stores):
            if local in self.records and local not in self.slotted:
                raise Unsupported(f"{self.fn.__qualname__}: a record rebound in a kept loop")
            if local not in kept_here and local not in self.slotted:
                self._forget(local)  # each pass binds it before reading it
        kept, self.kept = self.kept, kept_here
        self.loops += 1
        body = self.block(s.body)
        body += self._leave_pass()
        self.loops -= 1
        self.kept = kept
        for local in sorted(stores):
            if local not in self.slotted:
                self._forget(local)
        r = it.value  # (the pass counter is not read: only the number of passes matters)
        if len(r) == 0:
            return out
        counter = self.unit.fresh("passes")
        hoisted, body = _hoisted(body, counter, self.unit)
        count = [ast.Constant(r.start), ast.Constant(r.stop), ast.Constant(r.step)]
        loop = ast.For(
            ast.Name(counter, ast.Store()),
            ast.Call(ast.Name("range", ast.Load()), count, []),
            body,
            [],
        )
        return [*out, *hoisted, loop]

    def _read_after(self, s: ast.stmt, names: set) -> set:
        """The ``names`` something after ``s`` may read: read below it in the function (by
        line), or anywhere but in it when an enclosing loop runs it again."""
        if self.loops:
            return {x for x in names if self.parsed.loads.get(x, 0) > _loads_in([s], x)}
        # A node's own position only (vars): while another thread compiles, _Positions
        # gives every node without one a position from its class.
        end = vars(s).get("end_lineno") or 0
        return {
            n.id
            for st in self.parsed.body
            for n in ast.walk(st)
            if isinstance(n, ast.Name)
            and n.id in names
            and isinstance(n.ctx, ast.Load)
            and (vars(n).get("lineno") or end + 1) > end
        }

    def _leave_pass(self) -> list:
        """Before a kept loop's pass ends (or breaks): what it knows of the locals it
        assigns, assigned (the next pass, and what follows the loop, read the variables)."""
        out = []
        for local in sorted(self.kept or ()):
            if local in self.env:
                out.append(_assign(self.name_of(local), self.expr(self.env[local], local)))
            elif local in self.records and local not in self.slotted:
                raise Unsupported(f"{self.fn.__qualname__}: a record rebound in a kept loop")
        return out

    def _bind_loop(self, target: ast.expr, item: object) -> list:
        """``target = item`` for one pass of an unrolled loop (a constant is known)."""
        if isinstance(item, K) and isinstance(target, ast.Name):
            self._forget(target.id)
            self.env[target.id] = item
            return []
        if isinstance(item, K) and isinstance(target, ast.Tuple):
            out: list = []
            for e, x in zip(target.elts, item.value, strict=True):
                out += self._bind_loop(e, K(x))
            return out
        if isinstance(target, ast.Name | ast.Tuple):
            return self._bind(target, item)
        raise Unsupported(f"{self.fn.__qualname__}: loop target")


_KERNELS = frozenset(SIGN_SPLIT)
_VALUE_RULES: dict = {
    ast.Constant: _Scope._constant,
    ast.Name: _Scope._name,
    ast.Attribute: _Scope._attribute,
    ast.Subscript: _Scope._subscript,
    ast.BinOp: _Scope._binop,
    ast.UnaryOp: _Scope._unaryop,
    ast.Compare: _Scope._compare,
    ast.BoolOp: _Scope._boolop,
    ast.IfExp: _Scope._ifexp,
    ast.Tuple: _Scope._sequence,
    ast.List: _Scope._sequence,
    ast.Call: _Scope._call,
}


_SEQUENCE_MAKERS = ("tuple", "list")
WHILE_TRIPS = 64  # a loop unrolled further than this is refused, not written out


def _replaces(node: ast.expr) -> bool:
    """``node`` is a call of a ``_replace`` method (a record's copy, :meth:`_Scope._replace`)."""
    return (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "_replace"
    )


def _tuple_items(v: object) -> tuple | None:
    """The items of a tuple value (a record is a tuple), or None for anything else."""
    if isinstance(v, Agg) and v.cls is not list:
        return v.items
    if isinstance(v, K) and isinstance(v.value, tuple):
        return tuple(K(item) for item in v.value)
    return None


def _joined(left: object, right: object) -> Agg | None:
    """``left + right`` of two tuple values: a tuple of the items of both (None otherwise)."""
    a, b = _tuple_items(left), _tuple_items(right)
    return None if a is None or b is None else Agg(None, a + b)


def _truth(test: object) -> object:
    """A test, read for its truth alone: a constant where that is known (``x and False`` is
    false and ``x or True`` true whatever ``x`` is, when reading ``x`` calls nothing and
    cannot raise), and without the operands that cannot change it (``x and True`` is as true
    as ``x``)."""
    if not isinstance(test, ast.BoolOp):
        return test
    is_or = isinstance(test.op, ast.Or)
    kept: list = []
    for operand in test.values:
        v = _truth(operand)
        if isinstance(v, K):
            v = ast.Constant(bool(v.value))
        if isinstance(v, ast.Constant):
            if bool(v.value) != is_or:
                continue  # true in an `and`, false in an `or`: it decides nothing
            if not any(_calls(k) for k in kept):
                return K(is_or)  # reached, it decides; what comes before cannot act
            kept.append(v)
            break
        kept.append(v)
    if not kept:
        return K(not is_or)
    return kept[0] if len(kept) == 1 else ast.BoolOp(test.op, kept)


def _breaks(stmts: list, kinds: tuple = (ast.Break,)) -> bool:
    """Whether ``stmts`` (a loop's body) hold one of ``kinds`` for that loop (not for a
    loop inside it): by default, whether they break out of it."""
    stack = list(stmts)
    while stack:
        node = stack.pop()
        if isinstance(node, kinds):
            return True
        if isinstance(node, ast.For | ast.While | ast.FunctionDef):
            continue
        stack += [c for c in ast.iter_child_nodes(node) if isinstance(c, ast.stmt)]
    return False


_PURE_OPS = (ast.Add, ast.Sub, ast.Mult)  # on floats these never raise: safe to run early


def _hoisted(body: list, counter: str, unit: _Unit) -> tuple[list, list]:
    """The products and sums of a loop's ``body`` that read nothing the loop assigns, each
    computed once before it (``(statements before the loop, the body)``): the same
    operations on the same values, in the loop's first pass or before it. Only ``+ - *``
    move, which raise nothing, so one computed for a pass that would not need it costs
    time, never a result. ``counter``: the loop's own variable."""
    assigned = {counter}
    for st in body:
        assigned |= {
            n.id for n in ast.walk(st) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)
        }
    names: dict = {}  # the dump of an invariant expression -> its variable
    before: list = []

    def invariant(node: ast.expr) -> bool:
        if isinstance(node, ast.Constant):
            return isinstance(node.value, float | int) and not isinstance(node.value, bool)
        if isinstance(node, ast.Name):
            return node.id not in assigned
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
            return invariant(node.operand)
        return (
            isinstance(node, ast.BinOp)
            and isinstance(node.op, _PURE_OPS)
            and invariant(node.left)
            and invariant(node.right)
        )

    def reads_a_name(node: ast.expr) -> bool:
        return any(isinstance(n, ast.Name) for n in ast.walk(node))

    class Hoist(ast.NodeTransformer):
        def visit_BinOp(self, node: ast.BinOp) -> ast.expr:
            if isinstance(node.op, _PURE_OPS) and invariant(node) and reads_a_name(node):
                key = ast.dump(node)
                name = names.get(key)
                if name is None:
                    name = names[key] = unit.fresh("inv")
                    before.append(_assign(name, node))
                return ast.Name(name, ast.Load())
            return self.generic_visit(node)

    body = [Hoist().visit(_clone(st, {})) for st in body]
    return before, body


def _carried(body: list, stores: set) -> set:
    """The names of ``stores`` that ``body`` (a loop's) may read before it assigns them:
    what one pass hands the next."""
    out: set = set()
    assigned: set = set()
    for st in body:
        loads = {
            n.id for n in ast.walk(st) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)
        }
        if isinstance(st, ast.For):  # its target is bound before its body reads it
            loads -= _stores(st.target)
            assigned |= _stores(st.target)
        out |= (loads & stores) - assigned
        if isinstance(st, ast.Assign):
            assigned |= {t.id for t in st.targets if isinstance(t, ast.Name)}
    return out


_LOWERED: dict = {}


def _continue_lowered(loop: ast.For) -> list:
    """The body of an unrolled ``loop`` with each ``if test: ... continue`` made
    ``if test: ... else: <the rest of the body>`` (cached by the loop's node)."""
    got = _LOWERED.get(loop)
    if got is None:
        got = _LOWERED[loop] = _lower_continues(loop.body, loop)
    return got


def _lower_continues(stmts: list, loop: ast.For) -> list:
    out: list = []
    for k, st in enumerate(stmts):
        if isinstance(st, ast.Continue):
            return out  # the rest of the pass is not run
        if (
            isinstance(st, ast.If)
            and st.body
            and isinstance(st.body[-1], ast.Continue)
            and not st.orelse
        ):
            body = _lower_continues(st.body[:-1], loop) or [ast.Pass()]
            rest = _lower_continues(stmts[k + 1 :], loop)
            return [*out, ast.If(st.test, body, rest)]
        inner = [n for n in ast.walk(st) if isinstance(n, ast.Continue)]
        nested = [n for n in ast.walk(st) if isinstance(n, ast.For | ast.While)]
        if inner and not nested:
            raise Unsupported(f"line {st.lineno}: continue not at the end of an if's body")
        out.append(st)
    return out


def _appended(call: ast.expr) -> tuple[str, ast.expr] | None:
    """``(x, item)`` for ``x.append(item)``, else None."""
    if (
        isinstance(call, ast.Call)
        and isinstance(call.func, ast.Attribute)
        and call.func.attr == "append"
        and isinstance(call.func.value, ast.Name)
        and len(call.args) == 1
        and not call.keywords
    ):
        return call.func.value.id, call.args[0]
    return None


def _merged_shape(a: object, b: object) -> Agg | None:
    """The record two paths' values merge into (:meth:`_Scope._merge`), or None: records
    of one class and length on both paths, or a record on one and ``None`` on the other."""
    if isinstance(a, Agg) and isinstance(b, Agg):
        same = a.cls is b.cls and a.cls is not list and len(a.items) == len(b.items)
        flat = not any(isinstance(i, Agg | Maybe) for i in (*a.items, *b.items))
        return a if same and flat else None
    for one, other in ((a, b), (b, a)):
        if (
            isinstance(one, Agg)
            and _is_record_class(one.cls)
            and isinstance(other, K)
            and other.value is None
            and not any(isinstance(i, Agg | Maybe) for i in one.items)
        ):
            return one
    return None


def _rebound_on_both_paths(s: ast.If) -> frozenset:
    """The names each arm of ``s`` assigns at its top level before reading them."""

    def rebound(stmts: list) -> set:
        out: set = set()
        read: set = set()
        for st in stmts:
            loads = {
                n.id
                for n in ast.walk(st)
                if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)
            }
            read |= loads - out
            if isinstance(st, ast.Assign) and len(st.targets) == 1:
                t = st.targets[0]
                if isinstance(t, ast.Name) and t.id not in read:
                    out.add(t.id)
        return out

    if not s.orelse:
        return frozenset()
    return frozenset(rebound(s.body) & rebound(s.orelse))


def _loads_in(nodes: list, local: str) -> int:
    """How many times ``nodes`` read ``local``."""
    count = 0
    for node in nodes:
        for n in ast.walk(node):
            if isinstance(n, ast.Name) and n.id == local and isinstance(n.ctx, ast.Load):
                count += 1
    return count


def _rebinds_as_sequence(stmts: list, local: str) -> bool:
    """Whether ``stmts`` store ``local`` and every store binds it alone to a tuple or list
    display or to ``tuple(...)``/``list(...)``: values of a known shape, which a branch can
    store in the variables of a merged record (any other store keeps the record an object)."""
    nodes = [n for s in stmts for n in ast.walk(s)]
    allowed = {
        id(t)  # strict: allow hash-id -- nodes of the tree being read
        for n in nodes
        if isinstance(n, ast.Assign) and _is_sequence_display(n.value)
        for t in n.targets
        if isinstance(t, ast.Name)
    }
    stores = [
        id(n)  # strict: allow hash-id -- nodes of the tree being read
        for n in nodes
        if isinstance(n, ast.Name) and n.id == local and isinstance(n.ctx, ast.Store)
    ]
    return bool(stores) and all(i in allowed for i in stores)


def _is_sequence_display(value: ast.expr) -> bool:
    if isinstance(value, ast.Tuple | ast.List):
        return not any(isinstance(e, ast.Starred) for e in value.elts)
    return (
        isinstance(value, ast.Call)
        and isinstance(value.func, ast.Name)
        and value.func.id in _SEQUENCE_MAKERS
        and len(value.args) == 1
        and not value.keywords
    )


def _moves_folded(stmts: list, renamed: dict, label: str) -> list:
    """``stmts`` (a derived stage's text, of assignments and branches) renamed, with its
    moves folded:
    after ``x = y``, ``y`` is read as ``x`` while neither is assigned again
    (:func:`_forward_moves`); a move whose source nothing reads after it names the source's
    value ``x`` where it is made; a move or constant stored in a name nothing reads is left
    out (:func:`_fold_block`). Only names change and moves go, never an operation.
    ``renamed``: the names read after ``stmts``, each given a name ``stmts`` does not use."""
    cache: dict = {}
    used: set = set()
    for st in stmts:
        used |= _names_of(st, cache)[0] | _names_of(st, cache)[1]
    taken = (used - set(renamed)) & set(renamed.values())
    if taken or len(set(renamed.values())) != len(renamed):
        raise Unsupported(f"{label}: renamed onto a name in use {sorted(taken)}")
    outputs = frozenset(renamed)
    stmts = _threaded(stmts)
    folded = _fold_block(_forward_moves(stmts, cache, outputs), set(outputs), cache)[0]
    return _renamed_block(folded, renamed, cache)


def _renamed_block(stmts: list, names: dict, cache: dict) -> list:
    """``stmts`` with ``names`` renamed, a statement copied only where it names one."""
    out = []
    for st in stmts:
        loads, stores = _names_of(st, cache)
        if not (names.keys() & loads or names.keys() & stores):
            out.append(st)
        elif isinstance(st, ast.If):
            body = _renamed_block(st.body, names, cache)
            orelse = _renamed_block(st.orelse, names, cache)
            out.append(ast.If(_clone(st.test, names), body, orelse))
        else:
            out.append(_clone(st, names))
    return out


def _names_of(node: ast.AST, cache: dict) -> tuple[frozenset, frozenset]:
    """The names ``node`` (a statement or an expression) reads and assigns, cached."""
    key = id(node)  # strict: allow hash-id -- the cache keeps the node alive
    held = cache.get(key)
    if held is not None and held[0] is node:
        return held[1]
    if isinstance(node, ast.If):
        loads, stores = set(_names_of(node.test, cache)[0]), set()
        for st in (*node.body, *node.orelse):
            got = _names_of(st, cache)
            loads |= got[0]
            stores |= got[1]
    elif isinstance(node, ast.Assign):  # (its value's names are asked for on their own)
        got = _names_of(node.value, cache)
        loads, stores = set(got[0]), set(got[1])
        for target in node.targets:
            _collect_names(target, loads, stores)
    else:
        loads, stores = set(), set()
        _collect_names(node, loads, stores)
    got = (frozenset(loads), frozenset(stores))
    cache[key] = (node, got)
    return got


def _collect_names(node: ast.AST, loads: set, stores: set) -> None:
    """Add the names ``node`` reads to ``loads`` and those it assigns to ``stores`` (as
    ``ast.walk`` would find them, without its other work)."""
    stack = [node]
    while stack:
        n = stack.pop()
        if type(n) is ast.Name:
            (loads if type(n.ctx) is ast.Load else stores).add(n.id)
            continue
        for field in n._fields:
            v = getattr(n, field, None)
            if type(v) is list:
                stack += [x for x in v if isinstance(x, ast.AST)]
            elif isinstance(v, ast.AST) and v._fields:
                stack.append(v)


def _move(st: ast.stmt) -> tuple[str, ast.expr] | None:
    """``(x, value)`` for ``x = value`` with ``value`` a name, a constant or a tuple of them
    (nothing to compute), else None."""
    if (
        isinstance(st, ast.Assign)
        and len(st.targets) == 1
        and isinstance(st.targets[0], ast.Name)
        and _plain(st.value)
    ):
        return st.targets[0].id, st.value
    return None


def _plain(value: ast.expr) -> bool:
    if isinstance(value, ast.Tuple):
        return all(_plain(e) for e in value.elts)
    return isinstance(value, ast.Name | ast.Constant)


THREAD_BETWEEN = 3  # plain assignments a branch on a flag may be threaded past (copied)


def _threaded(stmts: list) -> list:
    """``if t: ...; f = True else: ...; f = False`` followed by ``if f: A else: B`` made
    ``if t: ...; f = True; A else: ...; f = False; B``: each path runs what it ran, with one
    test fewer (the flag is known at the end of each arm; a few plain assignments between
    the two, which do not name the flag, are copied into both arms)."""
    out: list = []
    k = 0
    while k < len(stmts):
        st = stmts[k]
        if isinstance(st, ast.If):
            st = ast.If(st.test, _threaded(st.body), _threaded(st.orelse))
            while True:
                merged = _thread_once(st, stmts, k + 1)
                if merged is None:
                    break
                st, k = merged
        elif isinstance(st, ast.For):
            st = ast.For(st.target, st.iter, _threaded(st.body), st.orelse)
        out.append(st)
        k += 1
    return out


def _thread_once(first: ast.If, stmts: list, at: int) -> tuple[ast.If, int] | None:
    """``first`` with the branch on its flag that follows it (from ``stmts[at]``) threaded
    into its arms, and the index of the last statement taken; None if none follows."""
    between: list = []
    j = at
    while j < len(stmts) and len(between) <= THREAD_BETWEEN:
        nxt = stmts[j]
        flag = _flag_test(nxt)
        if flag is not None:
            name, negated = flag
            ends = (_known_at_end(first.body, name), _known_at_end(first.orelse, name))
            if None in ends or any(name in _mentions_all(b) for b in between):
                return None
            arms = []
            for arm, value in zip((first.body, first.orelse), ends, strict=True):
                taken = nxt.body if bool(value) != negated else nxt.orelse
                rest = [x for x in taken if not isinstance(x, ast.Pass)]
                arms.append([x for x in arm if not isinstance(x, ast.Pass)] + between + rest)
            return ast.If(first.test, arms[0] or [ast.Pass()], arms[1]), j
        if not (
            isinstance(nxt, ast.Assign)
            and all(isinstance(t, ast.Name) for t in nxt.targets)
            and not _calls(nxt.value)
        ):
            return None
        between.append(nxt)
        j += 1
    return None


def _flag_test(st: ast.stmt) -> tuple[str, bool] | None:
    """``(f, negated)`` for ``if f:`` or ``if not f:``, else None."""
    if not isinstance(st, ast.If):
        return None
    test = st.test
    if isinstance(test, ast.Name):
        return test.id, False
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        if isinstance(test.operand, ast.Name):
            return test.operand.id, True
    return None


def _known_at_end(arm: list, name: str) -> bool | None:
    """The truth of ``name`` at the end of ``arm`` when its last store there is a constant
    at the arm's top level (nothing after it stores the name), else None."""
    for st in reversed(arm):
        if name not in _stored_names(st):
            continue
        if (
            isinstance(st, ast.Assign)
            and len(st.targets) == 1
            and isinstance(st.targets[0], ast.Name)
            and isinstance(st.value, ast.Constant)
        ):
            return bool(st.value.value)
        return None
    return None


def _stored_names(st: ast.stmt) -> set:
    names = (n for n in ast.walk(st) if isinstance(n, ast.Name))
    return {n.id for n in names if not isinstance(n.ctx, ast.Load)}


def _mentions_all(st: ast.stmt) -> set:
    return {n.id for n in ast.walk(st) if isinstance(n, ast.Name)}


def _forward_moves(stmts: list, cache: dict, outputs: frozenset = frozenset()) -> list:
    """After ``x = y`` (two names), the statements of its block (and their branches) read
    one for the other up to the first that assigns either: ``x`` for ``y`` when ``x`` is
    one of the ``outputs`` (so ``y`` may die at the move), else ``y`` for ``x`` (so the
    move may die). Branches and a loop's pass are done the same way on their own."""
    out: list = []
    active: dict = {}  # a name read -> the name read for it: the moves in force here
    for st in stmts:
        if isinstance(st, ast.If):
            body = _forward_moves(st.body, cache, outputs)
            st = ast.If(st.test, body, _forward_moves(st.orelse, cache, outputs))
        elif isinstance(st, ast.For):  # (each pass on its own: what a pass moves, it reads)
            st = ast.For(st.target, st.iter, _forward_moves(st.body, cache, outputs), st.orelse)
        loads, stores = _names_of(st, cache)
        ended = {y for y, x in active.items() if y in stores or x in stores}
        if isinstance(st, ast.Assign) and all(isinstance(t, ast.Name) for t in st.targets):
            if loads & set(active):  # its value is read before its store
                st = ast.Assign(st.targets, _clone(st.value, active))
        else:  # the moves no part of it assigns hold all through it
            holding = {y: x for y, x in active.items() if y not in ended}
            if loads & set(holding):
                st = _clone(st, holding)
        for y in sorted(ended):
            del active[y]
        move = _move(st)
        if move is not None and isinstance(move[1], ast.Name) and move[0] != move[1].id:
            x, y = move[0], move[1].id
            if x in outputs:
                active[y] = x
            else:
                active[x] = y
        out.append(st)
    return out


def _fold_block(stmts: list, live_out: set, cache: dict) -> tuple[list, set]:
    """One backward sweep over a block: dead moves and constants dropped, ``y = v ... x = y``
    made ``x = v ...`` where nothing after the move reads ``y`` and nothing between names
    ``x``; returns the block and the names read before it."""
    live = set(live_out)
    out: list = []  # the block, last statement first
    pending: dict = {}  # y -> (x, the index in ``out`` of the move ``x = y``)
    folds: list = []  # (y, x, first, last): the statements out[first:last] read x for y
    for st in reversed(stmts):
        if isinstance(st, ast.If):
            body, live_b = _fold_block(st.body, live, cache)
            orelse, live_e = _fold_block(st.orelse, live, cache) if st.orelse else ([], live)
            st = ast.If(st.test, body or [ast.Pass()], orelse)
            before = set(_names_of(st.test, cache)[0]) | live_b | live_e
        elif isinstance(st, ast.Assign):
            before = (live - _names_of(st, cache)[1]) | _names_of(st.value, cache)[0]
        elif isinstance(st, ast.For) and not st.orelse:
            # a pass may read what any pass stores: its body's stores live on to the loop's
            # reads; the loop may run no pass, so it kills nothing
            loop_loads = _names_of(st, cache)[0]
            body, _ = _fold_block(st.body, live | loop_loads, cache)
            st = ast.For(st.target, st.iter, body or [ast.Pass()], [])
            before = live | loop_loads
        else:  # anything else: as if it read every name it names
            loads, stores = _names_of(st, cache)
            before = live | loads | stores
        move = _move(st)
        if move is not None and move[0] not in live:
            continue  # stored for nothing (liveness is unchanged by leaving it out)
        loads, stores = _names_of(st, cache)
        for y, (x, at) in list(pending.items()):
            clear = x not in loads and x not in stores
            made_here = (
                clear
                and isinstance(st, ast.Assign)
                and len(st.targets) == 1
                and isinstance(st.targets[0], ast.Name)
                and st.targets[0].id == y
                and y not in _names_of(st.value, cache)[0]
            )
            # (or made on every path of a branch, which does not read it first)
            made_in_branch = clear and isinstance(st, ast.If) and y not in before
            if made_here or made_in_branch:  # the value is made here: under the name x
                st = _assign(x, st.value) if made_here else _clone(st, {y: x})
                folds.append((y, x, at + 1, len(out)))
                out[at] = None
                del pending[y]
                loads, stores = _names_of(st, cache)
            elif not clear or y in stores:
                del pending[y]  # x is named between, or y assigned in a branch: kept
        out.append(st)
        move = _move(st)  # (the statement may now store another name)
        if move is not None and isinstance(move[1], ast.Name):
            y = move[1].id
            if y not in live and y != move[0] and y not in pending:
                pending[y] = (move[0], len(out) - 1)
        live = before
    for m, st in enumerate(out):  # each statement renamed once, by the folds around it
        if st is None:
            continue
        names: dict = {}
        for y, x, first, last in folds:
            if first <= m < last:
                names = {k: (x if v == y else v) for k, v in names.items()}
                names.setdefault(y, x)
        if names and (set(names) & (_names_of(st, cache)[0] | _names_of(st, cache)[1])):
            out[m] = _clone(st, names)
    return [st for st in reversed(out) if st is not None], live


def _clone(node: object, names: dict) -> object:
    """A copy of a tree (or a list of trees) with the names in ``names`` renamed; constants
    and operators, which no pass changes, are shared."""
    if isinstance(node, list):
        return [_clone(n, names) for n in node]
    if isinstance(node, ast.Name):
        return ast.Name(names.get(node.id, node.id), node.ctx)
    if not isinstance(node, ast.AST) or isinstance(node, ast.Constant | ast.operator | ast.cmpop):
        return node
    return type(node)(*[_clone(getattr(node, f), names) for f in node._fields])


def _fold(op: Callable, a: object, b: object) -> K | None:
    """``a op b`` now, where that is an operation on numbers with a finite result."""
    if not (isinstance(a, int | float) and isinstance(b, int | float)):
        if op is operator.add and isinstance(a, tuple) and isinstance(b, tuple):
            return K(a + b)
        return None
    try:
        v = op(a, b)
    except (ZeroDivisionError, OverflowError):
        return None
    if isinstance(v, float) and not isfinite(v):
        return None
    return K(v)


def _tidy(body: list, unit: _Unit, names: dict | None = None) -> list:
    """``body`` after :func:`_forward_fields`, without the moves of a name to itself and the
    settled fields nothing reads (a field of a record no one asked for: its value computed
    for nothing, dropped when it calls nothing)."""
    if names is None:  # id of a statement -> (the statement, the names in it, in order)
        names = {}
    if not any(_candidate(s, unit) for s in body):
        return body  # no copy and no settled field: nothing to walk for
    while True:
        before = len(body)
        body = _forward_fields(body, names)
        uses: dict[str, int] = {}
        for stmt in body:
            for name in _names_in(stmt, names):
                uses[name] = uses.get(name, 0) + 1
        kept = [s for s in body if not _idle(s, unit, uses)]
        if len(kept) == before:
            return kept
        body = kept


def _coalesce(body: list, keep: frozenset, cache: dict | None = None) -> list:
    """``body`` with each copy ``x = y`` of a name ``y`` the body makes (not one of ``keep``,
    the names the function's caller may see) removed by naming ``y`` ``x`` from its first
    statement on, where nothing between names ``x`` and nothing after reads ``y``: the same
    values, stored under their final names, one move fewer (a list's items copied in, a
    result's fields copied out)."""
    counts: dict[str, int] = {}
    cache = {} if cache is None else cache
    for stmt in body:
        for name in _names_in(stmt, cache):
            counts[name] = counts.get(name, 0) + 1
    return _coalesce_block(body, keep, counts, cache)


def _coalesce_block(block: list, keep: frozenset, counts: dict, cache: dict) -> list:
    out: list = []
    for stmt in block:  # the blocks of a branch first: their copies stay inside them
        if isinstance(stmt, ast.If):
            body = _coalesce_block(stmt.body, keep, counts, cache)
            orelse = _coalesce_block(stmt.orelse, keep, counts, cache) if stmt.orelse else []
            if body != stmt.body or orelse != stmt.orelse:
                stmt = ast.If(stmt.test, body or [ast.Pass()], orelse)
        out.append(stmt)
    occurs: dict[str, dict[int, int]] = {}  # name -> {statement: how often it names it}
    for k, stmt in enumerate(out):
        for name in _names_in(stmt, cache):
            at = occurs.setdefault(name, {})
            at[k] = at.get(k, 0) + 1
    renames: dict[int, dict[str, str]] = {}  # statement -> its names' new names, done last
    for i, stmt in enumerate(out):
        copy = _copy_of(stmt)
        if copy is None:
            continue
        done = renames.pop(i, {})  # what earlier copies renamed in this one
        x, y = done.get(copy[0], copy[0]), done.get(copy[1], copy[1])
        if done:
            out[i] = _assign(x, ast.Name(y, ast.Load()))
        if x == y or y in keep:
            continue
        ys = occurs.get(y, {})
        here = 0  # how often this block names y (an int count, not a float sum)
        for n in ys.values():
            here += n
        if here != counts.get(y, 0) or max(ys) != i:
            continue  # named outside this block, or read after the copy
        first = min(ys)
        xs = occurs.setdefault(x, {})
        if any(first < k < i for k in xs):
            continue
        if first in xs and not _defines(out[first], renames.get(first, {}), y):
            continue
        if any(_copies(out[k], renames.get(k, {}), y) for k in ys if k != i):
            continue  # y is a value copied twice (a name shared by inlined calls): kept
        for k, n in ys.items():
            if k != i:
                mapping = renames.setdefault(k, {})
                for old, new in mapping.items():
                    if new == y:
                        mapping[old] = x
                mapping[y] = x
                xs[k] = xs.get(k, 0) + n
        xs[i] -= 1
        del occurs[y]
        out[i] = None
        counts[x] = counts.get(x, 0) + counts.get(y, 0) - 2
        counts[y] = 0
    for k, mapping in renames.items():
        out[k] = _clone(out[k], mapping)
    return [s for s in out if s is not None and _copy_of(s, same=True) is None]


def _copies(stmt: ast.stmt | None, renamed: dict, name: str) -> bool:
    """Whether ``stmt`` is a copy ``z = name`` (after the renames pending for it)."""
    copy = _copy_of(stmt)
    return copy is not None and renamed.get(copy[1], copy[1]) == name


def _defines(stmt: ast.stmt, renamed: dict, name: str) -> bool:
    """Whether ``stmt`` is ``name = value`` (after the renames pending for it)."""
    if not (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1):
        return False
    target = stmt.targets[0]
    return isinstance(target, ast.Name) and renamed.get(target.id, target.id) == name


def _copy_of(stmt: object, same: bool = False) -> tuple[str, str] | None:
    """(x, y) if ``stmt`` is ``x = y`` between two names (``same``: the same name)."""
    if not (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1):
        return None
    target, value = stmt.targets[0], stmt.value
    if not (isinstance(target, ast.Name) and isinstance(value, ast.Name)):
        return None
    if (target.id == value.id) != same:
        return None
    return target.id, value.id


def _candidate(stmt: ast.stmt, unit: _Unit) -> bool:
    """Whether ``stmt`` is a move of a name or assigns a settled field (what tidying acts on)."""
    if not (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1):
        return False
    target = stmt.targets[0]
    return isinstance(target, ast.Name) and (
        isinstance(stmt.value, ast.Name) or target.id in unit.stable
    )


def _names_in(stmt: ast.stmt, cache: dict) -> list[str]:
    """The names ``stmt`` (a statement of the body being tidied) reads or assigns."""
    key = id(stmt)  # strict: allow hash-id -- the cache keeps the statement alive
    held = cache.get(key)
    if held is not None and held[0] is stmt:
        return held[1]
    got = []
    cache[key] = (stmt, got)
    stack = [stmt]
    while stack:  # ast.walk, without what it does besides finding the names
        node = stack.pop()
        if type(node) is ast.Name:
            got.append(node.id)
            continue
        for field in node._fields:
            v = getattr(node, field, None)
            if type(v) is list and v and isinstance(v[0], ast.stmt):
                for x in v:  # a block: its statements' names, each found once
                    got += _names_in(x, cache)
            elif type(v) is list:
                stack += [x for x in v if isinstance(x, ast.AST)]
            elif isinstance(v, ast.AST) and v._fields:
                stack.append(v)
    return got


def _idle(stmt: ast.stmt, unit: _Unit, uses: dict) -> bool:
    if not (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1):
        return False
    target, value = stmt.targets[0], stmt.value
    if not isinstance(target, ast.Name):
        return False
    if isinstance(value, ast.Name) and value.id == target.id:
        return True  # x = x
    return target.id in unit.stable and uses.get(target.id) == 1 and not _calls(value)


def _forward_fields(body: list, cache: dict) -> list:
    """``body`` with each copy ``x = f`` of a name ``f`` assigned once and read nowhere
    else folded into the assignment that made ``f`` (``x = value``), when nothing between
    the two names ``x``: the same value stored under its final name, one move fewer (the
    copies inside a branch are :func:`_coalesce`'s)."""
    uses: dict[str, int] = {}
    for stmt in body:
        for name in _names_in(stmt, cache):
            uses[name] = uses.get(name, 0) + 1
    made: dict[str, int] = {}  # name -> index of the statement that last assigned it
    seen: dict[str, int] = {}  # name -> index of the last statement that named it
    out = list(body)
    for i, stmt in enumerate(out):
        value = stmt.value if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 else None
        target = stmt.targets[0] if value is not None else None
        if isinstance(target, ast.Name) and isinstance(value, ast.Name):
            j = made.get(value.id)
            if j is not None and uses.get(value.id) == 2 and seen.get(target.id, -1) <= j:
                out[j] = _assign(target.id, out[j].value)
                out[i] = None
                del made[value.id]
                made[target.id] = j  # a chain of copies folds in one pass
                seen[target.id] = j
                continue
        for name in _names_in(stmt, cache):
            seen[name] = i
        if isinstance(target, ast.Name):
            made[target.id] = i
    return [s for s in out if s is not None]


def _names_read(v: object) -> set[str]:
    """The names a value (an expression, a record value or a constant) reads."""
    if v.__class__ is ast.Name:
        return {v.id}
    if isinstance(v, K):
        return set()
    if isinstance(v, Agg):
        return set().union(*(_names_read(i) for i in v.items))
    if isinstance(v, Maybe):
        return {v.flag} | _names_read(v.record)
    return {n.id for n in ast.walk(v) if isinstance(n, ast.Name)}


_RAISING_OPS = (ast.Div, ast.FloorDiv, ast.Mod, ast.Pow)


def _calls(node: ast.expr) -> bool:
    """Whether evaluating ``node`` may do more than compute a number: call something, or
    raise (a division by zero, an overflowing power), which the readable code would do."""
    return any(
        isinstance(n, ast.Call) or (isinstance(n, ast.BinOp) and isinstance(n.op, _RAISING_OPS))
        for n in ast.walk(node)
    )


def _assign(name: str, value: ast.expr) -> ast.Assign:
    return ast.Assign([ast.Name(name, ast.Store())], value)


def _label(fn: Callable) -> str:
    module = getattr(fn, "__module__", "") or ""
    return f"{module.rpartition('.')[2]}.{fn.__name__}"


class NameUse:
    """The names of a text: how many times each occurs (``counts``) and which it assigns
    (``stored``)."""

    __slots__ = ("counts", "stored")

    def __init__(self) -> None:
        self.counts: dict[str, int] = {}
        self.stored: set[str] = set()

    def add(self, nodes: Iterable) -> NameUse:
        """Count the names of ``nodes`` (statements or a module); ``self``."""
        counts, stored = self.counts, self.stored
        for node in nodes:
            for n in ast.walk(node):
                if n.__class__ is ast.Name:
                    counts[n.id] = counts.get(n.id, 0) + 1
                    if n.ctx.__class__ is ast.Store:
                        stored.add(n.id)
        return self

    def merge(self, other: NameUse) -> NameUse:
        """Add ``other``'s names (a text that follows this one); ``self``."""
        for name, k in other.counts.items():
            self.counts[name] = self.counts.get(name, 0) + k
        self.stored |= other.stored
        return self


class Specialised(NamedTuple):
    """A specialised function: its syntax tree and the names it runs with."""

    name: str
    tree: ast.Module
    namespace: dict
    #: the value the function's final ``return`` gives, as the specialiser holds it: a
    #: :class:`K`, an :class:`Agg` (a record whose fields are names of the text), a
    #: :class:`Maybe` or an expression; what a caller splicing :meth:`body_text` reads
    returned: object = None
    #: each parameter bound to a record (:class:`Agg`) as the body leaves it: its fields after
    #: the body's stores (``record.field = value``), names of the text or the caller's
    records: dict = {}  # noqa: RUF012 -- a NamedTuple's default, never changed

    @property
    def text(self) -> str:
        """The readable text of the function (each inlined call marked by a comment)."""
        with _Positions():
            return _comments(ast.unparse(self.tree)) + "\n"

    def names_read(self) -> list[str]:
        """The names of :attr:`namespace` the body reads without its final ``return``."""
        stmts = list(self.tree.body[0].body)
        if stmts and isinstance(stmts[-1], ast.Return):
            stmts.pop()
        seen = {n.id for st in stmts for n in ast.walk(st) if isinstance(n, ast.Name)}
        return sorted(seen & set(self.namespace))

    def body_text(self, renamed: dict | None = None, use: NameUse | None = None) -> str:
        """The text of the function's body without its final ``return``: the statements of
        a call inlined where a caller that is not yet specialised writes them (``renamed``:
        its names renamed to the caller's, each to one the text does not use, and the
        moves of a name to itself left out; ``use``: given the names the text holds, without
        parsing it again)."""
        stmts = list(self.tree.body[0].body)
        if stmts and isinstance(stmts[-1], ast.Return):
            stmts.pop()
        if renamed:
            stmts = _moves_folded(stmts, renamed, self.name)
        if use is not None:
            use.add(stmts)
        with _Positions():
            return _comments(ast.unparse(ast.Module(stmts, []))) + "\n"


def specialise(
    fn: Callable, bound: dict, plan: Plan, name: str | None = None, doc: str = ""
) -> Specialised:
    """The text of ``fn`` with the parameters in ``bound`` fixed to those values (see the
    module docstring), as a function called ``name`` of ``fn``'s other parameters."""
    parsed = _parse(fn, inlined=False)
    unit = _Unit(plan)
    scope = _Scope(unit, fn, parsed)
    name = name or fn.__name__
    unit.used.update(parsed.assigned - set(bound))
    unit.used.add(name)
    params = []
    scope.given = frozenset(p for p in parsed.args if isinstance(bound.get(p), Agg))
    for p in parsed.args:
        if isinstance(bound.get(p), Agg):  # a record of the caller's values
            given = _names_read(bound[p])
            unit.used.update(given)
            unit.stable.update(given)
            scope.records[p] = bound[p]
        elif p in bound:
            scope.env[p] = K(bound[p], p)
        else:
            params.append(ast.arg(p))
            scope.names[p] = p
    for local in parsed.assigned:
        scope.names.setdefault(local, local)
    unit.stable.update(p.arg for p in params if p.arg not in parsed.reassigned)
    names: dict = {}  # the names of each statement, found once for both passes
    body = scope.block(parsed.body)
    records = {p: scope.records[p] for p in parsed.args if isinstance(bound.get(p), Agg)}
    # the records' final fields are read after the body: a marker reads them while it is
    # tidied, so none of them is dropped or renamed
    given = set().union(*(_names_read(bound[p]) for p in records))
    marker = ast.Expr(ast.Tuple([ast.Name(n, ast.Load()) for n in sorted(
        set().union(*(_names_read(r) for r in records.values())) - given
    )], ast.Load()))  # fmt: skip
    if records:
        body.append(marker)
    body = _coalesce(_tidy(body, unit, names), parsed.assigned, names)
    body = [st for st in body if st is not marker]
    if doc:
        body.insert(0, ast.Expr(ast.Constant(doc)))
    fdef = ast.FunctionDef(
        name=name,
        args=ast.arguments([], params, None, [], [], None, []),
        body=body or [ast.Pass()],
        decorator_list=[],
        returns=None,
        type_params=[],
    )
    module = ast.Module(body=[fdef], type_ignores=[])
    return Specialised(name, module, unit.globals, unit.returned, records)


class _Positions:
    """Within it, a node without a source position reads line 1 from its class: the
    compiler needs a position on every node, and writing one on each of a specialised
    function's tens of thousands of nodes would cost more than all the rest of the work.
    The class attributes are process-wide, so one thread at a time holds them
    (:data:`AST_LOCK`; the depth lets the same thread nest): two runtimes specialising side
    by side in threads once had one thread's exit delete the positions under the other's
    compile."""

    CLASSES = (ast.stmt, ast.expr, ast.arg, ast.excepthandler, ast.keyword)
    FIELDS = (("lineno", 1), ("col_offset", 0), ("end_lineno", 1), ("end_col_offset", 0))
    _depth = 0

    def __enter__(self) -> None:
        AST_LOCK.acquire()
        _Positions._depth += 1
        if _Positions._depth == 1:
            for cls in self.CLASSES:
                for field, value in self.FIELDS:
                    setattr(cls, field, value)

    def __exit__(self, *exc: object) -> None:
        try:
            _Positions._depth -= 1
            if _Positions._depth == 0:
                for cls in self.CLASSES:
                    for field, _ in self.FIELDS:
                        delattr(cls, field)
        finally:
            AST_LOCK.release()


def _comments(text: str) -> str:
    """``'§ label'`` marker statements as ``# label`` comments (the first statement of the
    function is unparsed as a docstring, in triple quotes)."""
    lines = []
    for line in text.split("\n"):
        stripped = line.lstrip()
        for quote in ("'", '"""'):
            if stripped.startswith(quote + "§ ") and stripped.endswith(quote):
                inner = stripped[len(quote) + 2 : len(stripped) - len(quote)]
                line = line[: len(line) - len(stripped)] + "# " + inner
                break
        lines.append(line)
    return "\n".join(lines)


def compile_specialised(spec: Specialised, text: str | None = None, label: str = "") -> Callable:
    """The function of ``spec`` (or of ``text``, a variant of its text: a planted-difference
    test perturbs one line), compiled in its namespace."""
    names = dict(spec.namespace)
    source = spec.tree if text is None else text
    # The text is the readable functions' own, moved (module docstring); tests lint it.
    where = f"<specialised {label or spec.name}>"
    with _Positions():
        code = compile(source, where, "exec")  # strict: allow dynamic-code -- the readable, moved
    exec(code, names)  # strict: allow dynamic-code -- the specialised function, linted by tests
    return names[spec.name]


__all__ = [
    "AST_LOCK",
    "Agg",
    "K",
    "Maybe",
    "NameUse",
    "Plan",
    "Specialised",
    "Unfoldable",
    "Unsupported",
    "compile_specialised",
    "parse_source",
    "specialise",
]
