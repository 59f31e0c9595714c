import Foundation
import StenoPostgres
import StenoTestSupport
import Testing

@Suite("steno tenants")
struct TenantsCommandTests {
    @Test("set makes a tenant and changes its share, cap and budgets; none clears; list and show print them")
    func setListShow() async throws {
        try await TestDatabase.with { database in
            let set = try await database.steno(["tenants", "set", "acme", "--share", "2", "--max-in-flight", "8", "--monthly-cost", "250", "--json"])
            #expect(set.status == 0, "\(set.standardError)")
            let settings = try #require(try JSONOf.object(set.standardOutput)["settings"] as? [String: Any])
            #expect(settings["share"] as? Double == 2 && settings["max_in_flight"] as? Int == 8 && settings["monthly_cost_usd"] as? Double == 250)

            let cleared = try await database.steno(["tenants", "set", "acme", "--max-in-flight", "none"])
            #expect(cleared.status == 0, "\(cleared.standardError)")
            #expect(cleared.standardOutput.contains("cap") && cleared.standardOutput.contains("none"), "\(cleared.standardOutput)")
            #expect(cleared.standardOutput.contains("$0.00 of $250.00"), "\(cleared.standardOutput)")

            let list = try await database.steno(["tenants", "list"])
            #expect(list.status == 0)
            let lines = list.standardOutput.split(separator: "\n")
            #expect(lines.first?.hasPrefix("tenant") == true)
            #expect(lines.contains { $0.hasPrefix("acme ") } && lines.contains { $0.hasPrefix("default ") }, "\(list.standardOutput)")

            let show = try await database.steno(["tenants", "show", "acme", "--json"])
            #expect(try JSONOf.object(show.standardOutput)["name"] as? String == "acme")
        }
    }

    @Test("bad input exits with a message that says what to give, and changes nothing", arguments: [
        (["tenants", "set", "acme"], "nothing to set"),
        (["tenants", "set", "acme", "--max-in-flight", "lots"], "give a number, or none"),
        (["tenants", "set", "acme", "--share", "0"], "from 0.001 to 1000"),
        (["tenants", "set", "acme", "--max-in-flight", "0"], "at least 1"),
        (["tenants", "set", "Not A Name", "--share", "2"], "lowercase"),
        (["tenants", "show", "nobody"], "steno tenants list"),
    ])
    func badInput(arguments: [String], message: String) async throws {
        try await TestDatabase.with { database in
            let result = try await database.steno(arguments)
            #expect(result.status != 0)
            #expect(result.standardError.contains(message), "\(arguments): \(result.standardError)")
            let client = database.client()
            let tenants: [String] = try await client.query("SELECT name FROM tenants ORDER BY name").map { try $0.decode("name") }
            #expect(tenants == ["default"], "nothing was made or changed")
            await client.shutdown()
        }
    }
}
