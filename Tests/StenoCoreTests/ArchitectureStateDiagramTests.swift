import Foundation
import StenoCore
import Testing

/// `docs/architecture.md` draws the states of media, chapters, chunks and jobs as mermaid
/// `stateDiagram-v2` blocks, one per enum of `Sources/StenoCore/States`, each marked with a
/// comment line `%% enum: Name`. These tests hold the drawings to the enums: the same states (so a
/// case added to an enum fails here until the diagram shows it), each state on an edge and
/// reachable from `[*]`, a way out of every unfinished state, and no edge out of a finished state
/// (`isFinished`) but the ones `steno retry` makes, labelled exactly `retry`, which lead back to
/// unfinished states. The enums encode no transitions of their own, so the edges themselves are
/// checked against the statements of StenoStore by reading, not here.
@Suite("architecture state diagrams")
struct ArchitectureStateDiagramTests {
    /// An enum's states, as its diagram must show them.
    struct Entity: Sendable, CustomTestStringConvertible {
        var name: String
        var states: Set<String>
        var finished: Set<String>

        var testDescription: String { name }

        init<State: CaseIterable & RawRepresentable>(_ type: State.Type, isFinished: (State) -> Bool) where State.RawValue == String {
            name = String(describing: type)
            states = Set(type.allCases.map { $0.rawValue })
            finished = Set(type.allCases.filter(isFinished).map { $0.rawValue })
        }
    }

    static let entities: [Entity] = [
        Entity(MediaState.self) { $0.isFinished },
        Entity(ChapterState.self) { $0.isFinished },
        Entity(ChunkState.self) { $0.isFinished },
        Entity(JobState.self) { $0.isFinished },
    ]

    /// One transition: `from --> to : label`.
    struct Edge: Sendable, Equatable, CustomStringConvertible {
        var from: String
        var to: String
        var label: String

        var description: String { label.isEmpty ? "\(from) --> \(to)" : "\(from) --> \(to) : \(label)" }
    }

    /// One `stateDiagram-v2` block.
    struct Diagram: Sendable {
        var states: Set<String> = []
        var edges: [Edge] = []
        /// Lines the parser does not know; a diagram must have none, so that no state hides in one.
        var unreadable: [String] = []
    }

    /// The diagrams of the page, by the enum each names, and the problems of the page as a whole.
    struct Page: Sendable {
        var diagrams: [String: Diagram] = [:]
        var problems: [String] = []
    }

    static let start = "[*]"
    static let retryLabel = "retry"
    static let path = "docs/architecture.md"

    /// The package root, from this file's place in it (StenoCoreTests does not depend on
    /// StenoTestSupport, whose `PackageRoot` does the same).
    static let packageRoot: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()  // StenoCoreTests
        .deletingLastPathComponent()  // Tests
        .deletingLastPathComponent()

    static func page() throws -> Page {
        let text = try String(contentsOf: packageRoot.appendingPathComponent(path), encoding: .utf8)
        var page = Page()
        var block: [String]?
        for rawLine in text.split(separator: "\n", omittingEmptySubsequences: false) {
            let line = rawLine.trimmingCharacters(in: .whitespaces)
            if let lines = block {
                if line.hasPrefix("```") {
                    read(lines, into: &page)
                    block = nil
                } else {
                    block = lines + [line]
                }
            } else if line == "```mermaid" {
                block = []
            }
        }
        if block != nil { page.problems.append("a mermaid block is not closed") }
        return page
    }

    /// Reads one mermaid block: state diagrams only, each with its `%% enum:` line.
    static func read(_ lines: [String], into page: inout Page) {
        guard lines.contains(where: { $0.hasPrefix("stateDiagram-v2") }) else { return }
        var name: String?
        var diagram = Diagram()
        for line in lines {
            if line.isEmpty || line.hasPrefix("stateDiagram-v2") || line.hasPrefix("direction ") { continue }
            if line.hasPrefix("%%") {
                let comment = line.dropFirst(2).trimmingCharacters(in: .whitespaces)
                if comment.hasPrefix("enum:") {
                    name = comment.dropFirst("enum:".count).trimmingCharacters(in: .whitespaces)
                }
                continue
            }
            // `from --> to`, or `from --> to : label`; the label is everything after the first colon.
            let colon = line.firstIndex(of: ":")
            let head = colon.map { String(line[..<$0]) } ?? line
            let label = colon.map { line[line.index(after: $0)...].trimmingCharacters(in: .whitespaces) } ?? ""
            let ends = head.components(separatedBy: "-->").map { $0.trimmingCharacters(in: .whitespaces) }
            if ends.count == 2, ends.allSatisfy(isStateName) {
                diagram.edges.append(Edge(from: ends[0], to: ends[1], label: label))
                for end in ends where end != start { diagram.states.insert(end) }
            } else if ends.count == 1, colon != nil, isStateName(ends[0]), ends[0] != start {
                // `name : description` declares a state.
                diagram.states.insert(ends[0])
            } else {
                diagram.unreadable.append(line)
            }
        }
        guard let name else {
            page.problems.append("a stateDiagram-v2 block has no `%% enum: Name` line")
            return
        }
        if page.diagrams[name] != nil { page.problems.append("two diagrams are marked `%% enum: \(name)`") }
        page.diagrams[name] = diagram
    }

