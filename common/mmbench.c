// mmbench: how fast the course's Matrix Market reader (common/mmio.h) reads.
//
// usage: common/mmbench --write ENTRIES FILE   writes a random real general matrix
//                                               (ENTRIES entries, ENTRIES / 10 rows, random order)
//        common/mmbench FILE                    reads FILE with mmRead and prints the time
//
// The written file is the reader's worst case: entries in no order, so the
// counting sort and every row's sort both run. Fixed seed, so the same file.
#define _POSIX_C_SOURCE 199309L  // clock_gettime: wall time, not CPU time
#include <time.h>
#include "mmio.h"

static double seconds(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static unsigned long long xorshift(unsigned long long* s) {
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

int main(int argc, char** argv) {
    if (argc == 4 && strcmp(argv[1], "--write") == 0) {
        long long n = atoll(argv[2]), rows = n / 10 > 0 ? n / 10 : 1;
        unsigned long long state = 88172645463325252ULL;
        FILE* f = fopen(argv[3], "w");
        if (!f || n < 1) {
            fprintf(stderr, "mmbench: cannot write %s entries to %s\n", argv[2], argv[3]);
            return 1;
        }
        fprintf(f, "%%%%MatrixMarket matrix coordinate real general\n%lld %lld %lld\n", rows, rows,
                n);
        for (long long e = 0; e < n; e++) {
            long long i = (long long)(xorshift(&state) % (unsigned long long)rows) + 1;
            long long j = (long long)(xorshift(&state) % (unsigned long long)rows) + 1;
            fprintf(f, "%lld %lld %.6g\n", i, j, (double)(xorshift(&state) >> 40) / 16777216.0);
        }
        return fclose(f) == 0 ? 0 : 1;
    }
    if (argc != 2) {
        fprintf(stderr, "usage: mmbench --write ENTRIES FILE | mmbench FILE\n");
        return 2;
    }
    MmMatrix m;
    double start = seconds();
    if (mmRead(argv[1], &m))
        return 1;
    double took = seconds() - start;
    printf(
        "%s: %d x %d, %lld entries declared, %d stored, %lld duplicates merged, read in %.1f s\n",
        argv[1], m.rows, m.cols, m.declared, m.entries, m.merged, took);
    mmFree(&m);
    return 0;
}
