// ---- begin common/mmio.h ----
// The course's Matrix Market reader, copied verbatim into each lesson; make check compares the
// copy. mmRead() turns a `coordinate` file into 0-based COO triples sorted by (row, column),
// duplicates summed, a symmetric file's entry standing for (i, j) and (j, i). Anything else gets
// one line on stderr, `FILE: line N: what is wrong` (indices 1-based, as in the file), with nothing
// left held. Arrays grow with the entries read, never with the size line's claim: a lying header
// costs nothing.
#include <ctype.h>
#include <errno.h>
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum MmField {
    MM_REAL,
    MM_INTEGER,
    MM_PATTERN
};
enum MmSymmetry {
    MM_GENERAL,
    MM_SYMMETRIC,
    MM_SKEW_SYMMETRIC
};
// One entry in 16 bytes, so that sorting moves one cache line's share, not three.
typedef struct {
    int row, col;  // 0-based
    double val;    // 1.0 in a pattern file
} MmEntry;
typedef struct {
    int rows, cols, entries;  // entries: stored after expansion and merging, sorted by (row, col)
    enum MmField field;
    enum MmSymmetry symmetry;
    long long declared, merged;  // entries on the size line; duplicates summed into an earlier one
    MmEntry* entry;
} MmMatrix;

// Per-row and per-column arrays cost about 8 bytes a row and a column (an int offset and a float of
// x or y); a matrix may take 64 bytes of them per entry, or 256 MiB whatever its entries. Beyond
// that the dimensions are not a sparse matrix's but a typo's.
#define MM_BYTES_PER_DIM 8LL
#define MM_DIM_BYTES_PER_ENTRY 64LL
#define MM_DIM_BYTES_FLOOR (256LL << 20)
#define MM_MAX_LINE (64 << 20)  // a longer line is not a Matrix Market line
// Below 2^128 - 2^103 a value rounds to a finite float (FLT_MAX itself printed with 8 digits is
// above FLT_MAX); at or beyond it, to infinity.
#define MM_FP32_LIMIT 3.4028235677973366e38
#define MM_QUOTE 40  // at most this many characters of a token are quoted back

typedef struct {
    FILE* f;
    const char* path;
    char* buf;
    long cap, start, end;
    long long line;
    int eof;
} MmLines;

static void mmFree(MmMatrix* m) {
    free(m->entry);
    m->entry = NULL;
    m->entries = 0;
}

// A token as a refusal quotes it: at most MM_QUOTE characters, anything unprintable as \xNN, so
// that a 10 MB token or an escape sequence never reaches the terminal whole. Three buffers in turn,
// for a message that quotes up to three tokens.
static const char* mmQuote(const char* s) {
    static char buffers[3][4 * MM_QUOTE + 8];
    static int turn = 0;
    char* out = buffers[turn];
    turn = (turn + 1) % 3;
    int n = 0;
    for (int shown = 0; *s && shown < MM_QUOTE; s++, shown++) {
        const unsigned char c = (unsigned char)*s;
        if (c >= 0x20 && c < 0x7f && c != '\\') {
            out[n++] = (char)c;
        } else {
            n += snprintf(out + n, 5, "\\x%02X", c);
        }
    }
    if (*s) {
        memcpy(out + n, "...", 3);
        n += 3;
    }
    out[n] = '\0';
    return out;
}

static int mmFail(const MmLines* r, const char* fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "%s: line %lld: ", r->path, r->line);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    return 1;
}

// The next line, NUL-terminated, CR and LF stripped; NULL at the end of the file, or with *err set
// after a read error or an overlong line (already reported).
static char* mmNextLine(MmLines* r, int* err) {
    for (;;) {
        char* s = r->buf + r->start;
        char* nl = (char*)memchr(s, '\n', (size_t)(r->end - r->start));
        if (nl || (r->eof && r->end > r->start)) {
            long len = nl ? (long)(nl - s) : r->end - r->start;
            r->start += len + (nl ? 1 : 0);
            if (len > 0 && s[len - 1] == '\r')
                len--;
            r->line++;
            // A NUL would end the line early and a CR inside it hides line ends: refuse both.
            const char* nul = (const char*)memchr(s, '\0', (size_t)len);
            if (nul) {
                *err = mmFail(r, "NUL byte at column %ld", (long)(nul - s) + 1);
                return NULL;
            }
            if (memchr(s, '\r', (size_t)len)) {
                *err = mmFail(
                    r, "a carriage return inside the line: CR-only line ends? (want LF or CRLF)");
                return NULL;
            }
            s[len] = '\0';  // the buffer keeps one spare byte for this
            return s;
        }
        if (r->eof)
            return NULL;
        memmove(r->buf, s, (size_t)(r->end - r->start));
        r->end -= r->start;
        r->start = 0;
        if (r->end + 1 >= r->cap) {
            char* bigger = r->cap < MM_MAX_LINE ? (char*)realloc(r->buf, (size_t)r->cap * 2) : NULL;
            if (!bigger) {
                r->line++;
                *err = mmFail(r, "longer than %d bytes", MM_MAX_LINE);
                return NULL;
            }
            r->buf = bigger;
            r->cap *= 2;
        }
        size_t got = fread(r->buf + r->end, 1, (size_t)(r->cap - 1 - r->end), r->f);
        r->end += (long)got;
        if (got > 0)
            continue;
        if (ferror(r->f)) {
            fprintf(stderr, "%s: cannot read: %s\n", r->path, strerror(errno));
            *err = 1;
            return NULL;
        }
        r->eof = 1;
    }
}

