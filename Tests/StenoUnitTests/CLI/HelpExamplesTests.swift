import ArgumentParser
import Testing

@testable import StenoCLI
import FoundationEssentials
import Foundation

/// Every command's help ends with examples, and every example is a command line the parser
/// accepts as written (so a renamed flag cannot leave a stale example behind).
@Suite("help examples")
struct HelpExamplesTests {
    /// The commands a user runs: groups (`steno backend`) stand for their subcommands.
    static let commands: [any ParsableCommand.Type] = Steno.configuration.subcommands.flatMap { command in
        command.configuration.subcommands.isEmpty ? [command] : command.configuration.subcommands
    }

    /// Splits an example as a shell would for these simple lines: single quotes group, `#` ends it.
    static func arguments(of line: String) -> [String] {
        var words: [String] = []
        var current = ""
        var quoted = false
        for character in line {
            if character == "'" { quoted.toggle(); continue }
            if character == "#" && !quoted { break }
            if character == " " && !quoted {
                if !current.isEmpty { words.append(current) }
                current = ""
            } else {
                current.append(character)
            }
        }
        if !current.isEmpty { words.append(current) }
        return words
    }

    @Test("every command has examples that fit 80 columns and parse")
    func examplesParse() throws {
        #expect(Self.commands.count == 23)
        for command in Self.commands {
            let name = command.configuration.commandName ?? "\(command)"
            let discussion = command.configuration.discussion
            let section = try #require(discussion.components(separatedBy: "\nExamples:\n").last, "\(name) has no examples")
            #expect(discussion.contains("\nExamples:\n"), "\(name) has no examples")
            let lines = section.split(separator: "\n").map(String.init)
            #expect(!lines.isEmpty, "\(name)")
            for line in lines {
                #expect(line.count <= 78, "\(name): an example wider than a terminal: \(line)")
                var words = Self.arguments(of: line.trimmingCharacters(in: .whitespaces))
                #expect(words.first == "steno", "\(name): \(line)")
                words.removeFirst()
                do {
                    _ = try Steno.parseAsRoot(words)
                } catch {
                    Issue.record("\(name): `\(line)` does not parse: \(Steno.message(for: error))")
                }
            }
        }
    }
}
