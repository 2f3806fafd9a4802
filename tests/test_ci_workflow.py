"""The hosted-CI workflow can start on a fresh runner (.github/workflows/ci.yml, ADR 0100).

A bare ``debian:12`` container has no git, Python, Node.js or pyenv. The workflow tests walk
every job's steps in order, as the runner runs them, and check that each command a step
runs is part of the bare image or was installed by an earlier step of the same job; that
the three CPythons are exported (``$GITHUB_ENV``, visible from the next step on) before
``ci/setup.sh`` and ``nox``; that each cache is restored before the tool that fills it; and
that every ``nox -s`` session the workflow names exists, as nox itself resolves it from
noxfile.py. Broken workflows, the original defective one among them, must be rejected.

The last test runs ``ci/setup.sh`` as on such a runner: no pyenv anywhere on PATH, the
interpreters only through ``SKIDPAD_PYTHON3_*``, no browsers; then one
``nox -s selftest-cpython3.12``.
"""

from __future__ import annotations

import functools
import itertools
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import NamedTuple

import pytest
from skidpad.parity.runtimes.cpython import env_override_name, find_cpython

yaml = pytest.importorskip("yaml")

ROOT = Path(__file__).resolve().parent.parent
WORKFLOW = ROOT / ".github" / "workflows" / "ci.yml"
MINORS = ("3.11", "3.12", "3.13")
OVERRIDES = tuple(env_override_name(minor) for minor in MINORS)

#: what a bare debian:12 image has, of the commands a step may run
BARE_IMAGE = frozenset(
    {"apt-get", "bash", "sh", "echo", "printf", "cat", "cd", "mkdir", "rm", "ls", "test"}
    | {"true", "export", "set", "dpkg", "dpkg-query", "tee", "env", "id"}
)
#: Debian package -> the commands it installs
DEBIAN_COMMANDS = {"git": {"git"}, "python3": {"python3"}, "nodejs": {"node"}, "npm": {"npm"}}
#: PyPI package -> the commands it puts into the venv's bin/
PYPI_COMMANDS = {"uv": {"uv"}, "nox": {"nox"}}
KNOWN_ACTIONS = {"actions/checkout", "actions/cache", "actions/upload-artifact"}
PIP_CACHE, NPM_CACHE, CPYTHON_CACHE = "PIP_CACHE_DIR", "npm_config_cache", "UV_PYTHON_INSTALL_DIR"


# --- the shell: just enough of it to see which commands a `run:` script runs ---------------


@dataclass
class Command:
    argv: list[str]
    redirect: str | None  # where `>`/`>>` sends its output
    substitutions: list[str]  # the `$(...)` scripts inside its words


_SUBSTITUTION = re.compile(r"\$\(([^()]*)\)")
_PLACEHOLDER = re.compile(r"\x00(\d+)\x00")
_ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")
_PREFIX_WORDS = {"if", "then", "else", "elif", "do", "while", "until", "!", "exec", "time"}
_CLOSING_WORDS = {"fi", "done", "esac", "for", "case"}


def shell_commands(script: str) -> list[Command]:
    """The simple commands of ``script`` in the order they run (a ``$(...)`` before the
    command whose word holds it). ``&&``, ``||``, ``;``, ``|`` and newlines separate them."""
    commands: list[Command] = []
    for line in script.replace("\\\n", " ").splitlines():
        substitutions: list[str] = []

        def hold(match: re.Match[str], subs: list[str] = substitutions) -> str:
            subs.append(match.group(1))
            return f"\x00{len(subs) - 1}\x00"

        lexer = shlex.shlex(_SUBSTITUTION.sub(hold, line), posix=True, punctuation_chars=";&|()<>")
        lexer.whitespace_split = True
        words: list[str] = []
        redirect: str | None = None
        tokens = iter([*lexer, ";"])
        for token in tokens:
            if token in (">", ">>", "<"):
                target = next(tokens)
                redirect = target if token != "<" else redirect
            elif set(token) <= set(";&|()"):
                commands.extend(_simple_command(words, redirect, substitutions))
                words, redirect = [], None
            else:
                words.append(token)
    return commands