// Splits s in place at blanks; returns the field count (0 for a blank line), keeping up to cap.
static int mmSplit(char* s, char** tok, int cap) {
    int n = 0;
    for (char* t = strtok(s, " \t"); t; t = strtok(NULL, " \t"))
        if (n++ < cap)
            tok[n - 1] = t;
    return n;
}

// The next line that is neither a comment nor blank, split; NULL at the end or after an error.
static char* mmNextData(MmLines* r, int* err, char** tok, int cap, int* n) {
    for (;;) {
        char* s = mmNextLine(r, err);
        if (!s) {
            return NULL;
        }
        if (s[0] == '%') {
            continue;
        }
        *n = mmSplit(s, tok, cap);
        if (*n > 0) {
            return s;
        }
    }
}

// 1 when s is a whole decimal integer; *overflow when it is one too big for long long. Digits by
// hand: strtoll's locale and base handling cost more than the rest of an entry.
static int mmInteger(const char* s, long long* out, int* overflow) {
    const int negative = *s == '-';
    const char *p = s + (*s == '+' || *s == '-'), *digits = p;
    unsigned long long v = 0;
    for (*overflow = 0; *p >= '0' && *p <= '9'; p++) {
        *overflow |= v > (unsigned long long)LLONG_MAX / 10;
        v = v * 10 + (unsigned long long)(*p - '0');
    }
    *overflow |= v > (unsigned long long)LLONG_MAX;
    *out = *overflow ? LLONG_MAX : negative ? -(long long)v : (long long)v;
    return p != digits && *p == '\0';
}

// A decimal of at most 15 digits times a power of ten within 10^22 is two exact doubles and one
// rounding, so it equals strtod's correctly rounded answer (Clinger's fast path); anything else
// goes to strtod itself.
static double mmValue(const char* s, char** end) {
    static const double kPow10[23] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                      1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                      1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
    const char* p = s + (*s == '+' || *s == '-');
    int digits = 0, scale = 0, over;
    long long exponent = 0;
    unsigned long long mantissa =
        0;  // unsigned: 20 digits wrap harmlessly before strtod takes over
    for (; *p >= '0' && *p <= '9'; p++, digits++)
        mantissa = mantissa * 10 + (unsigned long long)(*p - '0');
    if (*p == '.')
        for (p++; *p >= '0' && *p <= '9'; p++, digits++, scale--)
            mantissa = mantissa * 10 + (unsigned long long)(*p - '0');
    if ((*p == 'e' || *p == 'E') && mmInteger(p + 1, &exponent, &over) && !over &&
        llabs(exponent) < 400) {
        scale += (int)exponent;
        p += strlen(p);
    }
    if (digits == 0 || digits > 15 || *p != '\0' || scale < -22 || scale > 22)
        return strtod(s, end);
    *end = (char*)p;
    const double v =
        scale < 0 ? (double)mantissa / kPow10[-scale] : (double)mantissa * kPow10[scale];
    return *s == '-' ? -v : v;
}

