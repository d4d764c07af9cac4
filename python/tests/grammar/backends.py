"""The three constrained-decoding backends the exported grammars are for, without a model.

Each backend compiles a grammar as `toolcall grammar` prints it and offers two things:

- ``accepts(data)``: the bytes, fed one at a time, are all allowed and the grammar may end
  there (end of sequence accepted). Returns ``(ok, offset of the first refused byte)``.
- ``walk(rng, ...)``: a random output of the grammar, one allowed step at a time (a random
  allowed byte of the matcher's mask; for GBNF a random allowed code point), until the grammar
  may end and the walk decides to stop.

xgrammar and llguidance get a byte-level vocabulary (256 one-byte tokens and an end token), so
every marker is text. xgrammar imports torch and transformers at module level for type hints
and glue that matching never calls; stand-ins are put in their place when they are missing.
llama.cpp's GBNF matcher is llama.cpp's own src/llama-grammar.cpp built by `make grammar-deps`
(a lazy grammar is matched from its first trigger on, as llama.cpp's server does).
"""
import ctypes
import json
import os
import re
import sys
import types

EOS = 256
# Bytes that close or separate structure: a walk past its budget prefers them, so that strings
# and text end (the choice stays among the allowed bytes).
CLOSERS = set(b'"}])>\'<,:/\n')


class Refused(Exception):
    pass


class _Cached:
    """Compiles each grammar text once per backend (the tests and the fuzzer ask again)."""

    def compile(self, text):
        cache = self.__dict__.setdefault("_compiled", {})
        if text not in cache:
            cache[text] = self._compile(text)
        return cache[text]


def _stub_heavy_modules():
    import tvm_ffi  # noqa: F401  (must load first: it probes torch's dtypes)
    for name in ("torch", "transformers"):
        try:
            __import__(name)
        except ImportError:
            mod = types.ModuleType(name)

            def getattr_(attr, _name=name, _mod=mod):
                if attr.startswith("__"):
                    raise AttributeError(attr)
                cls = type(attr, (), {"__init__": lambda self, *a, **k: None})
                setattr(_mod, attr, cls)
                return cls

            mod.__getattr__ = getattr_
            sys.modules[name] = mod


def _walk(name, session, rng, budget, limit, stop, literals):
    """A random walk: at each step a random allowed unit (byte or code point) from the
    session's mask, until the grammar may end and the walk stops (with probability `stop`,
    always past the budget). Now and then (one step in twenty) the walk types one of the
    grammar's `literals` that fits here in full (a trigger, a name, a key, a close tag: a
    random unit seldom spells one), so that walks reach calls; past the budget it does so
    every other step, else leans to closing punctuation, to steer to an end."""
    literals = list(literals or ())
    for steps in range(limit):
        allowed, can_end = session.allowed()
        if can_end and (rng.random() < stop or steps > budget or not allowed):
            return session.output()
        if not allowed:
            raise AssertionError(f"{name}: dead end after {session.output()!r}")
        if literals and rng.random() < (0.5 if steps > budget else 0.05):
            typed = False
            for lit in rng.sample(literals, min(12, len(literals))):
                if session.try_string(lit):
                    typed = True
                    break
            if typed:
                continue
        session.accept(_pick(rng, allowed, steps, budget))
    return None if not os.environ.get("WALK_DEBUG") else session.output()


def grammar_literals(gbnf_text):
    """The quoted literals of a GBNF grammar (or of llama.cpp's lazy object): the markers,
    tags and keys a walk may type to steer to an end."""
    if gbnf_text.lstrip().startswith("{"):
        gbnf_text = json.loads(gbnf_text)["grammar"]
    out = set()
    # Character classes are skipped (a class may hold a quote).
    for m in re.finditer(r'\[(?:[^\]\\]|\\.)*\]|"((?:[^"\\]|\\.)*)"', gbnf_text):
        raw = m.group(1)
        if raw is None:
            continue
        lit = re.sub(r'\\(x[0-9A-Fa-f]{2}|.)', lambda e: {"n": "\n", "r": "\r", "t": "\t"}.get(e.group(1), chr(int(e.group(1)[1:], 16)) if e.group(1).startswith("x") else e.group(1)), raw)
        if len(lit) >= 2:
            out.add(lit)
    return sorted(out)


def _pick(rng, allowed, steps, budget):
    """A random choice among allowed units, leaning to closers past the budget and to
    printable ASCII before it (uniform bytes would be mostly stray UTF-8 continuations)."""
    if steps > budget:
        close = [b for b in allowed if b in CLOSERS]
        if close and rng.random() < 0.9:
            return rng.choice(close)
    elif rng.random() < 0.7:
        ascii_ = [b for b in allowed if 0x20 <= b < 0x7F or b == 0x0A]
        if ascii_:
            return rng.choice(ascii_)
    return rng.choice(allowed)


