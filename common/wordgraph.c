// Usage: wordgraph --cuda-root DIR --format mtx|labels [-o FILE]
//
// Builds the course's word graph, the real sparse graph of days 37-40, from
// the documentation comments of a fixed list of CUDA Toolkit headers: a vertex
// is a word, an edge joins two words that sit next to each other in a
// documentation comment at least kMinCount times. `--format mtx` writes the
// weighted graph as a Matrix Market file (cuda-words.mtx of days 37, 39, 40);
// `--format labels` writes the words and the unweighted edges
// (word-graph.txt of day 38). The same headers give the same bytes: nothing
// depends on hash order, the time, or where the toolkit is installed.
//
// Build: cc -O2 -std=c99 -Wall -Wextra -Werror -o common/wordgraph common/wordgraph.c
//
// Rules (they are also written into every output file):
//  - Documentation comments are the text inside `/** ... */` and `/*! ... */`
//    blocks and `///` and `//!` line comments. A block opened by `/***` (a
//    banner of stars) or written `/**/` is not one; nor is a line opened by
//    `////`. Consecutive documentation lines, separated only by a line break
//    and spaces or tabs, form one comment. Comment openers inside string and
//    character literals are ignored.
//  - Tokens: ASCII letters are lowercased; a word is a maximal run of [a-z],
//    so any other byte (digit, '_', punctuation, non-ASCII) ends it.
//  - A doxygen command, a '\' or '@' followed by its name, a run of letters,
//    digits and '_' (\param, @brief, \p, \cuda_math_formula), is dropped with
//    its name; the word after it is kept.
//  - Words of 1 letter, and words of more than kMaxWordLength letters, are
//    dropped; a dropped token does not break adjacency.
//  - Two words sit next to each other when they are consecutive in the token
//    stream of one comment; adjacency does not cross a comment boundary or a
//    header boundary. Pairs are undirected; a word next to itself is no edge.
//  - An edge is kept when its pair occurs at least kMinCount times over all
//    headers. The vertices are the words with at least one kept edge, numbered
//    in strcmp order.

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const int kMinCount = 3;  // pairs seen once or twice are mostly accidents of one sentence
static const int kMaxWordLength =
    63;  // English words are far shorter; longer runs are glued identifiers

// The headers, relative to the toolkit root. The runtime API, the driver
// API and their type definitions carry most of the toolkit's prose; the
// profiler's activity records, the math library, half precision and cuBLASLt
// add enough to give about 3,300 words, with "the" next to over 1,000 of
// them. (cusparse.h and cublas_api.h are left out: they have almost no
// documentation comments.) cuda.h is also where CUDA_VERSION is read.
static const char* const kHeaders[] = {
    "include/cuda_runtime_api.h", "include/driver_types.h",   "include/cuda.h",
    "include/cuda_runtime.h",     "include/cupti_activity.h", "include/crt/math_functions.h",
    "include/cuda_fp16.h",        "include/cublasLt.h",
};
static const int kHeaderCount = (int)(sizeof(kHeaders) / sizeof(kHeaders[0]));

// ---------------------------------------------------------------- SHA-256
// FIPS 180-4, written out so the tool needs nothing but the C library.

typedef struct {
    uint32_t state[8];
    uint64_t length;  // bytes hashed so far
    unsigned char block[64];
    size_t used;  // bytes waiting in block
} Sha256;

static const uint32_t kSha256Round[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};

static uint32_t rotr(uint32_t x, int n) {
    return (x >> n) | (x << (32 - n));
}

static void sha256Block(Sha256* h, const unsigned char* p) {
    uint32_t w[64];
    for (int i = 0; i < 16; ++i)
        w[i] = ((uint32_t)p[4 * i] << 24) | ((uint32_t)p[4 * i + 1] << 16) |
               ((uint32_t)p[4 * i + 2] << 8) | (uint32_t)p[4 * i + 3];
    for (int i = 16; i < 64; ++i) {
        uint32_t s0 = rotr(w[i - 15], 7) ^ rotr(w[i - 15], 18) ^ (w[i - 15] >> 3);
        uint32_t s1 = rotr(w[i - 2], 17) ^ rotr(w[i - 2], 19) ^ (w[i - 2] >> 10);
        w[i] = w[i - 16] + s0 + w[i - 7] + s1;
    }
    uint32_t a = h->state[0], b = h->state[1], c = h->state[2], d = h->state[3];
    uint32_t e = h->state[4], f = h->state[5], g = h->state[6], k = h->state[7];
    for (int i = 0; i < 64; ++i) {
        uint32_t t1 = k + (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) + ((e & f) ^ (~e & g)) +
                      kSha256Round[i] + w[i];
        uint32_t t2 = (rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) + ((a & b) ^ (a & c) ^ (b & c));
        k = g;
        g = f;
        f = e;
        e = d + t1;
        d = c;
        c = b;
        b = a;
        a = t1 + t2;
    }
    h->state[0] += a;
    h->state[1] += b;
    h->state[2] += c;
    h->state[3] += d;
    h->state[4] += e;
    h->state[5] += f;
    h->state[6] += g;
    h->state[7] += k;
}