static int mmHeader(MmLines* r, MmMatrix* m) {
    static const char* const kFields[] = {"real", "integer", "pattern"};
    static const char* const kSymmetries[] = {"general", "symmetric", "skew-symmetric"};
    int err = 0, n = 0, f = 0, y = 0;
    char *tok[6], *s = mmNextLine(r, &err);
    if (err)
        return 1;
    if (!s) {
        r->line = 1;
        return mmFail(r, "empty file, expected a %%%%MatrixMarket banner");
    }
    if ((unsigned char)s[0] == 0xEF && (unsigned char)s[1] == 0xBB && (unsigned char)s[2] == 0xBF)
        return mmFail(
            r, "a UTF-8 byte-order mark before the %%%%MatrixMarket banner (save without it)");
    n = mmSplit(s, tok, 6);
    for (int i = 0; i < n && i < 5; i++)
        for (char* c = tok[i]; *c; c++)
            *c = (char)tolower((unsigned char)*c);
    if (n == 0 || strcmp(tok[0], "%%matrixmarket") != 0)
        return mmFail(r, "not a Matrix Market file (no %%%%MatrixMarket banner)");
    if (n != 5)
        return mmFail(
            r, "banner must be `%%%%MatrixMarket matrix coordinate FIELD SYMMETRY`, found %d words",
            n);
    if (strcmp(tok[1], "matrix") != 0)
        return mmFail(r, "unsupported object '%s' (want matrix)", mmQuote(tok[1]));
    if (strcmp(tok[2], "coordinate") != 0)
        return mmFail(r, "unsupported format '%s' (want coordinate)", mmQuote(tok[2]));
    while (f < 3 && strcmp(tok[3], kFields[f]) != 0)
        f++;
    while (y < 3 && strcmp(tok[4], kSymmetries[y]) != 0)
        y++;
    if (f == 3)
        return mmFail(r, "unsupported field '%s' (want real, integer or pattern)", mmQuote(tok[3]));
    if (y == 3)
        return mmFail(r, "unsupported symmetry '%s' (want general, symmetric or skew-symmetric)",
                      mmQuote(tok[4]));
    m->field = (enum MmField)f;
    m->symmetry = (enum MmSymmetry)y;
    if (m->field == MM_PATTERN && m->symmetry == MM_SKEW_SYMMETRIC)
        return mmFail(r, "a pattern matrix cannot be skew-symmetric");

    s = mmNextData(r, &err, tok, 6, &n);
    if (!s) {
        if (err)
            return 1;
        r->line++;
        return mmFail(r, "end of file before the size line `ROWS COLS ENTRIES`");
    }
    long long size[3];
    int overflow = 0, over;  // size-line fields too big for long long
    if (n != 3)
        return mmFail(r, "bad size line, want ROWS COLS ENTRIES as integers, found %d fields", n);
    for (int i = 0; i < 3; i++) {
        if (!mmInteger(tok[i], &size[i], &over))
            return mmFail(r, "bad size line: '%s' is not an integer", mmQuote(tok[i]));
        if (size[i] < 0)
            return mmFail(r, "bad size line: '%s' is negative", mmQuote(tok[i]));
        overflow |= over;
    }
    if (overflow || size[0] > INT_MAX || size[1] > INT_MAX || size[2] > INT_MAX)
        return mmFail(r,
                      "sizes %s x %s with %s entries exceed the course's 32-bit indices (each must "
                      "be below 2^31)",
                      tok[0], tok[1], tok[2]);
    if (m->symmetry != MM_GENERAL && size[0] != size[1])
        return mmFail(r, "a %s matrix must be square, not %lld x %lld", kSymmetries[y], size[0],
                      size[1]);
    long long dimBytes = MM_BYTES_PER_DIM * (size[0] + size[1] + 2),
              allowed = MM_DIM_BYTES_PER_ENTRY * size[2];
    if (allowed < MM_DIM_BYTES_FLOOR)
        allowed = MM_DIM_BYTES_FLOOR;
    if (dimBytes > allowed)
        return mmFail(
            r,
            "%lld x %lld for %lld entries would need %lld bytes of per-row and per-column arrays "
            "(at most %lld for this many entries)",
            size[0], size[1], size[2], dimBytes, allowed);
    m->rows = (int)size[0];
    m->cols = (int)size[1];
    m->declared = size[2];
    return 0;
}