class XGrammar(_Cached):
    name = "xgrammar"

    def __init__(self):
        _stub_heavy_modules()
        import numpy
        import xgrammar
        self.np = numpy
        self.xgr = xgrammar
        vocab = [bytes([i]) for i in range(256)] + [b"</s>"]
        info = xgrammar.TokenizerInfo(vocab, xgrammar.VocabType.RAW, stop_token_ids=[EOS])
        self.compiler = xgrammar.GrammarCompiler(info, cache_enabled=False)

    def _compile(self, text):
        try:
            return self.compiler.compile_structural_tag(text)
        except Exception as e:  # noqa: BLE001  (xgrammar raises several kinds)
            raise Refused(f"{type(e).__name__}: {str(e).strip()[:400]}")

    def accepts(self, compiled, data):
        m = self.xgr.GrammarMatcher(compiled)
        for i, b in enumerate(data):
            if not m.accept_token(b):
                return False, i
        return (m.accept_token(EOS) and m.is_terminated()), len(data)

    def walk(self, compiled, rng, budget=400, limit=6000, stop=0.03, literals=()):
        return _walk("xgrammar", _XGrammarSession(self, compiled), rng, budget, limit, stop, literals)


class _ByteVocab:
    def __init__(self):
        self.tokens = [bytes([i]) for i in range(256)] + [b"</s>"]
        self.eos_token_id = EOS
        self.bos_token_id = None
        self.special_token_ids = [EOS]

    def __call__(self, s):
        return list(s.encode() if isinstance(s, str) else s)


class LLGuidance(_Cached):
    name = "llguidance"

    def __init__(self):
        import llguidance
        import numpy
        self.np = numpy
        self.llg = llguidance
        self.tok = llguidance.LLTokenizer(llguidance.TokenizerWrapper(_ByteVocab()))

    def _compile(self, text):
        try:
            g = self.llg.grammar_from("lark", text)
        except ValueError as e:
            raise Refused(str(e)[:400])
        err, msgs = self.llg.LLMatcher.validate_grammar_with_warnings(g, self.tok)
        if err:
            raise Refused(msgs[0][:400])
        return g

    def accepts(self, g, data):
        m = self.llg.LLMatcher(self.tok, g, log_level=0)
        n = m.validate_tokens(list(data))
        if n < len(data):
            return False, n
        if not m.consume_tokens(list(data)) or not m.is_accepting():
            return False, len(data)
        return (m.consume_token(EOS) and m.is_stopped()), len(data)

    def walk(self, g, rng, budget=400, limit=6000, stop=0.03, literals=()):
        return _walk("llguidance", _LLGuidanceSession(self, g), rng, budget, limit, stop, literals)


# A pool of code points a GBNF walk draws from inside wide ranges (negated classes): ASCII,
# accented Latin, CJK, an emoji.
POOL = [c for c in range(0x20, 0x7F)] + [0x0A, 0x09, 0xE9, 0xFC, 0x4E2D, 0x6771, 0x1F600]


class GBNF(_Cached):
    name = "gbnf"

    def __init__(self, lib=None):
        path = lib or os.environ.get("TOOLCALL_GBNF_LIB")
        if not path or not os.path.exists(path):
            raise FileNotFoundError("libtck_gbnf.so not found (make grammar-deps; TOOLCALL_GBNF_LIB)")
        lib = ctypes.CDLL(path)
        lib.tck_gbnf_parse.restype = ctypes.c_void_p
        lib.tck_gbnf_parse.argtypes = [ctypes.c_char_p]
        lib.tck_gbnf_free.argtypes = [ctypes.c_void_p]
        lib.tck_gbnf_clone.restype = ctypes.c_void_p
        lib.tck_gbnf_clone.argtypes = [ctypes.c_void_p]
        lib.tck_gbnf_accept.argtypes = [ctypes.c_void_p, ctypes.c_uint32]
        lib.tck_gbnf_can_end.argtypes = [ctypes.c_void_p]
        lib.tck_gbnf_allowed.restype = ctypes.c_size_t
        lib.tck_gbnf_allowed.argtypes = [ctypes.c_void_p, ctypes.POINTER(ctypes.c_uint32), ctypes.c_size_t]
        self.lib = lib

    def _compile(self, text):
        """A GBNF text, or llama.cpp's server object {grammar, grammar_lazy, grammar_triggers}."""
        triggers = None
        if text.lstrip().startswith("{"):
            doc = json.loads(text)
            if doc.get("grammar_lazy"):
                triggers = [t["value"] for t in doc["grammar_triggers"]]  # llama.cpp: type 0 a token (and its text), 1 a word
            text = doc["grammar"]
        g = self.lib.tck_gbnf_parse(text.encode())
        if not g:
            raise Refused("llama.cpp refused the grammar (its message is on stderr)")
        return (g, triggers)

    @staticmethod
    def lazy_start(text, triggers):
        """Where a lazy grammar starts: the earliest trigger in the text (None: never)."""
        best = None
        for t in triggers:
            i = text.find(t)
            if i >= 0 and (best is None or i < best):
                best = i
        return best

    def accepts(self, compiled, data):
        g0, triggers = compiled
        text = data.decode("utf-8", errors="replace")
        start = 0
        if triggers is not None:
            start = self.lazy_start(text, triggers)
            if start is None:
                return True, len(data)
        g = self.lib.tck_gbnf_clone(g0)
        try:
            for i, ch in enumerate(text[start:]):
                if not self.lib.tck_gbnf_accept(g, ord(ch)):
                    return False, len(text[:start + i].encode())
            return bool(self.lib.tck_gbnf_can_end(g)), len(data)
        finally:
            self.lib.tck_gbnf_free(g)

    def allowed(self, g):
        """The allowed code points as sorted, disjoint ranges (the matcher's stacks repeat and
        overlap them)."""
        cap = 1024
        while True:
            buf = (ctypes.c_uint32 * (2 * cap))()
            n = self.lib.tck_gbnf_allowed(g, buf, cap)
            if n <= cap:
                break
            cap = n
        ranges = sorted(set(zip(buf[0:2 * n:2], buf[1:2 * n:2])))
        merged = []
        for lo, hi in ranges:
            if merged and lo <= merged[-1][1] + 1:
                if hi > merged[-1][1]:
                    merged[-1][1] = hi
            else:
                merged.append([lo, hi])
        return [tuple(r) for r in merged]

    def walk(self, compiled, rng, budget=400, limit=6000, stop=0.03, literals=()):
        """A walk of the grammar from its root (for a lazy grammar: from its trigger on)."""
        session = _GBNFSession(self, compiled[0])
        try:
            return _walk("gbnf", session, rng, budget, limit, stop, literals)
        finally:
            session.close()


