#!/usr/bin/env python3
"""Writes the small tokenizer fixtures and decodes.json (reference decodes by Hugging Face
`tokenizers`). Run by hand when cases change (`pip install tokenizers`); the Swift tests only
read the files it writes and never run Python.

decodes.json: [{"name", "tokenizer" (file in this folder), "ids", "text" (decode with
skip_special_tokens=False), "text_skip" (the decode without the special tokens that are not
json-format markers, which is what --skip-special keeps)}]
"""
import json, os
import tokenizers
from tokenizers import Tokenizer

HERE = os.path.dirname(os.path.abspath(__file__))
MARKERS = {"<tool_call>", "</tool_call>"}


def bytes_to_unicode():
    bs = list(range(ord("!"), ord("~") + 1)) + list(range(ord("¡"), ord("¬") + 1)) + list(range(ord("®"), ord("ÿ") + 1))
    cs = bs[:]
    n = 0
    for b in range(256):
        if b not in bs:
            bs.append(b)
            cs.append(256 + n)
            n += 1
    return dict(zip(bs, map(chr, cs)))


B2U = bytes_to_unicode()


def bl(s):
    """A byte-level piece for text s."""
    return "".join(B2U[b] for b in s.encode())


def added(i, content, special, normalized=False):
    return {"id": i, "content": content, "single_word": False, "lstrip": False, "rstrip": False,
            "normalized": normalized, "special": special}


def bpe(vocab, unk=None, byte_fallback=False):
    return {"type": "BPE", "dropout": None, "unk_token": unk, "continuing_subword_prefix": None,
            "end_of_word_suffix": None, "fuse_unk": byte_fallback, "byte_fallback": byte_fallback,
            "vocab": vocab, "merges": []}


def tok(model, decoder, added_tokens, normalizer=None, pre=None):
    return {"version": "1.0", "truncation": None, "padding": None, "added_tokens": added_tokens,
            "normalizer": normalizer, "pre_tokenizer": pre, "post_processor": None,
            "decoder": decoder, "model": model}


def write(name, obj):
    with open(os.path.join(HERE, name), "w", encoding="utf-8") as f:
        json.dump(obj, f, ensure_ascii=False, indent=1)
        f.write("\n")


# --- byte-level: ids 0..255 are the bytes themselves, then a few merged pieces and added tokens.
BL_WORDS = ["Hello", " world", "  ", "\n\n", "\t\t", " 你", "好", "👩‍💻"]
bl_vocab = {B2U[b]: b for b in range(256)}
for i, w in enumerate(BL_WORDS):
    bl_vocab[bl(w)] = 256 + i
# tokenizers ignores the ids written for added tokens that are not in the vocabulary and numbers
# them from the vocabulary's size on: keep the file consistent with that (264 = 256 + 8 words).
assert len(bl_vocab) == 264
BL_ADDED = [added(264, "<|endoftext|>", True), added(265, "<tool_call>", True), added(266, "</tool_call>", True),
            added(267, "<|im_end|>", True), added(268, "<note>", False), added(269, "two words", False),
            added(270, "aĠb", False)]
