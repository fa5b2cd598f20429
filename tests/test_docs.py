"""The documents users copy from: the GitHub Actions workflow in docs/ uses only options the CLI
takes, and the README's quick start names commands that exist."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest
import yaml
from cardid_runner import cli

from tests.conftest import ROOT

WORKFLOW = ROOT / "docs" / "github-actions.yml"


def _cardid_steps() -> list[str]:
    data = yaml.safe_load(WORKFLOW.read_text(encoding="utf-8"))
    steps = data["jobs"]["conformance"]["steps"]
    return [" ".join(step["run"].split()) for step in steps if str(step.get("run", "")).startswith("cardid ")]


def test_workflow_runs_doctor_then_the_suite_with_the_ci_options() -> None:
    steps = _cardid_steps()
    assert [shlex.split(step)[1] for step in steps] == ["doctor", "run"]
    run = steps[1]
    for option in ("--expect", "--report-json", "--junit", "--markdown-append", "--save-failures"):
        assert option in run


def test_every_cardid_line_of_the_workflow_parses(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each `cardid ...` step, with the workflow's variables filled in, is accepted by the CLI's
    own parser (in a folder holding the known-failure file it names)."""
    data = yaml.safe_load(WORKFLOW.read_text(encoding="utf-8"))
    env = {**data["jobs"]["conformance"]["env"], "GITHUB_STEP_SUMMARY": str(tmp_path / "summary.md")}
    (tmp_path / "known-failures.yaml").write_text("implementation: x\nknown_failures: []\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    for step in _cardid_steps():
        filled = re.sub(r"\$(\w+)", lambda m: env[m.group(1)], step)
        args = cli._parser().parse_args(shlex.split(filled)[1:])
        assert args.impl == env["CARDID_IMPL"]


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
                                     "coverage"])
def test_every_command_is_documented_in_the_readme_and_has_help_with_exit_codes(
    command: str, capsys: pytest.CaptureFixture[str]
) -> None:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    assert f"cardid {command}" in text
    with pytest.raises(SystemExit):
        cli._parser().parse_args([command, "--help"])
    shown = capsys.readouterr().out
    assert len(shown.split("\n\n")) >= 3, shown  # usage, a description, options
    if command != "reference":
        assert re.search(r"exit (codes|status)", shown), shown
