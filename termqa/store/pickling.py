"""How termqa's records are pickled: as a call that sets their fields, one idiom for all of them.

Records are pickled in bulk in two places: counting workers send their verdicts back to the main
process, and the index cache stores parsed glossaries and source indexes between runs. Unpickling is
then a visible part of a run, and pickle's own way for a slots dataclass (a state per object, looked up
field by field) or the frozen dataclass's `__init__` (one `object.__setattr__` call per field) is the
slow part of it. `pickled_by_fields` pickles an object as a call of a maker made for its class that
sets its slots directly (`init=True`: a call of the class itself, for an object whose constructor
derives state from what is pickled).

The data model (termqa.model) and the metric items (termqa.metrics) are registered from here, with
`copyreg`, so those modules import nothing of the speed machinery: importing this module registers them,
and their makers live here, where an unpickler finds them by name (unpickling imports this module, which
registers them). The stages' own records use the decorator.
"""
from __future__ import annotations

import copyreg
import dataclasses
import operator
from typing import Callable, Optional, Sequence


def pickled_by_fields(cls=None, *, fields: Optional[Sequence[str]] = None, init: bool = False):
    """Class decorator: pickle an object as a call with its field values.

    `fields`: the attributes pickled, in the order the call takes them (default: the dataclass's fields,
    which must then all be positional `__init__` arguments, checked here). The class must have
    `__slots__` holding every one of them unless `init` is True (the class itself is called).
    """

    def apply(cls):
        cls.__reduce__ = _reducer(cls, fields, init)
        return cls

    return apply if cls is None else apply(cls)


def _reducer(cls, fields: Optional[Sequence[str]], init: bool, home: Optional[dict] = None) -> Callable:
    """The reduce function of `cls`: (maker, field values). `home`: the namespace keeping the maker (default:
    the class, as `_unpickle`)."""
    names = tuple(fields) if fields is not None else tuple(f.name for f in dataclasses.fields(cls))
    if fields is None and names != getattr(cls, "__match_args__", None):
        raise TypeError(f"{cls.__name__}: every field must be a positional __init__ argument to pickle by fields")
    make = cls if init else _maker(cls, names, home)
    values = operator.attrgetter(*names)
    if len(names) == 1:
        return lambda self: (make, (values(self),))
    return lambda self: (make, values(self))


def register_by_fields(cls, *, fields: Optional[Sequence[str]] = None) -> None:
    """Pickle `cls` as `pickled_by_fields` does, registered with copyreg: the class itself is left as it is,
    and its maker is kept in this module (`_make_<class name>`)."""
    copyreg.pickle(cls, _reducer(cls, fields, False, globals()))


def _maker(cls, names: Sequence[str], home: Optional[dict] = None) -> Callable:
    """A function of the field values that makes an object of `cls` and sets its slots (their descriptors'
    `__set__`: what a frozen dataclass's `__init__` does through `object.__setattr__`, without the lookups).
    Kept on the class as `_unpickle`, or in `home` (a module's namespace), where pickle finds it by name."""
    missing = [n for n in names if not hasattr(getattr(cls, n, None), "__set__")]
    if missing:
        raise TypeError(f"{cls.__name__}: {', '.join(missing)} must be slots to pickle by fields")
    setters = tuple(getattr(cls, n).__set__ for n in names)
    new = object.__new__
    if len(setters) == 1:
        (set0,) = setters

        def make(value):
            obj = new(cls)
            set0(obj, value)
            return obj
    else:
        pairs = tuple(enumerate(setters))

        def make(*values):
            obj = new(cls)
            for i, put in pairs:
                put(obj, values[i])
            return obj

    if home is not None:
        name = f"_make_{cls.__name__}"
        if getattr(home.get(name), "made_for", cls) is not cls:
            raise TypeError(f"{cls.__qualname__}: another record named {cls.__name__} is registered here")
        make.__module__, make.__qualname__, make.__name__ = home["__name__"], name, name
        make.made_for = cls
        home[name] = make
        return make
    make.__module__ = cls.__module__
    make.__qualname__ = f"{cls.__qualname__}._unpickle"
    cls._unpickle = staticmethod(make)
    return make


def _register_records() -> None:
    from termqa import metrics, model

    for cls in (model.Span, model.Occurrence, model.Reference, model.Verdict, metrics.Item):
        register_by_fields(cls)


_register_records()