def _simple_command(words: list[str], redirect: str | None, subs: list[str]) -> list[Command]:
    held = [subs[int(n)] for word in words for n in _PLACEHOLDER.findall(word)]
    inner = [command for script in held for command in shell_commands(script)]
    argv = list(words)
    while argv and (_ASSIGNMENT.match(argv[0]) or argv[0] in _PREFIX_WORDS):
        argv.pop(0)
    if not argv or argv[0] in _CLOSING_WORDS:
        return inner
    return [*inner, Command(argv, redirect, held)]


def expand(text: str, env: dict[str, str], matrix: dict[str, str]) -> str:
    """``${{ env.X }}``, ``${{ matrix.X }}``, ``$X`` and ``${X}`` with the values known."""

    def expression(match: re.Match[str]) -> str:
        scope, _, name = match.group(1).partition(".")
        values = {"env": env, "matrix": matrix}.get(scope, {})
        return values.get(name, match.group(0))

    text = re.sub(r"\$\{\{\s*([A-Za-z_]+\.[A-Za-z0-9_-]+)\s*\}\}", expression, text)
    variable = r"\$(?:\{([A-Za-z_][A-Za-z0-9_]*)\}|([A-Za-z_][A-Za-z0-9_]*))"
    return re.sub(variable, lambda m: env.get(m.group(1) or m.group(2), m.group(0)), text)


# --- one job, step by step -------------------------------------------------------------------


