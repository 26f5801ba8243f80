"""Evaluation beyond one check: comparing systems, agreement with human scores, statistics,
re-scoring under other penalties, and the glossary backlog."""
