"""Fixtures of the reader tests."""
import pytest

from tests.helpers import read_streamed_and_compared


@pytest.fixture(params=["tree", "streamed"])
def tree_and_streamed(request, monkeypatch):
    """The test runs twice: files read as a parsed tree, then read streaming as a big file is (and
    compared with the tree reader's record or error: tests/helpers.read_streamed_and_compared). A test
    module asks for it with `pytestmark = pytest.mark.usefixtures("tree_and_streamed")`."""
    if request.param == "streamed":
        read_streamed_and_compared(monkeypatch)
