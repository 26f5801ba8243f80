"""Evaluation beyond one check: comparing systems, agreement with human scores, statistics,
re-scoring under other penalties (the glossary backlog of a result is termqa.results.backlog)."""
