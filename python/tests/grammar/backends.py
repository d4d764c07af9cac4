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
import sys
import types

EOS = 256
# Bytes that close or separate structure: a walk past its budget prefers them, so that strings
# and text end (the choice stays among the allowed bytes).
CLOSERS = set(b'"}])>\'<,:/\n')


class Refused(Exception):
    pass


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


def _pick(rng, allowed, steps, budget):
    """A random choice among allowed byte values, leaning to closers past the budget."""
    if steps > budget:
        close = [b for b in allowed if b in CLOSERS]
        if close and rng.random() < 0.9:
            return rng.choice(close)
    return rng.choice(allowed)


class XGrammar:
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

    def compile(self, text):
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

    def walk(self, compiled, rng, budget=400, limit=6000, stop=0.25):
        m = self.xgr.GrammarMatcher(compiled)
        mask = self.np.zeros((1, 9), dtype=self.np.int32)
        out = bytearray()
        for steps in range(limit):
            m.fill_next_token_bitmask(mask)
            bits = mask[0].view(self.np.uint32)
            allowed = [t for t in range(257) if (int(bits[t >> 5]) >> (t & 31)) & 1]
            if EOS in allowed and (rng.random() < stop or steps > budget or allowed == [EOS]):
                return bytes(out)
            allowed = [t for t in allowed if t != EOS]
            if not allowed:
                raise AssertionError(f"xgrammar: dead end after {bytes(out)!r}")
            b = _pick(rng, allowed, steps, budget)
            assert m.accept_token(b)
            out.append(b)
        return None


class _ByteVocab:
    def __init__(self):
        self.tokens = [bytes([i]) for i in range(256)] + [b"</s>"]
        self.eos_token_id = EOS
        self.bos_token_id = None
        self.special_token_ids = [EOS]

    def __call__(self, s):
        return list(s.encode() if isinstance(s, str) else s)


class LLGuidance:
    name = "llguidance"

    def __init__(self):
        import llguidance
        self.llg = llguidance
        self.tok = llguidance.LLTokenizer(llguidance.TokenizerWrapper(_ByteVocab()))

    def compile(self, text):
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

    def walk(self, g, rng, budget=400, limit=6000, stop=0.25):
        m = self.llg.LLMatcher(self.tok, g, log_level=0)
        out = bytearray()
        for steps in range(limit):
            mask = m.compute_bitmask()
            allowed = [t for t in range(257) if mask[t >> 3] >> (t & 7) & 1]
            if m.is_error():
                raise AssertionError(f"llguidance: {m.get_error()} after {bytes(out)!r}")
            if EOS in allowed and (rng.random() < stop or steps > budget or allowed == [EOS]):
                return bytes(out)
            allowed = [t for t in allowed if t != EOS]
            if not allowed:
                raise AssertionError(f"llguidance: dead end after {bytes(out)!r}")
            b = _pick(rng, allowed, steps, budget)
            assert m.consume_token(b), m.get_error()
            out.append(b)
        return None


# A pool of code points a GBNF walk draws from inside wide ranges (negated classes): ASCII,
# accented Latin, CJK, an emoji.
POOL = [c for c in range(0x20, 0x7F)] + [0x0A, 0x09, 0xE9, 0xFC, 0x4E2D, 0x6771, 0x1F600]


class GBNF:
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

    def compile(self, text):
        """A GBNF text, or llama.cpp's server object {grammar, grammar_lazy, grammar_triggers}."""
        triggers = None
        if text.lstrip().startswith("{"):
            doc = json.loads(text)
            if doc.get("grammar_lazy"):
                triggers = [t["value"] for t in doc["grammar_triggers"] if t.get("type", "word") == "word"]
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
        buf = (ctypes.c_uint32 * 2048)()
        n = self.lib.tck_gbnf_allowed(g, buf, 1024)
        return [(buf[2 * i], buf[2 * i + 1]) for i in range(min(n, 1024))]

    def walk(self, compiled, rng, budget=400, limit=6000, stop=0.25):
        """A walk of the grammar from its root (for a lazy grammar: from its trigger on)."""
        g0, _ = compiled
        g = self.lib.tck_gbnf_clone(g0)
        out = []
        try:
            for steps in range(limit):
                can_end = bool(self.lib.tck_gbnf_can_end(g))
                ranges = self.allowed(g)
                if can_end and (rng.random() < stop or steps > budget or not ranges):
                    return "".join(out).encode()
                if not ranges:
                    raise AssertionError(f"gbnf: dead end after {''.join(out)!r}")
                choices = []
                for lo, hi in ranges:
                    if hi - lo < 64:
                        choices.extend(range(lo, hi + 1))
                    else:
                        choices.extend(c for c in POOL if lo <= c <= hi)
                choices = [c for c in choices if not 0xD800 <= c <= 0xDFFF and c != 0]
                if not choices:
                    raise AssertionError(f"gbnf: nothing in the pool for {ranges[:4]} after {''.join(out)!r}")
                if steps > budget:
                    close = [c for c in choices if c < 128 and c in CLOSERS]
                    if close and rng.random() < 0.9:
                        choices = close
                cp = rng.choice(choices)
                assert self.lib.tck_gbnf_accept(g, cp)
                out.append(chr(cp))
            return None
        finally:
            self.lib.tck_gbnf_free(g)


def backends(gbnf_lib=None):
    """The available backends by target name, and why the others are not."""
    out, why = {}, {}
    for target, make in (("xgrammar", XGrammar), ("lark", LLGuidance), ("gbnf", lambda: GBNF(gbnf_lib))):
        try:
            out[target] = make()
        except Exception as e:  # noqa: BLE001
            why[target] = f"{type(e).__name__}: {e}"
    return out, why
