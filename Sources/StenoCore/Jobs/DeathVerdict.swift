/// What becomes of a job whose worker's process died while running it: blamed only on
/// evidence (docs/architecture.md, "Deaths and blame").
///
/// Two kinds of evidence count against a job. A crash of the process (`WorkerExit.isCrash`)
/// is evidence by itself: the job runs alone from then on, and fails at the crash budget.
/// Any other death (a kill from outside, or a death nobody saw) is evidence only beyond
/// chance: in a fleet where workers die often, a long job is simply there when it happens.
/// Its deaths are compared with what the fleet's death rate predicts for the time it ran;
/// blame also weighs how many jobs ran, since among many some are unlucky.
public enum DeathVerdict: Sendable, Equatable {
    /// Innocent as far as anyone can tell: queued again at once, the attempt given back.
    case requeue
    /// Suspected: queued again to run alone (nothing beside it on its worker), after `after`.
    case quarantine(after: Duration, reason: String)
    /// Blamed on evidence: failed for good.
    case fail(reason: String)

    /// Below this chance, deaths with no crash make a job suspected (quarantined).
    public static let suspectBelow = 0.01
    /// Below this chance that any of the window's jobs would die so often (`DeathRecord.fleetChance`),
    /// such deaths are blamed on the job: with the crashes, they count towards the budget. So an
    /// innocent job is blamed in at most about one window (an hour of the fleet) in a thousand,
    /// however many jobs ran in it; a job that kills its worker needs more deaths to be blamed
    /// where workers die often and many jobs run, and fewer where they rarely do.
    public static let blameBelow = 0.001
    public static func judge(_ record: DeathRecord, policy: RescuePolicy) -> DeathVerdict {
        let crashes = record.crashes
        // A chunk that can still be cut and never crashed its worker runs again at once: after
        // its second death it is cut in two (`RescuePolicy.splitsDyingChunk`), so the work at
        // risk shrinks instead of waiting out a quarantine and running alone, and an innocent
        // chunk on a fleet whose workers are killed back to back is never blamed.
        if crashes.isEmpty && record.canShrink { return .requeue }
        let others = record.otherDeaths
        let chance = record.chance
        let blamedOthers = others >= 2 && record.fleetChance < blameBelow ? others : 0
        if crashes.count + blamedOthers >= policy.crashBudget {
            return .fail(reason: "\(evidence(record, crashes: crashes, chance: chance)): it is what kills the worker; see the worker's log, then `steno retry` runs it again")
        }
        let suspectedOthers = others >= RescuePolicy.aloneAfter && chance < suspectBelow ? others : 0
        let suspicions = crashes.count + suspectedOthers
        guard suspicions > 0 else { return .requeue }
        // The wait grows with the deaths that suspect the job, not with every death: a job that
        // was killed from outside often and then ran beside a crash waits a second, not a minute.
        let wait = min(.seconds(1) * (1 << min(suspicions - 1, 10)), policy.longestQuarantineWait)
        return .quarantine(
            after: wait,
            reason: "quarantined, runs alone after \(Int(wait.components.seconds)) s: \(evidence(record, crashes: crashes, chance: chance)); "
                + "it fails at \(policy.crashBudget) such deaths")
    }

    /// The evidence in words: which signals, how many times, against what rate.
    static func evidence(_ record: DeathRecord, crashes: [WorkerExit], chance: Double) -> String {
        var parts: [String] = []
        if !crashes.isEmpty {
            let counted = Dictionary(grouping: crashes.map(\.description), by: { $0 }).map { ($0.key, $0.value.count) }.sorted { $0.0 < $1.0 }
            let named = counted.map { $0.1 == 1 ? $0.0 : "\($0.0) ×\($0.1)" }.joined(separator: ", ")
            parts.append("its worker's process crashed \(times(crashes.count)) while running it (\(named))")
        }
        let others = record.otherDeaths
        if others > 0 {
            let seen = record.all.compactMap { $0 }.filter { !$0.isCrash }.map(\.description)
            let unseen = record.all.filter { $0 == nil }.count
            var how = Dictionary(grouping: seen, by: { $0 }).map { $0.value.count == 1 ? $0.key : "\($0.key) ×\($0.value.count)" }.sorted()
            if unseen > 0 { how.append(unseen == 1 ? "unseen" : "unseen ×\(unseen)") }
            parts.append(
                "it died with its worker \(times(others)) (\(how.joined(separator: ", "))) in \(seconds(record.seconds)) of running, "
                    + "where the fleet's rate (\(record.fleetDeaths) such deaths in \(seconds(record.fleetSeconds)) of other jobs' running, "
                    + "last hour) predicts \(rounded(record.expectedDeaths)): a chance of \(probability(chance))"
                    + (record.fleetJobs > 0
                        ? ", and of \(probability(record.fleetChance)) that one of the hour's \(record.fleetJobs + 1) jobs would die so often" : ""))
        }
        return parts.joined(separator: "; ")
    }

    static func times(_ n: Int) -> String { n == 1 ? "once" : n == 2 ? "twice" : "\(n) times" }

    static func seconds(_ value: Double) -> String {
        value < 10 ? "\(rounded(value)) s" : "\(Int(value.rounded())) s"
    }

    static func rounded(_ value: Double) -> String {
        let hundredths = (value * 100).rounded() / 100
        return hundredths == hundredths.rounded() ? "\(Int(hundredths))" : "\(hundredths)"
    }

    static func probability(_ value: Double) -> String {
        if value >= 0.01 { return rounded(value) }
        if value == 0 { return "none" }
        var exponent = 0
        var scaled = value
        while scaled < 1 {
            scaled *= 10
            exponent += 1
        }
        return "below 1 in \(exponent >= 9 ? "a billion" : "1" + String(repeating: "0", count: exponent - 1))"
    }
}
