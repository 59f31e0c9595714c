import StenoCore
import Testing

@Suite("media options: one check for the CLI and the API")
struct MediaOptionsTests {
    @Test("each bad setting is named by its field", arguments: [
        (MediaOptions(priority: "urgent"), "priority"),
        (MediaOptions(chapters: "5-3"), "chapters"),
        (MediaOptions(language: "english please"), "language"),
        (MediaOptions(model: "  "), "model"),
        (MediaOptions(prompt: String(repeating: "x", count: 1001)), "prompt"),
        (MediaOptions(prompt: "a\u{7}b"), "prompt"),
        (MediaOptions(webhook: "ftp://hook.example/"), "webhook"),
        (MediaOptions(title: "a\u{0}b"), "title"),
        (MediaOptions(title: String(repeating: "t", count: 501)), "title"),
    ])
    func badSettings(_ options: MediaOptions, _ field: String) {
        #expect(throws: MediaOptions.Problem.self) { _ = try options.validated(source: "/media/a.mp3") }
        do {
            _ = try options.validated(source: "/media/a.mp3")
        } catch {
            #expect(error.field == field)
        }
    }

    @Test("good settings become the media to enqueue, with the tenant and the key")
    func goodSettings() throws {
        let media = try MediaOptions(title: "T", language: "pt-BR", prompt: "  Names.  ", priority: "high", chapters: "1,3-4", webhook: "https://hook.example/x")
            .validated(source: "/media/a.mp3", tenant: "acme", idempotencyKey: "k")
        #expect(media.priority == .high)
        #expect(media.prompt == "Names.")
        #expect(media.tenant == "acme")
        #expect(media.idempotencyKey == "k")
        #expect(media.chapters.storedIndexes == [0, 2, 3])
    }

    @Test("language: a code is given, auto (or none) lets the fleet settle one, multi lets each chunk keep its own")
    func languageModes() throws {
        let given = try MediaOptions(language: "de").validated(source: "/media/a.mp3")
        #expect(given.language == "de" && !given.multilingual)
        for auto in [nil, "auto"] {
            let media = try MediaOptions(language: auto).validated(source: "/media/a.mp3")
            #expect(media.language == nil && !media.multilingual, "\(auto ?? "nil")")
        }
        let multi = try MediaOptions(language: "multi").validated(source: "/media/a.mp3")
        #expect(multi.language == nil && multi.multilingual)
        let translated = try MediaOptions(language: "de", translate: "true").validated(source: "/media/a.mp3")
        #expect(translated.translate && translated.language == "de")
        #expect(try !MediaOptions(translate: "false").validated(source: "/media/a.mp3").translate)
        for bad in [MediaOptions(translate: "yes"), MediaOptions(language: "multi", translate: "true")] {
            #expect {
                _ = try bad.validated(source: "/media/a.mp3")
            } throws: { error in
                (error as? MediaOptions.Problem)?.field == "translate"
            }
        }
        #expect {
            _ = try MediaOptions(language: "klingon").validated(source: "/media/a.mp3")
        } throws: { error in
            (error as? MediaOptions.Problem)?.description == "language must be auto, multi or an ISO 639 code such as en, de or pt-BR, not klingon"
        }
    }

    @Test("tenant names follow the table's rule", arguments: [("acme", true), ("a.b-c_d9", true), ("Acme", false), ("", false), ("-x", false), (String(repeating: "a", count: 64), false)])
    func tenants(_ name: String, _ valid: Bool) {
        #expect(NewMedia.isValidTenant(name) == valid)
    }
}
