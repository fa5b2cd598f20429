"""`cardid rules [RULE]` (runner/rules.py) and the rule texts of the spec prose (conformance/prose.py)."""

from __future__ import annotations

from pathlib import Path

import pytest
from cardid_conformance.prose import rule_texts
from cardid_conformance.spec import load_spec
from cardid_runner.cli import main

from tests.conftest import ROOT


def test_list_has_one_line_per_rule_with_level_family_and_summary(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["rules"]) == 0
    lines = capsys.readouterr().out.splitlines()
    spec = load_spec()
    assert len(lines) == len(spec.rules)
    for line, rule in zip(lines, spec.rules.values(), strict=True):
        assert line.split()[:3] == [rule.id, rule.level.name, rule.family]
        assert line.endswith(rule.summary)


def test_one_rule_shows_its_text_level_cr_item_and_citing_cases(capsys: pytest.CaptureFixture[str]) -> None:
    cases = ROOT / "cases" / "writer"
    assert main(["rules", "LIB-2", "--cases", str(cases / "shuffle-ends-id-of-card-on-top.yaml")]) == 0
    out = capsys.readouterr().out
    assert "level MUST; decision 0002 item 4; CR 701.24a, 103.3" in out
    assert "stated in spec/card-identity.md:" in out
    assert "A shuffle ends the instance ID of every card in that library" in out
    # The prose under the summary is shown too, not only the summary.
    prose = rule_texts()["LIB-2"].text
    assert len(prose.splitlines()) > 1
    assert prose.splitlines()[-1].strip() in out
    assert out.splitlines()[-2:] == [
        "cited by 1 case(s):",
        "  shuffle-ends-id-of-card-on-top  writer  cases/writer/shuffle-ends-id-of-card-on-top.yaml",
    ]
    assert "### " not in out  # the next rule's heading is not part of this one


def test_a_family_shows_each_of_its_rules(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["rules", "txt", "--cases", str(ROOT / "cases" / "writer" / "flicker-keeps-id.yaml")]) == 0
    out = capsys.readouterr().out
    assert out.startswith("family TXT: the card table text grammar (3 rules)")
    for rule_id in ("TXT-1", "TXT-2", "TXT-3"):
        assert f"\n{rule_id} · MUST" in out
    assert "stated in spec/card-table.md:" in out
    assert out.count("cited by no case") == 3


def test_unknown_rule_is_a_usage_error_listing_rules_and_families(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["rules", "FOO-9"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: cardid rules: unknown rule FOO-9; rules are ID-1, ID-2,")
    assert "; families are ID, LIB, HID, VIS, REQ, NAME, PRINT, SRC, TOK, OWN, TXT" in err


def test_every_rule_of_the_index_has_its_prose() -> None:
    """Each indexed rule's text starts with its summary, and a trailing subsection heading
    that introduces the next rule (ID-6's "Re-emergence") is not part of it."""
    texts = rule_texts()
    for rule in load_spec().rules.values():
        assert texts[rule.id].text.startswith(rule.summary), rule.id
    assert "Ending events" in texts["ID-6"].text
    assert "Re-emergence" not in texts["ID-6"].text


def test_a_rule_the_prose_lacks_shows_its_summary(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """Where the prose does not state a rule (a suite whose spec/ holds no .md), the summary
    from the index is shown, and the output says so."""
    from cardid_runner import rules

    monkeypatch.setattr(rules, "rule_texts", dict)
    assert main(["rules", "OWN-1", "--cases", str(ROOT / "cases" / "writer" / "flicker-keeps-id.yaml")]) == 0
    out = capsys.readouterr().out
    assert "the spec prose does not state this rule" in out
    assert load_spec().rule("OWN-1").summary in out
