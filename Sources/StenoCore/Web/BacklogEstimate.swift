/// When the fleet will have worked off what is waiting, at its recent pace: the audio still to
/// transcribe over the audio transcribed per second of a recent window.
///
/// The window is the last hour, or less when the work it saw began later: a fleet that started
/// five minutes ago is judged by those five minutes, not by an hour that was mostly idle. It is
/// never shorter than a minute, so that one early chunk does not promise a pace.
public struct BacklogEstimate: Sendable, Equatable {
    public static let shortestWindow = 60.0
    public static let longestWindow = 3600.0

    /// Audio seconds of unfinished media not transcribed yet (chunks not done, and the whole of
    /// media not cut into chunks yet).
    public var remainingAudioSeconds: Double
    /// Audio seconds the fleet transcribed within the window.
    public var audioSecondsDone: Double
    /// The window's length in seconds, between `shortestWindow` and `longestWindow`.
    public var windowSeconds: Double

    /// `workingFor`: seconds since the work finished in the last hour began (nil: none finished).
    public init(remainingAudioSeconds: Double, audioSecondsDone: Double, workingFor: Double?) {
        self.remainingAudioSeconds = max(0, remainingAudioSeconds)
        self.audioSecondsDone = max(0, audioSecondsDone)
        windowSeconds = min(Self.longestWindow, max(Self.shortestWindow, workingFor ?? Self.longestWindow))
    }

    /// The same pace applied to another amount of remaining audio (one tenant's share).
    public func with(remainingAudioSeconds: Double) -> BacklogEstimate {
        var estimate = self
        estimate.remainingAudioSeconds = max(0, remainingAudioSeconds)
        return estimate
    }

    public enum ETA: Sendable, Equatable {
        /// Nothing waits.
        case done
        /// In this many seconds at the last hour's pace.
        case seconds(Double)
        /// Work waits, but nothing was transcribed in the last hour to measure a pace by.
        case unknown
    }

    public var eta: ETA {
        guard remainingAudioSeconds > 0 else { return .done }
        guard audioSecondsDone > 0 else { return .unknown }
        return .seconds(remainingAudioSeconds / speed)
    }

    /// Audio seconds transcribed per second of the window (2.0: two hours of audio an hour).
    public var speed: Double { audioSecondsDone / windowSeconds }

    /// "in about 1:20:00", "nothing waits", "no pace yet (nothing finished in the last hour)".
    public var description: String {
        switch eta {
        case .done: "nothing waits"
        case let .seconds(seconds): "in about \(HumanFormat.duration(seconds))"
        case .unknown: "no pace yet: nothing was transcribed in the last hour"
        }
    }
}
