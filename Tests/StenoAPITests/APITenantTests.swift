import Foundation
import StenoAPI
import StenoCore
import StenoPostgres
import StenoStore
import StenoTestSupport
import Testing

/// The tenants' admin routes: who may read and change a tenant, and what a change accepts.
@Suite("steno-api: tenants")
struct APITenantTests {
    @Test("an operate key reads and changes every tenant; a tenant's admin key reads only its own and changes nothing, the tenant named default's too")
    func whoMayReadAndChange() async throws {
        try await InProcessAPI.with { api in
            let operatorKey = try await api.key(.operate, tenant: "ops")
            let acme = try await api.key(.admin, tenant: "acme")
            // The tenant named default (the CLI's) is a tenant like any other: its admin key
            // reaches no other tenant.
            let defaultAdmin = try await api.key(.admin, tenant: NewMedia.defaultTenant)
            let byDefault = try await api.request("PATCH", "/v1/tenants/acme", key: defaultAdmin, body: .json(#"{"share": 9}"#))
            #expect(byDefault.status == 403 && byDefault.errorCode == "operator_only", "\(byDefault.text)")
            #expect(try await api.request("GET", "/v1/tenants/acme", key: defaultAdmin).status == 404)
            let defaultsOwn = try await api.request("GET", "/v1/tenants", key: defaultAdmin)
            #expect((defaultsOwn.json["tenants"] as? [[String: Any]])?.compactMap { $0["name"] as? String } == ["default"], "\(defaultsOwn.text)")
            let acmeReader = try await api.key(.read, tenant: "acme")
            let patch = HTTP.Body.json(#"{"share": 2, "max_in_flight": 4, "monthly_cost_usd": 25.5}"#)

            let refused = try await api.request("PATCH", "/v1/tenants/acme", key: acme, body: patch)
            #expect(refused.status == 403 && refused.errorCode == "operator_only", "\(refused.text)")
            #expect(try await api.request("GET", "/v1/tenants", key: acmeReader).status == 403)

            let changed = try await api.request("PATCH", "/v1/tenants/acme", key: operatorKey, body: patch)
            #expect(changed.status == 200, "\(changed.text)")
            let settings = try #require(changed.json["settings"] as? [String: Any])
            #expect(settings["share"] as? Double == 2 && settings["max_in_flight"] as? Int == 4 && settings["monthly_cost_usd"] as? Double == 25.5)

            let own = try await api.request("GET", "/v1/tenants", key: acme)
            #expect((own.json["tenants"] as? [[String: Any]])?.compactMap { $0["name"] as? String } == ["acme"])
            let all = try await api.request("GET", "/v1/tenants", key: operatorKey)
            let names = Set((all.json["tenants"] as? [[String: Any]] ?? []).compactMap { $0["name"] as? String })
            #expect(names.isSuperset(of: ["acme", "default"]), "\(names)")
            #expect(try await api.request("GET", "/v1/tenants/acme", key: acme).status == 200)
            // Another tenant is not there at all for this key.
            let other = try await api.request("GET", "/v1/tenants/default", key: acme)
            #expect(other.status == 404)

            // null clears, a field left out stays.
            let cleared = try await api.request("PATCH", "/v1/tenants/acme", key: operatorKey, body: .json(#"{"max_in_flight": null}"#))
            let after = try #require(cleared.json["settings"] as? [String: Any])
            #expect(after["max_in_flight"] == nil || after["max_in_flight"] is NSNull)
            #expect(after["share"] as? Double == 2 && after["monthly_cost_usd"] as? Double == 25.5)

            // 0 and 1 are numbers, not booleans; a boolean is refused.
            let small = try await api.request("PATCH", "/v1/tenants/acme", key: operatorKey, body: .json(#"{"daily_audio_hours": 0, "max_in_flight": 1}"#))
            let smallSettings = try #require(small.json["settings"] as? [String: Any], "\(small.text)")
            #expect(smallSettings["daily_audio_hours"] as? Double == 0 && smallSettings["max_in_flight"] as? Int == 1, "\(small.text)")
            let boolean = try await api.request("PATCH", "/v1/tenants/acme", key: operatorKey, body: .json(#"{"max_in_flight": true}"#))
            #expect(boolean.status == 400 && boolean.errorField == "max_in_flight", "\(boolean.text)")

            let usage = try await api.request("GET", "/v1/tenants/acme/usage?since=7d", key: acme)
            #expect(usage.status == 200 && usage.json["tenant"] as? String == "acme" && usage.json["days"] is [Any], "\(usage.text)")
        }
    }

    @Test("a change that cannot be kept is refused with the field and what to send", arguments: [
        (#"{"share": 0}"#, "share"),
        (#"{"share": null}"#, "share"),
        (#"{"max_in_flight": 2.5}"#, "max_in_flight"),
        (#"{"max_in_flight": "8"}"#, "max_in_flight"),
        (#"{"daily_audio_hours": -1}"#, "daily_audio_hours"),
        (#"{"daily_cost_usd": 1e20}"#, "daily_cost_usd"),
        (#"{"max_in_flight": 1e12}"#, "max_in_flight"),
        (#"{"priority": "high"}"#, "priority"),
        ("[1, 2]", "body"),
        ("not json", "body"),
    ])
    func badChanges(body: String, field: String?) async throws {
        try await InProcessAPI.with { api in
            let operatorKey = try await api.key(.operate)
            let answer = try await api.request("PATCH", "/v1/tenants/acme", key: operatorKey, body: .json(body))
            #expect(answer.status == 400, "\(body): \(answer.status) \(answer.text)")
            if let field { #expect(answer.errorField == field, "\(body): \(answer.text)") }
            #expect(answer.errorMessage?.isEmpty == false)
            let name = try await api.request("PATCH", "/v1/tenants/Not%20A%20Name", key: operatorKey, body: .json(#"{"share": 2}"#))
            #expect(name.status == 400 && name.errorField == "name")
        }
    }
}