static void sha256Init(Sha256* h) {
    static const uint32_t kInit[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                                      0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
    memcpy(h->state, kInit, sizeof(kInit));
    h->length = 0;
    h->used = 0;
}

static void sha256Update(Sha256* h, const unsigned char* p, size_t n) {
    h->length += n;
    while (n > 0) {
        size_t take = 64 - h->used < n ? 64 - h->used : n;
        memcpy(h->block + h->used, p, take);
        h->used += take;
        p += take;
        n -= take;
        if (h->used == 64) {
            sha256Block(h, h->block);
            h->used = 0;
        }
    }
}

// Writes 64 lowercase hex digits and a NUL into hex.
static void sha256Hex(Sha256* h, char hex[65]) {
    uint64_t bits = h->length * 8;
    unsigned char pad = 0x80;
    sha256Update(h, &pad, 1);
    pad = 0;
    while (h->used != 56)
        sha256Update(h, &pad, 1);
    unsigned char tail[8];
    for (int i = 0; i < 8; ++i)
        tail[i] = (unsigned char)(bits >> (56 - 8 * i));
    sha256Update(h, tail, 8);
    for (int i = 0; i < 8; ++i)
        sprintf(hex + 8 * i, "%08x", (unsigned)h->state[i]);
    hex[64] = '\0';
}

// ---------------------------------------------------------------- words

// Interns words: an open-addressing table of indices into a growing array
// of strings. The table's order never reaches the output; vertices are
// renumbered in strcmp order at the end.
typedef struct {
    char** words;  // words[id], NUL-terminated, owned
    int count;
    int capacity;
    int* slots;        // -1 = empty, else a word id
    size_t slotCount;  // a power of two, kept at least twice count
} Dictionary;

static uint32_t hashWord(const char* s, size_t n) {
    uint32_t h = 2166136261u;  // FNV-1a
    for (size_t i = 0; i < n; ++i)
        h = (h ^ (unsigned char)s[i]) * 16777619u;
    return h;
}

static int dictInit(Dictionary* d) {
    d->count = 0;
    d->capacity = 1024;
    d->slotCount = 4096;
    d->words = (char**)malloc((size_t)d->capacity * sizeof(char*));
    d->slots = (int*)malloc(d->slotCount * sizeof(int));
    if (!d->words || !d->slots)
        return 0;
    for (size_t i = 0; i < d->slotCount; ++i)
        d->slots[i] = -1;
    return 1;
}

static void dictFree(Dictionary* d) {
    if (d->words)
        for (int i = 0; i < d->count; ++i)
            free(d->words[i]);
    free(d->words);
    free(d->slots);
}

// Returns the id of word s[0..n), adding it if new; -1 when out of memory.
static int dictIntern(Dictionary* d, const char* s, size_t n) {
    size_t mask = d->slotCount - 1;
    size_t at = hashWord(s, n) & mask;
    while (d->slots[at] >= 0) {
        const char* w = d->words[d->slots[at]];
        if (strncmp(w, s, n) == 0 && w[n] == '\0')
            return d->slots[at];
        at = (at + 1) & mask;
    }
    if (d->count == d->capacity) {
        char** grown = (char**)realloc(d->words, 2 * (size_t)d->capacity * sizeof(char*));
        if (!grown)
            return -1;
        d->words = grown;
        d->capacity *= 2;
    }
    char* copy = (char*)malloc(n + 1);
    if (!copy)
        return -1;
    memcpy(copy, s, n);
    copy[n] = '\0';
    int id = d->count++;
    d->words[id] = copy;
    d->slots[at] = id;
    if ((size_t)d->count * 2 > d->slotCount) {  // rehash into a table twice the size
        size_t newCount = d->slotCount * 2;
        int* slots = (int*)malloc(newCount * sizeof(int));
        if (!slots)
            return -1;
        for (size_t i = 0; i < newCount; ++i)
            slots[i] = -1;
        for (int w = 0; w < d->count; ++w) {
            size_t p = hashWord(d->words[w], strlen(d->words[w])) & (newCount - 1);
            while (slots[p] >= 0)
                p = (p + 1) & (newCount - 1);
            slots[p] = w;
        }
        free(d->slots);
        d->slots = slots;
        d->slotCount = newCount;
    }
    return id;
}

// Every adjacency seen, as (smaller id << 32) | larger id; sorted and
// counted once all headers are read.
typedef struct {
    uint64_t* pairs;
    size_t count;
    size_t capacity;
} PairList;

static int pairPush(PairList* l, int a, int b) {
    if (l->count == l->capacity) {
        size_t cap = l->capacity ? 2 * l->capacity : 65536;
        uint64_t* grown = (uint64_t*)realloc(l->pairs, cap * sizeof(uint64_t));
        if (!grown)
            return 0;
        l->pairs = grown;
        l->capacity = cap;
    }
    uint64_t lo = (uint64_t)(a < b ? a : b), hi = (uint64_t)(a < b ? b : a);
    l->pairs[l->count++] = (lo << 32) | hi;
    return 1;
}

// ---------------------------------------------------------------- scanner

// A command name is letters, digits and '_': doxygen aliases such as the
// toolkit's \cuda_math_formula are written so.
static int isCommandChar(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

// Tokenizes one documentation comment, text[0..n), adding its adjacencies.
// Returns 0 when out of memory.
static int tokenizeComment(const char* text, size_t n, Dictionary* dict, PairList* pairs) {
    char word[64];
    int previous = -1;  // id of the last kept word of this comment
    size_t i = 0;
    while (i < n) {
        unsigned char c = (unsigned char)text[i];
        if (c == '\\' || c == '@') {  // doxygen command: drop it and its name
            ++i;
            while (i < n && isCommandChar(text[i]))
                ++i;
            continue;
        }
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'))) {
            ++i;
            continue;
        }
        size_t length = 0;
        while (i < n &&
               ((text[i] >= 'a' && text[i] <= 'z') || (text[i] >= 'A' && text[i] <= 'Z'))) {
            if (length < sizeof(word)) {
                char lower = text[i];
                if (lower >= 'A' && lower <= 'Z')
                    lower = (char)(lower - 'A' + 'a');
                word[length] = lower;
            }
            ++length;
            ++i;
        }
        if (length < 2 || length > (size_t)kMaxWordLength)
            continue;
        int id = dictIntern(dict, word, length);
        if (id < 0)
            return 0;
        if (previous >= 0 && previous != id && !pairPush(pairs, previous, id))
            return 0;
        previous = id;
    }
    return 1;
}

// Starts of a documentation line comment: `///` not followed by '/', or `//!`.
static int isDocLine(const char* s, size_t at, size_t n) {
    if (at + 2 >= n || s[at] != '/' || s[at + 1] != '/')
        return 0;
    if (s[at + 2] == '!')
        return 1;
    return s[at + 2] == '/' && !(at + 3 < n && s[at + 3] == '/');
}

// Finds every documentation comment of one header and tokenizes it.
static int scanHeader(const char* s, size_t n, Dictionary* dict, PairList* pairs) {
    size_t i = 0;
    while (i < n) {
        char c = s[i];
        if (c == '"' || c == '\'') {  // skip a literal, so "http://" opens nothing
            ++i;
            while (i < n && s[i] != c && s[i] != '\n')
                i += (s[i] == '\\') ? 2 : 1;
            ++i;
        } else if (c == '/' && i + 1 < n && s[i + 1] == '*') {
            size_t start = i + 2;
            int doc =
                start < n && ((s[start] == '*' &&
                               !(start + 1 < n && (s[start + 1] == '*' || s[start + 1] == '/'))) ||
                              s[start] == '!');
            size_t end = start;
            while (end + 1 < n && !(s[end] == '*' && s[end + 1] == '/'))
                ++end;
            if (end + 1 >= n)
                end = n;  // unterminated: the comment runs to the end of the file
            if (doc && !tokenizeComment(s + start + 1, end - start - 1, dict, pairs))
                return 0;
            i = end + 2;
        } else if (c == '/' && i + 1 < n && s[i + 1] == '/') {
            int doc = isDocLine(s, i, n);
            size_t start = i;
            size_t end = i;
            for (;;) {
                while (end < n && s[end] != '\n')
                    ++end;
                if (!doc)
                    break;
                size_t next = end + 1;  // a following documentation line continues this comment
                while (next < n && (s[next] == ' ' || s[next] == '\t'))
                    ++next;
                if (next < n && isDocLine(s, next, n)) {
                    end = next;
                    continue;
                }
                break;
            }
            if (doc && !tokenizeComment(s + start, end - start, dict, pairs))
                return 0;
            i = end;
        } else {
            ++i;
        }
    }
    return 1;
}

// ---------------------------------------------------------------- graph

typedef struct {
    int u, v;   // vertex numbers, u < v
    int count;  // times the two words sat next to each other
} Edge;

static const char* const* gSortWords;  // qsort has no context argument in C99

static int compareWordIds(const void* a, const void* b) {
    return strcmp(gSortWords[*(const int*)a], gSortWords[*(const int*)b]);
}

static int compareU64(const void* a, const void* b) {
    uint64_t x = *(const uint64_t*)a, y = *(const uint64_t*)b;
    return (x > y) - (x < y);
}

static int compareEdges(const void* a, const void* b) {
    const Edge* x = (const Edge*)a;
    const Edge* y = (const Edge*)b;
    if (x->u != y->u)
        return (x->u > y->u) - (x->u < y->u);
    return (x->v > y->v) - (x->v < y->v);
}

static int fail(const char* message) {
    fprintf(stderr, "wordgraph: %s\n", message);
    return 1;
}

// Writes the provenance block, each line opened by `mark`.
static void writeProvenance(FILE* out, char mark, const char* format, const char* version,
                            char hashes[][65], int vertices, size_t edges) {
    if (strcmp(format, "mtx") == 0) {
        fprintf(
            out,
            "%c The CUDA word graph: vertex = a word of the toolkit's documentation comments,\n",
            mark);
        fprintf(out,
                "%c entry (i, j) = how many times words i and j sit next to each other (>= %d).\n",
                mark, kMinCount);
        fprintf(
            out,
            "%c Lower triangle, 1-based, i > j, sorted by column j then row i. Vertex k is the\n",
            mark);
        fprintf(out,
                "%c k-th word in strcmp order; the words are listed in day38-bfs/word-graph.txt.\n",
                mark);
    } else {
        fprintf(
            out,
            "%c The CUDA word graph: vertex = a word of the toolkit's documentation comments,\n",
            mark);
        fprintf(out, "%c edge = the two words sit next to each other at least %d times.\n", mark,
                kMinCount);
        fprintf(
            out,
            "%c Layout: a line `V E`, V words (vertex 0, 1, ... in strcmp order), then E lines\n",
            mark);
        fprintf(out,
                "%c `u v`, 0-based, u < v, sorted by u then v. Weighted form: cuda-words.mtx.\n",
                mark);
    }
    fprintf(out, "%c regenerate: common/wordgraph --cuda-root $CUDA_ROOT --format %s\n", mark,
            format);
    fprintf(out,
            "%c   built by: cc -O2 -std=c99 -Wall -Wextra -Werror -o common/wordgraph "
            "common/wordgraph.c\n",
            mark);
    fprintf(out, "%c Toolkit: CUDA %s.\n", mark, version);
    fprintf(out, "%c Headers read, relative to the toolkit root, with their sha256:\n", mark);
    for (int h = 0; h < kHeaderCount; ++h)
        fprintf(out, "%c   %s %s\n", mark, kHeaders[h], hashes[h]);
    fprintf(out,
            "%c Comments read: /** ... */ and /*! ... */ blocks (not /*** or /**/), /// and //!\n",
            mark);
    fprintf(out,
            "%c   lines (not ////); consecutive doc lines are one comment; literals are skipped.\n",
            mark);
    fprintf(out,
            "%c Tokens: ASCII letters lowercased; a word is a maximal run of [a-z]; a doxygen\n",
            mark);
    fprintf(out,
            "%c   command (\\ or @ and the run of [A-Za-z0-9_] after it) is dropped; words of\n",
            mark);
    fprintf(out,
            "%c   1 letter or of more than %d letters are dropped; dropped tokens do not break\n",
            mark, kMaxWordLength);
    fprintf(out, "%c   adjacency.\n", mark);
    fprintf(out,
            "%c Adjacent: consecutive words of one comment (never across comments); undirected;\n",
            mark);
    fprintf(out, "%c   a word next to itself is no edge. Threshold: kept when count >= %d.\n", mark,
            kMinCount);
    fprintf(out, "%c Vertices: the words with at least one kept edge. %d vertices, %zu edges.\n",
            mark, vertices, edges);
}

int main(int argc, char** argv) {
    const char* root = NULL;
    const char* format = NULL;
    const char* outPath = NULL;
    for (int a = 1; a < argc; ++a) {
        const char* flag = argv[a];
        if (strcmp(flag, "--cuda-root") != 0 && strcmp(flag, "--format") != 0 &&
            strcmp(flag, "-o") != 0) {
            fprintf(stderr,
                    "wordgraph: flag %s: unknown (usage: wordgraph --cuda-root DIR --format "
                    "mtx|labels [-o FILE])\n",
                    flag);
            return 1;
        }
        if (a + 1 >= argc) {
            fprintf(stderr, "wordgraph: flag %s: missing its value\n", flag);
            return 1;
        }
        const char* value = argv[++a];
        if (strcmp(flag, "--cuda-root") == 0)
            root = value;
        else if (strcmp(flag, "--format") == 0)
            format = value;
        else
            outPath = value;
    }
    if (!root)
        return fail(
            "flag --cuda-root: required (usage: wordgraph --cuda-root DIR --format mtx|labels [-o "
            "FILE])");
    if (!format)
        return fail("flag --format: required (mtx or labels)");
    if (strcmp(format, "mtx") != 0 && strcmp(format, "labels") != 0)
        return fail("flag --format: must be mtx or labels");

    int status = 1;
    Dictionary dict;
    PairList pairs = {NULL, 0, 0};
    char(*hashes)[65] = (char(*)[65])calloc((size_t)kHeaderCount, 65);
    char version[96] = "unknown";
    int* order = NULL;     // vertex number -> word id, strcmp order
    int* vertexOf = NULL;  // word id -> vertex number, -1 when the word has no kept edge
    Edge* edges = NULL;
    size_t edgeCount = 0;
    int vertexCount = 0;
    char* text = NULL;
    char* path = NULL;
    FILE* out = NULL;
    if (!dictInit(&dict) || !hashes) {
        fail("out of memory");
        goto done;
    }

    for (int h = 0; h < kHeaderCount; ++h) {
        free(path);
        path = (char*)malloc(strlen(root) + strlen(kHeaders[h]) + 2);
        if (!path) {
            fail("out of memory");
            goto done;
        }
        sprintf(path, "%s/%s", root, kHeaders[h]);
        FILE* in = fopen(path, "rb");
        if (!in) {
            fprintf(stderr, "wordgraph: %s: cannot open: %s\n", kHeaders[h], strerror(errno));
            goto done;
        }
        size_t size = 0, capacity = 1 << 20;
        free(text);
        text = (char*)malloc(capacity + 1);
        int readError = 0;
        while (text) {
            size += fread(text + size, 1, capacity - size, in);
            if (size < capacity) {
                readError = ferror(in);
                break;
            }
            char* grown = (char*)realloc(text, 2 * capacity + 1);
            if (!grown) {
                free(text);
                text = NULL;
                break;
            }
            text = grown;
            capacity *= 2;
        }
        fclose(in);
        if (!text) {
            fail("out of memory");
            goto done;
        }
        if (readError) {
            fprintf(stderr, "wordgraph: %s: read error\n", kHeaders[h]);
            goto done;
        }
        text[size] = '\0';
        Sha256 sha;
        sha256Init(&sha);
        sha256Update(&sha, (const unsigned char*)text, size);
        sha256Hex(&sha, hashes[h]);
        const char* macro = strstr(text, "#define CUDA_VERSION ");
        if (strcmp(kHeaders[h], "include/cuda.h") == 0 && macro) {
            long v = strtol(macro + strlen("#define CUDA_VERSION "), NULL, 10);
            sprintf(version, "%ld.%ld (CUDA_VERSION %ld in include/cuda.h)", v / 1000,
                    (v % 1000) / 10, v);
        }
        if (!scanHeader(text, size, &dict, &pairs)) {
            fail("out of memory");
            goto done;
        }
    }

    // Count each distinct pair; keep those seen kMinCount times or more.
    qsort(pairs.pairs, pairs.count, sizeof(uint64_t), compareU64);
    vertexOf = (int*)malloc((size_t)(dict.count + 1) * sizeof(int));
    order = (int*)malloc((size_t)(dict.count + 1) * sizeof(int));
    if (!vertexOf || !order) {
        fail("out of memory");
        goto done;
    }
    for (int w = 0; w < dict.count; ++w)
        vertexOf[w] = -1;
    size_t edgeCapacity = 0;
    for (size_t p = 0; p < pairs.count;) {
        size_t q = p;
        while (q < pairs.count && pairs.pairs[q] == pairs.pairs[p])
            ++q;
        if (q - p >= (size_t)kMinCount) {
            if (edgeCount == edgeCapacity) {
                edgeCapacity = edgeCapacity ? 2 * edgeCapacity : 4096;
                Edge* grown = (Edge*)realloc(edges, edgeCapacity * sizeof(Edge));
                if (!grown) {
                    fail("out of memory");
                    goto done;
                }
                edges = grown;
            }
            Edge e;
            e.u = (int)(pairs.pairs[p] >> 32);
            e.v = (int)(pairs.pairs[p] & 0xffffffffu);
            e.count = (int)(q - p);
            edges[edgeCount++] = e;
            vertexOf[e.u] = vertexOf[e.v] = 0;  // marked: has a kept edge
        }
        p = q;
    }

    // Renumber the kept words in strcmp order, then the edges by them.
    for (int w = 0; w < dict.count; ++w)
        if (vertexOf[w] == 0)
            order[vertexCount++] = w;
    gSortWords = (const char* const*)dict.words;
    qsort(order, (size_t)vertexCount, sizeof(int), compareWordIds);
    for (int k = 0; k < vertexCount; ++k)
        vertexOf[order[k]] = k;
    for (size_t e = 0; e < edgeCount; ++e) {
        int a = vertexOf[edges[e].u], b = vertexOf[edges[e].v];
        edges[e].u = a < b ? a : b;
        edges[e].v = a < b ? b : a;
    }
    qsort(edges, edgeCount, sizeof(Edge), compareEdges);

    out = outPath ? fopen(outPath, "wb") : stdout;
    if (!out) {
        fprintf(stderr, "wordgraph: %s: cannot open for writing: %s\n", outPath, strerror(errno));
        goto done;
    }
    if (strcmp(format, "mtx") == 0) {
        fprintf(out, "%%%%MatrixMarket matrix coordinate integer symmetric\n");
        writeProvenance(out, '%', format, version, hashes, vertexCount, edgeCount);
        fprintf(out, "%d %d %zu\n", vertexCount, vertexCount, edgeCount);
        for (size_t e = 0; e < edgeCount; ++e)  // row = larger vertex: lower triangle
            fprintf(out, "%d %d %d\n", edges[e].v + 1, edges[e].u + 1, edges[e].count);
    } else {
        writeProvenance(out, '#', format, version, hashes, vertexCount, edgeCount);
        fprintf(out, "%d %zu\n", vertexCount, edgeCount);
        for (int k = 0; k < vertexCount; ++k)
            fprintf(out, "%s\n", dict.words[order[k]]);
        for (size_t e = 0; e < edgeCount; ++e)
            fprintf(out, "%d %d\n", edges[e].u, edges[e].v);
    }
    {
        int writeFailed = ferror(out);
        if (out != stdout)
            writeFailed |= fclose(out) != 0;
        else
            writeFailed |= fflush(out) != 0;
        out = NULL;
        if (writeFailed) {
            fprintf(stderr, "wordgraph: %s: write error\n", outPath ? outPath : "stdout");
            goto done;
        }
    }
    status = 0;

done:
    if (out && out != stdout)
        fclose(out);
    free(path);
    free(text);
    free(edges);
    free(order);
    free(vertexOf);
    free(hashes);
    free(pairs.pairs);
    dictFree(&dict);
    return status;
}
