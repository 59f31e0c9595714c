/// A stored failure in words an operator understands.
public enum FailureReason {
    /// "the transcription backend rejected the request: HTTP 415 unsupported format", or whichever
    /// part is known.
    public static func describe(errorClass: String?, message: String?) -> String? {
        let explanation = errorClass.map(FailureClass.explain)
        switch (explanation, message?.isEmpty == false ? message : nil) {
        case let (explanation?, message?): return "\(explanation): \(message)"
        case let (explanation?, nil): return explanation
        case let (nil, message?): return message
        case (nil, nil): return nil
        }
    }
}
