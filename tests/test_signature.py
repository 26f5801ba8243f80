"""The run signature names every setting that changes a verdict or a score, and nothing else."""
from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

from termqa.config import VariantLevel, Settings
from termqa.evaluate.rescore import rescore_result
from termqa.labels import DEFAULT_PENALTIES
from termqa.pipeline.check import check
from termqa.signature import JudgePart, Signature, build

SAMPLES = Path(__file__).resolve().parent.parent / "samples"


class _G:
    def __init__(self, path, sha):
        self.path, self.format, self.content_hash = path, "tbx", sha


def _sig(**kw) -> Signature:
    base = build(glossaries=[_G("terms.tbx", "a" * 64)], lemmatisers={"en": "lookup-en", "fr": "lookup-fr"},
                 penalties=DEFAULT_PENALTIES, judge=None, variants="none")
    return replace(base, **kw)


def test_short_and_long_formats_name_the_same_parts():
    s = _sig(judge=JudgePart("gpt-x", "openai", 0.0, {"error": "error@2+abc"}), exhaustive=True, domain="pumps")
    short, long = s.short(), s.long()
    assert short.startswith("termqa:") and "|judge:gpt-x@openai|t:0|prompts:error@2+abc|ex:yes|dom:" in short
    assert "judge=gpt-x@openai" in long and "exhaustive=yes" in long and "temperature=0" in long
    assert len(short.split("|")) == len(long.split(" | "))
    assert s.id == _sig(judge=s.judge, exhaustive=True, domain="pumps").id


def test_every_verdict_setting_changes_the_id():
    judged = _sig(judge=JudgePart("m", "local", 0.0, {}))
    ids = {judged.id,
           replace(judged, exhaustive=True).id,
           replace(judged, domain="medical").id,
           replace(judged, judge=JudgePart("m", "local", 0.7, {})).id,
           replace(judged, judge=JudgePart("m2", "local", 0.0, {})).id,
           replace(judged, penalties={**DEFAULT_PENALTIES, "A4": 2.0}).id,
           replace(judged, lemmatisers={"en": "trained", "fr": "lookup-fr"}).id}
    assert len(ids) == 7


def test_recorded_settings_do_not_change_the_id():
    s = _sig()
    assert s.with_settings(config="/somewhere/termqa.toml").id == s.id
    assert s.with_settings(config="x").to_dict()["settings"]["config"] == "x"


def test_counting_mode_has_no_judge_parts():
    short = _sig().short()
    assert "|judge:none|prompts:none|pen:" in short and "ex:" not in short and "dom:" not in short


def test_round_trip_through_json():
    s = _sig(judge=JudgePart("m", "local", 0.2, {"a": "a@1"}), exhaustive=True, domain="d").with_extra(compare=3)
    back = Signature.from_dict(json.loads(json.dumps(s.to_dict())))
    assert back.short() == s.short() and back.id == s.id and back.to_dict() == s.to_dict()


def test_rescored_signature_is_derived_not_patched():
    data = check([str(SAMPLES)], [str(SAMPLES / "pump-terms.tbx")], Settings(lemmatiser="lookup")).to_dict()
    out = rescore_result(data, {"A4": 2})
    old, new = data["signature"], out["signature"]
    assert new["penalties"]["A4"] == 2.0 and new["rescored_from"] == old["penalties_hash"]
    assert new["string"].split("|pen:")[0] == old["string"].split("|pen:")[0]
    assert new["string"] != old["string"] and new["id"] != old["id"]
    assert Signature.from_dict(new).short() == new["string"]


def test_variant_level_changes_the_id_and_survives_json():
    none, static, dynamic = _sig(), _sig(variants=VariantLevel.STATIC), _sig(variants=VariantLevel.DYNAMIC)
    assert "var:" not in none.short() and "variants=" not in none.long()  # older signatures unchanged
    assert "var:static" in static.short() and "variants=dynamic" in dynamic.long()
    assert len({none.id, static.id, dynamic.id}) == 3
    assert Signature.from_dict(json.loads(json.dumps(dynamic.to_dict()))).id == dynamic.id
