import Foundation
import Hummingbird
import NIOFoundationEssentialsCompat
import StenoCore
import StenoInfrastructure
import StenoStore

/// The tenants sharing the fleet: their shares, caps and budgets, their work and their use.
///
/// Reading a tenant needs the admin scope; an admin key reads its own tenant only, whatever that
/// tenant is called. An operate key reads and changes every tenant. A tenant cannot raise its own
/// share or budget: that is the operator's call.
struct TenantRoutes: Sendable {
    let store: AdminStore
    let clock: any MonotonicClock

    var routes: [APIRoute] {
        [
            .keyed(.get, "/v1/tenants", tenants),
            .keyed(.get, "/v1/tenants/{name}", tenant),
            .keyed(.patch, "/v1/tenants/{name}", change),
            .keyed(.get, "/v1/tenants/{name}/usage", usage),
        ]
    }
}

extension TenantRoutes {
    /// `GET /v1/tenants`: every tenant for an operate key, the key's own for an admin key.
    func tenants(_ request: Request, _ context: APIRequestContext) async throws -> Response {
        let principal = try context.require(.admin)
        let named = principal.scope.allows(.operate) ? nil : principal.tenant
        // A key's tenant has a row from the key's making on (migration 0019); a missing one lists as none.
        let found: [TenantOverview]
        do {
            found = try await store.tenants(named: named)
        } catch let error as AdminError where error.code == .notFound {
            found = []
        }
        return try APIJSON.response(["tenants": found])
    }

    /// `GET /v1/tenants/{name}`.
    func tenant(_ request: Request, _ context: APIRequestContext) async throws -> Response {
        let name = try readable(context)
        do {
            return try APIJSON.response(try await store.tenants(named: name)[0])
        } catch let error as AdminError {
            throw APIError.from(error)
        }
    }

    /// `PATCH /v1/tenants/{name}` with any of `share`, `max_in_flight`, `daily_audio_hours`,
    /// `monthly_audio_hours`, `daily_cost_usd`, `monthly_cost_usd`: a number sets it, `null`
    /// clears it, a field left out stays. An operate key only.
    func change(_ request: Request, _ context: APIRequestContext) async throws -> Response {
        let principal = try context.require(.admin)
        let name = try Self.name(context)
        guard principal.scope.allows(.operate) else {
            throw APIError(
                .forbidden, code: "operator_only", "only an operate key changes a tenant's share, cap or budgets",
                hint: "ask the fleet's operator, who makes operate keys with `steno keys create --scope operate`, or use `steno tenants set`")
        }
        let body = try await request.body.collect(upTo: 16 << 10)
        let change = try Self.change(from: Data(buffer: body))
        // Each setting is checked on its own, so defaults stand in for the current ones.
        if case .failure(let problem) = change.applied(to: TenantSettings()) {
            throw APIError.badRequest(problem.description, field: problem.field)
        }
        do {
            try await store.setTenant(name, change)
            return try APIJSON.response(try await store.tenants(named: name)[0])
        } catch let error as AdminError {
            throw APIError.from(error)
        }
    }

    /// `GET /v1/tenants/{name}/usage?since=30d`: use by UTC day, newest first, for billing.
    func usage(_ request: Request, _ context: APIRequestContext) async throws -> Response {
        let name = try readable(context)
        let since = request.uri.queryParameters["since"].map(String.init) ?? "30d"
        guard let start = SinceParser.parse(since, now: clock.date) else {
            throw APIError.badRequest("since must be \(SinceParser.help)", field: "since")
        }
        _ = try await store.tenants(named: name)
        let days = try await store.tenantUsage(tenant: name, since: start).map(\.usage)
        struct Usage: Encodable { var tenant: String; var days: [TenantUsage] }
        return try APIJSON.response(Usage(tenant: name, days: days))
    }

    private func readable(_ context: APIRequestContext) throws -> String {
        let principal = try context.require(.admin)
        let name = try Self.name(context)
        // Another tenant's row is not there at all for this key, as another tenant's media is not.
        guard principal.scope.allows(.operate) || principal.tenant == name else {
            throw APIError.notFound("there is no tenant \(name)")
        }
        return name
    }

    static func name(_ context: APIRequestContext) throws -> String {
        let name = context.parameters.get("name") ?? ""
        guard NewMedia.isValidTenant(name) else {
            throw APIError.badRequest("the tenant name \(name) \(NewMedia.tenantRule)", field: "name")
        }
        return name
    }

    /// One field of a PATCH body: a number, `null`, or anything else (refused).
    enum Field: Decodable {
        case null
        case number(Double)
        case other

        init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if container.decodeNil() {
                self = .null
            } else if let number = try? container.decode(Double.self) {
                // JSONDecoder reads `true` as no Double, so a boolean is `other`, not 1.
                self = .number(number)
            } else {
                self = .other
            }
        }
    }

    /// The change a PATCH body asks for: present numbers set, `null` clears, absent keeps.
    static func change(from body: Data) throws -> TenantChange {
        let object: [String: Field]
        do {
            object = try JSONDecoder().decode([String: Field].self, from: body)
        } catch {
            throw APIError.badRequest(
                "send a JSON object such as {\"share\": 2, \"max_in_flight\": 8, \"monthly_cost_usd\": null}", field: "body")
        }
        let known = ["share", "max_in_flight", "daily_audio_hours", "monthly_audio_hours", "daily_cost_usd", "monthly_cost_usd"]
        if let unknown = object.keys.sorted().first(where: { !known.contains($0) }) {
            throw APIError.badRequest("unknown field \(unknown): a tenant has \(known.joined(separator: ", "))", field: unknown)
        }
        func number(_ field: String) throws -> TenantChange.Setting<Double> {
            switch object[field] {
            case nil: return .keep
            case .null: return .clear
            case .number(let value): return .set(value)
            case .other: throw APIError.badRequest("\(field) must be a number, or null to clear it", field: field)
            }
        }
        var change = TenantChange()
        switch try number("share") {
        case .keep: break
        case .clear: throw APIError.badRequest("share cannot be cleared: set it (1 is the default)", field: "share")
        case .set(let share): change.share = share
        }
        switch try number("max_in_flight") {
        case .keep: break
        case .clear: change.maxInFlight = .clear
        case .set(let cap):
            guard cap == cap.rounded(), cap >= 1, cap <= Double(TenantSettings.largestCap) else {
                throw APIError.badRequest(
                    "max_in_flight must be a whole number from 1 to \(TenantSettings.largestCap), or null for no cap", field: "max_in_flight")
            }
            change.maxInFlight = .set(Int(cap))
        }
        change.dailyAudioHours = try number("daily_audio_hours")
        change.monthlyAudioHours = try number("monthly_audio_hours")
        change.dailyCostUSD = try number("daily_cost_usd")
        change.monthlyCostUSD = try number("monthly_cost_usd")
        return change
    }
}
