"""The counting pipeline, one module per stage, in data-flow order:

detect (source occurrences) -> align (target spans) -> reference (R(s)) -> prejudge (deterministic
verdicts) -> score / metrics. `check` connects them over one run record.
"""
