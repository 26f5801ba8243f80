"""A scripted OpenAI-compatible chat server on 127.0.0.1, for tests that go through the real client.

The real `openai` client talks to it over HTTP, so retries, timeouts, response formats and
accounting are exercised exactly as against a real server. Nothing here is mocked in-process.

    server.on("first_mention", {"justification": "...", "label": "first_mention"})
    server.fail_next("429", "timeout")        # the next two requests fail, in that order
    server.reject_json_schema = True          # like a server that only knows json_object
    server.reject_params = ("temperature",)   # like a reasoning model
    server.latency = 0.3                      # every answer takes 300 ms
    server.random_faults(0.3, seed=4)         # 30 % of requests fail, drawn from RANDOM_FAULTS
    server.batch_polls = 2                    # a batch completes at its second retrieval
    server.prompt_caching = True              # count tokens and report cached prefixes like OpenAI

It also speaks the Batch API: `POST /v1/files` (multipart upload), `GET /v1/files/{id}/content`,
`POST /v1/batches`, `GET /v1/batches/{id}`. A batch answers each line as a chat request would be
answered (the same rules), once it is "completed"; `batch_lines` logs every line it processed and
`batch_line_error` (a predicate on the line) makes chosen lines come back as errors.

Faults: "429", "500", "503", "timeout" (hang past the client's timeout), "malformed" (a 200
whose body is not JSON), "not_json" (valid response, content is prose), "bad_label" (an answer
whose label is outside the registry), "empty" (no choices), "refusal" (the model declines, in
OpenAI's `message.refusal`), "400" (a generic "Invalid request" that names no field), "401", "404".
`default` (or a rule) may also answer prose, or a label outside the registry, to script a model that
cannot do the task.

Prompt caching (`prompt_caching = True`): usage is counted on the request instead of the fixed
`tokens`, and `usage.prompt_tokens_details.cached_tokens` reports the prefix shared with an earlier
request the way OpenAI documents it: nothing under 1,024 tokens, then the longest shared prefix
rounded down to a multiple of 128 tokens (see `count_tokens` for the fixed rule that stands in for a
tokenizer, and `PrefixCache`). Every usage the server reported is in `reported` (chat answers and
batch lines alike), so a test can compare the client's accounting with it.

Use the `llm_server` fixture (import it into conftest.py, or into the test module).
"""
from __future__ import annotations

import hashlib
import json
import random
import re
import threading
import time
from collections import deque
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Callable, Optional, Union

import pytest

Matcher = Union[str, Callable[[dict], bool]]
Reply = Union[dict, str, Callable[[dict], Union[dict, str]]]

FAULTS = ("429", "500", "503", "timeout", "malformed", "not_json", "bad_label", "empty", "refusal", "400", "401",
          "404")
# Passing faults a real endpoint produces: rate limits, server errors, hangs and garbage.
RANDOM_FAULTS = ("429", "500", "503", "timeout", "malformed", "not_json", "empty")


# A stand-in for a tokenizer, the same for every test and bench run: a token is a run of word
# characters with the whitespace before it, or any other character (punctuation, a symbol) with the
# whitespace before it. English prose comes out near a real BPE tokenizer's count (~0.75 words per
# token); JSON and markup, all punctuation, come out somewhat higher.
_TOKEN = re.compile(r"\s*(?:\w+|[^\w\s])")
CACHE_MIN_TOKENS = 1024  # OpenAI caches a prompt prefix of at least this many tokens...
CACHE_STEP_TOKENS = 128  # ...and counts cached tokens in steps of this many


def count_tokens(text: str) -> list[str]:
    return _TOKEN.findall(text)


def prompt_token_list(body: dict) -> list[str]:
    """The prompt of a chat request as tokens: per message a role token, its content, an end token
    (the shape of a chat template); the model name first, since a provider caches per model."""
    out = [f"<model:{body.get('model', '')}>"]
    for m in body.get("messages", []):
        out.append(f"<|{m.get('role', '')}|>")
        out.extend(count_tokens(str(m.get("content", ""))))
        out.append("<|end|>")
    return out