@dataclass
class Job:
    """What one job (one matrix entry) has installed so far, walked step by step."""

    name: str
    env: dict[str, str]
    matrix: dict[str, str]
    problems: list[str] = field(default_factory=list)
    sessions: list[str] = field(default_factory=list)
    commands: set[str] = field(default_factory=set)
    venv_module: bool = False
    venvs: set[str] = field(default_factory=set)
    python_is_venv: bool = False  # the python3 on PATH is a venv's, so pip may install
    cpythons: set[str] = field(default_factory=set)  # the minor versions uv installed
    exported: set[str] = field(default_factory=set)
    caches: set[str] = field(default_factory=set)
    checked_out: bool = False
    fetch_depth: object = None
    step: str = ""
    _next_env: set[str] = field(default_factory=set)
    _next_path: list[str] = field(default_factory=list)

    def problem(self, text: str) -> None:
        self.problems.append(f"job {self.name}, step {self.step}: {text}")

    def need(self, command: str, why: str = "") -> None:
        if command not in self.commands and command not in BARE_IMAGE:
            self.problem(f"runs `{command}`{why}, which no earlier step installs")

    def need_exports(self, what: str) -> None:
        for name in OVERRIDES:
            if name not in self.exported:
                self.problem(f"{what} runs before an earlier step exports {name}")

    def need_cache(self, variable: str, what: str) -> None:
        path = self.env.get(variable)
        if path is None or path not in self.caches:
            self.problem(f"{what} runs before the {variable} cache is restored")

    def need_checkout(self, what: str) -> None:
        if not self.checked_out:
            self.problem(f"{what} runs before actions/checkout")

    def walk(self, steps: list[dict]) -> None:
        for number, step in enumerate(steps, 1):
            label = str(step.get("name") or step.get("uses") or step.get("run"))
            self.step = f"{number} ({label.splitlines()[0][:60]})"
            env = {**self.env, **{k: str(v) for k, v in (step.get("env") or {}).items()}}
            if "uses" in step:
                self.action(step["uses"].split("@")[0], step.get("with") or {})
            elif "run" in step:
                for command in shell_commands(expand(step["run"], env, self.matrix)):
                    self.run(command)
            self.exported |= self._next_env  # $GITHUB_ENV and $GITHUB_PATH count from the
            self._next_env = set()  # next step on, not in the step that writes them
            for folder in self._next_path:
                if folder in self.venvs:
                    self.python_is_venv = True
                    self.commands |= {"python3", "pip"}
            self._next_path = []
        self.check_history()

    def action(self, action: str, inputs: dict) -> None:
        if action not in KNOWN_ACTIONS:
            self.problem(f"uses {action}, which this check does not know")
        elif action == "actions/checkout":
            # without git in the container, checkout downloads a tarball: no history, no .git
            self.need("git", " (actions/checkout needs it for a real clone)")
            self.checked_out = True
            self.fetch_depth = inputs.get("fetch-depth")
        elif action == "actions/cache":
            if "hashFiles" in str(inputs.get("key", "")):
                self.need_checkout("a cache keyed on hashFiles")
            path = expand(str(inputs.get("path", "")), self.env, self.matrix)
            self.caches |= {line.strip() for line in path.splitlines() if line.strip()}

    def run(self, command: Command) -> None:
        argv = [expand(word, self.env, self.matrix) for word in command.argv]
        self.need(argv[0])
        handlers: dict[str, Callable[[list[str], Command], None]] = {
            "apt-get": self.apt_get,
            "python3": self.python3,
            "pip": lambda argv, _: self.pip(argv[1:]),
            "echo": self.echo,
            "uv": self.uv,
            "bash": self.bash,
            "npm": self.npm,
            "nox": self.nox,
        }
        handler = handlers.get(argv[0])
        if handler is not None:
            handler(argv, command)

    def apt_get(self, argv: list[str], _: Command) -> None:
        if argv[1:2] == ["install"]:
            for package in (word for word in argv[2:] if not word.startswith("-")):
                self.commands |= DEBIAN_COMMANDS.get(package, set())
                self.venv_module |= package == "python3-venv"

    def python3(self, argv: list[str], _: Command) -> None:
        if argv[1:3] == ["-m", "venv"]:
            if not self.venv_module:
                self.problem("`python3 -m venv` needs Debian's python3-venv, not installed")
            self.venvs.add(argv[-1].rstrip("/"))
        elif argv[1:3] == ["-m", "pip"]:
            self.pip(argv[3:])

    def pip(self, args: list[str]) -> None:
        if args[:1] != ["install"]:
            return
        self.need_cache(PIP_CACHE, "pip install")
        if not self.python_is_venv:
            self.problem("pip installs into Debian's python3, which refuses (PEP 668)")
            return
        for word in (w for w in args[1:] if not w.startswith("-")):
            name = re.split(r"[=<>!~\[ ]", word, maxsplit=1)[0].lower()
            self.commands |= PYPI_COMMANDS.get(name, set())

    def echo(self, argv: list[str], command: Command) -> None:
        if command.redirect == "$GITHUB_PATH":
            self._next_path += [word.removesuffix("/bin") for word in argv[1:]]
        elif command.redirect == "$GITHUB_ENV":
            for word in argv[1:]:
                name, _, value = word.partition("=")
                self._next_env.add(name)
                if name in OVERRIDES:
                    self.check_export(name, value, command.substitutions)

    def check_export(self, name: str, value: str, substitutions: list[str]) -> None:
        minor = MINORS[OVERRIDES.index(name)]
        finds = [s.split() for s in substitutions if s.split()[:3] == ["uv", "python", "find"]]
        if not value or (substitutions and not any(f[-1] == minor for f in finds)):
            self.problem(f"{name} is not set to the path `uv python find {minor}` prints")

    def uv(self, argv: list[str], _: Command) -> None:
        requests = [word for word in argv[3:] if not word.startswith("-")]
        if argv[1:3] == ["python", "install"]:
            self.need_cache(CPYTHON_CACHE, "uv python install")
            self.cpythons |= set(requests)
        elif argv[1:3] == ["python", "find"] and not set(requests) <= self.cpythons:
            self.problem(f"`uv python find {' '.join(requests)}` before uv installed it")

    def bash(self, argv: list[str], _: Command) -> None:
        if argv[1:2] != ["ci/setup.sh"]:
            return
        self.need_checkout("ci/setup.sh")
        self.need("python3", " (ci/setup.sh needs it)")
        if "python3" in self.commands and not self.python_is_venv:
            self.problem("ci/setup.sh pip-installs nox into Debian's python3 (PEP 668 refuses)")
        self.need("node", " (ci/setup.sh needs it)")
        self.need("npm", " (ci/setup.sh needs it)")
        self.need_exports("ci/setup.sh (no pyenv on a runner)")
        self.need_cache(PIP_CACHE, "ci/setup.sh (pip install nox)")
        self.need_cache(NPM_CACHE, "ci/setup.sh (npm ci)")
        if self.python_is_venv:
            self.commands.add("nox")

    def npm(self, argv: list[str], _: Command) -> None:
        if argv[1:2] == ["ci"]:
            self.need("node", " (npm ci needs it)")
            self.need_checkout("npm ci")
            self.need_cache(NPM_CACHE, "npm ci")

    def nox(self, argv: list[str], _: Command) -> None:
        self.need_exports("nox")
        names = iter(argv[1:])
        for word in names:
            if word in ("-s", "-e", "--session", "--sessions"):
                for name in names:
                    if name.startswith("-"):
                        break
                    self.sessions.append(name)

    def check_history(self) -> None:
        full = str(self.fetch_depth) == "0"
        if "tests" in self.sessions and not full:
            self.problem("the tests session reads the history of hashes/: needs fetch-depth: 0")
        elif full and "tests" not in self.sessions:
            self.problem("fetch-depth: 0 in a job without the tests session (only it needs it)")


