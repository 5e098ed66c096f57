"""Lean dataclasses: `record` makes real dataclasses (fields(), replace(), asdict(),
__dataclass_fields__ and __match_args__ all work) for a fraction of @dataclass's creation cost:
the Field objects are made directly, without dataclass's per-class processing.

`dataclasses.dataclass` compiles (exec) __init__, __repr__, __eq__ (and __hash__, __setattr__,
__delattr__ when frozen) from source for every class and calls inspect.signature for a
missing docstring: ~0.4 ms per class. The compiler's start-up creates ~110 such classes
(the typed AST and types, diagnostics, options, the matrix and tensor rules): ~35 ms of every
`clcoop` run (docs/performance.md; issue 26, start-up). `record` lets dataclass generate
nothing: __init__ is compiled once per distinct field list, on the first construction of a
class that needs it, and shared; __eq__/__hash__/__repr__/frozen __setattr__ are shared
generic functions over an attrgetter of the compared fields. Unsupported (use @dataclass):
__post_init__, order=True, slots, kw_only, InitVar.
"""
import dataclasses
import reprlib
from operator import attrgetter

_HAS_FACTORY = object()          # default of a field with a default_factory
_INIT_CODE = {}                  # (names, kinds, frozen) -> code object of an __init__


def _init_code(names, kinds, frozen):
    key = (names, kinds, frozen)
    code = _INIT_CODE.get(key)
    if code is None:
        params, body = ["self"], []
        for name, kind in zip(names, kinds):
            params.append(name if kind == "required" else f"{name}=None")   # real defaults: __defaults__
            value = f"_factory_{name}() if {name} is _HAS_FACTORY else {name}" \
                if kind == "factory" else name
            body.append(f"_setattr(self, {name!r}, {value})" if frozen
                        else f"self.{name} = {value}")
        source = f"def __init__({', '.join(params)}):\n    " + ("\n    ".join(body) or "pass")
        namespace = {}
        exec(source, {}, namespace)
        code = _INIT_CODE[key] = namespace["__init__"].__code__
    return code


def _make_init(cls, fields, frozen):
    names, kinds, defaults = [], [], []
    scope = {"_HAS_FACTORY": _HAS_FACTORY, "_setattr": object.__setattr__}
    for f in fields:
        names.append(f.name)
        if f.default_factory is not dataclasses.MISSING:
            kinds.append("factory")
            defaults.append(_HAS_FACTORY)
            scope[f"_factory_{f.name}"] = f.default_factory
        elif f.default is not dataclasses.MISSING:
            kinds.append("default")
            defaults.append(f.default)
        else:
            kinds.append("required")
    key = (tuple(names), tuple(kinds), frozen)

    def compiled():
        init = type(_make_init)(_init_code(*key), scope, "__init__", tuple(defaults) or None)
        init.__qualname__ = f"{cls.__qualname__}.__init__"
        return init

    if key in _INIT_CODE:
        return compiled()

    def __init__(self, *args, **kwargs):
        # Compiled on the first construction: a small kernel builds a few of the ~85 record
        # classes, and each compile (exec) is ~0.1 ms of start-up (issue 26).
        init = cls.__init__ = compiled()
        init(self, *args, **kwargs)
    __init__.__qualname__ = f"{cls.__qualname__}.__init__"
    return __init__


def _record_eq(self, other):
    if other.__class__ is self.__class__:
        return self._compare_key(self) == other._compare_key(other)
    return NotImplemented


def _record_hash(self):
    return hash(self._compare_key(self))


@reprlib.recursive_repr()
def _record_repr(self):
    parts = ", ".join(f"{name}={getattr(self, name)!r}" for name in self._repr_names)
    return f"{self.__class__.__qualname__}({parts})"


def _frozen_setattr(self, name, value):
    raise dataclasses.FrozenInstanceError(f"cannot assign to field {name!r}")


def _frozen_delattr(self, name):
    raise dataclasses.FrozenInstanceError(f"cannot delete field {name!r}")


def _compare_key_of(names):
    if not names:
        return lambda self: ()
    return attrgetter(*names)


_PROBE = {}


def _dataclass_markers():
    """(the params object of dataclass(init=False, repr=False, eq=False), the field-kind marker
    of a plain field): taken from a real dataclass, so they are this Python's own."""
    if not _PROBE:
        @dataclasses.dataclass(init=False, repr=False, eq=False)
        class Probe:
            """A docstring: without one dataclass calls inspect.signature, which tokenizes."""
            x: int
        _PROBE["params"] = Probe.__dataclass_params__
        _PROBE["kind"] = dataclasses.fields(Probe)[0]._field_type
    return _PROBE["params"], _PROBE["kind"]


def _fields_of(cls):
    """{name: dataclasses.Field} as dataclass(cls) would make them (base classes' fields first,
    a redefined one keeping its place), with the class attributes dataclass leaves: a
    default's value, nothing for a field without one or with a default_factory."""
    _, kind = _dataclass_markers()
    fields = {}
    for base in reversed(cls.__mro__[1:]):
        fields.update(getattr(base, "__dataclass_fields__", {}))
    for name, annotation in cls.__dict__.get("__annotations__", {}).items():
        value = cls.__dict__.get(name, dataclasses.MISSING)
        f = value if isinstance(value, dataclasses.Field) else dataclasses.field(default=value)
        f.name, f.type, f._field_type = name, annotation, kind
        if f.kw_only is dataclasses.MISSING:
            f.kw_only = False
        if f.default is not dataclasses.MISSING and f.default.__class__.__hash__ is None:
            raise ValueError(f"mutable default {type(f.default)} for field {name} is not allowed: "
                             "use default_factory")
        if isinstance(value, dataclasses.Field):
            if f.default is dataclasses.MISSING:
                delattr(cls, name)
            else:
                setattr(cls, name, f.default)
        fields[name] = f
    seen_default = None
    for f in fields.values():
        if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING:
            if seen_default:
                raise TypeError(f"non-default argument {f.name!r} follows default argument")
        else:
            seen_default = f.name
    return fields


def record(cls=None, /, *, eq=True, frozen=False):
    """Like @dataclass / @dataclass(eq=False) / @dataclass(frozen=True), only cheaper to create.

    Same behaviour: positional and keyword construction in field order, default_factory,
    field(compare=False), eq compares the fields of two objects of the same class
    (eq=False: identity), frozen instances reject assignment and hash their fields,
    mutable ones with eq are unhashable.
    """
    def wrap(cls):
        if not cls.__dict__.get("__doc__"):
            cls.__doc__ = cls.__name__      # dataclass would call inspect.signature for one
        # What dataclass(cls, init=False, repr=False, eq=False) would leave on the class,
        # without its per-class processing (~0.4 ms a class, 105 classes on the compile path).
        by_name = _fields_of(cls)
        cls.__dataclass_fields__ = by_name
        cls.__dataclass_params__ = _dataclass_markers()[0]
        fields = list(by_name.values())
        if "__match_args__" not in cls.__dict__:
            cls.__match_args__ = tuple(f.name for f in fields if f.init)
        cls.__init__ = _make_init(cls, fields, frozen)
        cls._repr_names = tuple(f.name for f in fields if f.repr)
        cls.__repr__ = _record_repr
        if eq:
            cls._compare_key = staticmethod(_compare_key_of(
                tuple(f.name for f in fields if f.compare)))
            cls.__eq__ = _record_eq
            cls.__hash__ = _record_hash if frozen else None
        if frozen:
            cls.__setattr__ = _frozen_setattr
            cls.__delattr__ = _frozen_delattr
        return cls
    return wrap if cls is None else wrap(cls)
