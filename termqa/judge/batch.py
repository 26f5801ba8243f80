"""The batch engine: big jobs through an OpenAI-compatible Batch API, or a JSONL file for vLLM.

With `--judge-batch`, the backend answers what the cache holds and, instead of calling the server,
queues every other question of the run; when the run ends the queue goes out as one JSONL file of
`/v1/chat/completions` bodies (`custom_id` = the question's cache key) through the client's files
and batches endpoints. A later run (the same `termqa check`, or `termqa judge collect`) polls the
batches, stores every usable answer in the cache and goes on. The stages depend on each other
(alignment, then the references, then the judges), so a run queues only the first phase that has
unanswered questions: later phases wait for its answers, and a project needs a few rounds.

`--judge-batch-file OUT.jsonl` only writes the file (the same lines), e.g. for vLLM's
`run-batch -i OUT.jsonl -o RESULTS.jsonl`; `termqa judge ingest RESULTS.jsonl` stores the answers.

What makes it safe to resume and to repeat:
- the cache DB keeps every question written to a batch (to store its answer when it comes back),
  every question waiting in a submitted batch (never submitted again while it waits) and the
  batches (termqa.judge.cache);
- ingesting is idempotent: an answer already in the cache is skipped, a batch already ingested is
  not polled again; an answer that is unusable (an error line, not the JSON asked for, an array
  that misses an occurrence) is dropped and its question asked again in the next round;
- the cost is shown with the batch discount (BATCH_DISCOUNT of the list price).

This module does not import the synchronous backend (termqa.judge.llm imports it); the openai
client is passed in.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Optional, Sequence

from termqa.errors import JudgeError
from termqa.fileio import atomic_write
from termqa.judge.answers import parse_json_object, problem
from termqa.judge.cache import BATCH_DONE, VerdictCache
from termqa.judge.costs import read_usage

ENDPOINT = "/v1/chat/completions"
COMPLETION_WINDOW = "24h"
# Share of the list price a batch answer costs (OpenAI's Batch API halves it).
BATCH_DISCOUNT = 0.5


class BatchPending(JudgeError):
    """The question is in a batch (queued now, or submitted earlier), or waits for answers an earlier
    stage needs from one: not an error, the run is incomplete until a later round."""


def request_line(key: str, body: dict) -> dict:
    """One line of a Batch API input file."""
    return {"custom_id": key, "method": "POST", "url": ENDPOINT, "body": body}


def jsonl(lines: Iterable[dict]) -> str:
    return "".join(json.dumps(line, ensure_ascii=False) + "\n" for line in lines)


def write_file(path: str, lines: Sequence[dict]) -> None:
    atomic_write(path, jsonl(lines))


def submit(client: Any, lines: Sequence[dict]) -> tuple[str, str, str]:
    """Upload the lines and create a batch; (batch id, input file id, status)."""
    data = jsonl(lines).encode("utf-8")
    uploaded = client.files.create(file=("termqa-batch.jsonl", data), purpose="batch")
    batch = client.batches.create(input_file_id=uploaded.id, endpoint=ENDPOINT,
                                  completion_window=COMPLETION_WINDOW, metadata={"tool": "termqa"})
    return batch.id, uploaded.id, batch.status


@dataclass
class IngestReport:
    """What one ingestion stored. `tokens_*` are those of every answer that came back (paid)."""

    answered: int = 0  # stored in the cache
    unusable: int = 0  # error lines, answers that are not what was asked: asked again next round
    already: int = 0  # already in the cache (a repeated ingestion)
    unknown: int = 0  # custom_ids this cache never wrote to a batch
    tokens_in: int = 0
    tokens_out: int = 0
    tokens_in_cached: int = 0  # of tokens_in: served from the provider's prompt cache
    models: dict = field(default_factory=dict)  # model -> (tokens_in, tokens_out, tokens_in_cached)

    def add(self, other: "IngestReport") -> None:
        for name in ("answered", "unusable", "already", "unknown", "tokens_in", "tokens_out", "tokens_in_cached"):
            setattr(self, name, getattr(self, name) + getattr(other, name))
        for m, counts in other.models.items():
            self.models[m] = tuple(x + y for x, y in zip(self.models.get(m, (0, 0, 0)), counts))

    def as_dict(self) -> dict[str, Any]:
        return {"answered": self.answered, "unusable": self.unusable, "already": self.already,
                "unknown": self.unknown, "tokens_in": self.tokens_in, "tokens_out": self.tokens_out,
                "tokens_in_cached": self.tokens_in_cached}


def ingest_lines(cache: VerdictCache, lines: Iterable[str], endpoint: Optional[str] = None) -> IngestReport:
    """Store the answers of Batch API output lines (OpenAI's or vLLM run-batch's shape)."""
    rep = IngestReport()
    done: list[str] = []
    for line in lines:
        if not line.strip():
            continue
        try:
            rec = json.loads(line)
        except ValueError:
            rep.unusable += 1
            continue
        key = str(rec.get("custom_id") or "")
        req = cache.batch_request(key)
        if req is None:
            rep.unknown += 1
            continue
        done.append(key)
        if key in cache:
            rep.already += 1
            continue
        response = rec.get("response") or {}
        body = response.get("body") or {}
        if rec.get("error") or response.get("status_code") != 200 or not isinstance(body, dict):
            rep.unusable += 1
            continue
        tin, cached, tout = read_usage(body.get("usage"))
        rep.tokens_in += tin
        rep.tokens_out += tout
        rep.tokens_in_cached += cached
        x, y, z = rep.models.get(req["model"], (0, 0, 0))
        rep.models[req["model"]] = (x + tin, y + tout, z + cached)
        choices = body.get("choices") or []
        text = ((choices[0].get("message") or {}).get("content") or "") if choices else ""
        # the same checks as an answer asked now (termqa.judge.answers): a label outside the registry
        # or a missing field is unusable, asked again next round, never stored
        data = parse_json_object(text) if req["schema"] is not None else (text or None)
        if data is None or (req["schema"] is not None and problem(data, req["schema"], req["expect"]) is not None):
            rep.unusable += 1
            continue
        cache.put(key, model=req["model"], prompt_id=req["prompt_id"], prompt_version=req["prompt_version"],
                  messages=[{"role": r, "content": c} for r, c in req["messages"]], answer=data, raw=text,
                  tokens_in=tin, tokens_out=tout, json_mode="json_schema" if req["schema"] else None,
                  endpoint=endpoint or req["endpoint"], served_model=body.get("model"))
        rep.answered += 1
    cache.drop_pending(done)
    return rep


def ingest_file(cache: VerdictCache, path: str) -> IngestReport:
    """`termqa judge ingest`: a Batch API output file (e.g. from vLLM's run-batch) into the cache."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise JudgeError(f"{path}: cannot read the batch output: {exc.strerror or exc}") from None
    return ingest_lines(cache, text.splitlines())


@dataclass
class BatchStatus:
    batch_id: str
    status: str  # the server's, or "ingested" once its output is in the cache
    requests: int
    model: Optional[str]
    report: Optional[IngestReport] = None


def _content(client, file_id: str) -> str:
    resp = client.files.content(file_id)
    text = getattr(resp, "text", None)
    return text if isinstance(text, str) else resp.read().decode("utf-8")


def collect(cache: VerdictCache, client: Any) -> list[BatchStatus]:
    """Poll every open batch of the cache; ingest those that ended. Questions an ended batch did not
    answer usably stop waiting, so the next round asks them again."""
    out = []
    for b in cache.open_batches():
        remote = client.batches.retrieve(b["batch_id"])
        status = str(getattr(remote, "status", "") or "unknown")
        if status not in BATCH_DONE:
            cache.set_batch_status(b["batch_id"], status)
            out.append(BatchStatus(b["batch_id"], status, b["requests"], b["model"]))
            continue
        rep = IngestReport()
        for fid in (getattr(remote, "output_file_id", None), getattr(remote, "error_file_id", None)):
            if fid:
                rep.add(ingest_lines(cache, _content(client, fid).splitlines(), b["endpoint"]))
        cache.drop_pending(cache.pending_keys(b["batch_id"]))
        cache.set_batch_status(b["batch_id"], "ingested")
        out.append(BatchStatus(b["batch_id"], f"{status}, ingested", b["requests"], b["model"], rep))
    return out
