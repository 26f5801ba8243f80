"""Token usage as an OpenAI-compatible server reports it, and what it costs.

Kept apart from the client (termqa.judge.llm) and the batch engine (termqa.judge.batch), which both
read usage: a chat completion and a Batch API output line carry the same `usage` object, one as the
client's typed object, the other as parsed JSON.

Provider prompt caching: OpenAI (and vLLM, llama.cpp) reuse the longest prompt prefix an earlier
request shared, and OpenAI reports how many prompt tokens that covered in
`usage.prompt_tokens_details.cached_tokens` (a part of `prompt_tokens`, billed at a lower price).
A server that does not report it counts as having cached nothing.
"""
from __future__ import annotations

from typing import Any, NamedTuple, Optional


class Price(NamedTuple):
    """USD per 1M tokens. `cached_input`: the price of prompt tokens the provider served from its
    prompt cache; None when not known, then they are counted at the input price (never less)."""

    input: float
    output: float
    cached_input: Optional[float] = None


class Usage(NamedTuple):
    tokens_in: int
    tokens_in_cached: int  # part of tokens_in
    tokens_out: int


def _field(obj: Any, name: str) -> Any:
    if obj is None:
        return None
    if isinstance(obj, dict):
        return obj.get(name)
    return getattr(obj, name, None)


def read_usage(usage: Any) -> Usage:
    """(prompt tokens, of which cached, completion tokens) of a response's `usage` (an object of the
    openai client or a dict from a Batch API line); missing fields count 0. The cached count is
    bounded by the prompt tokens, so a server's odd report can never make the estimate negative."""
    tin = int(_field(usage, "prompt_tokens") or 0)
    tout = int(_field(usage, "completion_tokens") or 0)
    cached = int(_field(_field(usage, "prompt_tokens_details"), "cached_tokens") or 0)
    return Usage(tin, max(0, min(cached, tin)), tout)


def as_price(value: Any) -> Price:
    """A Price from (input, output) or (input, output, cached_input)."""
    if isinstance(value, Price):
        return value
    parts = list(value)
    cached = float(parts[2]) if len(parts) > 2 and parts[2] is not None else None
    return Price(float(parts[0]), float(parts[1]), cached)


def estimate_cost(tokens_in: int, tokens_in_cached: int, tokens_out: int, price: Price) -> float:
    """USD: (input - cached) x IN + cached x CACHED_IN + output x OUT, prices per 1M tokens. Without a
    cached-input price the cached tokens are paid at the input price."""
    cached = max(0, min(tokens_in_cached, tokens_in))
    cached_price = price.input if price.cached_input is None else price.cached_input
    return ((tokens_in - cached) * price.input + cached * cached_price + tokens_out * price.output) / 1_000_000