def matrix_entries(job: dict) -> Iterator[dict[str, str]]:
    matrix = (job.get("strategy") or {}).get("matrix") or {}
    axes = {k: v for k, v in matrix.items() if isinstance(v, list)}
    for values in itertools.product(*axes.values()):
        yield {k: str(v) for k, v in zip(axes, values, strict=True)}


@functools.cache
def missing_sessions(names: tuple[str, ...]) -> frozenset[str]:
    """The ``names`` that noxfile.py does not define, as nox itself resolves ``-s``."""
    proc = subprocess.run(
        [sys.executable, "-m", "nox", "-f", str(ROOT / "noxfile.py"), "-l", "--json", "-s", *names],
        capture_output=True,
        text=True,
        timeout=120,
    )
    not_found = re.search(r"Sessions not found: (.*)", proc.stderr)
    if not_found:
        return frozenset(name.strip() for name in not_found.group(1).split(","))
    assert proc.returncode == 0, f"nox --list failed: {proc.stderr[-2000:]}"
    listed = {session["session"] for session in json.loads(proc.stdout)}
    return frozenset(set(names) - listed)


def workflow_problems(text: str) -> list[str]:
    """Every way the workflow ``text`` would fail before its checks start, one line each."""
    workflow = yaml.safe_load(text)
    problems: list[str] = []
    sessions: dict[str, str] = {}
    for job_name, job in workflow["jobs"].items():
        env = {k: str(v) for k, v in {**workflow.get("env", {}), **job.get("env", {})}.items()}
        for matrix in matrix_entries(job):
            label = f"{job_name}{list(matrix.values()) if matrix else ''}"
            walked = Job(label, env, matrix)
            walked.walk(job.get("steps") or [])
            problems += walked.problems
            sessions.update({name: label for name in walked.sessions})
    for name in sorted(missing_sessions(tuple(sorted(sessions)))):
        problems.append(f"job {sessions[name]}: nox session {name} is not in noxfile.py")
    return problems


# --- the workflow tests ------------------------------------------------------------------------

