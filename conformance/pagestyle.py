"""The stylesheet of report.html (conformance/html.py), inline in the page: the page loads
nothing (its Content-Security-Policy allows no other source)."""

STYLE = """
:root { color-scheme: light; --ink: #1c2430; --muted: #5b6675; --line: #d9dee5; --paper: #ffffff;
  --wash: #f4f6f8; --ok: #16703a; --ok-wash: #e3f4e8; --bad: #b42318; --bad-wash: #fdecea;
  --warn: #8a5a00; --warn-wash: #fff4d6; --known: #5b4bb7; --known-wash: #eeebfb; }
* { box-sizing: border-box; }
body { margin: 0; background: var(--wash); color: var(--ink);
  font: 15px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif; }
code, pre, .mono { font-family: ui-monospace, "SFMono-Regular", Menlo, Consolas, "Liberation Mono", monospace;
  font-size: 13px; }
main { max-width: 1120px; margin: 0 auto; padding: 0 24px 48px; }
header.verdict { padding: 28px 24px 24px; border-bottom: 4px solid; }
header.verdict > div { max-width: 1072px; margin: 0 auto; }
header.ok { background: var(--ok-wash); border-color: var(--ok); }
header.accepted { background: var(--warn-wash); border-color: var(--warn); }
header.fail { background: var(--bad-wash); border-color: var(--bad); }
.kicker { margin: 0 0 4px; font-size: 13px; letter-spacing: .06em; text-transform: uppercase;
  color: var(--muted); }
h1 { margin: 0; font-size: 24px; line-height: 1.3; }
header.ok h1 { color: var(--ok); } header.accepted h1 { color: var(--warn); }
header.fail h1 { color: var(--bad); }
.gate { margin: 8px 0 0; color: var(--muted); }
h2 { font-size: 19px; margin: 32px 0 12px; }
section.identity { display: grid; grid-template-columns: 1fr 1fr; gap: 16px; margin-top: 24px; }
.panel { background: var(--paper); border: 1px solid var(--line); border-radius: 8px; padding: 16px 20px; }
.panel h2 { margin: 0 0 8px; font-size: 16px; }
dl.facts { display: grid; grid-template-columns: max-content 1fr; gap: 4px 16px; margin: 0; }
dl.facts dt { color: var(--muted); }
dl.facts dd { margin: 0; overflow-wrap: anywhere; }
.counts { display: flex; flex-wrap: wrap; gap: 8px; margin: 0; padding: 0; list-style: none; }
.counts li { background: var(--paper); border: 1px solid var(--line); border-radius: 999px; padding: 4px 14px; }
.counts b { font-variant-numeric: tabular-nums; }
table { border-collapse: collapse; background: var(--paper); width: 100%; border: 1px solid var(--line); }
th, td { padding: 6px 12px; border-bottom: 1px solid var(--line); text-align: left; vertical-align: top; }
thead th { background: var(--wash); font-size: 13px; color: var(--muted); font-weight: 600; }
table.matrix td.n, table.matrix th.n { text-align: right; font-variant-numeric: tabular-nums; width: 10%; }
td.zero { color: #b8c0ca; }
td.c-passed { color: var(--ok); font-weight: 600; }
td.c-failed { background: var(--bad-wash); color: var(--bad); font-weight: 700; }
td.c-warning { background: var(--warn-wash); color: var(--warn); font-weight: 700; }
td.c-errored { background: var(--bad-wash); color: var(--bad); font-weight: 700; }
td.c-known-failure { background: var(--known-wash); color: var(--known); font-weight: 700; }
.family-name { color: var(--muted); font-size: 13px; }
.note { color: var(--muted); font-size: 13px; margin: 6px 0 0; }
article.case { background: var(--paper); border: 1px solid var(--line); border-left: 5px solid var(--bad);
  border-radius: 8px; padding: 14px 20px; margin: 0 0 14px; }
article.warning { border-left-color: var(--warn); }
article.known-failure { border-left-color: var(--known); }
article.case-bug { border-left-color: var(--muted); }
article.case h3 { margin: 0 0 4px; font-size: 16px; display: flex; flex-wrap: wrap; gap: 8px; align-items: baseline; }
.tag { font-size: 12px; font-weight: 700; border-radius: 4px; padding: 1px 8px; letter-spacing: .03em; }
.tag.failed, .tag.errored { background: var(--bad-wash); color: var(--bad); }
.tag.warning { background: var(--warn-wash); color: var(--warn); }
.tag.known-failure { background: var(--known-wash); color: var(--known); }
.tag.case-bug { background: var(--wash); color: var(--muted); }
.desc { margin: 0 0 8px; color: var(--muted); }
ul.rules { margin: 8px 0; padding-left: 0; list-style: none; }
ul.rules li { margin: 3px 0; display: grid; grid-template-columns: 64px 58px 1fr; }
ul.rules .lvl { font-size: 12px; color: var(--muted); padding-top: 1px; }
ul.rules li.broke code { color: var(--bad); font-weight: 700; }
.message { margin: 10px 0 6px; font-weight: 600; overflow-wrap: anywhere; }
pre { background: #f6f8fa; border: 1px solid var(--line); border-radius: 6px; padding: 8px 12px;
  margin: 4px 0 8px; white-space: pre-wrap; overflow-wrap: anywhere; }
pre.stderr { background: #fbfbfb; }
.difference { margin: 6px 0; }
.difference .what { margin: 0; overflow-wrap: anywhere; }
.label { color: var(--muted); font-size: 13px; }
details { background: var(--paper); border: 1px solid var(--line); border-radius: 8px; padding: 10px 16px; }
details > summary { cursor: pointer; font-weight: 600; }
details table { margin-top: 10px; }
td.s-failed, td.s-errored { color: var(--bad); font-weight: 700; }
td.s-warning { color: var(--warn); font-weight: 700; }
td.s-known-failure { color: var(--known); font-weight: 700; }
td.s-passed { color: var(--ok); }
td[class^="s-"] { white-space: nowrap; }
td.s-untested, td.s-inconclusive { color: var(--muted); }
footer { max-width: 1120px; margin: 0 auto; padding: 16px 24px 40px; color: var(--muted); font-size: 13px; }
@media (max-width: 760px) { section.identity { grid-template-columns: 1fr; } }
"""
