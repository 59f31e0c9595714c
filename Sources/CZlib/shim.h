// zlib (Debian's zlib1g-dev): deflate, as Whisper measures a text's compression ratio.
#include <zlib.h>