bytelevel = tok(bpe(bl_vocab), {"type": "ByteLevel", "add_prefix_space": True, "trim_offsets": True, "use_regex": True},
                BL_ADDED, pre={"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True, "use_regex": True})
write("bytelevel-tiny.tokenizer.json", bytelevel)

# --- SentencePiece-style: <unk> <s> </s>, <0x00>..<0xFF> at 3..258, pieces, added tokens.
sp_vocab = {"<unk>": 0, "<s>": 1, "</s>": 2}
for b in range(256):
    sp_vocab["<0x%02X>" % b] = 3 + b
SP_PIECES = ["▁", "▁▁", "▁Hello", "▁world", "Hello", "好", "的", ",", ".", "x", "<0xZZ>", "<0x+A>", "<0x0a>", "\t", "▁\"", "{\"", "name", "\":", "▁{}}", "f", "\""]
for i, p in enumerate(SP_PIECES):
    sp_vocab[p] = 259 + i
assert len(sp_vocab) == 280
# normalized added tokens are kept as the normalizer's output: <s> is "▁<s>" (a space in decodes)
SP_ADDED = [added(0, "<unk>", True, True), added(1, "<s>", True, True), added(2, "</s>", True),
            added(280, "<tool_call>", True), added(281, "</tool_call>", True), added(282, "<|eot|>", True),
            added(283, "<note>", False), added(284, "▁sp", False), added(285, "<x y>", False, True)]
llama_decoder = {"type": "Sequence", "decoders": [
    {"type": "Replace", "pattern": {"String": "▁"}, "content": " "}, {"type": "ByteFallback"},
    {"type": "Fuse"}, {"type": "Strip", "content": " ", "start": 1, "stop": 0}]}
sp_norm = {"type": "Sequence", "normalizers": [{"type": "Prepend", "prepend": "▁"},
                                               {"type": "Replace", "pattern": {"String": " "}, "content": "▁"}]}
write("sentencepiece-tiny.tokenizer.json", tok(bpe(sp_vocab, "<unk>", True), llama_decoder, SP_ADDED, normalizer=sp_norm))
gemma_decoder = {"type": "Sequence", "decoders": llama_decoder["decoders"][:3]}
write("sentencepiece-nostrip.tokenizer.json", tok(bpe(sp_vocab, "<unk>", True), gemma_decoder, SP_ADDED, normalizer=sp_norm))
stop_decoder = {"type": "Sequence", "decoders": llama_decoder["decoders"][:3] + [
    {"type": "Strip", "content": " ", "start": 2, "stop": 2}]}
write("sentencepiece-strip2.tokenizer.json", tok(bpe(sp_vocab, "<unk>", True), stop_decoder, SP_ADDED, normalizer=sp_norm))

# --- no decoder: pieces joined by spaces.
wl_vocab = {"[UNK]": 0, "hello": 1, "world": 2, "你好": 3, "<tool_call>": 4}
write("nodecoder-tiny.tokenizer.json", tok({"type": "WordLevel", "vocab": wl_vocab, "unk_token": "[UNK]"}, None,
                                          [added(4, "<tool_call>", True)], pre={"type": "Whitespace"}))

# --- unsupported decoders (never given to Python: only the error is tested).
write("unsupported-wordpiece.tokenizer.json",
      tok({"type": "WordPiece", "vocab": {"[UNK]": 0, "a": 1}, "unk_token": "[UNK]"}, {"type": "WordPiece", "prefix": "##", "cleanup": True}, []))
write("unsupported-regex-replace.tokenizer.json",
      tok(bpe({"a": 0}), {"type": "Sequence", "decoders": [{"type": "Replace", "pattern": {"Regex": "x+"}, "content": " "}]}, []))

# --- the decode cases
cases = []


def case(name, tokfile, ids):
    t = Tokenizer.from_file(os.path.join(HERE, tokfile))
    for a in json.load(open(os.path.join(HERE, tokfile)))["added_tokens"]:
        assert a["normalized"] or t.id_to_token(a["id"]) == a["content"], (tokfile, a)
    specials = {a["id"] for a in json.load(open(os.path.join(HERE, tokfile)))["added_tokens"]
                if a["special"] and a["content"] not in MARKERS}
    text = t.decode(ids, skip_special_tokens=False)
    skip = t.decode([i for i in ids if i not in specials], skip_special_tokens=False)
    cases.append({"name": name, "tokenizer": tokfile, "ids": ids, "text": text, "text_skip": skip})


def raw(s):
    return list(s.encode()) if isinstance(s, str) else list(s)


W = {w: 256 + i for i, w in enumerate(BL_WORDS)}
T = "bytelevel-tiny.tokenizer.json"
case("bl: CJK one byte per token", T, raw("你好，世界"))
case("bl: emoji ZWJ sequence one byte per token", T, raw("👩‍💻 and 🏳️‍🌈"))
case("bl: flag and skin tone", T, raw("🇨🇭👋🏽"))
case("bl: merged pieces and CJK split", T, [W["Hello"], W[" world"], W[" 你"], W["好"], W["👩‍💻"]])
case("bl: leading and repeated spaces", T, [W["  "], W["  "], W["Hello"], 32, 32, W[" world"]])
case("bl: newlines and tabs", T, [W["\n\n"], W["\t\t"], 10, 9, 13, W["Hello"], 10])
case("bl: lone continuation byte", T, raw(b"a\x80b"))
case("bl: truncated lead between words", T, raw(b"Hi\xe4\xbd there"))
case("bl: overlong and surrogate", T, raw(b"\xc0\xaf \xe0\x80\x80 \xed\xa0\x80 \xf4\x90\x80\x80 \xf5\xff"))
case("bl: stream ends inside a character", T, raw(b"ok \xf0\x9f\x98"))
case("bl: marker right after an unfinished character", T, raw(b"x\xe4\xbd") + [265] + raw('{"name": "f", "arguments": {}}') + [266])
case("bl: special tokens as text", T, [264, W["Hello"], 267, 10, 264])
case("bl: non-special added tokens", T, [268, 32, 269, 270, 0xe4, 268, 0xbd, 0xa0])
case("bl: tool call with single-id markers", T, raw("Sure.\n") + [265] + raw('{"name": "get_weather", "arguments": {"city": "Zürich 你好"}}') + [266, 267])
case("bl: tool call split across ids, markers as text", T, raw('<tool_call>{"name": "f", "arguments": {"a": 1}}</tool_call>'))

S = "sentencepiece-tiny.tokenizer.json"
P = {p: 259 + i for i, p in enumerate(SP_PIECES)}
def fb(s):
    return [3 + b for b in (s.encode() if isinstance(s, str) else s)]
for tf in [S, "sentencepiece-nostrip.tokenizer.json", "sentencepiece-strip2.tokenizer.json"]:
    k = tf.split(".")[0]
    case(f"{k}: leading space stripped once", tf, [P["▁Hello"], P["▁world"]])
    case(f"{k}: lone ▁ first, then words", tf, [P["▁"], P["▁Hello"], P["▁▁"], P["▁world"], P["▁"], P["▁"]])
    case(f"{k}: BOS first keeps the space", tf, [1, P["▁Hello"], P["▁world"], 2])
    case(f"{k}: BOS in the middle is a normalized \"▁<s>\"", tf, [P["Hello"], 1, P["Hello"], 2, 1])
    case(f"{k}: normalized added token with a space", tf, [285, P["x"], 285])
    case(f"{k}: byte-fallback CJK run", tf, [P["▁Hello"], P["▁"]] + fb("你好世界") + [P["."]])
    case(f"{k}: byte-fallback run with an invalid byte", tf, [P["▁Hello"]] + fb(b"\xe4\xbd\xa0\x80") + [P["x"]])
    case(f"{k}: byte-fallback run cut by a marker", tf, fb(b"\xe4\xbd") + [280, P["{\""], P["name"], P["\":"], P["▁\""], P["f"], P["\""], P["▁{}}"], 281])
    case(f"{k}: byte-fallback space first", tf, fb(" ") + [P["▁Hello"]])
    case(f"{k}: byte-fallback newline and tab", tf, [P["Hello"]] + fb("\n\t") + [P["\t"], P["▁world"]] + fb("\n"))
    case(f"{k}: run ends the stream truncated", tf, [P["▁Hello"], P["▁"]] + fb(b"\xf0\x9f\x98"))
    case(f"{k}: emoji ZWJ by bytes", tf, fb("👩‍💻") + [P["▁"], P["好"], P["的"]])
    case(f"{k}: byte lookalikes", tf, [P["<0xZZ>"], P["<0x+A>"], P["<0x0a>"], P["x"]])
    case(f"{k}: added tokens", tf, [284, P["▁Hello"], 283, 282, P["▁"], P["▁"]])
    case(f"{k}: trailing spaces", tf, [P["▁Hello"], P["▁▁"], P["▁"]])
    if "strip2" not in tf:  # tokenizers panics when start and stop overlap (strip.rs slice)
        case(f"{k}: only spaces", tf, [P["▁"], P["▁"]])
        case(f"{k}: empty", tf, [])
    case(f"{k}: marker first", tf, [280, P["▁{}}"], 281, P["▁"]])

N = "nodecoder-tiny.tokenizer.json"
case("nodecoder: joined by spaces", N, [1, 2, 3, 4, 1])

G = "gpt2-with-markers.tokenizer.json"
g = Tokenizer.from_file(os.path.join(HERE, G))
enc = lambda s: g.encode(s).ids
case("gpt2: CJK", G, enc("好的，我来查一下苏黎世的天气。"))
case("gpt2: emoji ZWJ, flags, skin tones", G, enc("Team: 👩‍👩‍👧‍👦 🏳️‍🌈 🇯🇵 👍🏿!"))
case("gpt2: spaces, newlines, tabs", G, enc("  two\n\n\tthree   spaces \r\n"))
case("gpt2: marker after a cut character", G, enc("好")[:1] + [50257] + enc('{"name": "f", "arguments": {}}') + [50258, 50256])
case("gpt2: endoftext first and last", G, [50256] + enc("Hi there") + [50256])

L = "llama-with-markers.tokenizer.json"
l = Tokenizer.from_file(os.path.join(HERE, L))
lenc = lambda s: l.encode(s, add_special_tokens=False).ids
case("llama: CJK with byte fallback", L, lenc("苏黎世的天气"))
case("llama: emoji ZWJ", L, lenc("Hi 👩‍💻 and 🏳️‍🌈"))
case("llama: leading and repeated spaces", L, lenc("   three  two \t tab\nnl"))
case("llama: BOS first", L, [1] + lenc("Hello world") + [2])
case("llama: BOS and EOS in the middle", L, lenc("Hello") + [1, 2] + lenc("world") + [0])
case("llama: marker after an unfinished byte run", L, lenc("苏")[:2] + [32000] + lenc('{"name": "f", "arguments": {}}') + [32001, 2])
case("llama: invalid byte run", L, [l.token_to_id("<0x80>"), l.token_to_id("<0xE4>")] + lenc("there"))

write("decodes.json", {"generated_with": "tokenizers " + tokenizers.__version__, "markers": sorted(MARKERS), "cases": cases})
print(len(cases), "cases")
