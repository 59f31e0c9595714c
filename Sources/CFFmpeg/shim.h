#ifndef STENO_CFFMPEG_SHIM_H
#define STENO_CFFMPEG_SHIM_H
#include <libavformat/avformat.h>
#include <libavcodec/avcodec.h>
#include <libavutil/avutil.h>
#include <libavutil/audio_fifo.h>
#include <libavutil/channel_layout.h>
#include <libavutil/opt.h>
#include <libswresample/swresample.h>
#include <libavfilter/avfilter.h>
#include <libavfilter/buffersrc.h>
#include <libavfilter/buffersink.h>

/* Swift does not import function-like macros or compound-literal constants. */
static inline int steno_averror(int posix_errno) { return AVERROR(posix_errno); }
static inline int steno_averror_eof(void) { return AVERROR_EOF; }
static inline int64_t steno_av_nopts_value(void) { return AV_NOPTS_VALUE; }
static inline AVChannelLayout steno_channel_layout_mono(void) {
    AVChannelLayout layout = AV_CHANNEL_LAYOUT_MONO;
    return layout;
}

/* FFERRTAG-based error codes are expressions Swift does not import either. */
static inline int steno_averror_invaliddata(void) { return AVERROR_INVALIDDATA; }
static inline int steno_averror_stream_not_found(void) { return AVERROR_STREAM_NOT_FOUND; }
static inline int steno_averror_decoder_not_found(void) { return AVERROR_DECODER_NOT_FOUND; }
static inline int steno_averror_encoder_not_found(void) { return AVERROR_ENCODER_NOT_FOUND; }
static inline int steno_averror_demuxer_not_found(void) { return AVERROR_DEMUXER_NOT_FOUND; }
static inline int steno_averror_protocol_not_found(void) { return AVERROR_PROTOCOL_NOT_FOUND; }
static inline int steno_averror_exit(void) { return AVERROR_EXIT; }
static inline int steno_averror_patchwelcome(void) { return AVERROR_PATCHWELCOME; }
static inline int steno_averror_http_bad_request(void) { return AVERROR_HTTP_BAD_REQUEST; }
static inline int steno_averror_http_unauthorized(void) { return AVERROR_HTTP_UNAUTHORIZED; }
static inline int steno_averror_http_forbidden(void) { return AVERROR_HTTP_FORBIDDEN; }
static inline int steno_averror_http_not_found(void) { return AVERROR_HTTP_NOT_FOUND; }
static inline int steno_averror_http_other_4xx(void) { return AVERROR_HTTP_OTHER_4XX; }
static inline int steno_averror_http_server_error(void) { return AVERROR_HTTP_SERVER_ERROR; }

#endif
