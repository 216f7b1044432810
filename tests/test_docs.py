"""Every fenced code block in README.md and docs/ runs as written (as datasette's docs tests do).

How a block is checked depends on its language (the first word after the fence):

- ``python``: run. The blocks of one file run in order, in one namespace, in a fresh temporary
  folder; afterwards every ``test_*`` function they defined that takes no argument but
  ``tmp_path`` is called too.
- ``console`` / ``bash`` / ``sh``: each ``$ command`` line (in ``bash`` blocks without
  prompts, each line) runs in bash in that folder, with ``agi`` and ``python`` being this
  checkout's. The lines shown after a command are its expected output (stdout and stderr,
  as a terminal shows them; a line ``...`` stands for any lines, ``...`` inside a line for
  any text); a command without shown output must exit 0. Commands that install from the
  network, build, or run the whole test suite are not run (``NOT_RUN`` says which and why),
  but ``pip install -e DIR`` of a folder the document itself wrote is, into a throwaway
  virtual environment, and the plugins it declares are then loaded.
- ``toml`` / ``json``: parsed.
- ``text``: not run; the only way to mark a block as not runnable.

A block with ``title="path"`` after its language is a file: it is written to ``path`` in the
folder (python files are compiled, not run) for the commands that follow to use.
A failure names the file, the block's line and the error.
"""

from __future__ import annotations

import gc
import inspect
import json
import os
import re
import subprocess
import sys
import tomllib
import traceback
import warnings
from pathlib import Path

import attrs
import pytest

ROOT = Path(__file__).resolve().parent.parent
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]

# Commands the docs may show but a test cannot run, each with the reason.
NOT_RUN = {
    r"(^|/)pip3? install(?! (-q )?-e )": "installs from the network",
    r"(^|/)pip3? install (-q )?-e \.": "installs this checkout (the test runs it already)",
    r"-m venv": "creates a virtual environment",
    r"install_llama_cpp\.sh": "builds llama-cpp-python (about 10 minutes)",
    r"scripts/check\.sh": "lint, types and the whole test suite, this test included",
    r"llama_server\.sh|llama_cpp\.server": "starts a model server in the foreground",
    r"-m pytest\s*(-q)?\s*$|^pytest\s*(-q)?\s*$": "runs the whole test suite, this test included",
    r"^CMAKE_ARGS=": "builds llama-cpp-python",
    r"benchmarks/": "a benchmark (minutes; run by hand, figures in benchmarks/README.md)",
}
# Documents whose blocks take more than a few seconds for another reason than a local install.
SLOW = {
    "docs/long-term-memory.md": "loads the MiniLM model (torch)",
    "docs/mcp.md": "starts MCP servers and agi mcp serve (processes)",
}
LOCAL_INSTALL = re.compile(r"^(?:\S*/)?pip3? install (?:-q )?-e (\S+)$")
COMMAND_TIMEOUT_S = 300


class DocFailure(AssertionError):
    """A block did not do what its document says; the message says what it did instead."""


@attrs.frozen
class Block:
    path: Path
    line: int  # 1-based line of the opening fence
    lang: str
    title: str | None
    body: str

    def where(self) -> str:
        return f"{_shown(self.path)}:{self.line} (```{self.lang or ''} block)"


def _shown(path: Path) -> str:
    return str(path.relative_to(ROOT)) if path.is_relative_to(ROOT) else path.name


def blocks(path: Path) -> list[Block]:
    """The fenced code blocks of a Markdown file, dedented to their fence's indentation."""
    found: list[Block] = []
    lines = path.read_text(encoding="utf-8").splitlines()
    index = 0
    while index < len(lines):
        opening = re.match(r"^(\s*)(`{3,}|~{3,})(.*)$", lines[index])
        if not opening:
            index += 1
            continue
        indent, fence, info = opening.groups()
        body: list[str] = []
        end = index + 1
        while end < len(lines) and not re.match(rf"^\s*{re.escape(fence)}\s*$", lines[end]):
            line = lines[end]
            body.append(line[len(indent) :] if line.startswith(indent) else line.lstrip())
            end += 1
        words = info.strip().split(None, 1)
        title = re.search(r'title="([^"]+)"', info)
        found.append(
            Block(path, index + 1, words[0] if words else "", title.group(1) if title else None, "\n".join(body))
        )
        index = end + 1
    return found


