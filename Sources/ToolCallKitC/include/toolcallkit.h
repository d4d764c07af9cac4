/*
 * toolcallkit.h — the C interface of ToolCallKit (libtoolcallkit.so).
 *
 * ToolCallKit turns the raw output of a language model into typed tool calls while it
 * streams. This header is the whole contract of the shared library: a program written in C,
 * C++, Go (cgo), Rust or Python (ctypes) creates one decoder per generation stream, feeds it
 * the model's output as it arrives, and reads back events as JSON lines, byte for byte the
 * lines that `toolcall decode` writes for the same options and input.
 *
 * The library carries the Swift runtime inside it: it needs only libc, libm, libstdc++,
 * libgcc and libpcre2-8 at run time, no Swift toolchain.
 *
 * ---------------------------------------------------------------------------------------
 * Typical use
 *
 *     char err[256];
 *     tck_decoder *d = tck_decoder_new(cfg, strlen(cfg), err, sizeof err);
 *     if (!d) { fprintf(stderr, "%s\n", err); return 1; }
 *     while ((n = read_some(buf)) > 0) {
 *         if (tck_feed(d, buf, n) < 0) { fprintf(stderr, "%s\n", tck_last_error(d)); break; }
 *         const uint8_t *lines; size_t len;
 *         if (tck_events(d, &lines, &len) > 0) fwrite(lines, 1, len, stdout);
 *     }
 *     tck_finish(d);
 *     ... tck_events once more: the last events, ending with {"type":"end",...} ...
 *     tck_decoder_free(d);
 *
 * ---------------------------------------------------------------------------------------
 * The configuration
 *
 * tck_decoder_new takes a JSON object whose keys are the long option names of
 * `toolcall decode` with `_` for `-`. Unknown keys, a key given twice, wrong types and
 * contradictions are refused (a typo is never silently ignored):
 *
 *   "format"          string, required unless "model" is given: a format's or model
 *                     variant's raw name, as `toolcall formats` lists them (json,
 *                     xml_function, deepseek_v4, ...; the case spelling, such as
 *                     "xmlFunction", is accepted too)
 *   "model"           string: a Hugging Face model folder, meaning what `toolcall decode
 *                     --model` means: the format, in the model variant its chat template
 *                     shows (or the response template of its tokenizer_config.json), is
 *                     inferred from the folder as tck_infer infers it, the decoder takes
 *                     text (tck_feed), and the folder's name is the "model" of OpenAI
 *                     chunks. Its tokenizer.json is read only for token input: with
 *                     "input": "tokens" (read by tck_decoder_new), or, without "input",
 *                     when the decoder's first feed is token ids (read by that
 *                     tck_feed_tokens). Not together with "format".
 *   "tools"           array: the OpenAI-style tools array itself (not a file name); only its
 *                     names are accepted, and text-valued arguments are typed by its schemas
 *   "validate"        bool: check arguments against the tools' schemas (needs "tools")
 *   "whole_calls"     bool: emit a call only once it is accepted, in one piece
 *   "reasoning"       bool: separate reasoning blocks into "reasoning" events
 *   "reasoning_open"  bool: the stream starts inside a reasoning block (implies "reasoning")
 *   "raw"             bool: add the exact input bytes ("raw") to events (only with "events")
 *   "id_seed"         integer >= 0: seed call ids, for reproducible output
 *   "max_call_bytes"  integer >= 1, or "unlimited": reject larger calls as "too_large"
 *                     (default 16 MiB)
 *   "tokenizer"       string: the path of a Hugging Face tokenizer.json; the decoder then
 *                     takes token ids (tck_feed_tokens) instead of bytes
 *   "input"           "text" or "tokens", as `--input`: what the decoder takes. "tokens"
 *                     needs "tokenizer" or "model"; "text" refuses "tokenizer". Left out:
 *                     tokens with "tokenizer", text otherwise (see "model").
 *   "skip_special"    bool: drop special tokens that are not format markers (token input)
 *   "output"          "events" (default), "openai" (chat.completion.chunk lines),
 *                     "responses" (OpenAI Responses API streaming events) or "anthropic"
 *                     (Anthropic Messages API streaming events); one JSON object per line
 *   "tool_choice"     "auto" (default), "required", "none", a tool's name or an OpenAI
 *                     tool_choice object: a call the choice does not allow is rejected
 *                     ("tool_not_chosen"), and a required call missing at the end is a
 *                     "no_tool_call" rejection (docs/grammar.md)
 *   "parallel_tool_calls"  bool (default true): false rejects every call after the first
 *                     accepted one ("parallel_tool_call")
 *
 * A value of null means "not given".
 *
 * A tokenizer.json ("tokenizer", or the model folder's) is read as `toolcall decode` reads
 * it: it must be a regular file (a FIFO or a device such as /dev/zero is refused without
 * a byte read) of at most 512 MiB (a larger file is refused by its size, before it is
 * read), so no file named in a configuration can exhaust the host's memory or block it.
 *
 * ---------------------------------------------------------------------------------------
 * Errors
 *
 * Bad model output is never an error: an unparsable, unfinished, oversized or undeclared
 * call is a {"type":"rejected",...} event, and decoding goes on. The negative TCK_E_* codes
 * report misuse only: a bad configuration, a NULL argument, a token id outside the
 * vocabulary, bytes fed to a token decoder (or the reverse), a feed after tck_finish.
 * After an error code, tck_last_error(d) says what happened, in one line of English.
 * A call that fails changes nothing, except as its own description says (tck_feed_tokens).
 *
 * ---------------------------------------------------------------------------------------
 * Ownership and lifetimes
 *
 * - A tck_decoder belongs to the caller from tck_decoder_new until tck_decoder_free.
 * - Input buffers (config, bytes, ids, dir) are only read during the call; the library
 *   keeps no pointer to them.
 * - The buffer that tck_events or tck_diagnostics hands out belongs to the decoder. It is
 *   valid until the next call on the same decoder (any tck_* function taking it, other than
 *   tck_last_error) and must not be freed or written.
 * - The string tck_last_error returns belongs to the decoder, likewise valid until the next
 *   call on the same decoder.
 *
 * Threading
 *
 * - A decoder is not locked: use each one from one thread at a time (moving it between
 *   threads is fine).
 * - Different decoders may be used from different threads at the same time.
 * - tck_abi_version and tck_infer may be called from any thread at any time.
 * - Tokenizers are loaded once per process and shared: decoders whose "tokenizer" (or
 *   "model" folder, for token input) names the same file share one read-only copy, loaded by
 *   the first of them (others wait for it). The copy is kept until the process ends, so a
 *   changed file is not re-read.
 * - No call blocks on anything but that load, and none calls back into the caller.
 */
