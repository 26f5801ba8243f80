"""Token usage as an OpenAI-compatible server reports it, the prices of models, and what it costs.

Kept apart from the client (termqa.judge.llm) and the batch engine (termqa.judge.batch), which both
read usage: a chat completion and a Batch API output line carry the same `usage` object, one as the
client's typed object, the other as parsed JSON. The price table and the readers of --price and the
config's [prices] live here too: the settings (termqa.judge.settings), the accounting and `termqa
estimate` all price tokens the same way, and none of them needs the client.

Provider prompt caching: OpenAI (and vLLM, llama.cpp) reuse the longest prompt prefix an earlier
request shared, and OpenAI reports how many prompt tokens that covered in
`usage.prompt_tokens_details.cached_tokens` (a part of `prompt_tokens`, billed at a lower price).
A server that does not report it counts as having cached nothing.
"""
from __future__ import annotations

import re
from types import MappingProxyType
from typing import Any, Mapping, NamedTuple, Optional, Sequence

from termqa.errors import UsageError


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


# USD per 1M tokens (input, output, cached input), list prices of the OpenAI models most likely to
# be used as judges; cached input is what OpenAI bills for prompt tokens served from its prompt
# cache (a repeated prefix of 1,024 tokens or more). Used only for the estimate and --max-cost; the
# user's own table is merged over this one.
DEFAULT_PRICES = MappingProxyType({
    "gpt-4.1": Price(2.00, 8.00, 0.50),
    "gpt-4.1-mini": Price(0.40, 1.60, 0.10),
    "gpt-4.1-nano": Price(0.10, 0.40, 0.025),
    "gpt-4o": Price(2.50, 10.00, 1.25),
    "gpt-4o-mini": Price(0.15, 0.60, 0.075),
    "gpt-5": Price(1.25, 10.00, 0.125),
    "gpt-5-mini": Price(0.25, 2.00, 0.025),
    "gpt-5-nano": Price(0.05, 0.40, 0.005),
})


def price_for(model: str, prices: Mapping[str, Sequence[Optional[float]]]) -> Optional[Price]:
    """The price (input, output, cached input) of `model`: exact name, else the longest listed name
    it starts with (dated snapshots such as gpt-4.1-mini-2025-04-14), also after a `provider/`
    prefix."""
    names = [model]
    if "/" in model:
        names.append(model.rsplit("/", 1)[1])
    for name in names:
        if name in prices:
            return as_price(prices[name])
    for name in names:
        best = max((k for k in prices if name.startswith(k)), key=len, default=None)
        if best is not None:
            return as_price(prices[best])
    return None


def parse_price(text: str) -> tuple[str, Price]:
    """`MODEL=IN,OUT[,CACHED_IN]` (USD per 1M input / output / cached input tokens) -> (model,
    Price); for --price."""
    model, sep, nums = text.partition("=")
    parts = re.split(r"[,/:]", nums)
    try:
        if not sep or not model.strip() or len(parts) not in (2, 3):
            raise ValueError
        price = check_price(parts)
    except ValueError:
        raise UsageError(f"cannot read price {text!r}",
                         fix="write MODEL=INPUT,OUTPUT[,CACHED_INPUT] in USD per million tokens, "
                             "e.g. gpt-4.1-mini=0.4,1.6,0.1") from None
    return model.strip(), price


def check_price(values: Sequence[Any]) -> Price:
    """A Price from 2 or 3 numbers, none negative; ValueError otherwise."""
    if isinstance(values, (str, bytes)) or len(values) not in (2, 3):
        raise ValueError("a price is [input, output] or [input, output, cached input]")
    price = as_price(values)
    if min(x for x in price if x is not None) < 0:
        raise ValueError("a price cannot be negative")
    return price
