"""Fixtures of the judge tests: the scripted OpenAI-compatible server each test owns (tests/llm_server.py)."""
import pytest

from tests.llm_server import ScriptedLLM


@pytest.fixture
def server():
    s = ScriptedLLM().start()
    yield s
    s.stop()