#ifndef TOOLCALLKIT_H
#define TOOLCALLKIT_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The ABI version this header describes; compare with tck_abi_version() at run time. */
#define TCK_ABI_VERSION 1u

/* Error codes: every function returning int32_t returns a value >= 0 on success. */
#define TCK_E_ARGUMENT  (-1) /* a NULL pointer where one is required */
#define TCK_E_STATE     (-2) /* feed or finish after tck_finish */
#define TCK_E_TOKEN     (-3) /* a token id outside the tokenizer's vocabulary */
#define TCK_E_INPUT     (-4) /* token ids without a tokenizer, or bytes to a token decoder */
#define TCK_E_IO        (-5) /* a file cannot be read: tck_infer's folder, or (tck_feed_tokens)
                                the model folder's tokenizer.json */

/* One decoder per generation stream; opaque. */
typedef struct tck_decoder tck_decoder;

/* The ABI version of the loaded library (TCK_ABI_VERSION of the header it was built with).
 * A change that breaks existing callers increases it. */
uint32_t tck_abi_version(void);

/* Creates a decoder from a JSON configuration (see "The configuration" above).
 *
 * config_json: the JSON text, len bytes (it need not be NUL-terminated).
 * err, err_cap: where a message goes when the configuration is refused: at most err_cap
 * bytes including the terminating NUL (err may be NULL when err_cap is 0).
 * Returns the decoder, or NULL when the configuration is refused (an invalid tools array or
 * tokenizer file is refused here, before any input). */
tck_decoder *tck_decoder_new(const char *config_json, size_t len, char *err, size_t err_cap);

/* Feeds the next len bytes of the model's output, in any split: even one byte at a time,
 * even inside a UTF-8 sequence. Events these bytes complete are queued (tck_events).
 * Returns the number of event lines queued now (>= 0), or TCK_E_ARGUMENT (NULL d, or NULL
 * bytes with len > 0), TCK_E_STATE (after tck_finish), TCK_E_INPUT (a decoder that takes
 * token ids: configured with "tokenizer" or "input": "tokens", or fed token ids first). */
int32_t tck_feed(tck_decoder *d, const uint8_t *bytes, size_t len);