class DocRun:
    """Runs the blocks of one document in ``folder``; collects failures instead of stopping."""

    def __init__(self, doc: Path, folder: Path, shims: Path) -> None:
        self.doc = doc
        self.folder = folder
        self.shims = shims
        self.namespace: dict[str, object] = {"__name__": "docs_example"}
        self.python = sys.executable
        self.venv: Path | None = None
        self.allowed_plugins: list[str] = []
        self.failures: list[str] = []
        self.python_failed = False

    def run(self, block: Block) -> None:
        try:
            if block.title is not None:
                self.write_file(block)
            elif block.lang == "python":
                self.run_python(block)
            elif block.lang in ("console", "bash", "sh", "shell"):
                self.run_shell(block)
            elif block.lang == "toml":
                tomllib.loads(block.body)
            elif block.lang == "json":
                json.loads(block.body)
            elif block.lang != "text":
                what = f"unknown language {block.lang!r}" if block.lang else "no language"
                raise DocFailure(
                    f"{what}; use python, console, bash, toml, json, or text for a block that must not run"
                )
        except DocFailure as exc:
            self.failures.append(f"{block.where()}: {exc}")
        except Exception as exc:  # noqa: BLE001 - every failure is reported with the block's place
            self.failures.append(f"{block.where()}: {type(exc).__name__}: {exc}")

    def write_file(self, block: Block) -> None:
        target = self.folder / block.title  # type: ignore[operator]
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(block.body + "\n", encoding="utf-8")
        if block.lang == "python":
            compile("\n" * block.line + block.body, str(block.path), "exec")
        elif block.lang == "toml":
            tomllib.loads(block.body)

    # -- python ------------------------------------------------------------------------
    def run_python(self, block: Block) -> None:
        if self.python_failed:
            raise DocFailure("not run: an earlier python block of this file failed")
        code = compile("\n" * block.line + block.body, str(block.path), "exec")
        cwd = Path.cwd()
        os.chdir(self.folder)
        try:
            exec(code, self.namespace)
        except BaseException as exc:
            self.python_failed = True
            raise DocFailure(_describe(exc, block.path)) from exc
        finally:
            os.chdir(cwd)

    def run_tests(self, tmp_path: Path) -> None:
        """Call the ``test_*`` functions the python blocks defined (``tmp_path`` is their only fixture)."""
        for name, function in list(self.namespace.items()):
            if not (name.startswith("test_") and callable(function)):
                continue
            params = set(inspect.signature(function).parameters)
            if params <= {"tmp_path"}:
                folder = tmp_path / name
                folder.mkdir()
                try:
                    function(**({"tmp_path": folder} if params else {}))  # type: ignore[operator]
                except Exception as exc:  # noqa: BLE001
                    where = f"{_shown(self.doc)}: {name}() defined in a python block"
                    self.failures.append(f"{where} failed: {_describe(exc, self.doc)}")

    # -- shell -------------------------------------------------------------------------
    def run_shell(self, block: Block) -> None:
        for command, expected in commands(block.body, prompts=block.lang == "console" or "\n$ " in "\n" + block.body):
            self.run_command(command, expected)

    def run_command(self, command: str, expected: list[str]) -> None:
        runnable: list[str] = []
        for segment in (part.strip() for part in command.split(" && ")):
            install = LOCAL_INSTALL.match(segment)
            if install and (self.folder / install.group(1)).is_dir():
                self.install(self.folder / install.group(1))
                continue
            reason = next((why for pattern, why in NOT_RUN.items() if re.search(pattern, segment)), None)
            if reason is not None:
                files = re.findall(r"-[rc] (\S+)", segment)
                for name in files + re.findall(r"(?:^|\s)((?:scripts|benchmarks)/\S+)", segment):
                    if not (ROOT / name).exists():
                        raise DocFailure(f"`{segment}` names {name}, which does not exist in the repository")
                continue
            runnable.append(re.sub(r"(^|\s)\.venv/bin/", r"\1", segment))
        if not runnable:
            return
        env = {
            **os.environ,
            "PATH": f"{self.shims}{os.pathsep}{os.environ['PATH']}",
            "AGI_DOCS_PYTHON": self.python,
            "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]),
            "AGI_LOAD_PLUGINS": ",".join(self.allowed_plugins),
            "COLUMNS": "100",
        }
        script = " && ".join(runnable)
        done = subprocess.run(
            ["bash", "-o", "pipefail", "-c", script],
            stdin=subprocess.DEVNULL,
            cwd=self.folder,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            timeout=COMMAND_TIMEOUT_S,
        )
        actual = [line.rstrip() for line in done.stdout.rstrip().splitlines()]
        if expected and not matches(expected, actual):
            raise DocFailure(
                f"`{command}` printed (exit {done.returncode}):\n"
                + "\n".join(actual)
                + "\nbut the doc shows:\n"
                + "\n".join(expected)
            )
        if not expected and done.returncode != 0:
            raise DocFailure(f"`{command}` exited {done.returncode}:\n{done.stdout[-2000:]}")

    def install(self, package: Path) -> None:
        """``pip install -e`` a package the document wrote, into a throwaway venv that sees this one."""
        if self.venv is None:
            self.venv = self.folder.parent / "venv"
            subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(self.venv)], check=True)
            site = next(self.venv.glob("lib/python*/site-packages"))
            parent = [p for p in sys.path if p.endswith("site-packages")]
            (site / "zz_parent_env.pth").write_text("\n".join(parent) + "\n", encoding="utf-8")
            self.python = str(self.venv / "bin" / "python")
        done = subprocess.run(
            [self.python, "-m", "pip", "install", "-q", "--no-deps", "--no-build-isolation", "-e", str(package)],
            capture_output=True,
            text=True,
        )
        if done.returncode != 0:
            raise DocFailure(f"pip install -e {package.name} failed (it needs hatchling and editables):\n{done.stderr}")
        entry_points = tomllib.loads((package / "pyproject.toml").read_text(encoding="utf-8"))["project"]
        self.allowed_plugins += list(entry_points.get("entry-points", {}).get("agi", {}))


