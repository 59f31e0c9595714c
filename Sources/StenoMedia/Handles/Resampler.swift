import CFFmpeg

/// Owns a `SwrContext` converting one input shape (rate, sample format, channel layout) to
/// 16 kHz mono signed 16-bit.
final class Resampler {
    let pointer: OpaquePointer
    let inputRate: Int32
    let inputFormat: Int32
    private var inputLayout: AVChannelLayout

    init(matching frame: UnsafePointer<AVFrame>, outputRate: Int32, source: String?) throws(MediaError) {
        var input = AVChannelLayout()
        // Some decoders leave the order unspecified; swresample needs a concrete layout.
        if frame.pointee.ch_layout.order == AV_CHANNEL_ORDER_UNSPEC {
            av_channel_layout_default(&input, frame.pointee.ch_layout.nb_channels)
        } else {
            var frameLayout = frame.pointee.ch_layout
            try FFmpegCall.check(av_channel_layout_copy(&input, &frameLayout), "av_channel_layout_copy", step: .internalSetup, source: source)
        }
        var mono = steno_channel_layout_mono()
        var context: OpaquePointer?
        let allocation = swr_alloc_set_opts2(
            &context, &mono, AV_SAMPLE_FMT_S16, outputRate,
            &input, AVSampleFormat(rawValue: frame.pointee.format), frame.pointee.sample_rate, 0, nil)
        guard allocation >= 0, let context else {
            av_channel_layout_uninit(&input)
            throw FFmpegCall.error(for: allocation < 0 ? allocation : steno_averror(ENOMEM), "swr_alloc_set_opts2", step: .internalSetup, source: source)
        }
        let initialised = swr_init(context)
        if initialised < 0 {
            var failed: OpaquePointer? = context
            swr_free(&failed)
            av_channel_layout_uninit(&input)
            throw FFmpegCall.error(for: initialised, "swr_init", step: .decoding, source: source)
        }
        self.pointer = context
        self.inputRate = frame.pointee.sample_rate
        self.inputFormat = frame.pointee.format
        self.inputLayout = input
    }

    /// Whether `frame` has the shape this resampler was built for; podcasts with inserted ads
    /// change rate or layout mid-file.
    func accepts(_ frame: UnsafePointer<AVFrame>) -> Bool {
        guard frame.pointee.sample_rate == inputRate, frame.pointee.format == inputFormat else { return false }
        var frameLayout = frame.pointee.ch_layout
        if frameLayout.order == AV_CHANNEL_ORDER_UNSPEC {
            return frameLayout.nb_channels == inputLayout.nb_channels
        }
        return av_channel_layout_compare(&frameLayout, &inputLayout) == 0
    }

    deinit {
        var context: OpaquePointer? = pointer
        swr_free(&context)
        av_channel_layout_uninit(&inputLayout)
    }
}
