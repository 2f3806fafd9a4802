"""nox sessions: the test suite, the lint, and the cross-runtime checks (docs/architecture.md §5).

Sessions
--------
``tests``                  the pytest suite (``pytest -n auto --dist loadgroup``; ``-- ARGS``
                           replaces the default arguments, e.g. ``-- tests/test_x.py -q``)
``lint``                   ``ruff check`` + the strict-float lint of ``engine/``
``selftest-<runtime>``     the math self-test hash in one runtime, vs ``hashes/math.json``
``replay-<runtime>``       the self-test plus every recording in ``recordings/`` in one runtime,
                           compared with ``hashes/``
``parity``                 every runtime (the four above and the browsers), one table; the
                           stated sample of ADR 0243 (``-- --all``: every recording everywhere)
``bless``                  ``skidpad bless``: rewrite ``hashes/`` from the current physics
``docs``                   the documentation site (mkdocs.yml) built with ``--strict`` into
                           ``build/site``, then checked by ``tests/test_docs_site.py``
``campaigns``              the tests that run a stated sample in ``tests``, run whole
                           (``SKIDPAD_CAMPAIGNS=full``); not part of the test command
``bench``                  ``benchmarks/bench.py``: substep cost in every runtime, CommonRoad and
                           strict-math ratios, one table (``-- --json`` for machines); not
                           part of the test command
with ``<runtime>`` one of ``cpython3.11``, ``cpython3.12``, ``cpython3.13``, ``node``. Each
``selftest-``/``replay-`` session prints the harness table and writes
``build/parity/report.json``; ``-- ARGS`` go to ``skidpad parity`` (e.g. a recording path).

How the runtimes are provided
-----------------------------
- CPython 3.11/3.12/3.13 are pyenv's interpreters (``pyenv prefix 3.12.1`` etc.). Only 3.11.7
  is pyenv's global version, so the ``python3.12`` shim does not work: the sessions are given
  the full interpreter path. A missing version is not skipped silently: the session fails
  with the version and the command that installs it.
- ``SKIDPAD_PYTHON3_11``/``_12``/``_13`` name the interpreters instead, checked before pyenv
  (``find_cpython``); any patch release of the minor version will do. The hosted CI workflow
  sets them to uv's CPythons, as there is no pyenv on a runner.
- Every CPython session installs the project *wheel* (``parity.wheel.build_wheel``; the same
  file Pyodide unpacks) into its own virtualenv, so it checks the artifact users get, not the
  work tree. The wheel is rebuilt only when the sources change (content-hash cache).
- ``node`` is Pyodide from ``node_modules`` (``npm ci`` installs the version pinned in
  ``package-lock.json``); the session fails with that command if it is missing.

Virtualenvs are reused between runs (``reuse_venv = "yes"``): their installs are re-run but
are no-ops when nothing changed, and the project wheel is always force-reinstalled because
its version number does not change with its content. ``--reuse-venv=no`` starts from scratch.
"""

from __future__ import annotations

import functools
import os
import shutil
import sys
from pathlib import Path

import nox

ROOT = Path(__file__).resolve().parent
sys.path.insert(0, str(ROOT))

# one place knows how to find the interpreters: the CPython adapter
from skidpad.parity.runtimes.cpython import PINNED, find_cpython, install_hint  # noqa: E402

CPYTHON_VERSIONS = tuple(PINNED)  # "3.11", "3.12", "3.13"
RUNTIMES = [f"cpython{minor}" for minor in CPYTHON_VERSIONS] + ["node"]

nox.options.reuse_venv = "yes"
# uv makes the virtualenvs and installs into them where it is installed (ci/setup.sh does),
# virtualenv and pip otherwise (ADR 0257). Seeded with pip: tests run `python -m pip`.
nox.options.default_venv_backend = "uv|virtualenv"
os.environ.setdefault("UV_VENV_SEED", "1")
nox.options.error_on_missing_interpreters = True
# plain `nox` runs what CI runs (README's test command): the suite, the lint, the parity
# matrix of all 7 runtimes in one table (its stated sample, ADR 0243: every recording in
# CPython 3.11), a stated sample of the recordings ever committed verified under their own
# physics (ADR 0242); and the documentation site builds with --strict
nox.options.sessions = ["tests", "lint", "docs", "parity", "history"]