// Reads the entries into m->entry (count of them, a symmetric entry and its mirror counted twice).
static int mmEntries(MmLines* r, MmMatrix* m, long long* count) {
    const int want = m->field == MM_PATTERN ? 2 : 3;
    long long cap = 0, seen = 0, ij[2], iv;
    int err = 0, n = 0, over;
    char *tok[4], *end;
    while (mmNextData(r, &err, tok, 4, &n)) {
        if (seen == m->declared) {
            const int looksLikeEntry =
                n == want && mmInteger(tok[0], &ij[0], &over) && mmInteger(tok[1], &ij[1], &over);
            if (looksLikeEntry)
                return mmFail(r, "more entries than the %lld declared", m->declared);
            return mmFail(r, "text after the %lld declared entries: '%s'", m->declared,
                          mmQuote(tok[0]));
        }
        if (n != want)
            return mmFail(
                r,
                want == 2 ? "want ROW COL, found %d fields" : "want ROW COL VALUE, found %d fields",
                n);
        for (int k = 0; k < 2; k++) {
            const char* what = k == 0 ? "row" : "column";
            const long long hi = k == 0 ? m->rows : m->cols;
            if (!mmInteger(tok[k], &ij[k], &over))
                return mmFail(r, "%s index '%s' is not an integer", what, mmQuote(tok[k]));
            if (over || ij[k] < 1 || ij[k] > hi)
                return mmFail(r, "%s index %s outside 1..%lld (indices are 1-based)", what,
                              mmQuote(tok[k]), hi);
        }
        double v = 1.0;
        if (want == 3) {
            if (m->field == MM_INTEGER && !mmInteger(tok[2], &iv, &over))
                return mmFail(r, "value '%s' is not an integer (the field is integer)",
                              mmQuote(tok[2]));
            v = mmValue(tok[2], &end);
            if (end == tok[2] || *end != '\0')
                return mmFail(r, "value '%s' is not a number", mmQuote(tok[2]));
            if (!(fabs(v) < MM_FP32_LIMIT))
                return mmFail(r, "value '%s' is not a finite fp32 number", mmQuote(tok[2]));
        }
        if (m->symmetry == MM_SKEW_SYMMETRIC && ij[0] == ij[1])
            return mmFail(
                r, "diagonal entry (%lld, %lld) in a skew-symmetric file, whose diagonal is zero",
                ij[0], ij[1]);
        const int mirror = m->symmetry != MM_GENERAL && ij[0] != ij[1];
        if (*count + 1 + mirror > INT_MAX)
            return mmFail(r, "more than %d stored entries, beyond the course's 32-bit offsets",
                          INT_MAX);
        if (*count + 2 > cap) {
            const long long bigger = cap ? cap * 2 : 1024;
            MmEntry* grown = (MmEntry*)realloc(m->entry, (size_t)bigger * sizeof(MmEntry));
            if (!grown)
                return mmFail(r, "out of host memory after %lld entries (%lld bytes)", *count,
                              bigger * (long long)sizeof(MmEntry));
            m->entry = grown;
            cap = bigger;
        }
        // A mirror is stored with its column complemented (~col), so that the merge can tell an
        // entry the file holds from one the reader made (mmColumn reads both).
        const MmEntry given = {(int)ij[0] - 1, (int)ij[1] - 1, v};
        const MmEntry made = {given.col, ~given.row, m->symmetry == MM_SKEW_SYMMETRIC ? -v : v};
        m->entry[(*count)++] = given;
        if (mirror)
            m->entry[(*count)++] = made;
        seen++;
    }
    if (err)
        return 1;
    if (seen < m->declared) {
        r->line++;
        return mmFail(r, "end of file after %lld of %lld declared entries", seen, m->declared);
    }
    return 0;
}

static int mmColumn(const MmEntry* e) {
    return e->col < 0 ? ~e->col : e->col;
}

static int mmByColumn(const void* a, const void* b) {
    const int x = mmColumn((const MmEntry*)a), y = mmColumn((const MmEntry*)b);
    return (x > y) - (x < y);
}

// The line of the file that holds entry (row, col), 0-based, read again from the start: only a
// refusal pays for it.
static long long mmLineOf(MmLines* r, int row, int col) {
    int err = 0, n = 0, sizeLine = 1;
    char* tok[2];
    long long ij[2];
    int over;
    rewind(r->f);
    r->start = 0;
    r->end = 0;
    r->eof = 0;
    r->line = 0;
    if (!mmNextLine(r, &err))
        return 0;
    while (mmNextData(r, &err, tok, 2, &n)) {
        if (sizeLine) {
            sizeLine = 0;
            continue;
        }
        if (n >= 2 && mmInteger(tok[0], &ij[0], &over) && mmInteger(tok[1], &ij[1], &over) &&
            ij[0] == row + 1 && ij[1] == col + 1)
            return r->line;
    }
    return 0;
}

