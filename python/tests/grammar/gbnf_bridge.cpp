// A C entry point to llama.cpp's GBNF parser and matcher (src/llama-grammar.cpp), compiled
// without the rest of llama.cpp and without a vocabulary, for ToolCallKit's grammar tests.
// `make grammar-deps` builds it from the llama-cpp-python source package (which vendors
// llama.cpp) into .build/gbnf/.
#include "llama-grammar.h"
#include "llama-impl.h"
#include "llama-vocab.h"

#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstdint>
#include <vector>
#include <algorithm>
#include <stdexcept>
#include <string>

// What llama-grammar.cpp needs from the rest of llama.cpp. Without a vocabulary no token is
// ever looked at, so the vocabulary's methods are never reached.
void llama_log_internal(ggml_log_level level, const char * fmt, ...) {
    if (level != GGML_LOG_LEVEL_ERROR && level != GGML_LOG_LEVEL_WARN) return;
    va_list ap;
    va_start(ap, fmt);
    std::vfprintf(stderr, fmt, ap);
    va_end(ap);
}
extern "C" void ggml_abort(const char * file, int line, const char * fmt, ...) {
    std::fprintf(stderr, "gbnf_bridge: llama.cpp aborted at %s:%d\n", file, line);
    std::abort();
}
int32_t llama_vocab::tokenize(const char *, int32_t, llama_token *, int32_t, bool, bool) const { std::abort(); }
const std::string & llama_vocab::token_to_piece(llama_token) const { std::abort(); }
bool llama_vocab::is_eog(llama_token) const { std::abort(); }

extern "C" {

// A grammar parsed from GBNF text, or NULL (llama.cpp prints why).
void * tck_gbnf_parse(const char * text) {
    return llama_grammar_init_impl(nullptr, text, "root", false, nullptr, 0, nullptr, 0);
}

void tck_gbnf_free(void * g) {
    if (g) llama_grammar_free_impl(static_cast<llama_grammar *>(g));
}

void * tck_gbnf_clone(void * g) {
    return llama_grammar_clone_impl(*static_cast<llama_grammar *>(g));
}

// Feeds one code point. Returns 0 when no parse is left (the code point was refused).
int tck_gbnf_accept(void * g, uint32_t cp) {
    auto * gr = static_cast<llama_grammar *>(g);
    llama_grammar_accept(gr, cp);
    return llama_grammar_get_stacks(gr).empty() ? 0 : 1;
}

// Feeds one token as llama.cpp's sampler does: a token element of the grammar (`<[id]>`)
// matches its id, characters match its text (`piece`, `len` bytes). Returns 0 when no parse is
// left (llama.cpp throws then).
int tck_gbnf_accept_token(void * g, int32_t token, const char * piece, size_t len) {
    auto * gr = static_cast<llama_grammar *>(g);
    try {
        llama_grammar_accept_token(*gr, token, std::string(piece, len));
    } catch (const std::exception &) {
        return 0;
    }
    return llama_grammar_get_stacks(gr).empty() ? 0 : 1;
}

// Whether the grammar may end here (some parse is complete).
int tck_gbnf_can_end(void * g) {
    for (const auto & st : llama_grammar_get_stacks(static_cast<llama_grammar *>(g))) {
        if (st.empty()) return 1;
    }
    return 0;
}

// The code points allowed next, as ranges [lo, hi] written into `out` (2 values each, up to
// `cap` ranges); returns the number of ranges (more than `cap` when they did not fit).
size_t tck_gbnf_allowed(void * g, uint32_t * out, size_t cap) {
    size_t n = 0;
    auto push = [&](uint32_t lo, uint32_t hi) {
        if (n < cap) { out[2 * n] = lo; out[2 * n + 1] = hi; }
        ++n;
    };
    for (const auto & st : llama_grammar_get_stacks(static_cast<llama_grammar *>(g))) {
        if (st.empty()) continue;
        const llama_grammar_element * pos = st.back();
        if (pos->type == LLAMA_GRETYPE_CHAR_ANY) { push(1, 0x10FFFF); continue; }
        bool negated = pos->type == LLAMA_GRETYPE_CHAR_NOT;
        if (pos->type != LLAMA_GRETYPE_CHAR && !negated) continue;
        std::vector<std::pair<uint32_t, uint32_t>> ranges;
        do {
            uint32_t lo = pos->value, hi = lo;
            if (pos[1].type == LLAMA_GRETYPE_CHAR_RNG_UPPER) { hi = pos[1].value; ++pos; }
            ranges.emplace_back(lo, hi);
            ++pos;
        } while (pos->type == LLAMA_GRETYPE_CHAR_ALT);
        if (!negated) {
            for (auto & r : ranges) push(r.first, r.second);
        } else {
            // The complement of the ranges within 1..0x10FFFF.
            std::sort(ranges.begin(), ranges.end());
            uint32_t next = 1;
            for (auto & r : ranges) {
                if (r.first > next) push(next, r.first - 1);
                if (r.second + 1 > next) next = r.second + 1;
            }
            if (next <= 0x10FFFF) push(next, 0x10FFFF);
        }
    }
    return n;
}

}