class PrefixCache:
    """Prompt prefixes of earlier requests, kept as a hash per full block of CACHE_STEP_TOKENS tokens
    (the hash of the block and of every block before it, as vLLM's prefix cache does): a request's
    cached tokens are its leading blocks already seen, if they reach CACHE_MIN_TOKENS."""

    def __init__(self) -> None:
        self._seen: set[str] = set()
        self._lock = threading.Lock()

    def lookup_and_add(self, tokens: list[str]) -> int:
        h = hashlib.sha256()
        hashes = []
        for start in range(0, len(tokens) - CACHE_STEP_TOKENS + 1, CACHE_STEP_TOKENS):
            h.update("\x00".join(tokens[start:start + CACHE_STEP_TOKENS]).encode("utf-8") + b"\x01")
            hashes.append(h.copy().hexdigest())
        with self._lock:
            hit = 0
            for digest in hashes:
                if digest not in self._seen:
                    break
                hit += 1
            self._seen.update(hashes)
        cached = hit * CACHE_STEP_TOKENS
        return cached if cached >= CACHE_MIN_TOKENS else 0


_DATA = re.compile(r"^<<<DATA ([0-9a-f]+)>>>\n(.*?)\n<<<END DATA \1>>>$", re.S | re.M)


def data_blocks(text: str) -> list[tuple[str, dict]]:
    """The fenced data blocks of a prompt text: (fence id, the JSON object), in order."""
    return [(m.group(1), json.loads(m.group(2))) for m in _DATA.finditer(text)]


def data_of(body: dict) -> Optional[dict]:
    """The data block of a chat request's last user message (None when it has none)."""
    users = [m for m in body.get("messages", []) if m.get("role") == "user"]
    found = data_blocks(str(users[-1].get("content", ""))) if users else []
    return found[0][1] if found else None


def outside_data(text: str) -> str:
    """A prompt text with its data blocks cut out: what the prompt says in its own words."""
    return _DATA.sub("<data>", text)


@dataclass
class LoggedRequest:
    """One request the server received."""

    method: str
    path: str
    body: dict
    started: float
    ended: float = 0.0
    fault: Optional[str] = None
    status: int = 200
    usage: Optional[dict] = None  # the usage object of the answer, when it had one

    @property
    def prompt(self) -> str:
        return "\n".join(str(m.get("content", "")) for m in self.body.get("messages", []))

    @property
    def data(self) -> Optional[dict]:
        return data_of(self.body)

    @property
    def response_format(self) -> Optional[str]:
        rf = self.body.get("response_format")
        return rf.get("type") if isinstance(rf, dict) else None


