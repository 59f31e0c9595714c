/// The version reported in the User-Agent header.
public enum StenoTranscriptionVersion {
    public static let current = "0.1.0"
}
