import ArgumentParser
import Foundation
import StenoCore
import StenoPostgres
import StenoStore

extension Steno {
    struct Speakers: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List a media's speakers, name them, or print who spoke when.",
            discussion: HelpText.withExamples("""
                Speakers are told apart offline as each chapter is merged, and keep their numbers
                for the whole media. A name given here is kept as a voice profile of the media's
                tenant: the tenant's later media recognise the voice and show the name, with the
                match's similarity (`steno speakers unname` undoes it for one media).

                \(StenoExitCode.help)
                """, examples: [
                "steno speakers 12                          # number, name, talk time",
                "steno speakers rename 12 2 'Ada Lovelace'",
                "steno speakers 12 --rttm                   # speaker turns for scoring",
            ]),
            subcommands: [List.self, Rename.self, Unname.self],
            defaultSubcommand: List.self)

        struct List: AsyncParsableCommand {
            static let configuration = CommandConfiguration(
                commandName: "list",
                abstract: "List the media's speakers and their talk time.",
                discussion: HelpText.withExamples("""
                    A name came from `steno speakers rename`, or from one of the tenant's voice
                    profiles (MATCH shows the similarity: 1 is the same voice).

                    \(StenoExitCode.help)
                    """, examples: [
                    "steno speakers list 12",
                    "steno speakers 12 --rttm          # who spoke when, as RTTM lines",
                    "steno speakers 12 --json",
                ]))

            @OptionGroup var database: DatabaseOptions

            @Argument(help: ArgumentHelp("A media id.", valueName: "media"))
            var media: Int64

            @Flag(help: "Print the speaker turns as RTTM lines (start, duration, speaker) instead.")
            var rttm = false

            @Flag(help: "Print JSON for scripts.")
            var json = false

            func validate() throws {
                try MediaIDs.validate([media])
            }

            func run() async throws {
                try await CLIFailure.reporting {
                    if rttm {
                        let turns = try await database.withAdminStore { try await $0.speakerTurns(mediaID: media) }
                        for turn in turns {
                            print(String(format: "SPEAKER media-%lld 1 %.3f %.3f <NA> <NA> speaker-%d <NA> <NA>", media, turn.start, turn.end - turn.start, turn.speaker))
                        }
                        return
                    }
                    let speakers = try await database.withAdminStore { try await $0.speakers(mediaID: media) }
                    if json {
                        try JSONOutput.print(speakers)
                        return
                    }
                    guard !speakers.isEmpty else {
                        print("media \(media) has no speakers yet: they are told apart as its chapters finish.")
                        return
                    }
                    var table = TextTable(["SPEAKER", "NAME", "TALK", "MATCH"], rightAligned: [0, 2])
                    for speaker in speakers {
                        table.add([
                            "\(speaker.number)", speaker.label, Self.clock(speaker.talkSeconds),
                            speaker.similarity.map { String(format: "profile, similarity %.2f", $0) } ?? (speaker.name == nil ? "" : "named"),
                        ])
                    }
                    print(table.render(), terminator: "")
                }
            }

            static func clock(_ seconds: Double) -> String {
                let whole = Int(seconds.rounded())
                return whole >= 3600
                    ? String(format: "%d:%02d:%02d", whole / 3600, whole / 60 % 60, whole % 60) : String(format: "%d:%02d", whole / 60, whole % 60)
            }
        }

        struct Rename: AsyncParsableCommand {
            static let configuration = CommandConfiguration(
                abstract: "Name a speaker; the name becomes a voice profile of the media's tenant.",
                discussion: HelpText.withExamples("""
                    The speaker is shown by the name in every export and in the web view. The voice
                    is kept as the tenant's profile of that name: the tenant's later media name it
                    by themselves. A name given again to another voice adds that voice to the profile;
                    a speaker given another name leaves the profile of its old one.

                    \(StenoExitCode.help)
                    """, examples: [
                    "steno speakers rename 12 2 'Ada Lovelace'",
                ]))

            @OptionGroup var database: DatabaseOptions

            @Argument(help: ArgumentHelp("A media id.", valueName: "media"))
            var media: Int64

            @Argument(help: ArgumentHelp("The speaker's number, as `steno speakers` lists it.", valueName: "speaker"))
            var speaker: Int

            @Argument(help: ArgumentHelp("The name to show.", valueName: "name"))
            var name: String

            func validate() throws {
                try MediaIDs.validate([media])
                guard speaker >= 1 else { throw ValidationError("a speaker's number is 1 or more, as `steno speakers \(media)` lists it") }
            }

            func run() async throws {
                try await CLIFailure.reporting {
                    let renamed = try await database.withAdminStore { try await $0.renameSpeaker(mediaID: media, number: speaker, name: name) }
                    print("media \(media): speaker \(renamed.number) is now \(renamed.label); the tenant's later media will recognise the voice.")
                }
            }
        }

        struct Unname: AsyncParsableCommand {
            static let configuration = CommandConfiguration(
                abstract: "Take a speaker's name away (a wrong profile match, say): it is \"Speaker N\" again.",
                discussion: HelpText.withExamples("""
                    No profile names that speaker of this media again; the tenant's profiles stay.

                    \(StenoExitCode.help)
                    """, examples: [
                    "steno speakers unname 12 2",
                ]))

            @OptionGroup var database: DatabaseOptions

            @Argument(help: ArgumentHelp("A media id.", valueName: "media"))
            var media: Int64

            @Argument(help: ArgumentHelp("The speaker's number.", valueName: "speaker"))
            var speaker: Int

            func validate() throws {
                try MediaIDs.validate([media])
            }

            func run() async throws {
                try await CLIFailure.reporting {
                    try await database.withAdminStore { try await $0.unnameSpeaker(mediaID: media, number: speaker) }
                    print("media \(media): speaker \(speaker) is \(Transcript.Speaker.defaultName(speaker)) again.")
                }
            }
        }
    }
}