@dataclass
class ScriptedLLM:
    """The server's script and state. Thread-safe: handlers run one thread per connection."""

    default: Reply = field(default_factory=lambda: {"justification": "Default scripted answer.",
                                                   "label": "no_error"})
    latency: float = 0.0
    hang: float = 3.0  # how long a "timeout" fault stalls (cut short when the server stops)
    tokens: tuple[int, int] = (100, 10)  # usage reported per answer (prompt, completion)
    reject_json_schema: bool = False
    # How the refusal comes: 400 (most servers) or 500 (llama.cpp's Python server, whose validation
    # error names the modes it knows).
    reject_json_schema_status: int = 400
    # Refuse a json_object response_format that carries a "schema" key (strict servers).
    reject_schema_key: bool = False
    # Parameters refused with a 400, like reasoning models do ("temperature", "max_tokens").
    reject_params: tuple[str, ...] = ()
    model_ids: tuple[str, ...] = ("scripted-judge",)
    retry_after: str = "0"  # the Retry-After header of a 429
    batch_polls: int = 0  # retrievals before a batch completes (0: completed when created)
    # Count usage on the request (count_tokens) and report cached prompt prefixes (PrefixCache).
    prompt_caching: bool = False

    def __post_init__(self) -> None:
        self.rules: list[tuple[Matcher, Reply]] = []
        self.faults: deque[str] = deque()
        self.log: list[LoggedRequest] = []
        self._lock = threading.Lock()
        self._active = 0
        self.max_active = 0
        self._stopping = threading.Event()
        self._httpd: Optional[ThreadingHTTPServer] = None
        self.fault_rate = 0.0
        self._fault_rng = random.Random(0)
        self.fault_kinds: tuple[str, ...] = RANDOM_FAULTS
        self.files: dict[str, dict] = {}
        self.batches: dict[str, dict] = {}
        self.batch_lines: list[dict] = []
        self.batch_line_error: Optional[Callable[[dict], bool]] = None
        self.prefixes = PrefixCache()
        self.reported: list[dict] = []  # every usage object sent back (chat answers, batch lines)
        self._thread: Optional[threading.Thread] = None

    # -- script ---------------------------------------------------------------------------------

    def on(self, match: Matcher, reply: Reply) -> "ScriptedLLM":
        """Answer `reply` when `match` (a substring of the prompt, or a predicate on the request
        body) fits. Earlier rules win."""
        self.rules.append((match, reply))
        return self

    def fail_next(self, *faults: str) -> "ScriptedLLM":
        for f in faults:
            if f not in FAULTS:
                raise ValueError(f"unknown fault {f!r}; known: {', '.join(FAULTS)}")
        with self._lock:
            self.faults.extend(faults)
        return self

    def random_faults(self, rate: float, seed: int = 0, kinds: tuple[str, ...] = RANDOM_FAULTS) -> "ScriptedLLM":
        """Make `rate` of the chat requests (after any fail_next ones) fail with a fault drawn from
        `kinds`, from a generator seeded with `seed`."""
        with self._lock:
            self.fault_rate, self._fault_rng, self.fault_kinds = rate, random.Random(seed), tuple(kinds)
        return self

    @property
    def answered(self) -> list[LoggedRequest]:
        """Chat requests that got a usable answer (status 200, no fault): what a real server bills."""
        return [r for r in self.completions if r.fault is None and r.status == 200]

    @property
    def url(self) -> str:
        assert self._httpd is not None, "server not started"
        return f"http://127.0.0.1:{self._httpd.server_address[1]}/v1"

    @property
    def completions(self) -> list[LoggedRequest]:
        """Logged chat-completion requests, in arrival order."""
        with self._lock:
            return [r for r in self.log if r.path.endswith("/chat/completions")]

    # -- lifecycle ------------------------------------------------------------------------------

    def start(self) -> "ScriptedLLM":
        script = self

        class Handler(_Handler):
            server_script = script

        self._httpd = _Server(("127.0.0.1", 0), Handler)
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05},
                                        name="scripted-llm", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stopping.set()  # wakes hanging handlers
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)

    # -- answering ------------------------------------------------------------------------------

    def _pick(self, body: dict, prompt: str) -> Reply:
        for match, reply in self.rules:
            hit = (match in prompt) if isinstance(match, str) else bool(match(body))
            if hit:
                return reply
        return self.default

    def _content(self, body: dict, prompt: str) -> str:
        reply = self._pick(body, prompt)
        if callable(reply):
            reply = reply(body)
        return reply if isinstance(reply, str) else json.dumps(reply, ensure_ascii=False)

    def usage(self, body: dict, content: str) -> dict:
        """The usage object of an answer to `body`, also logged in `reported`."""
        if not self.prompt_caching:
            tin, tout = self.tokens
            usage = {"prompt_tokens": tin, "completion_tokens": tout, "total_tokens": tin + tout}
        else:
            tokens = prompt_token_list(body)
            tin, tout = len(tokens), len(count_tokens(content)) + 1
            usage = {"prompt_tokens": tin, "completion_tokens": tout, "total_tokens": tin + tout,
                     "prompt_tokens_details": {"cached_tokens": self.prefixes.lookup_and_add(tokens)}}
        with self._lock:
            self.reported.append(usage)
        return usage

    # -- the Batch API ----------------------------------------------------------------------------

    def _file(self, data: bytes, filename: str, purpose: str) -> dict:
        with self._lock:
            fid = f"file-{len(self.files) + 1}"
            self.files[fid] = {"id": fid, "object": "file", "bytes": len(data), "created_at": int(time.time()),
                               "filename": filename, "purpose": purpose, "status": "processed", "data": data}
        return self.files[fid]

    def _batch_view(self, b: dict) -> dict:
        return {k: v for k, v in b.items() if not k.startswith("_")}

    def _run_batch(self, b: dict) -> None:
        """Answer every line of the batch's input file; write the output (and error) files."""
        out, errors = [], []
        for n, raw in enumerate(self.files[b["input_file_id"]]["data"].decode("utf-8").splitlines()):
            if not raw.strip():
                continue
            line = json.loads(raw)
            with self._lock:
                self.batch_lines.append(line)
            body = line["body"]
            if self.batch_line_error and self.batch_line_error(line):
                errors.append({"id": f"batch_req_{n}", "custom_id": line["custom_id"], "response": {
                    "status_code": 500, "request_id": f"req_{n}", "body": {"error": {"message": "scripted"}}},
                    "error": None})
                continue
            prompt = "\n".join(str(m.get("content", "")) for m in body.get("messages", []))
            content = self._content(body, prompt)
            out.append({"id": f"batch_req_{n}", "custom_id": line["custom_id"], "response": {
                "status_code": 200, "request_id": f"req_{n}", "body": {
                    "id": f"chatcmpl-batch-{n}", "object": "chat.completion", "created": int(time.time()),
                    "model": body.get("model", "unknown") + "-served",
                    "choices": [{"index": 0, "finish_reason": "stop", "logprobs": None,
                                 "message": {"role": "assistant", "content": content}}],
                    "usage": self.usage(body, content)}},
                "error": None})
        b["output_file_id"] = self._file("".join(json.dumps(x) + "\n" for x in out).encode(), "output.jsonl",
                                         "batch_output")["id"] if out else None
        b["error_file_id"] = self._file("".join(json.dumps(x) + "\n" for x in errors).encode(), "errors.jsonl",
                                        "batch_output")["id"] if errors else None
        b["status"] = "completed"
        b["completed_at"] = int(time.time())
        b["request_counts"] = {"total": len(out) + len(errors), "completed": len(out), "failed": len(errors)}

    def _create_batch(self, body: dict) -> dict:
        with self._lock:
            bid = f"batch_{len(self.batches) + 1}"
            b = {"id": bid, "object": "batch", "endpoint": body.get("endpoint"), "errors": None,
                 "input_file_id": body.get("input_file_id"), "completion_window": body.get("completion_window"),
                 "status": "in_progress", "output_file_id": None, "error_file_id": None,
                 "created_at": int(time.time()), "metadata": body.get("metadata"),
                 "request_counts": {"total": 0, "completed": 0, "failed": 0}, "_polls": self.batch_polls}
            self.batches[bid] = b
        if b["_polls"] <= 0:
            self._run_batch(b)
        return b

    def _retrieve_batch(self, bid: str) -> Optional[dict]:
        b = self.batches.get(bid)
        if b is not None and b["status"] == "in_progress":
            b["_polls"] -= 1
            if b["_polls"] <= 0:
                self._run_batch(b)
        return b

    def _enter(self) -> None:
        with self._lock:
            self._active += 1
            self.max_active = max(self.max_active, self._active)

    def _leave(self) -> None:
        with self._lock:
            self._active -= 1


