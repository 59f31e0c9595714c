#ifndef STENO_CFFMPEG_SHIM_H
#define STENO_CFFMPEG_SHIM_H
#include <libavformat/avformat.h>
#include <libavcodec/avcodec.h>
#include <libavutil/avutil.h>
#include <libavutil/audio_fifo.h>
#include <libavutil/channel_layout.h>
#include <libavutil/opt.h>
#include <libswresample/swresample.h>

/* Swift does not import function-like macros or compound-literal constants. */
static inline int steno_averror(int posix_errno) { return AVERROR(posix_errno); }
static inline int steno_averror_eof(void) { return AVERROR_EOF; }
static inline int64_t steno_av_nopts_value(void) { return AV_NOPTS_VALUE; }
static inline AVChannelLayout steno_channel_layout_mono(void) {
    AVChannelLayout layout = AV_CHANNEL_LAYOUT_MONO;
    return layout;
}

#endif
