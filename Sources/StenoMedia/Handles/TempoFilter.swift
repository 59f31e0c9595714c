import CFFmpeg

/// Speeds 16 kHz mono s16 audio up (or slows it down) without changing its pitch: FFmpeg's
/// `atempo` filter (WSOLA), in a filter graph this class owns and frees in `deinit`.
///
/// Samples go in through `process` in blocks of any size; what the filter has ready comes out
/// at once, the rest at `finish`.
final class TempoFilter {
    private let graph: UnsafeMutablePointer<AVFilterGraph>
    private let source: UnsafeMutablePointer<AVFilterContext>
    private let sink: UnsafeMutablePointer<AVFilterContext>
    private let input: Frame
    private let output: Frame
    private var nextPresentation: Int64 = 0

    /// atempo's range in FFmpeg 5.1.
    static let range = 0.5...100.0

    init(tempo: Double) throws(MediaError) {
        guard Self.range.contains(tempo) else {
            throw MediaError(.invalidRange, "a speed-up of \(tempo) is outside atempo's \(Self.range.lowerBound)-\(Self.range.upperBound)")
        }
        guard let graph = avfilter_graph_alloc() else {
            throw MediaError(.internalFailure, "out of memory allocating a filter graph", ffmpegCall: "avfilter_graph_alloc")
        }
        self.graph = graph
        // Until every stored property is set, a throw does not run deinit: each failure below
        // frees the graph itself.
        func filter(_ name: String, _ label: String, _ arguments: String?) throws(MediaError) -> UnsafeMutablePointer<AVFilterContext> {
            guard let definition = avfilter_get_by_name(name) else {
                avfilter_graph_free_pointer(graph)
                throw MediaError(.internalFailure, "this FFmpeg build has no \(name) filter", ffmpegCall: "avfilter_get_by_name")
            }
            var context: UnsafeMutablePointer<AVFilterContext>?
            let code = avfilter_graph_create_filter(&context, definition, label, arguments, nil, graph)
            guard code >= 0, let context else {
                avfilter_graph_free_pointer(graph)
                throw FFmpegCall.error(for: code, "avfilter_graph_create_filter(\(name))", step: .internalSetup, source: nil)
            }
            return context
        }
        let source = try filter("abuffer", "in", "sample_rate=16000:sample_fmt=s16:channel_layout=mono:time_base=1/16000")
        let tempoFilter = try filter("atempo", "tempo", "tempo=\(tempo)")
        let format = try filter("aformat", "format", "sample_fmts=s16:sample_rates=16000:channel_layouts=mono")
        let sink = try filter("abuffersink", "out", nil)
        for (from, to) in [(source, tempoFilter), (tempoFilter, format), (format, sink)] {
            let code = avfilter_link(from, 0, to, 0)
            if code < 0 {
                avfilter_graph_free_pointer(graph)
                throw FFmpegCall.error(for: code, "avfilter_link", step: .internalSetup, source: nil)
            }
        }
        let configured = avfilter_graph_config(graph, nil)
        if configured < 0 {
            avfilter_graph_free_pointer(graph)
            throw FFmpegCall.error(for: configured, "avfilter_graph_config", step: .internalSetup, source: nil)
        }
        self.source = source
        self.sink = sink
        do throws(MediaError) {
            input = try Frame()
            output = try Frame()
        } catch {
            avfilter_graph_free_pointer(graph)
            throw error
        }
    }

    deinit {
        avfilter_graph_free_pointer(graph)
    }

    /// Feeds `samples` and hands each block the filter has ready to `deliver`.
    func process(_ samples: UnsafeBufferPointer<Int16>, deliver: (UnsafeBufferPointer<Int16>) throws(MediaError) -> Void) throws(MediaError) {
        guard !samples.isEmpty else { return }
        let frame = input.pointer
        input.unref()
        frame.pointee.nb_samples = Int32(samples.count)
        frame.pointee.format = AV_SAMPLE_FMT_S16.rawValue
        frame.pointee.sample_rate = 16_000
        frame.pointee.ch_layout = steno_channel_layout_mono()
        frame.pointee.pts = nextPresentation
        nextPresentation += Int64(samples.count)
        try FFmpegCall.check(av_frame_get_buffer(frame, 0), "av_frame_get_buffer", step: .encoding, source: nil)
        frame.pointee.data.0!.withMemoryRebound(to: Int16.self, capacity: samples.count) { destination in
            _ = UnsafeMutableBufferPointer(start: destination, count: samples.count).initialize(from: samples)
        }
        try FFmpegCall.check(av_buffersrc_add_frame(source, frame), "av_buffersrc_add_frame", step: .encoding, source: nil)
        try drain(deliver)
    }

    /// Flushes the filter and hands the last samples to `deliver`.
    func finish(deliver: (UnsafeBufferPointer<Int16>) throws(MediaError) -> Void) throws(MediaError) {
        try FFmpegCall.check(av_buffersrc_add_frame(source, nil), "av_buffersrc_add_frame(flush)", step: .encoding, source: nil)
        try drain(deliver)
    }

    private func drain(_ deliver: (UnsafeBufferPointer<Int16>) throws(MediaError) -> Void) throws(MediaError) {
        while true {
            output.unref()
            let code = av_buffersink_get_frame(sink, output.pointer)
            if code == steno_averror(EAGAIN) || code == steno_averror_eof() { return }
            try FFmpegCall.check(code, "av_buffersink_get_frame", step: .encoding, source: nil)
            let count = Int(output.pointer.pointee.nb_samples)
            guard count > 0, let data = output.pointer.pointee.data.0 else { continue }
            try data.withMemoryRebound(to: Int16.self, capacity: count) { samples throws(MediaError) in
                try deliver(UnsafeBufferPointer(start: samples, count: count))
            }
        }
    }
}

/// `avfilter_graph_free` takes the address of the pointer it clears.
private func avfilter_graph_free_pointer(_ graph: UnsafeMutablePointer<AVFilterGraph>) {
    var pointer: UnsafeMutablePointer<AVFilterGraph>? = graph
    avfilter_graph_free(&pointer)
}
