"""The console summary `termqa check` prints: what was read, outcomes, scores, metrics, what is left."""
from __future__ import annotations

from termqa.docnames import document_names
from termqa.labels import METRIC_TEXT, RULE_NAMES, label_name
from termqa.results.gate import coverage, not_checked
from termqa.results.verdict import run_verdict
from termqa.shownpath import result_names, scrub


def _fmt(x, pct=False):
    if x is None:
        return "n/a"
    return f"{100 * x:.1f}%" if pct else f"{x:.3f}"


def scores_block(data: dict) -> str:
    s = data["scores"]
    skipped = not_checked(data)
    # what `--fail-on coverage<X` reads: those not checked count too
    gate = (f"; {_fmt(coverage(data), pct=True)} with the {skipped} in untranslated segments, as --fail-on "
            "coverage counts") if skipped else ""
    return (f"TermJudge score (mean penalty, lower is better): system {_fmt(s['system'])}, "
            f"micro {_fmt(s['micro'])}, per source form {_fmt(s['by_source_form'])}, "
            f"per concept {_fmt(s['by_concept'])}; scored {s['scored']} of {s['scored'] + s['unjudged']} "
            f"occurrences ({_fmt(s['coverage'], pct=True)}{gate})")


def summary(data: dict, *, judge_configured: bool) -> str:
    """The console summary, with no path of this machine in it (termqa.shownpath): console lines get
    pasted into tickets and mails."""
    return scrub(_summary(data, judge_configured=judge_configured), result_names(data))


def _summary(data: dict, *, judge_configured: bool) -> str:
    sm = data["summary"]
    # the verdict first (termqa.results.verdict): what was decided and what is left, before how it was run
    verdict = data.get("verdict") or run_verdict(data)
    lines = [verdict["line"], f"termqa {data['signature']['tool'].split()[-1]}  {data['signature']['string']}"]
    for f in data["inputs"]:
        lines.append(f"  read {f['path']}: {f['format']}{' (' + f['dialect'] + ')' if f['dialect'] else ''}, "
                     f"{f['documents']} document(s), {f['segments']} segments")
    for g in data["signature"]["glossaries"]:
        lines.append(f"  glossary {g['path']}: {g['format']}")
    words = f" ({sm['source_words']:,} source words)" if sm.get("source_words") is not None else ""
    lines.append(f"{sm['occurrences']} occurrences of {sm['concepts_found']} concepts in {sm['documents']} "
                 f"document(s){words}" + (f"; {sm['occurrences_in_untranslated_segments']} more in untranslated "
                                   "segments, not checked" if sm.get("occurrences_in_untranslated_segments") else ""))
    if sm.get("units_not_translated"):
        states = ", ".join(f"{k} {v}" for k, v in (sm.get("not_translated_states") or {}).items())
        lines.append(f"{sm['units_not_translated']} units not translated yet: not checked (state {states}; "
                     "--include-states to check them)")
    oc = sm["outcomes"]
    lines.append("outcomes: " + ", ".join(f"{k} {v}" for k, v in oc.items()))
    if sm["labels"]:
        lines.append("labels:")
        for k, v in sm["labels"].items():
            lines.append(f"  {k:>4} x{v}: {label_name(k)}")
        rules = sm.get("rules") or {}
        if rules:  # a deprecated term is scored as A1: say what it is, not only the family it is scored in
            lines.append("  of which settled by a rule: " + ", ".join(f"{RULE_NAMES.get(r, r)} x{n}"
                                                                      for r, n in rules.items()))
    if data.get("languages"):  # several target languages: their figures one block each, never averaged together
        lines += language_blocks(data)
        return _rest(data, lines, judge_configured)
    lines.append(scores_block(data))
    m = data["metrics"]["overall"]
    lines.append("counting metrics (higher is better): " + metrics_text(m))
    var = data["metrics"].get("variation") or {}
    if var:
        level = data["signature"].get("variants", "none")
        lines.append(f"variation types (variants: {level}): " + ", ".join(
            f"{k} {_fmt(v['share'], pct=True)}" for k, v in var.items()))
    return _rest(data, lines, judge_configured)


