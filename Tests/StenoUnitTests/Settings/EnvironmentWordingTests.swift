import StenoASR
import StenoCore
import StenoInfrastructure
import StenoPostgres
import StenoTranscription
import Testing

/// The variables each module reads for itself get `SettingValue`'s wording too.
@Suite("numeric variables of every module")
struct EnvironmentWordingTests {
    @Test("STENO_DATABASE_WAIT_SECONDS")
    func databaseWait() throws {
        #expect(try PostgresConfiguration.fromEnvironment(["STENO_DATABASE_WAIT_SECONDS": " 120 "]).reconnectWindow == .seconds(120))
        #expect(try PostgresConfiguration.fromEnvironment(["STENO_DATABASE_WAIT_SECONDS": ""], defaultWait: .seconds(7)).reconnectWindow == .seconds(7))
        do {
            _ = try PostgresConfiguration.fromEnvironment(["STENO_DATABASE_WAIT_SECONDS": "forever"])
            Issue.record("no error")
        } catch {
            #expect(error.code == .invalidConfiguration)
            #expect(error.message
                == #"STENO_DATABASE_WAIT_SECONDS must be a whole number of seconds from 0 to 3600, not "forever": set it to one, or unset it"#)
        }
    }

    @Test("steno-asr's variables")
    func asr() throws {
        let configuration = try ASRConfiguration.fromEnvironment(["STENO_ASR_PORT": "9001", "STENO_ASR_RECOGNIZERS": "2"])
        #expect(configuration.port == 9001 && configuration.recognizers == 2 && configuration.queueLength == 8)
        for (name, value, accepted) in [
            ("STENO_ASR_PORT", "70000", "from 0 to 65535"), ("STENO_ASR_RECOGNIZERS", "0", "from 1 to 256"),
            ("STENO_ASR_QUEUE", "-1", "from 0 to 100000"), ("STENO_ASR_MAX_UPLOAD_MB", "1e308", "from 1 to 4096"),
        ] {
            do {
                _ = try ASRConfiguration.fromEnvironment([name: value])
                Issue.record("\(name)=\(value) accepted")
            } catch {
                #expect(error.description == "\(name) must be a whole number \(accepted), not \"\(value)\": set it to one, or unset it")
            }
        }
    }

    @Test("the backend's variables, the fallback's included")
    func backend() {
        for (name, value, message) in [
            ("STENO_REQUEST_TIMEOUT", "soon", #"STENO_REQUEST_TIMEOUT must be a number of seconds from 1 to 86400, not "soon": set it to one, or unset it"#),
            ("STENO_MAX_RETRIES", "2.5", #"STENO_MAX_RETRIES must be a whole number from 0 to 20, not "2.5": set it to one, or unset it"#),
            ("STENO_FALLBACK_AFTER", "0", #"STENO_FALLBACK_AFTER must be a whole number from 1 to 100, not "0": set it to one, or unset it"#),
            ("STENO_FALLBACK_STALL_TIMEOUT", "nan", #"STENO_FALLBACK_STALL_TIMEOUT must be a number of seconds from 1 to 3600, not "nan": set it to one, or unset it"#),
        ] {
            var environment = ["STENO_BACKEND_URL": "http://127.0.0.1:9", "STENO_FALLBACK_BACKEND_URL": "http://127.0.0.1:10"]
            environment[name] = value
            do {
                _ = try FallbackTranscriptionClient.fromEnvironment(environment)
                Issue.record("\(name)=\(value) accepted")
            } catch {
                #expect(error.failureClass == .configuration)
                #expect(error.message == message)
            }
        }
    }
}