// A counting sort by row (skipped when the file is in row order already), then each row sorted by
// column: O(entries + rows) moves and short sorts. Duplicates are then neighbours and are summed.
// Returns 0, 1 when out of memory, 2 after refusing the file: a symmetric file that stores both
// (i, j) and (j, i), or duplicates that sum beyond fp32.
static int mmSortAndMerge(MmLines* r, MmMatrix* m, long long n) {
    long long e = 1, kept = 0;
    while (e < n && m->entry[e - 1].row <= m->entry[e].row)
        e++;
    const int inRowOrder = e >= n;  // as most files are, so no scatter and no second array
    int* rowStart = (int*)calloc((size_t)m->rows + 1, sizeof(int));
    int* next = (int*)malloc(((size_t)m->rows + 1) * sizeof(int));
    MmEntry* sorted = inRowOrder ? NULL : (MmEntry*)malloc((size_t)(n ? n : 1) * sizeof(MmEntry));
    if (!rowStart || !next || (!inRowOrder && !sorted)) {
        free(rowStart);
        free(next);
        free(sorted);
        return 1;
    }
    for (e = 0; e < n; e++)
        rowStart[m->entry[e].row + 1]++;
    for (int i = 0; i < m->rows; i++)
        rowStart[i + 1] += rowStart[i];
    if (!inRowOrder) {
        memcpy(next, rowStart, ((size_t)m->rows + 1) * sizeof(int));
        for (e = 0; e < n; e++)
            sorted[next[m->entry[e].row]++] = m->entry[e];
        free(m->entry);
        m->entry = sorted;
    }
    for (int i = 0; i < m->rows && n > 0; i++) {  // no entries: m->entry may be NULL
        MmEntry* row = m->entry + rowStart[i];
        const int len = rowStart[i + 1] - rowStart[i];
        if (len > 32) {
            qsort(row, (size_t)len, sizeof(MmEntry), mmByColumn);
            continue;
        }
        for (int k = 1; k < len; k++)  // short rows: an insertion sort beats qsort's calls
            for (int j = k; j > 0 && mmColumn(&row[j - 1]) > mmColumn(&row[j]); j--) {
                const MmEntry t = row[j];
                row[j] = row[j - 1];
                row[j - 1] = t;
            }
    }
    free(rowStart);
    free(next);
    int groupGiven = 0, groupMade = 0;  // what the entry being summed was made of
    for (e = 0; e < n; e++) {
        const MmEntry next = m->entry[e];
        const int made = next.col < 0;
        MmEntry* last = kept > 0 ? &m->entry[kept - 1] : NULL;
        if (last && last->row == next.row && last->col == mmColumn(&next)) {
            last->val += next.val;
        } else {
            last = &m->entry[kept++];
            *last = next;
            last->col = mmColumn(&next);
            groupGiven = 0;
            groupMade = 0;
        }
        groupGiven |= !made;
        groupMade |= made;
        if (groupGiven && groupMade) {
            const long long first = mmLineOf(r, last->col, last->row);
            const long long second = mmLineOf(r, last->row, last->col);
            fprintf(stderr,
                    "%s: lines %lld and %lld: entries (%d, %d) and (%d, %d) of a %s file, which "
                    "stores one triangle\n",
                    r->path, first, second, last->col + 1, last->row + 1, last->row + 1,
                    last->col + 1, m->symmetry == MM_SYMMETRIC ? "symmetric" : "skew-symmetric");
            return 2;
        }
        if (!(fabs(last->val) < MM_FP32_LIMIT)) {
            r->line = mmLineOf(r, last->row, last->col);
            mmFail(r, "entry (%d, %d) and its duplicates sum to %g, not a finite fp32 number",
                   last->row + 1, last->col + 1, last->val);
            return 2;
        }
    }
    m->merged = n - kept;
    m->entries = (int)kept;
    return 0;
}

// 0 on success; 1 after printing the one line that says why, with nothing held.
static int mmRead(const char* path, MmMatrix* m) {
    memset(m, 0, sizeof(*m));
    MmLines r = {NULL, path, NULL, 1 << 20, 0, 0, 0, 0};
    long long count = 0;
    r.f = fopen(path, "rb");
    if (!r.f) {
        fprintf(stderr, "%s: cannot open: %s\n", path, strerror(errno));
        return 1;
    }
    r.buf = (char*)malloc((size_t)r.cap);
    if (!r.buf) {
        fprintf(stderr, "%s: out of host memory (%ld bytes for the line buffer)\n", path, r.cap);
        fclose(r.f);
        return 1;
    }
    int failed = mmHeader(&r, m);
    if (!failed)
        failed = mmEntries(&r, m, &count);
    if (!failed) {
        const int merge = mmSortAndMerge(&r, m, count);
        if (merge == 1)
            fprintf(stderr, "%s: out of host memory sorting %lld entries (%lld bytes)\n", path,
                    count, count * (long long)sizeof(MmEntry));
        failed = merge != 0;
    }
    free(r.buf);
    fclose(r.f);
    if (failed)
        mmFree(m);
    return failed;
}
// ---- end common/mmio.h ----