#: the workflow as it was when issue 20 was filed: a bare container, straight to ci/setup.sh
ORIGINAL_WORKFLOW = """
on: [push]
jobs:
  tests:
    runs-on: ubuntu-24.04
    container: debian:12
    steps:
      - uses: actions/checkout@v4
        with:
          fetch-depth: 0
      - run: bash ci/setup.sh
      - run: nox -s tests lint
  replay:
    runs-on: ubuntu-24.04
    container: debian:12
    strategy:
      matrix:
        runtime: [cpython3.11, node]
    steps:
      - uses: actions/checkout@v4
      - run: bash ci/setup.sh
      - run: nox -s replay-${{ matrix.runtime }}
"""


def test_the_workflow_installs_everything_before_it_is_used():
    assert workflow_problems(WORKFLOW.read_text("utf-8")) == []


def test_every_nox_session_the_workflow_names_is_resolved_by_nox():
    assert missing_sessions(("replay-cpython3.12", "selftest-cpython3.13")) == frozenset()
    assert missing_sessions(("replay-cpython3.12", "replay-cpython3.10")) == {"replay-cpython3.10"}


def test_the_original_workflow_is_rejected():
    problems = "\n".join(workflow_problems(ORIGINAL_WORKFLOW))
    assert "job tests, step 1 (actions/checkout@v4): runs `git`" in problems
    assert "job tests, step 2 (bash ci/setup.sh): runs `python3` (ci/setup.sh" in problems
    assert "ci/setup.sh (no pyenv on a runner) runs before an earlier step exports" in problems
    assert "job replay['node'], step 3" in problems
    assert "nox runs before an earlier step exports SKIDPAD_PYTHON3_12" in problems


class Breakage(NamedTuple):
    old: str  # text of the real workflow
    new: str  # what replaces it
    phrase: str  # what one of the problems must then say


BREAKAGES = {
    "no git": Breakage(" git python3 ", " python3 ", "runs `git` (actions/checkout"),
    "no python3-venv": Breakage(" python3-venv ", " ", "needs Debian's python3-venv"),
    "no nodejs": Breakage(" nodejs ", " ", "runs `node` (ci/setup.sh needs it)"),
    "venv not on PATH": Breakage('echo "$SKIDPAD_VENV/bin" >> "$GITHUB_PATH"', "true", "PEP 668"),
    "no 3.13 export": Breakage(
        'echo "SKIDPAD_PYTHON3_13=$(uv python find --managed-python --no-project 3.13)"'
        ' >> "$GITHUB_ENV"',
        "true",
        "exports SKIDPAD_PYTHON3_13",
    ),
    "3.13 exported as 3.12": Breakage(
        "SKIDPAD_PYTHON3_13=$(uv python find --managed-python --no-project 3.13)",
        "SKIDPAD_PYTHON3_13=$(uv python find --managed-python --no-project 3.12)",
        "SKIDPAD_PYTHON3_13 is not set to the path `uv python find 3.13`",
    ),
    "setup in the exporting step": Breakage(
        '>> "$GITHUB_ENV"\n      - run: bash ci/setup.sh',
        '>> "$GITHUB_ENV"\n          bash ci/setup.sh',
        "ci/setup.sh (no pyenv on a runner) runs before an earlier step exports",
    ),
    "no pip cache": Breakage(
        "path: ${{ env.PIP_CACHE_DIR }}", "path: /root/.cache/pip", "PIP_CACHE_DIR"
    ),
    "unknown session": Breakage("nox -s tests lint", "nox -s tests lint-all", "lint-all is not in"),
    "unknown runtime": Breakage(
        "webkit]", "webkit, pypy3.10]", "replay-pypy3.10 is not in noxfile"
    ),
    "shallow tests job": Breakage("fetch-depth: 0 ", "fetch-depth: 1 ", "needs fetch-depth: 0"),
}


