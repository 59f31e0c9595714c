public import StenoCore

/// One recognised word with its start and end in seconds: the transcript export's own word type.
public typealias RecognizedWord = Transcript.Word