def missing_cpython_message(minor: str) -> str:
    return f"CPython {minor} not found (wanted pyenv's {PINNED[minor]}); {install_hint(minor)}"


@functools.cache
def project_wheel() -> Path:
    """Build (or take from the cache) the project wheel, once per nox invocation."""
    from skidpad.parity.wheel import build_wheel

    return build_wheel()


def install_project(session: nox.Session, extras: str = "") -> Path:
    """Install the project wheel (plus ``extras``' dependencies) into the session venv."""
    wheel = project_wheel()
    if extras:
        session.install(f"{wheel}[{extras}]")
    session.install("--force-reinstall", "--no-deps", str(wheel))
    return wheel


def need_node(session: nox.Session) -> None:
    if not shutil.which("node"):
        session.error("node runtime: `node` is not on PATH; install Node.js 20")
    if not (ROOT / "node_modules" / "pyodide" / "pyodide.mjs").is_file():
        session.error("node runtime: node_modules/pyodide is missing; install it with `npm ci`")


@nox.session
def tests(session: nox.Session) -> None:
    """The pytest suite; exit 5 (no test collected) is a failure, named as such."""
    install_project(session, extras="test")
    # loadgroup: a module's tests of one browser on one worker, so it starts once
    # (tests/conftest.py). One worker per core and one more: the pages' Pyodide is
    # CPU-bound, but a worker waits too (a browser's frame, a subprocess starting), and the
    # extra worker fills those waits (ADR 0244).
    args = session.posargs or ["-n", str(_cores() + 1), "--dist", "loadgroup"]
    # pytest's exit 5 means "no tests collected": a suite that runs nothing must not pass,
    # and a bare "exit code 5" says too little, so the shim names it.
    session.run("python", "-c", _PYTEST_SHIM, *args)


