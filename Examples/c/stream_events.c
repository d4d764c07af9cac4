/*
 * stream_events — feed a file through libtoolcallkit in small chunks and print the event lines.
 *
 *     stream_events CONFIG_JSON [FILE [CHUNK_BYTES]]
 *
 * CONFIG_JSON is the decoder's configuration, e.g. '{"format":"json","id_seed":42}'. FILE is
 * the model's output (standard input when missing or "-"); it is fed CHUNK_BYTES at a time
 * (default 5), so markers and UTF-8 sequences are cut at arbitrary places, as a network stream
 * cuts them. The output is byte for byte what `toolcall decode` writes for the same options.
 *
 * Build and run from the repository's root, after `make lib` (which writes dist/lib and
 * dist/include); the binary finds the library beside it, in dist/lib:
 *
 *     cc -I dist/include Examples/c/stream_events.c -L dist/lib -ltoolcallkit -Wl,-rpath,'$ORIGIN/lib' -o dist/stream_events
 *     dist/stream_events '{"format":"json","id_seed":42}' Fixtures/demo/stream.txt
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "toolcallkit.h"

/* Writes the queued event lines (and, with OpenAI output, the rejections to stderr). */
static int drain(tck_decoder *d) {
    const uint8_t *lines;
    size_t len;
    if (tck_events(d, &lines, &len) < 0) return -1;
    fwrite(lines, 1, len, stdout);
    if (tck_diagnostics(d, &lines, &len) < 0) return -1;
    fwrite(lines, 1, len, stderr);
    return 0;
}

int main(int argc, char **argv) {
    if (argc < 2 || argc > 4) {
        fprintf(stderr, "usage: %s CONFIG_JSON [FILE [CHUNK_BYTES]]\n", argv[0]);
        return 2;
    }
    if (tck_abi_version() != TCK_ABI_VERSION) {
        fprintf(stderr, "libtoolcallkit ABI %u, header %u\n", tck_abi_version(), TCK_ABI_VERSION);
        return 1;
    }
    FILE *in = stdin;
    if (argc >= 3 && strcmp(argv[2], "-") != 0) {
        in = fopen(argv[2], "rb");
        if (!in) { perror(argv[2]); return 1; }
    }
    size_t chunk = argc == 4 ? (size_t)strtoul(argv[3], NULL, 10) : 5;
    if (chunk == 0) { fprintf(stderr, "CHUNK_BYTES must be at least 1\n"); return 2; }

    char err[512];
    tck_decoder *d = tck_decoder_new(argv[1], strlen(argv[1]), err, sizeof err);
    if (!d) { fprintf(stderr, "config: %s\n", err); return 2; }

    uint8_t *buf = malloc(chunk);
    size_t n;
    int status = 0;
    while ((n = fread(buf, 1, chunk, in)) > 0) {
        if (tck_feed(d, buf, n) < 0 || drain(d) < 0) {
            fprintf(stderr, "tck_feed: %s\n", tck_last_error(d));
            status = 1;
            break;
        }
    }
    if (status == 0 && (tck_finish(d) < 0 || drain(d) < 0)) {
        fprintf(stderr, "tck_finish: %s\n", tck_last_error(d));
        status = 1;
    }
    free(buf);
    tck_decoder_free(d);
    if (in != stdin) fclose(in);
    return status;
}