def _rest(data: dict, lines: list, judge_configured: bool) -> str:
    sm = data["summary"]
    if len(data["documents"]) > 1:
        lines.append("per document:")
        names = document_names(data["documents"])  # the names the report and the spreadsheet use
        for d in data["documents"]:
            lines.append(f"  {names[d['doc_id']]}: score {_fmt(d['score'])}, {d['occurrences']} occurrences, "
                         f"{d['outcomes']['error']} errors, {d['unjudged']} unjudged")
    if sm["needs_judge"]:
        lines.append(f"{sm['needs_judge']} occurrences need a judge:")
        for reason, n in sm["unjudged_reasons"].items():
            lines.append(f"  {n} x {reason}")
        if not judge_configured:
            lines.append("  (counting mode: configure an LLM judge with --judge-model and --judge-base-url, "
                         "or OPENAI_MODEL / OPENAI_BASE_URL / OPENAI_API_KEY, to judge them)")
    if data.get("accounting"):
        lines += judge_lines(data["accounting"])
    for w in data["warnings"][:10]:
        lines.append(f"warning: {w}")
    if len(data["warnings"]) > 10:
        lines.append(f"... and {len(data['warnings']) - 10} more warnings (see --json)")
    return "\n".join(lines)


def language_blocks(data: dict) -> list[str]:
    """One block per target language of a multilingual run: its occurrences, outcomes, score, metrics."""
    lines = [f"{len(data['languages'])} target languages (totals above; scores and metrics per language):"]
    for lang, part in data["languages"].items():
        sm = part["summary"]
        lines.append(f"[{lang}] {(part.get('verdict') or run_verdict(part))['line']}")
        lines.append(f"  {sm['occurrences']} occurrences of {sm['concepts_found']} concepts in "
                     f"{sm['documents']} document(s); " + ", ".join(f"{k} {v}" for k, v in sm["outcomes"].items()))
        lines.append("  " + scores_block(part))
        m = part["metrics"]["overall"]
        if m:
            lines.append("  counting metrics (higher is better): " + metrics_text(m))
    return lines


def metrics_text(metrics: dict) -> str:
    """The counting metrics by their names in words ("EM term accuracy 89.0% (n=82)"), never their keys."""
    return ", ".join(f"{METRIC_TEXT.get(k, (k,))[0]} {_fmt(v['value'], pct=True)} (n={v['scored']})"
                     for k, v in metrics.items())


def judge_lines(a: dict) -> list[str]:
    """What the judge cost, in words: calls, cache, tokens, cost, and per 1,000 source words."""
    cost = a.get("estimated_cost_usd")
    line = (f"judge: {a.get('model')} ({a.get('endpoint')}): {a.get('calls', 0)} calls, {a.get('cached', 0)} from "
            f"the cache, {a.get('retries', 0)} retries, {a.get('failed', 0)} failed; "
            f"tokens {a.get('tokens_in', 0)} in ({a.get('tokens_in_cached', 0)} cached) / "
            f"{a.get('tokens_out', 0)} out; "
            + (f"estimated cost ${cost:.4f}" if cost is not None else "cost unknown (no price for this model)"))
    out = [line]
    if a.get("calls_per_scored_occurrence") is not None:
        out.append(f"  calls per scored occurrence: {a['calls_per_scored_occurrence']}")
    per = a.get("per_1000_source_words") or {}
    if per:
        out.append("  per 1,000 source words: " + ", ".join(f"{k.replace('_', ' ')} {v}" for k, v in per.items()))
    batch = a.get("batch")
    if batch:
        out.append("  batch: " + ", ".join(f"{k.replace('_', ' ')} {v}" for k, v in batch.items()
                                           if not isinstance(v, (dict, list)) or v))
    if a.get("unusable_answers"):
        out.append(f"  unusable answers: {a['unusable_answers']} ("
                   + ", ".join(f"{k} {n}" for k, n in (a.get("unusable_by_reason") or {}).items())
                   + f"), {a.get('schema_breaking_answers', 0)} of them schema-breaking: asked again, "
                   "none became a verdict or was cached")
    if a.get("questions"):
        out.append("  questions: " + ", ".join(f"{k} {v}" for k, v in a["questions"].items()))
    if a.get("budget_exhausted"):
        out.append("  the budget (--max-calls / --max-cost) was reached: what is left stays unjudged")
    return out


RESCORE_ROWS = (("system", "system score"), ("micro", "micro"), ("by_source_form", "per source form"),
                ("by_concept", "per concept"), ("coverage", "coverage"))


def rescore_table(before: dict, after: dict) -> str:
    """The scores before and after a re-score, side by side (lower is better except coverage)."""
    b, a = before.get("scores") or {}, after.get("scores") or {}
    lines = [f"{'TermJudge score':<18}{'before':>10}{'after':>10}{'change':>10}"]
    for key, name in RESCORE_ROWS:
        x, y = b.get(key), a.get(key)
        pct = key == "coverage"
        change = "" if x is None or y is None else (f"{100 * (y - x):+.1f}" if pct else f"{y - x:+.3f}")
        lines.append(f"{name:<18}{_fmt(x, pct):>10}{_fmt(y, pct):>10}{change:>10}")
    lines.append("(mean penalty per occurrence: lower is better)")
    return "\n".join(lines)
