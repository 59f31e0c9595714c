import StenoCLI

@main
struct StenoCommand {
    static func main() async {
        await Steno.main()
    }
}