@pytest.mark.parametrize("breakage", sorted(BREAKAGES))
def test_a_broken_workflow_is_rejected(breakage):
    broken = BREAKAGES[breakage]
    workflow = WORKFLOW.read_text("utf-8")
    assert broken.old in workflow, f"the breakage {breakage!r} no longer applies to ci.yml"
    problems = workflow_problems(workflow.replace(broken.old, broken.new))
    assert any(broken.phrase in line for line in problems), "\n".join(problems)


def test_only_the_tests_job_fetches_the_whole_history():
    workflow = WORKFLOW.read_text("utf-8")
    broken = workflow.replace(
        "      - uses: actions/checkout@v4\n      - uses: actions/cache@v4",
        "      - uses: actions/checkout@v4\n        with:\n          fetch-depth: 0\n"
        "      - uses: actions/cache@v4",
        1,
    )
    assert broken != workflow
    problems = workflow_problems(broken)
    assert any("job replay" in p and "without the tests session" in p for p in problems)


def test_the_shell_reader_sees_substitutions_and_redirects():
    commands = shell_commands(
        'DEBIAN_FRONTEND=x apt-get install -y git && echo "A=$(uv python find 3.11)" >> "$F"\n'
        "x=$(node -v) || npm ci 2>/dev/null # comment\n"
    )
    assert [c.argv[0] for c in commands] == ["apt-get", "uv", "echo", "node", "npm"]
    assert commands[2].redirect == "$F"
    assert commands[2].substitutions == ["uv python find 3.11"]
    assert commands[4].argv == ["npm", "ci", "2"]


# --- ci/setup.sh and one nox session on a machine without pyenv --------------------------------


def _under_pyenv(folder: str) -> bool:
    """True for pyenv's root and everything in it (bin/, shims/, versions/*/bin, plugins)
    and for any other folder holding a `pyenv` executable."""
    root = Path(os.environ.get("PYENV_ROOT", Path.home() / ".pyenv")).resolve()
    path = Path(folder).resolve()
    return path == root or root in path.parents or (path / "pyenv").exists()


def _pyodide_installed() -> bool:
    lock = json.loads((ROOT / "package-lock.json").read_text("utf-8"))
    wanted = lock["packages"]["node_modules/pyodide"]["version"]
    installed = ROOT / "node_modules" / "pyodide" / "package.json"
    return installed.is_file() and json.loads(installed.read_text("utf-8"))["version"] == wanted


def _script(path: Path, body: str) -> None:
    path.write_text(f"#!/bin/sh\n{body}\n", "utf-8")
    path.chmod(0o755)


@pytest.fixture(scope="module")
def runner_without_pyenv(tmp_path_factory) -> dict[str, str]:
    """An environment like a hosted runner's: ``python3`` is this interpreter (a small
    wrapper, so no pyenv shim comes with it), PATH holds no pyenv directory, and nothing
    ci/setup.sh would install is missing. The test installs nothing: `npm ci`, `apt-get`
    and pip downloads are refused, so a shared node_modules or system is never touched."""
    if subprocess.run([sys.executable, "-c", "import nox, hatchling, uv"]).returncode != 0:
        pytest.skip(f"{sys.executable} lacks nox, hatchling or uv (pip install -e '.[test]')")
    if not (shutil.which("node") and shutil.which("npm") and _pyodide_installed()):
        pytest.skip("node, npm or node_modules/pyodide missing (bash ci/setup.sh installs them)")
    bin_dir = tmp_path_factory.mktemp("runner-bin")
    npm = shlex.quote(str(shutil.which("npm")))
    refuse = 'echo "test: $0 $* refused: this test installs nothing" >&2; exit 97'
    _script(bin_dir / "python3", f'exec {shlex.quote(sys.executable)} "$@"')
    _script(bin_dir / "npm", f'case "$1" in ci|install) {refuse};; esac\nexec {npm} "$@"')
    _script(bin_dir / "apt-get", refuse)
    kept = [d for d in os.environ["PATH"].split(os.pathsep) if d and not _under_pyenv(d)]
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith("PYENV") and k not in (*OVERRIDES, "VIRTUAL_ENV", "SKIDPAD_ROOT")
    }
    env.update(PATH=os.pathsep.join([str(bin_dir), *kept]), SKIDPAD_NO_BROWSERS="1")
    env["PIP_NO_INDEX"] = "1"  # pip may install local wheels only
    env["UV_NO_INDEX"] = "1"  # and so may uv (nox's virtualenvs, ADR 0257)
    assert shutil.which("pyenv", path=env["PATH"]) is None
    return env


