// Test-only code, never part of the product: the chaos test builds this into a shared library
// and preloads it (LD_PRELOAD) into the steno-worker processes it starts. It stands in for a
// demuxer bug that a certain file triggers: opening any media whose path names "poison"
// crashes the process with a real bad memory access (SIGSEGV), every time. Every other open
// goes to FFmpeg's own avformat_open_input.
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stddef.h>
#include <string.h>

struct AVFormatContext;
struct AVInputFormat;
struct AVDictionary;

typedef int (*open_input)(struct AVFormatContext **, const char *, const struct AVInputFormat *, struct AVDictionary **);

int avformat_open_input(struct AVFormatContext **context, const char *url, const struct AVInputFormat *format,
                        struct AVDictionary **options) {
    if (url != NULL && strstr(url, "poison") != NULL) {
        volatile int *nowhere = NULL;
        *nowhere = 1;
    }
    open_input real = (open_input)dlsym(RTLD_NEXT, "avformat_open_input");
    return real(context, url, format, options);
}