class _XGrammarSession:
    def __init__(self, be, compiled):
        self.be, self.m = be, be.xgr.GrammarMatcher(compiled)
        self.mask = be.np.zeros((1, 9), dtype=be.np.int32)
        self.out = bytearray()

    def allowed(self):
        np = self.be.np
        self.m.fill_next_token_bitmask(self.mask)
        allowed = np.flatnonzero(np.unpackbits(self.mask[0].view(np.uint8), bitorder="little")[:257]).tolist()
        can_end = EOS in allowed
        return [t for t in allowed if t != EOS], can_end

    def accept(self, b):
        assert self.m.accept_token(b)
        self.out.append(b)

    def try_string(self, s):
        data = s.encode()
        for i, b in enumerate(data):
            if not self.m.accept_token(b):
                if i:
                    self.m.rollback(i)
                return False
        self.out += data
        return True

    def output(self):
        return bytes(self.out)


class _LLGuidanceSession:
    def __init__(self, be, g):
        self.be, self.m = be, be.llg.LLMatcher(be.tok, g, log_level=0)
        self.out = bytearray()

    def allowed(self):
        np = self.be.np
        mask = self.m.compute_bitmask()
        if self.m.is_error():
            raise AssertionError(f"llguidance: {self.m.get_error()} after {bytes(self.out)!r}")
        allowed = np.flatnonzero(np.unpackbits(np.frombuffer(mask, dtype=np.uint8), bitorder="little")[:257]).tolist()
        can_end = EOS in allowed
        return [t for t in allowed if t != EOS], can_end

    def accept(self, b):
        assert self.m.consume_token(b), self.m.get_error()
        self.out.append(b)

    def try_string(self, s):
        data = list(s.encode())
        if self.m.validate_tokens(data) < len(data):
            return False
        assert self.m.consume_tokens(data), self.m.get_error()
        self.out += bytes(data)
        return True

    def output(self):
        return bytes(self.out)


class _GBNFSession:
    """Code points: a random one from each allowed range (wide ranges draw from POOL)."""

    def __init__(self, be, g0):
        self.be, self.g = be, be.lib.tck_gbnf_clone(g0)
        self.out = []

    def allowed(self):
        lib = self.be.lib
        choices = []
        for lo, hi in self.be.allowed(self.g):
            if hi - lo < 64:
                choices.extend(range(lo, hi + 1))
            else:
                choices.extend(c for c in POOL if lo <= c <= hi)
        choices = [c for c in choices if not 0xD800 <= c <= 0xDFFF and c != 0]
        return choices, bool(lib.tck_gbnf_can_end(self.g))

    def accept(self, cp):
        assert self.be.lib.tck_gbnf_accept(self.g, cp)
        self.out.append(chr(cp))

    def try_string(self, s):
        lib = self.be.lib
        trial = lib.tck_gbnf_clone(self.g)
        for ch in s:
            if not lib.tck_gbnf_accept(trial, ord(ch)):
                lib.tck_gbnf_free(trial)
                return False
        lib.tck_gbnf_free(self.g)
        self.g = trial
        self.out.append(s)
        return True

    def output(self):
        return "".join(self.out).encode()

    def close(self):
        self.be.lib.tck_gbnf_free(self.g)


def backends(gbnf_lib=None):
    """The available backends by target name, and why the others are not."""
    out, why = {}, {}
    for target, make in (("xgrammar", XGrammar), ("lark", LLGuidance), ("gbnf", lambda: GBNF(gbnf_lib))):
        try:
            out[target] = make()
        except Exception as e:  # noqa: BLE001
            why[target] = f"{type(e).__name__}: {e}"
    return out, why
