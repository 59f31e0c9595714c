/// The container of an encoded chunk. Backends guess the decoder from the file name's extension,
/// so the multipart `file` part is always named `audio.<extension>` with the matching type.
public enum AudioFormat: String, Sendable, CaseIterable {
    case flac, ogg, wav, mp3, m4a, webm, mp4, mpeg, mpga

    public var fileExtension: String { rawValue }

    public var mimeType: String {
        switch self {
        case .flac: "audio/flac"
        case .ogg: "audio/ogg"
        case .wav: "audio/wav"
        case .mp3, .mpeg, .mpga: "audio/mpeg"
        case .m4a, .mp4: "audio/mp4"
        case .webm: "audio/webm"
        }
    }

    public var fileName: String { "audio.\(fileExtension)" }
}