def _describe(exc: BaseException, doc: Path) -> str:
    """``line N `source`: Error: message``, N being the document's line where the error was raised."""
    frames = [frame for frame in traceback.extract_tb(exc.__traceback__) if frame.filename == str(doc)]
    where = ""
    if frames and frames[-1].lineno is not None:
        source = doc.read_text(encoding="utf-8").splitlines()[frames[-1].lineno - 1].strip()
        where = f"line {frames[-1].lineno} `{source}`: "
    return f"{where}{type(exc).__name__}: {exc}"


def commands(body: str, *, prompts: bool) -> list[tuple[str, list[str]]]:
    """``(command, expected output lines)`` pairs; ``\\`` continues a command on the next line."""
    found: list[tuple[str, list[str]]] = []
    pending = ""
    for line in body.splitlines():
        if pending:
            pending = pending[:-1].rstrip() + " " + line.strip()
        elif prompts and line.startswith("$ "):
            pending = line[2:].strip()
        elif not prompts and line.strip() and not line.lstrip().startswith("#"):
            pending = line.strip()
        elif prompts and found:
            found[-1][1].append(line.rstrip())
            continue
        else:
            continue
        if not pending.endswith("\\"):
            found.append((re.sub(r"\s+#.*$", "", pending), []))
            pending = ""
    return [(command, _trim(expected)) for command, expected in found]


def _trim(lines: list[str]) -> list[str]:
    while lines and not lines[-1]:
        lines.pop()
    return lines


def matches(expected: list[str], actual: list[str]) -> bool:
    """Whether ``actual`` is ``expected`` with ``...`` lines standing for any lines (and in-line text)."""
    if not expected:
        return not actual
    head, rest = expected[0], expected[1:]
    if head == "...":
        return any(matches(rest, actual[start:]) for start in range(len(actual) + 1))
    pattern = ".*".join(re.escape(part) for part in head.split("..."))
    return bool(actual) and re.fullmatch(pattern, actual[0]) is not None and matches(rest, actual[1:])


