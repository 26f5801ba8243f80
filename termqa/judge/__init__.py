"""The LLM judge: what counting could not settle (TermJudge §3.2).

stages (align, references, Q1, Q2 over the run's verdicts) -> questions (typed questions and answers)
-> prompting (versioned templates) -> llm (the one module that imports openai) -> cache (SQLite);
settings (JudgeSettings), costs (usage and prices) and accounting (what a run cost) beside the client.
"""
