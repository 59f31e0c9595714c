// The models' descriptions are short: swift-service-lifecycle describes each service when it
// builds a group, and a description made by reflection printed every weight (1.4 M floats of
// the speaker encoder, 3-4 s of every worker's start in a debug build).

extension SpeakerEncoderModel: CustomStringConvertible, CustomDebugStringConvertible {
    public var description: String { "SpeakerEncoderModel(CAM++, \(Self.embeddingSize) values)" }
    public var debugDescription: String { description }
}

extension SpeakerEncoder: CustomStringConvertible, CustomDebugStringConvertible {
    public var description: String { "SpeakerEncoder(\(model))" }
    public var debugDescription: String { description }
}

extension SileroModel: CustomStringConvertible, CustomDebugStringConvertible {
    public var description: String { "SileroModel(v6, 16 kHz)" }
    public var debugDescription: String { description }
}