@pytest.fixture(scope="module")
def shims(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """``agi``, ``python`` and ``python3`` on PATH, running this checkout with the interpreter in use."""
    folder = tmp_path_factory.mktemp("shims")
    for name, target in [("agi", '"$AGI_DOCS_PYTHON" -m agi_core'), ("python", '"$AGI_DOCS_PYTHON"')]:
        script = folder / name
        script.write_text(f'#!/bin/sh\nexec {target} "$@"\n', encoding="utf-8")
        script.chmod(0o755)
    (folder / "python3").symlink_to(folder / "python")
    return folder


def _param(path: Path) -> object:
    local_install = any(
        LOCAL_INSTALL.search(line.removeprefix("$ ").strip())
        for block in blocks(path)
        if block.lang in ("console", "bash")
        for line in block.body.splitlines()
    )
    name = str(path.relative_to(ROOT))
    return pytest.param(path, id=name, marks=[pytest.mark.slow] if local_install or name in SLOW else [])


@pytest.mark.parametrize("doc", [_param(path) for path in DOCS])
def test_every_code_block_runs(doc: Path, tmp_path: Path, shims: Path) -> None:
    folder = tmp_path / "work"
    folder.mkdir()
    (folder / "examples").symlink_to(ROOT / "examples")
    run = DocRun(doc, folder, shims)
    for block in blocks(doc):
        run.run(block)
    run.run_tests(tmp_path)
    with warnings.catch_warnings():  # an example need not close what it opened; that is not what it shows
        warnings.simplefilter("ignore", ResourceWarning)
        run.namespace.clear()
        gc.collect()
    if run.failures:
        pytest.fail("\n".join(run.failures), pytrace=False)


def test_blocks_are_found_with_their_lines_and_titles(tmp_path):
    doc = tmp_path / "x.md"
    doc.write_text('intro\n1. step\n   ```python title="pkg/mod.py"\n   x = 1\n   ```\n```\nbare\n```\n')
    assert blocks(doc) == [
        Block(doc, 3, "python", "pkg/mod.py", "x = 1"),
        Block(doc, 6, "", None, "bare"),
    ]


def test_commands_and_expected_output_are_split():
    body = "$ agi run \\\n  --jsonl  # comment\nline 1\n\n$ agi plugins\n...\nhello 0.1.0"
    assert commands(body, prompts=True) == [("agi run --jsonl", ["line 1"]), ("agi plugins", ["...", "hello 0.1.0"])]
    assert commands("# setup\npip install x\n", prompts=False) == [("pip install x", [])]


def test_ellipsis_matches_any_lines_and_any_text():
    assert matches(["...", "hello 0.1.0: ..."], ["a", "b", "hello 0.1.0: router agents"])
    assert not matches(["hello"], ["hello", "more"])
    assert matches(["a", "..."], ["a"])


def test_a_failing_block_is_reported_with_file_line_and_error(tmp_path, shims):
    doc = tmp_path / "guide.md"
    doc.write_text(
        "# Guide\n\n```python\nx = 1\nundefined_name\n```\n\n"
        "```console\n$ agi --db a.db memory get user/profile/me/name\nwrong\n```\n\n"
        "```\nplain\n```\n\n"
        "```python\ndef test_sum():\n    assert 1 + 1 == 3\n```\n",
        encoding="utf-8",
    )
    folder = tmp_path / "work"
    folder.mkdir()
    run = DocRun(doc, folder, shims)
    for block in blocks(doc):
        run.run(block)
    run.run_tests(tmp_path)
    assert run.failures[0] == (
        "guide.md:3 (```python block): line 5 `undefined_name`: NameError: name 'undefined_name' is not defined"
    )
    assert run.failures[1].startswith(
        "guide.md:8 (```console block): `agi --db a.db memory get user/profile/me/name` printed (exit 1):\n"
        "Error: no agent database at a.db (create one with agi run)"
    )
    assert run.failures[1].endswith("but the doc shows:\nwrong")
    assert run.failures[2] == (
        "guide.md:13 (``` block): no language; "
        "use python, console, bash, toml, json, or text for a block that must not run"
    )
    assert run.failures[3] == "guide.md:17 (```python block): not run: an earlier python block of this file failed"
    assert len(run.failures) == 4


def test_test_functions_defined_by_the_blocks_are_run(tmp_path, shims):
    doc = tmp_path / "guide.md"
    doc.write_text("```python\ndef test_sum(tmp_path):\n    assert 1 + 1 == 3\n```\n", encoding="utf-8")
    run = DocRun(doc, tmp_path, shims)
    for block in blocks(doc):
        run.run(block)
    run.run_tests(tmp_path)
    assert run.failures == [
        "guide.md: test_sum() defined in a python block failed: line 3 `assert 1 + 1 == 3`: AssertionError: "
    ]