/* Feeds the next n token ids (needs "tokenizer" or "model" in the configuration); ids
 * detokenize exactly as Hugging Face tokenizers decodes them with skip_special_tokens=False
 * (see "skip_special"), so a token can split a UTF-8 sequence or a marker anywhere.
 * Returns the number of event lines queued now, or an error code as for tck_feed, or
 * TCK_E_TOKEN: an id is outside the vocabulary; the ids before it were consumed (their
 * events are queued), it and the ids after it were not, and the decoder can go on; or
 * TCK_E_IO: this is the first feed of a "model" decoder configured without "input", and the
 * folder's tokenizer.json cannot be loaded (nothing changed: the decoder still takes either). */
int32_t tck_feed_tokens(tck_decoder *d, const uint32_t *ids, size_t n);

/* Ends the stream: flushes held-back text, settles an unfinished call (rejected as
 * "incomplete") and queues the "end" event (in OpenAI output, the last chunk). Call it once.
 * Returns the number of event lines queued now, or TCK_E_ARGUMENT or TCK_E_STATE. */
int32_t tck_finish(tck_decoder *d);

/* Hands out the event lines queued since the last tck_events call, and empties the queue.
 *
 * *lines, *len: set to the lines, each ending with '\n', as one buffer of *len bytes (no
 * NUL). With nothing queued, *len is 0 (and *lines is a valid, empty buffer). The buffer is
 * the decoder's (see "Ownership and lifetimes").
 * Returns the number of lines handed out (>= 0), or TCK_E_ARGUMENT. */
int32_t tck_events(tck_decoder *d, const uint8_t **lines, size_t *len);

/* tck_feed followed by tck_events, in one call (for bindings where a call costs more than
 * the work, such as Python's ctypes): feeds the bytes, then hands out every queued line.
 * Returns the number of lines handed out, or an error code as tck_feed (nothing is handed
 * out then, and *lines and *len are left as they were). */
int32_t tck_feed_events(tck_decoder *d, const uint8_t *bytes, size_t len, const uint8_t **lines, size_t *len_out);

/* With "output": "openai", "responses" or "anthropic", rejections are not among the
 * output lines; `toolcall decode` writes them to standard error as event lines. This hands out those lines, queued since the last call, as
 * tck_events does for the chunks (with "output": "events" there are none: the rejections
 * are among the events). Returns the number of lines, or TCK_E_ARGUMENT. */
int32_t tck_diagnostics(tck_decoder *d, const uint8_t **lines, size_t *len);

/* What went wrong in the last call on d that returned an error code: one NUL-terminated
 * line, "" when none has. Never NULL; for a NULL d, a fixed message. */
const char *tck_last_error(const tck_decoder *d);

/* Frees the decoder and everything it handed out. NULL is a no-op. */
void tck_decoder_free(tck_decoder *d);

/* Infers the tool-call format of a Hugging Face model folder, as `toolcall infer DIR` does.
 *
 * dir: the folder's path, NUL-terminated.
 * out, cap: receives the answer, one JSON line {"format": NAME or null, "evidence": [...]}
 * ("variant": VARIANT after the format when the folder shows a model variant) without a newline, NUL-terminated, truncated to cap bytes (out may be NULL when cap is 0).
 * Returns the size needed for the whole answer including the NUL: when it is larger than
 * cap, call again with a buffer that big. Returns TCK_E_IO when dir is not a readable folder
 * (out then holds the message), or TCK_E_ARGUMENT for a NULL dir. */
int32_t tck_infer(const char *dir, char *out, size_t cap);

/* A constrained-decoding grammar for a format, tools and tool_choice (docs/grammar.md).
 * config (len bytes) is a JSON object: "format", "tools" (an OpenAI tools array),
 * "tool_choice" ("auto", "required", "none", a tool's name or an OpenAI tool_choice object),
 * "parallel_tool_calls", "target" ("xgrammar", "lark" or "gbnf"), "reasoning",
 * "reasoning_open", "tokenizer" (a tokenizer.json: markers that are special tokens are written
 * as tokens). Writes {"grammar": TEXT, "lazy": bool, "triggers": [...], "report": [...]} into
 * out, NUL-terminated; "report" lists the schema keywords the grammar does not enforce.
 * Returns the size needed including the NUL (larger than cap: call again with that much), or
 * TCK_E_ARGUMENT with the message in out. May be called from any thread. */
int32_t tck_grammar(const uint8_t *config, size_t len, char *out, size_t cap);

#ifdef __cplusplus
}
#endif

#endif /* TOOLCALLKIT_H */