class _Server(ThreadingHTTPServer):
    # The default listen backlog (5) makes a burst of connections wait for a SYN retransmit.
    request_queue_size = 128
    daemon_threads = True


class _Handler(BaseHTTPRequestHandler):
    # headers and body go out in two writes: without this the body waits for the client's delayed ACK
    disable_nagle_algorithm = True
    protocol_version = "HTTP/1.1"
    server_script: ScriptedLLM

    def log_message(self, *args) -> None:  # keep test output clean
        pass

    def _send(self, status: int, payload: Union[dict, bytes], headers: Optional[dict] = None) -> None:
        data = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
        try:
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            for k, v in (headers or {}).items():
                self.send_header(k, v)
            self.end_headers()
            self.wfile.write(data)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client gave up (timeout fault): nothing to do

    def do_GET(self) -> None:
        s = self.server_script
        with s._lock:
            s.log.append(LoggedRequest("GET", self.path, {}, time.monotonic(), time.monotonic()))
        parts = self.path.split("?")[0].rstrip("/").split("/")
        if self.path.rstrip("/").endswith("/models"):
            self._send(200, {"object": "list", "data": [
                {"id": m, "object": "model", "created": 0, "owned_by": "termqa-tests"} for m in s.model_ids]})
        elif len(parts) >= 2 and parts[-2] == "batches" and parts[-1] in s.batches:
            self._send(200, s._batch_view(s._retrieve_batch(parts[-1])))
        elif len(parts) >= 3 and parts[-1] == "content" and parts[-3] == "files" and parts[-2] in s.files:
            data = s.files[parts[-2]]["data"]
            try:
                self.send_response(200)
                self.send_header("Content-Type", "application/octet-stream")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)
            except (BrokenPipeError, ConnectionResetError):
                pass
        else:
            self._send(404, {"error": {"message": f"no route {self.path}", "type": "not_found"}})

    def do_POST(self) -> None:
        s = self.server_script
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        if self.path.rstrip("/").endswith("/files"):
            self._upload(s, raw)
            return
        try:
            body = json.loads(raw or b"{}")
        except ValueError:
            self._send(400, {"error": {"message": "request body is not JSON", "type": "invalid_request_error"}})
            return
        entry = LoggedRequest("POST", self.path, body, time.monotonic())
        rf = body.get("response_format") or {}
        # A server that cannot do json_schema says so before anything else (no fault consumed).
        rejects = ((s.reject_json_schema and isinstance(rf, dict) and rf.get("type") == "json_schema")
                   or (s.reject_schema_key and isinstance(rf, dict) and "schema" in rf)
                   or any(p in body for p in s.reject_params))
        with s._lock:
            s.log.append(entry)
            chat = self.path.endswith("/chat/completions")
            fault = s.faults.popleft() if s.faults and not rejects and chat else None
            if fault is None and chat and not rejects and s.fault_rate and s._fault_rng.random() < s.fault_rate:
                fault = s._fault_rng.choice(s.fault_kinds)
        entry.fault = fault
        if self.path.rstrip("/").endswith("/batches"):
            self._send(200, s._batch_view(s._create_batch(body)))
            return
        if not self.path.endswith("/chat/completions"):
            entry.status = 404
            self._send(404, {"error": {"message": f"no route {self.path}", "type": "not_found"}})
            return
        s._enter()
        try:
            self._complete(s, body, entry, fault)
        finally:
            entry.ended = time.monotonic()
            s._leave()

    def _upload(self, s: ScriptedLLM, raw: bytes) -> None:
        """A multipart file upload, as the openai client sends it to /v1/files."""
        from email.parser import BytesParser
        from email.policy import HTTP

        msg = BytesParser(policy=HTTP).parsebytes(
            b"Content-Type: " + self.headers.get("Content-Type", "").encode() + b"\r\n\r\n" + raw)
        fields, data, filename = {}, b"", "upload"
        for part in msg.iter_parts():
            name = part.get_param("name", header="content-disposition")
            if name == "file":
                data = part.get_payload(decode=True) or b""
                filename = part.get_filename() or filename
            elif name:
                fields[name] = (part.get_payload(decode=True) or b"").decode()
        with s._lock:
            s.log.append(LoggedRequest("POST", self.path, {"purpose": fields.get("purpose")}, time.monotonic(),
                                       time.monotonic()))
        f = s._file(data, filename, fields.get("purpose", ""))
        self._send(200, {k: v for k, v in f.items() if k != "data"})

    def _complete(self, s: ScriptedLLM, body: dict, entry: LoggedRequest, fault: Optional[str]) -> None:
        if s.latency:
            s._stopping.wait(s.latency)
        rf = body.get("response_format") or {}
        if s.reject_json_schema and isinstance(rf, dict) and rf.get("type") == "json_schema":
            entry.status = s.reject_json_schema_status
            if entry.status == 500:  # the shape llama.cpp's server gives
                self._send(500, {"error": {
                    "message": "1 validation error: {'loc': ('body', 'response_format', 'type'), "
                               "'msg': \"Input should be 'text' or 'json_object'\"}", "type": "internal_server_error"}})
            else:
                self._send(400, {"error": {
                    "message": "response_format type 'json_schema' is not supported; use 'json_object'",
                    "type": "invalid_request_error", "param": "response_format", "code": None}})
            return
        if s.reject_schema_key and isinstance(rf, dict) and "schema" in rf:
            entry.status = 400
            self._send(400, {"error": {"message": "response_format: extra field 'schema' not permitted",
                                       "type": "invalid_request_error", "param": "response_format"}})
            return
        for param in s.reject_params:
            if param in body:
                entry.status = 400
                self._send(400, {"error": {
                    "message": f"Unsupported parameter: '{param}' is not supported with this model.",
                    "type": "invalid_request_error", "param": param, "code": "unsupported_parameter"}})
                return
        if fault == "timeout":
            entry.status = 0  # never answered in time
            s._stopping.wait(s.hang)
            self._send(500, {"error": {"message": "too late", "type": "server_error"}})
            return
        if fault in ("429", "500", "503", "400", "401", "404"):
            entry.status = int(fault)
            messages = {"429": "Rate limit reached, slow down", "500": "internal error", "400": "Invalid request",
                        "503": "overloaded", "401": "invalid api key", "404": "model not found"}
            headers = {"Retry-After": s.retry_after} if fault == "429" else None
            code = {"429": "rate_limit_exceeded", "401": "invalid_api_key", "404": "model_not_found"}.get(fault)
            self._send(int(fault), {"error": {"message": messages[fault], "type": "error", "code": code}}, headers)
            return
        if fault == "malformed":
            self._send(200, b'{"id": "chatcmpl-broken", "choices": [')
            return
        prompt = entry.prompt
        if fault == "not_json":
            content = "Sure! I think the translation is fine."
        elif fault == "bad_label":
            content = json.dumps({"justification": "A label the registry does not have.",
                                  "label": "totally_made_up_label"})
        else:
            content = s._content(body, prompt)
        message = {"role": "assistant", "content": content}
        if fault == "refusal":
            message = {"role": "assistant", "content": None, "refusal": "I'm sorry, I can't help with that."}
        choices = [] if fault == "empty" else [{
            "index": 0, "finish_reason": "stop", "logprobs": None, "message": message}]
        usage = entry.usage = s.usage(body, content)
        self._send(200, {
            "id": f"chatcmpl-test-{len(s.log)}", "object": "chat.completion", "created": int(time.time()),
            "model": body.get("model", "unknown") + "-served",
            "choices": choices,
            "usage": usage,
        })


@pytest.fixture
def llm_server():
    """A running ScriptedLLM; stopped (and its hanging handlers released) after the test."""
    server = ScriptedLLM().start()
    try:
        yield server
    finally:
        server.stop()
