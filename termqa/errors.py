"""Typed errors. Each says what went wrong and, where it can, how to fix it.

The CLI turns `TermqaError` into one line on stderr and exit code 2; nothing else should reach
the user as a traceback.
"""
from __future__ import annotations

from typing import Optional


class TermqaError(Exception):
    """Base class. `fix` is a short hint the CLI prints after the message."""

    exit_code = 2

    def __init__(self, message: str, *, fix: Optional[str] = None):
        super().__init__(message)
        self.message = message
        self.fix = fix

    def __str__(self) -> str:
        return f"{self.message} ({self.fix})" if self.fix else self.message


class InputError(TermqaError):
    """A file could not be read as what it claims to be."""

    def __init__(self, path, problem: str, *, fix: Optional[str] = None):
        self.path = str(path)
        self.problem = problem
        super().__init__(f"{self.path}: {problem}", fix=fix)


class UnknownFormatError(InputError):
    pass


class WriteError(TermqaError, OSError):
    """A file could not be written (a full disk, a size limit, permissions): nothing was replaced.
    Still an OSError, for callers that catch those."""

    def __init__(self, message: str, *, errno: Optional[int] = None, reason: str = "", fix: Optional[str] = None):
        TermqaError.__init__(self, message, fix=fix)
        self.errno = errno
        self.reason = reason  # the system's words, e.g. "No space left on device"


class UsageError(TermqaError):
    """Options that do not fit together, or a missing option."""


class LanguageError(TermqaError):
    """Languages could not be decided, or the glossary has no terms for one."""


class ConfigError(TermqaError):
    """A config file (termqa.toml / pyproject.toml) is malformed."""


class JudgeError(TermqaError):
    """The LLM judge could not be reached or answered in a way we cannot use. `reason_class` is the
    short kind of failure progress lines and the JSON count by ("outage", "not JSON", ...)."""

    reason_class: Optional[str] = None


class UnusableAnswer(JudgeError):
    """The judge answered, but not with what was asked (not JSON, a refusal, outside the schema),
    even when asked again (termqa.judge.answers names the reason classes)."""

    def __init__(self, message: str, *, reason_class: Optional[str] = None, fix: Optional[str] = None):
        super().__init__(message, fix=fix)
        self.reason_class = reason_class


class BudgetExceeded(JudgeError):
    """--max-calls / --max-cost reached: the run stops cleanly and keeps what was judged."""


class OfflineCacheMiss(JudgeError):
    """--offline was given and a judgement is not in the cache."""


class MissingLanguageError(InputError):
    """A file does not say one of its languages (or offers several). `candidates` lists the
    languages it does have, for callers such as `inspect` that can go on without choosing."""

    def __init__(self, path, problem: str, *, fix: Optional[str] = None, which: str = "target",
                 candidates: tuple = ()):
        self.which = which
        self.candidates = tuple(candidates)
        super().__init__(path, problem, fix=fix)
