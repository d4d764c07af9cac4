"""A stand-in for torch (and triton) so that vLLM's and SGLang's tool-parser modules import on
a machine without them.

The parsers do not use torch; the packages merely import it on the way (type annotations,
decorators, custom-op registration at import time). Every attribute of the stand-in is another
stand-in: capitalised names are classes (so they can be subclassed, instantiated and used in
``X | Y`` annotations), others are modules or callables. Nothing computes anything. Call
:func:`install` before importing vllm or sglang; it does nothing when the real torch is there.
"""
import importlib.machinery
import importlib.util
import sys
import types

STUBBED = ("torch", "triton")


def _instance_getattr(self, name):
    if name.startswith("__"):
        raise AttributeError(name)
    return _Stub(name)


class _StubClass(type):
    def __getattr__(cls, name):
        if name.startswith("__"):
            raise AttributeError(name)
        return _Stub(f"{cls.__name__}.{name}")


class _DType:
    """A torch dtype: its name, its size, and what kind of number it holds (packages check
    these at import time, e.g. that an ``array`` typecode has the dtype's item size)."""

    def __init__(self, name, itemsize, floating=False, complex_=False, signed=True):
        self.name = name
        self.itemsize = itemsize
        self.is_floating_point = floating
        self.is_complex = complex_
        self.is_signed = signed or floating or complex_

    def __repr__(self):
        return f"torch.{self.name}"

    def to_real(self):
        return self


def _dtypes():
    table = {}
    for name, size in (("float16", 2), ("bfloat16", 2), ("float32", 4), ("float64", 8),
                       ("float8_e4m3fn", 1), ("float8_e5m2", 1), ("float8_e4m3fnuz", 1),
                       ("float8_e5m2fnuz", 1), ("float8_e8m0fnu", 1), ("float4_e2m1fn_x2", 1)):
        table[name] = _DType(name, size, floating=True)
    for name, size in (("int8", 1), ("int16", 2), ("int32", 4), ("int64", 8)):
        table[name] = _DType(name, size)
    for name, size in (("uint8", 1), ("uint16", 2), ("uint32", 4), ("uint64", 8), ("bool", 1)):
        table[name] = _DType(name, size, signed=False)
    for name, size in (("complex64", 8), ("complex128", 16)):
        table[name] = _DType(name, size, complex_=True)
    aliases = {"half": "float16", "float": "float32", "double": "float64", "short": "int16",
               "int": "int32", "long": "int64", "cfloat": "complex64", "cdouble": "complex128"}
    for alias, name in aliases.items():
        table[alias] = table[name]
    return table


DTYPES = _dtypes()


class _Stub(types.ModuleType):
    def __init__(self, name):
        super().__init__(name)
        self.__path__ = []
        self.__spec__ = importlib.machinery.ModuleSpec(name, None, is_package=True)
        self.__version__ = "2.9.0"

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        if self.__name__ == "torch" and name in DTYPES:
            value = DTYPES[name]
        elif self.__name__ == "torch" and name == "dtype":
            value = _DType
        elif name.lstrip("_")[:1].isupper():
            value = _StubClass(name, (), {
                "__init__": lambda s, *a, **k: None,
                "__call__": lambda s, *a, **k: None,
                "__getattr__": _instance_getattr,
            })
        else:
            value = _Stub(f"{self.__name__}.{name}")
            sys.modules[value.__name__] = value
        setattr(self, name, value)
        return value

    def __call__(self, *args, **kwargs):
        return _Stub("result")

    def __getitem__(self, key):
        return _Stub("item")

    def __setitem__(self, key, value):
        pass

    def __iter__(self):
        return iter(())

    def __bool__(self):
        return False

    def __or__(self, other):
        return other

    __ror__ = __or__

    def __add__(self, other):
        return other

    __radd__ = __add__

    def __lt__(self, other):
        return False

    __gt__ = __lt__

    def __le__(self, other):
        return True

    __ge__ = __le__

    def __int__(self):
        return 0

    __index__ = __int__

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


class _Finder:
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in STUBBED:
            return importlib.machinery.ModuleSpec(name, self, is_package=True)
        return None

    def create_module(self, spec):
        return _Stub(spec.name)

    def exec_module(self, module):
        pass


def install():
    """Makes `import torch` (and triton) give the stand-in, unless the real one is installed."""
    if importlib.util.find_spec("torch") is not None and not isinstance(sys.modules.get("torch"), _Stub):
        return
    if not any(isinstance(f, _Finder) for f in sys.meta_path):
        sys.meta_path.insert(0, _Finder())