@pytest.fixture(scope="module")
def interpreters() -> dict[str, str]:
    """Real CPython binaries (pyenv's or the runner's), found before pyenv leaves PATH."""
    found = {name: find_cpython(minor) for name, minor in zip(OVERRIDES, MINORS, strict=True)}
    missing = [name for name, path in found.items() if path is None]
    if missing:
        pytest.skip(f"no CPython for {', '.join(missing)}")
    assert not any("shims" in Path(path).parts for path in found.values())
    return {name: str(path) for name, path in found.items()}


def _setup(env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["bash", str(ROOT / "ci" / "setup.sh")], env=env, capture_output=True, text=True
    )


def test_setup_without_pyenv_or_overrides_names_the_variable(runner_without_pyenv):
    proc = _setup(runner_without_pyenv)
    assert proc.returncode != 0
    assert "pyenv is not installed; install it or set SKIDPAD_PYTHON3_11" in proc.stderr


def test_setup_rejects_an_override_of_the_wrong_version(runner_without_pyenv, interpreters):
    wrong = {**interpreters, "SKIDPAD_PYTHON3_13": interpreters["SKIDPAD_PYTHON3_12"]}
    proc = _setup({**runner_without_pyenv, **wrong})
    assert proc.returncode != 0
    assert "SKIDPAD_PYTHON3_13=" in proc.stderr and "is not a CPython 3.13 (3.12)" in proc.stderr


@pytest.mark.slow
def test_setup_and_a_selftest_session_without_pyenv(runner_without_pyenv, interpreters, tmp_path):
    env = {**runner_without_pyenv, **interpreters}
    proc = _setup(env)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    for name, minor in zip(OVERRIDES, MINORS, strict=True):
        assert f"CPython {minor}: {interpreters[name]} (from {name})" in proc.stdout
    assert "nox, hatchling and uv already installed" in proc.stdout
    assert re.search(r"pyodide \S+ already in node_modules", proc.stdout)
    assert "SKIDPAD_NO_BROWSERS=1: not installing the browser runtimes" in proc.stdout

    # the venv lives in build/ so a re-run reuses it, apart from the developer's .nox/; the
    # report goes to tmp_path so the developer's build/parity/ is left alone
    python3 = str(Path(env["PATH"].split(os.pathsep)[0]) / "python3")
    nox = [python3, "-m", "nox", "-f", str(ROOT / "noxfile.py")]
    envdir = ROOT / "build" / "nox-without-pyenv"
    session = [*nox, "--envdir", str(envdir), "-s", "selftest-cpython3.12"]
    proc = subprocess.run(
        [*session, "--", "--report-dir", str(tmp_path)],
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    report = json.loads((tmp_path / "report.json").read_text("utf-8"))
    (runtime,) = report["runtimes"]
    assert report["ok"] and runtime["name"] == "cpython3.12"
    assert runtime["math_verdict"]["status"] == "match"
    # the session's venv was made from the interpreter the variable named
    venv_cfg = Path(runtime["info"]["executable"]).parent.parent / "pyvenv.cfg"
    home = re.search(r"^home\s*=\s*(.+)$", venv_cfg.read_text("utf-8"), re.M).group(1)
    assert Path(home).resolve() == Path(interpreters["SKIDPAD_PYTHON3_12"]).resolve().parent
