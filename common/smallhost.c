/* smallhost: a preloaded shim that makes this machine look small, so that
 * make check can see each lesson's host-memory refusal without a small machine.
 *
 * usage: cc -O2 -shared -fPIC -o smallhost.so common/smallhost.c -ldl
 *        LD_PRELOAD=./smallhost.so ./PROGRAM ARGS...
 *
 * Each lesson asks sysconf(_SC_PHYS_PAGES) how much memory the machine has
 * before it builds anything that grows with the input. This shim answers
 * kSmallHostBytes (256 MiB) for that one question and passes every other
 * name through, so a valid input that needs more is refused in one line,
 * with the bytes, before any large allocation.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <unistd.h>

static const long kSmallHostBytes = 256L << 20;

long sysconf(int name) {
    static long (*real)(int) = NULL;
    if (real == NULL)
        real = (long (*)(int))dlsym(RTLD_NEXT, "sysconf");
    if (name == _SC_PHYS_PAGES)
        return kSmallHostBytes / real(_SC_PAGE_SIZE);
    return real(name);
}
