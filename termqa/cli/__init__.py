"""The `termqa` command: a thin layer over the library, one module per command group."""
from termqa.cli.main import main

__all__ = ["main"]
