/*
 * c_overhead — what the C interface costs per call and per open decoder.
 *
 *   c_overhead feed FILE [CHUNK [ROUNDS]]
 *                                  feeds FILE (agentic text) in CHUNK-byte pieces (default 4),
 *                                  tck_feed + tck_events each time, for 2 s (or ROUNDS passes,
 *                                  for callgrind); prints ns/call
 *   c_overhead idle N              opens N json decoders, feeds nothing, prints the resident
 *                                  memory they add (run under valgrind dhat for exact bytes)
 *
 * Not a test: wall-clock time depends on the machine. Built by `make bench-embedding`.
 */
#define _POSIX_C_SOURCE 199309L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "toolcallkit.h"

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

static long resident_kb(void) {
    FILE *f = fopen("/proc/self/statm", "r");
    long size = 0, resident = 0;
    if (f) {
        if (fscanf(f, "%ld %ld", &size, &resident) != 2) resident = 0;
        fclose(f);
    }
    return resident * 4; /* 4 KiB pages */
}

static const char *config = "{\"format\":\"json\"}";

static int feed(const char *path, size_t chunk, long rounds) {
    FILE *in = fopen(path, "rb");
    if (!in) { perror(path); return 1; }
    static uint8_t data[1 << 22];
    size_t n = fread(data, 1, sizeof data, in);
    fclose(in);
    char err[256];
    long calls = 0, lines = 0;
    size_t bytes = 0;
    double start = now(), elapsed;
    do {
        tck_decoder *d = tck_decoder_new(config, strlen(config), err, sizeof err);
        if (!d) { fprintf(stderr, "%s\n", err); return 1; }
        for (size_t i = 0; i < n; i += chunk) {
            size_t len = i + chunk <= n ? chunk : n - i;
            if (tck_feed(d, data + i, len) < 0) { fprintf(stderr, "%s\n", tck_last_error(d)); return 1; }
            const uint8_t *out;
            size_t out_len;
            lines += tck_events(d, &out, &out_len);
            bytes += out_len;
            calls++;
        }
        tck_finish(d);
        tck_decoder_free(d);
        elapsed = now() - start;
    } while (rounds > 0 ? --rounds > 0 : elapsed < 2.0);
    printf("tck_feed(%zu bytes) + tck_events: %.0f ns per call (%ld calls, %.1f event lines per call, %.1f output bytes per call)\n",
           chunk, elapsed / calls * 1e9, calls, (double)lines / calls, (double)bytes / calls);
    return 0;
}

static int idle(long count) {
    char err[256];
    tck_decoder **all = malloc(sizeof *all * (size_t)(count > 0 ? count : 1));
    /* One decoder first, so one-time set-up (runtime, metadata) is not counted. */
    tck_decoder *first = tck_decoder_new(config, strlen(config), err, sizeof err);
    long before = resident_kb();
    for (long i = 0; i < count; i++) {
        all[i] = tck_decoder_new(config, strlen(config), err, sizeof err);
        if (!all[i]) { fprintf(stderr, "%s\n", err); return 1; }
    }
    long after = resident_kb();
    if (count > 0)
        printf("%ld idle decoders: %ld KiB resident, %.2f KiB each\n", count, after - before,
               (double)(after - before) / count);
    for (long i = 0; i < count; i++) tck_decoder_free(all[i]);
    tck_decoder_free(first);
    free(all);
    return 0;
}

int main(int argc, char **argv) {
    if (argc >= 3 && strcmp(argv[1], "feed") == 0)
        return feed(argv[2], argc >= 4 ? (size_t)strtoul(argv[3], NULL, 10) : 4,
                    argc >= 5 ? strtol(argv[4], NULL, 10) : 0);
    if (argc == 3 && strcmp(argv[1], "idle") == 0) return idle(strtol(argv[2], NULL, 10));
    fprintf(stderr, "usage: %s feed FILE [CHUNK] | idle N\n", argv[0]);
    return 2;
}
