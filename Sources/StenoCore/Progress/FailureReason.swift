/// A stored failure in words an operator understands: what happened, then what to do.
///
/// The stored message says what happened ("no audio stream in the file", "HTTP 415: unsupported
/// format"); the class adds only what to do about it. The class's general explanation is shown
/// only when no message was stored: a generic cause in front of a specific message could
/// contradict it (a missing chapter is a media failure, but not an unreadable file).
public enum FailureReason {
    public static func describe(errorClass: String?, message: String?) -> String? {
        let failureClass = errorClass.flatMap(FailureClass.init(rawValue:))
        let message = message?.isEmpty == false ? message : nil
        switch (failureClass, message) {
        case let (failureClass?, message?): return "\(message) (\(failureClass.remedy))"
        case let (failureClass?, nil): return "\(failureClass.explanation) (\(failureClass.remedy))"
        case let (nil, message?): return message
        case (nil, nil): return errorClass
        }
    }
}
