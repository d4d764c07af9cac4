"""The three backends with a real tokenizer: markers that are one special token of the vocabulary.

A case's text is tokenized as a model would write it (llguidance's tokenizer of the
tokenizer.json: added special tokens are split off whole, so `<tool_call>` is its id) and fed
token by token:

- llguidance: `LLTokenizer(path)`, the matcher consumes the ids (a special token never matches
  a string in a grammar, only a token named as `<[id]>`);
- xgrammar: `TokenizerInfo` made from the file's vocabulary as xgrammar's `from_huggingface`
  makes it (the vocabulary with the added tokens' texts), the matcher accepts the ids;
- llama.cpp: the grammar accepts each id with its text (`llama_grammar_accept_token`: a `<[id]>`
  element matches the id, characters match the text); a lazy grammar starts at the first
  trigger, a token trigger by id, a word by its text.
"""
import ctypes
import json
import os

import backends as B

ROOT = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", ".."))
ALL_TOKENIZERS = ("gpt2", "llama", "falcon-7b", "openllama-chinese-english-3b")
# GRAMMAR_TOKENIZERS: names (comma-separated) or "all" (the default); `make test` runs one of
# each decoder family (gpt2: byte-level, llama: byte fallback), `make test-grammar` all four.
_chosen = os.environ.get("GRAMMAR_TOKENIZERS", "all")
TOKENIZERS = [os.path.join(ROOT, "Fixtures", "tokenizers", f"{name}-with-markers.tokenizer.json")
              for name in ALL_TOKENIZERS if _chosen == "all" or name in _chosen.split(",")]


class Vocabulary:
    """One tokenizer.json, as each backend takes it."""

    def __init__(self, path):
        import llguidance
        self.path = path
        self.name = os.path.basename(path).split("-with-markers")[0]
        self.llg = llguidance
        self.tok = llguidance.LLTokenizer(path)
        self.eos = self.tok.eos_token
        with open(path) as f:
            doc = json.load(f)
        self.special = {t["content"]: t["id"] for t in doc["added_tokens"] if t.get("special")}
        self._doc = doc
        self._xgr = None

    def ids(self, data):
        return self.tok.tokenize_bytes(data)

    def piece(self, token):
        return self.tok.decode_bytes([token])

    # -- llguidance ---------------------------------------------------------------------------

    def lark_accepts(self, text, data):
        g = self.llg.grammar_from("lark", text)
        err, msgs = self.llg.LLMatcher.validate_grammar_with_warnings(g, self.tok)
        if err:
            raise B.Refused(msgs[0][:300])
        m = self.llg.LLMatcher(self.tok, g, log_level=0)
        ids = self.ids(data)
        for i, t in enumerate(ids):
            if not m.consume_token(t):
                return False, i
        return bool(m.consume_token(self.eos) and m.is_stopped()), len(ids)

    # -- xgrammar -----------------------------------------------------------------------------

    def _xgrammar(self):
        if self._xgr is None:
            B._stub_heavy_modules()
            import xgrammar
            model = self._doc["model"]
            vocab = dict(model["vocab"])
            for t in self._doc["added_tokens"]:
                vocab[t["content"]] = t["id"]
            n = max(vocab.values()) + 1
            encoded = [""] * n
            for s, i in vocab.items():
                encoded[i] = s
            decoder = json.dumps(self._doc.get("decoder"))
            kind = xgrammar.VocabType.BYTE_LEVEL if "ByteLevel" in decoder else xgrammar.VocabType.BYTE_FALLBACK
            prefix = kind == xgrammar.VocabType.BYTE_FALLBACK and "Prepend" in json.dumps(self._doc.get("normalizer"))
            info = xgrammar.TokenizerInfo(encoded, kind, stop_token_ids=[self.eos], add_prefix_space=prefix)
            self._xgr = (xgrammar, xgrammar.GrammarCompiler(info, cache_enabled=False))
        return self._xgr

    def xgrammar_accepts(self, text, data):
        xgrammar, compiler = self._xgrammar()
        try:
            compiled = compiler.compile_structural_tag(text)
        except Exception as e:  # noqa: BLE001
            raise B.Refused(f"{type(e).__name__}: {str(e).strip()[:300]}")
        m = xgrammar.GrammarMatcher(compiled)
        ids = self.ids(data)
        for i, t in enumerate(ids):
            if not m.accept_token(t):
                return False, i
        return bool(m.accept_token(self.eos) and m.is_terminated()), len(ids)

    # -- llama.cpp ----------------------------------------------------------------------------

    def gbnf_accepts(self, gbnf, text, data):
        lib = gbnf.lib
        lib.tck_gbnf_accept_token.argtypes = [ctypes.c_void_p, ctypes.c_int32, ctypes.c_char_p, ctypes.c_size_t]
        triggers = None
        if text.lstrip().startswith("{"):
            doc = json.loads(text)
            if doc.get("grammar_lazy"):
                triggers = doc["grammar_triggers"]
            text = doc["grammar"]
        g = lib.tck_gbnf_parse(text.encode())
        if not g:
            raise B.Refused("llama.cpp refused the grammar")
        try:
            ids = self.ids(data)
            pieces = [self.piece(t) for t in ids]
            start, skip = 0, 0
            if triggers is not None:
                start, skip = self._lazy_start(ids, pieces, triggers)
                if start is None:
                    return True, len(ids)
            for i in range(start, len(ids)):
                piece = pieces[i][skip:] if i == start else pieces[i]
                if not lib.tck_gbnf_accept_token(g, ids[i], piece, len(piece)):
                    return False, i
            return bool(lib.tck_gbnf_can_end(g)), len(ids)
        finally:
            lib.tck_gbnf_free(g)

    @staticmethod
    def _lazy_start(ids, pieces, triggers):
        """Where llama.cpp starts a lazy grammar: the first token trigger by id, or the first word
        trigger in the text (from inside the token that begins it)."""
        text = b""
        for i, (t, p) in enumerate(zip(ids, pieces)):
            for trig in triggers:
                if trig["type"] == 0 and trig["token"] == t:
                    return i, 0
            before = len(text)
            text += p
            for trig in triggers:
                if trig["type"] == 1:
                    at = text.find(trig["value"].encode())
                    if at >= 0:
                        # The token holding the trigger's first byte.
                        pos = 0
                        for j, q in enumerate(pieces[:i + 1]):
                            if pos + len(q) > at:
                                return j, at - pos
                            pos += len(q)
        return None, 0
