import Foundation

/// Help paragraphs are written wrapped in the source; the argument parser wraps them again to
/// the terminal's width, so single line breaks are joined first and blank lines kept.
enum HelpText {
    static func reflow(_ text: String) -> String {
        text.components(separatedBy: "\n\n")
            .map { $0.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.joined(separator: " ") }
            .joined(separator: "\n\n")
    }

    /// The reflowed text, then the examples one per line, as typed.
    static func withExamples(_ text: String, examples: [String]) -> String {
        reflow(text) + "\n\nExamples:\n" + examples.map { "  " + $0 }.joined(separator: "\n")
    }
}
