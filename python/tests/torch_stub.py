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


class _Stub(types.ModuleType):
    def __init__(self, name):
        super().__init__(name)
        self.__path__ = []
        self.__spec__ = importlib.machinery.ModuleSpec(name, None, is_package=True)
        self.__version__ = "2.9.0"

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        if name.lstrip("_")[:1].isupper():
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