def _cores() -> int:
    """The cores this process may run on (what pytest-xdist's ``-n auto`` counts)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        return os.cpu_count() or 1


@nox.session
def mutations(session: nox.Session) -> None:
    """The full mutation test of the specialiser (tests/test_specialise_mutations.py, 64
    mutations of the readable functions every fast path is derived from: the CommonRoad
    tire and MB, the four-wheel shape and stages; the suite runs 37, each function once)."""
    _run_whole(session, ["tests/test_specialise_mutations.py"])


#: the test modules that run a stated sample in the test command (``FULL_CAMPAIGNS`` in
#: tests/helpers.py; docs/manual/testing.md, "Stated samples")
CAMPAIGN_TESTS = [
    "tests/test_recording_param_fuzz.py",
    "tests/test_physics_versions.py",
    "tests/test_validation_results.py",
    "tests/test_sandbox_e2e.py",
    "tests/test_sandbox_keep_e2e.py",
    "tests/test_specialise_mutations.py",
    "tests/test_bless_interrupted.py",
]


@nox.session
def campaigns(session: nox.Session) -> None:
    """The campaigns the test command samples, run whole: every CommonRoad parameter edit in
    every model, the timestep sweep's whole grid, every stepped lap driven to a valid lap in
    both browsers, the forged lap time searched through every physics, twenty interrupted
    blesses, and the 64 mutations (docs/manual/testing.md). For a physics change, a new
    runtime, or a release."""
    _run_whole(session, CAMPAIGN_TESTS)


def _run_whole(session: nox.Session, modules: list[str]) -> None:
    """``modules`` under pytest with every stated sample lifted (the campaigns' and the
    mutation test's)."""
    install_project(session, extras="test")
    session.env["SKIDPAD_CAMPAIGNS"] = "full"
    session.env["SKIDPAD_MUTATIONS"] = "all"
    args = session.posargs or ["-n", "auto", "--dist", "loadgroup"]
    session.run("python", "-c", _PYTEST_SHIM, *modules, *args)


_PYTEST_SHIM = """\
import sys, pytest
rc = pytest.main(sys.argv[1:])
if rc == 5:
    print("tests: pytest collected no tests (exit 5): the selection ran nothing", file=sys.stderr)
    sys.exit(1)
sys.exit(rc)
"""


@nox.session
def lint(session: nox.Session) -> None:
    """ruff over the tree, then the strict-float lint (docs/architecture.md §3) over ``engine/`` and
    ``scenarios/`` (whose drivers compute recorded, hashed inputs), then its layering rule alone
    over every package (no import of a higher layer, docs/architecture.md §1)."""
    session.install("ruff>=0.5")
    session.run("ruff", "check", ".")
    lint_script = ROOT / "ci" / "strict_float_lint.py"
    if not lint_script.is_file():
        session.error("lint: ci/strict_float_lint.py (the strict-float lint) is missing")
    session.run("python", str(lint_script), "engine", "scenarios")
    packages = ("engine", "replay", "scenarios", "parity", "sandbox", "cli", "skidpad")
    session.run("python", str(lint_script), "--only", "layering,bare-import", *packages)
    # one name per module (ADR 0204): no bare `import engine` in the tests and scripts either
    scripts = ("tests", "benchmarks", "ci", "noxfile.py")
    session.run("python", str(lint_script), "--only", "bare-import", *scripts)


@nox.session
def docs(session: nox.Session) -> None:
    """The documentation site (``mkdocs.yml``, ADR 0240) built with ``--strict``: a broken link,
    a missing page or a page outside the navigation fails. Then ``tests/test_docs_site.py``
    checks the built site (every name of ``skidpad.__all__`` in the API reference, every
    subcommand in the command-line reference, a planted broken link refused). Offline once the
    pinned packages are installed; nothing is built or installed from the checkout."""
    session.install("-r", str(ROOT / "ci" / "docs-requirements.txt"), "pytest>=8")
    site = ROOT / "build" / "site"
    # run from build/: griffe would take the checkout's own ``skidpad/`` folder (relative to
    # the working directory) for the package instead of the wheel-shaped tree the hook lays out
    (ROOT / "build").mkdir(exist_ok=True)
    session.chdir(ROOT / "build")
    session.run(*MKDOCS_BUILD, "-f", str(ROOT / "mkdocs.yml"))
    session.chdir(ROOT)
    session.run(
        "python", "-m", "pytest", "-p", "no:cacheprovider", "-q", "tests/test_docs_site.py",
        env={"SKIDPAD_DOCS_SITE": str(site)},
    )


#: the site's build, as the docs session runs it and tests/test_docs_site.py plants faults
#: under it. Not ``--quiet``: that hides the warnings ``--strict`` turns into a failure (a
#: broken anchor then passes).
MKDOCS_BUILD = ("mkdocs", "build", "--strict")


@nox.session
def accuracy(session: nox.Session) -> None:
    """Strict math vs mpmath: 200,000 points per function, max ulp and % correctly rounded.

    Runs the installed wheel (from a temporary directory, so the checkout cannot shadow it)
    over all CPU cores; ``nox -s accuracy -- --points N --functions sin,cos`` overrides.
    """
    install_project(session)
    session.install("mpmath>=1.3")
    session.chdir(session.create_tmp())
    args = session.posargs or ["--points", "200000"]
    session.run("python", "-m", "skidpad.parity.accuracy", *args)


def _parity_session(session: nox.Session, runtime: str, selftest_only: bool) -> None:
    wheel = install_project(session)
    if runtime == "node":
        need_node(session)
    args = ["skidpad", "parity", "--runtime", runtime, "--wheel", str(wheel), "--root", str(ROOT)]
    if selftest_only:
        args.append("--selftest-only")
    # the console script imports the *installed* package; the worker runs with cwd outside
    # the work tree, so the checkout cannot shadow what was installed.
    session.run(*args, *session.posargs)


@nox.session
def parity(session: nox.Session) -> None:
    """Every runtime, browsers included, one table (``skidpad parity --all``). The test
    command runs the stated sample (ADR 0243, ``skidpad parity --sample``): every recording in
    CPython 3.11, a cover of every model family, drive kind and physics version in the
    others. ``nox -s parity -- --all`` runs every recording in every runtime."""
    wheel = install_project(session, extras="browsers")
    need_node(session)
    everything = "--all" in session.posargs
    posargs = [a for a in session.posargs if a != "--all"]
    # browsers that are not installed are reported by the harness with the command that
    # installs them (ci/install_browsers.sh); they fail the session, never skip silently
    # two runtimes at a time: they are separate processes and CI has two cores
    args = ["skidpad", "parity", "--all", "--jobs", "2", "--wheel", str(wheel), "--root", str(ROOT)]
    if not everything:
        args.append("--sample")
    session.log(f"parity: {'the full matrix' if everything else 'the stated sample (ADR 0243)'}")
    session.run(*args, *posargs)


@nox.session
def history(session: nox.Session) -> None:
    """Recording files ever committed under ``recordings/`` (the blobs of the git history),
    copied out of the checkout and verified by a plain install of the wheel, from another
    directory, with no git: each must be VERIFIED under the physics version the manifest names
    for it (ADR 0205). Every blob must be in the manifest. The test command verifies a stated
    sample, the smallest file of each physics version (one per version: every archived
    engine runs) and the frozen files the parity sample leaves here (the archived CommonRoad
    std ones, ``parity.sampling.left_to_history``), each file by its own ``skidpad verify``,
    one per core at a time; ``nox -s history
    -- --all`` verifies all of them. Then the shipped archive is checked against what the
    history builds."""
    import hashlib
    import json
    import subprocess

    everything = "--all" in session.posargs
    install_project(session)
    out = Path(session.create_tmp()).resolve() / "history"
    shutil.rmtree(out, ignore_errors=True)
    out.mkdir(parents=True)
    listing = subprocess.run(
        ["git", "-C", str(ROOT), "rev-list", "--all", "--objects", "--", "recordings/"],
        capture_output=True, text=True, check=True,
    ).stdout
    manifest = json.loads((ROOT / "replay" / "physics" / "recordings.json").read_text())
    known = manifest["recordings"]
    wanted = [line.partition(" ") for line in listing.splitlines()]
    wanted = [(blob, path) for blob, _, path in wanted
              if path.startswith("recordings/") and path.endswith(".json")]
    files: dict[str, tuple[str, bytes]] = {}
    for (_, path), data in zip(wanted, _blobs(b for b, _ in wanted), strict=True):
        files.setdefault(hashlib.sha256(data).hexdigest(), (path, data))
    unknown = sorted(files[sha][0] for sha in files if sha not in known)
    if unknown:
        session.error(f"history: committed recordings missing from the manifest: {unknown}")
    chosen = sorted(files)
    if not everything:
        smallest: dict[int, str] = {}
        for sha in sorted(files):
            version = known[sha]["version"]
            if version not in smallest or len(files[sha][1]) < len(files[smallest[version]][1]):
                smallest[version] = sha
        # and the frozen files the parity sample leaves to this session (ADR 0243): no
        # runtime replays them in the test command
        left = session.run("python", "-P", "-c", _LEFT_TO_HISTORY, str(ROOT), silent=True)
        chosen = sorted(set(smallest.values()) | set(left.split()))
        missing = sorted(set(chosen) - set(files))
        if missing:
            session.error(f"history: files the parity sample leaves here are not committed: "
                          f"{missing}")
    copies = []
    for sha in chosen:
        path, data = files[sha]
        copies.append(out / f"{sha[:16]}-{Path(path).name}")
        copies[-1].write_bytes(data)
    # the archived CommonRoad engines (physics 2-4, oldest slowest) have no fast path and
    # take most of the time: started first, the other files fill the other cores
    order = sorted(range(len(chosen)), key=lambda k: (
        json.loads(files[chosen[k]][1]).get("format") != "skidpad-commonroad-recording",
        known[chosen[k]]["version"]))
    scope = "all" if everything else ("a sample: the smallest of each physics version and the "
                                      "frozen files the parity sample leaves here")
    session.log(f"history: {len(files)} distinct recording files ever committed, all in the "
                f"manifest; verifying {len(chosen)} ({scope}), {_cores()} at a time")
    session.chdir(out.parent)
    # no git on the PATH and a fresh archive cache: what a plain install of the wheel has
    bare = {"PATH": session.bin, "SKIDPAD_CACHE": str(out.parent / "cache")}
    shutil.rmtree(bare["SKIDPAD_CACHE"], ignore_errors=True)
    if shutil.which("git", path=bare["PATH"]):
        session.error(f"history: git is on the bare PATH {bare['PATH']}")
    reports = _verify_one_per_core(session, [copies[k] for k in order], bare)
    session.run("python", "-P", "-c", _HISTORY_CHECK, *map(str, reports))
    session.chdir(ROOT)
    session.run("python", "-P", "-m", "skidpad", "physics", "--check", "--root", str(ROOT))


def _verify_one_per_core(session: nox.Session, paths: list[Path], env: dict) -> list[Path]:
    """``skidpad verify FILE --report`` for each of ``paths``, one process per core at a time,
    each file's lines printed whole as it ends; the reports, one per file. ``env`` is laid
    over this process's environment (as ``session.run`` does). A verdict is judged
    afterwards from the reports; a refusal (exit 2 or worse) fails."""
    import subprocess
    from concurrent.futures import ThreadPoolExecutor

    python = str(Path(session.bin) / "python")

    def verify(path: Path) -> tuple[Path, int, str]:
        report = path.with_suffix(".jsonl")
        done = subprocess.run([python, "-P", "-m", "skidpad", "verify", str(path), "--report",
                               str(report)], env={**os.environ, **env}, cwd=path.parent.parent,
                              capture_output=True, text=True)
        return report, done.returncode, done.stdout + done.stderr

    reports, failed = [], []
    with ThreadPoolExecutor(_cores()) as pool:
        for report, code, text in pool.map(verify, paths):
            print(text, end="", flush=True)
            reports.append(report)
            if code not in (0, 1):  # 1 is a MISMATCH: named by the check that follows
                failed.append(f"{report.stem}: exit {code}")
    if failed:
        session.error(f"history: skidpad verify failed: {failed}")
    return reports


def _blobs(blobs) -> list[bytes]:
    """The contents of git ``blobs``, in order, from one ``git cat-file --batch``."""
    import subprocess

    names = list(blobs)
    listing = subprocess.run(["git", "-C", str(ROOT), "cat-file", "--batch"],
                             input="".join(f"{b}\n" for b in names).encode(),
                             capture_output=True, check=True).stdout
    out, at = [], 0
    for _ in names:  # "<sha> blob <size>\n<bytes>\n" each
        end = listing.index(b"\n", at)
        size = int(listing[at:end].split()[2])
        out.append(listing[end + 1:end + 1 + size])
        at = end + 1 + size + 1
    return out


#: the SHA-256 of each recording the parity sample leaves to the history session
_LEFT_TO_HISTORY = """\
import sys
from pathlib import Path
from skidpad.parity.runs import load_recordings
from skidpad.parity.sampling import left_to_history
for rec in left_to_history(load_recordings(None, Path(sys.argv[1]))):
    print(rec.sha256)
"""

_HISTORY_CHECK = """\
import hashlib, json, sys
from skidpad.replay.archive import known_recordings
known = known_recordings()
bad = []
lines = [json.loads(line) for name in sys.argv[1:] for line in open(name, encoding="utf-8")]
for line in lines:
    want = known.get(line["sha256"], {}).get("version")
    got = (line.get("physics") or {}).get("version")
    if line["verdict"] != "verified" or got != want:
        bad.append(f"{line['path']}: {line['verdict']} under physics {got}, manifest {want}")
print(f"history: {len(lines) - len(bad)} of {len(lines)} verified under their own physics")
for b in bad:
    print("  " + b)
sys.exit(1 if bad else 0)
"""


@nox.session
def bless(session: nox.Session) -> None:
    """Rewrite hashes/ from the current physics (``skidpad bless``); prints what changed."""
    install_project(session)
    session.run("skidpad", "bless", *session.posargs)


@nox.session
def bench(session: nox.Session) -> None:
    """One table: µs/substep and x real time per preset in CPython 3.11/3.12/3.13 and
    Pyodide/Node, the CommonRoad derivative ratios, the strict-math ratios
    (``benchmarks/bench.py``; ``nox -s bench -- --json`` for machines). A benchmark, not a
    test: never part of the default sessions."""
    # the test extra brings the reference CommonRoad package the derivative ratios need
    wheel = install_project(session, extras="test")
    session.run(
        "python", str(ROOT / "benchmarks" / "bench.py"), "--wheel", str(wheel), *session.posargs
    )


@nox.session
def replay(session: nox.Session) -> None:
    """``skidpad replay recordings/*.json``: the replay table vs hashes/ (exit 1 on a mismatch)."""
    install_project(session)
    recordings = sorted(str(p) for p in (ROOT / "recordings").glob("*.json"))
    if not recordings:
        session.error("replay: recordings/ is empty; create them with skidpad record (see README)")
    hashes = str(ROOT / "hashes")
    session.run("skidpad", "replay", *recordings, "--hashes", hashes, *session.posargs)


def _define_runtime_sessions() -> None:
    interpreters = {minor: find_cpython(minor) for minor in CPYTHON_VERSIONS}
    for kind, selftest_only in (("selftest", True), ("replay", False)):
        for minor, interpreter in interpreters.items():
            _define_cpython(kind, f"cpython{minor}", minor, interpreter, selftest_only)
        _define_node(kind, selftest_only)


def _define_cpython(
    kind: str, runtime: str, minor: str, interpreter: str | None, selftest_only: bool
) -> None:
    def session_fn(session: nox.Session) -> None:
        if interpreter is None:
            session.error(missing_cpython_message(minor))
        _parity_session(session, runtime, selftest_only)

    session_fn.__doc__ = (
        f"{'Math self-test hash' if selftest_only else 'Self-test and every recording'} "
        f"in CPython {minor} ({interpreter or 'NOT FOUND: ' + missing_cpython_message(minor)})"
    )
    nox.session(name=f"{kind}-{runtime}", python=interpreter or False)(session_fn)


def _define_node(kind: str, selftest_only: bool) -> None:
    def session_fn(session: nox.Session) -> None:
        _parity_session(session, "node", selftest_only)

    session_fn.__doc__ = (
        f"{'Math self-test hash' if selftest_only else 'Self-test and every recording'} "
        "in Pyodide under Node.js (node_modules/pyodide)"
    )
    nox.session(name=f"{kind}-node")(session_fn)


BROWSERS = ("chromium", "firefox", "webkit")


def _define_browser(kind: str, name: str, selftest_only: bool) -> None:
    """``selftest-<browser>``/``replay-<browser>``: Pyodide in Chromium, Firefox or WebKitGTK."""

    def session_fn(session: nox.Session) -> None:
        from skidpad.parity.runtimes.browser import missing_parts
        from skidpad.parity.runtimes.page import INSTALL_COMMAND

        missing = missing_parts(name, python_packages=False)
        if missing:
            session.error(
                f"{name} runtime: missing {', '.join(missing)}; install with `{INSTALL_COMMAND}`"
            )
        if not (ROOT / "node_modules" / "pyodide" / "pyodide.mjs").is_file():
            session.error(
                f"{name} runtime: node_modules/pyodide is missing; install it with `npm ci`"
            )
        install_project(session, extras="browsers")  # playwright==1.64.1, selenium
        _parity_session(session, name, selftest_only)

    what = "Math self-test hash" if selftest_only else "Self-test and every recording"
    session_fn.__doc__ = f"{what} in Pyodide in {name} (ci/install_browsers.sh installs it)"
    nox.session(name=f"{kind}-{name}")(session_fn)


for _kind, _selftest_only in (("selftest", True), ("replay", False)):
    for _browser in BROWSERS:
        _define_browser(_kind, _browser, _selftest_only)


_define_runtime_sessions()