    /// A state's name as the diagrams write it: one word, or the start and end `[*]`.
    static func isStateName(_ text: String) -> Bool {
        text == start || (!text.isEmpty && text.allSatisfy { $0.isLetter || $0.isNumber || $0 == "_" })
    }

    static func diagram(of entity: Entity) throws -> Diagram {
        try #require(
            try page().diagrams[entity.name],
            "\(path) has no mermaid stateDiagram-v2 block marked `%% enum: \(entity.name)`")
    }

    @Test("the page has one readable state diagram for each of MediaState, ChapterState, ChunkState and JobState")
    func oneDiagramPerEnum() throws {
        let page = try Self.page()
        #expect(page.problems.isEmpty, "\(Self.path): \(page.problems)")
        #expect(Set(page.diagrams.keys) == Set(Self.entities.map(\.name)), "\(Self.path) draws \(page.diagrams.keys.sorted())")
        for (name, diagram) in page.diagrams {
            #expect(diagram.unreadable.isEmpty, "the \(name) diagram has lines that are not `a --> b : label`: \(diagram.unreadable)")
        }
    }

    @Test("each diagram shows exactly its enum's states", arguments: entities)
    func sameStates(_ entity: Entity) throws {
        let diagram = try Self.diagram(of: entity)
        let missing = entity.states.subtracting(diagram.states).sorted()
        let unknown = diagram.states.subtracting(entity.states).sorted()
        #expect(missing.isEmpty, "\(entity.name) has cases the diagram in \(Self.path) does not show: \(missing)")
        #expect(unknown.isEmpty, "the \(entity.name) diagram in \(Self.path) shows states the enum does not have: \(unknown)")
    }

    @Test("every state is on an edge and can be reached from the start", arguments: entities)
    func everyStateReachable(_ entity: Entity) throws {
        let diagram = try Self.diagram(of: entity)
        let onEdges = Set(diagram.edges.flatMap { [$0.from, $0.to] })
        for state in entity.states.sorted() {
            #expect(onEdges.contains(state), "\(entity.name).\(state) is on no edge of its diagram")
        }
        var reached: Set<String> = [Self.start]
        var frontier = [Self.start]
        while let state = frontier.popLast() {
            for edge in diagram.edges where edge.from == state && !reached.contains(edge.to) {
                reached.insert(edge.to)
                frontier.append(edge.to)
            }
        }
        let unreachable = entity.states.subtracting(reached).sorted()
        #expect(unreachable.isEmpty, "no path from [*] reaches these \(entity.name) states: \(unreachable)")
    }

    @Test("an unfinished state has a way out; a finished one only the edges `steno retry` makes", arguments: entities)
    func finishedStatesLeftOnlyByRetry(_ entity: Entity) throws {
        let diagram = try Self.diagram(of: entity)
        #expect(!entity.finished.isEmpty, "\(entity.name) has no finished state")
        for state in entity.states.sorted() {
            let out = diagram.edges.filter { $0.from == state }
            if entity.finished.contains(state) {
                let other = out.filter { $0.label != Self.retryLabel }
                #expect(other.isEmpty, "\(entity.name).\(state) is finished, yet its diagram leaves it by more than `retry`: \(other)")
            } else {
                #expect(!out.isEmpty, "\(entity.name).\(state) is not finished, yet its diagram has no edge out of it")
            }
        }
        for edge in diagram.edges where edge.label == Self.retryLabel {
            #expect(edge.from != Self.start, "a `retry` edge starts at [*]: \(edge)")
            #expect(
                entity.states.contains(edge.to) && !entity.finished.contains(edge.to),
                "`retry` leads back to an unfinished state, not as \(edge)")
        }
    }
}
