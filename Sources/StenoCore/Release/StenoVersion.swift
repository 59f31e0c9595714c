/// The release every Steno executable reports: `--version` of `steno`, `steno-worker` and
/// `steno-asr`, the worker's row in `workers`, and the User-Agent of every upload. Written here
/// only, so that the places that show it cannot disagree.
public enum StenoVersion {
    public static let current = "0.1.0"
}
