import ArgumentParser
import StenoCLI

@main
struct StenoCommand {
    static func main() async {
        CLILogging.bootstrap()
        await Steno.main()
        Steno.finishStandardOutput()
    }
}
