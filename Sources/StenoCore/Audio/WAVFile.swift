import Foundation
import StenoInfrastructure

/// RIFF/WAVE files of 16-bit PCM, built in memory.
///
/// Enough to make test and probe audio without FFmpeg: `steno backend check` sends a generated
/// second of audio to a backend before any real media is involved.
public enum WAVFile {
    /// A mono 16-bit PCM WAV file holding `samples`.
    public static func mono16(samples: [Int16], sampleRate: Int) -> [UInt8] {
        let dataSize = samples.count * 2
        var bytes: [UInt8] = []
        bytes.reserveCapacity(44 + dataSize)
        bytes += Array("RIFF".utf8)
        append(UInt32(36 + dataSize), to: &bytes)
        bytes += Array("WAVE".utf8)
        bytes += Array("fmt ".utf8)
        append(UInt32(16), to: &bytes)  // size of the PCM format chunk
        append(UInt16(1), to: &bytes)  // PCM
        append(UInt16(1), to: &bytes)  // channels
        append(UInt32(sampleRate), to: &bytes)
        append(UInt32(sampleRate * 2), to: &bytes)  // bytes per second
        append(UInt16(2), to: &bytes)  // bytes per frame
        append(UInt16(16), to: &bytes)  // bits per sample
        bytes += Array("data".utf8)
        append(UInt32(dataSize), to: &bytes)
        for sample in samples {
            append(UInt16(bitPattern: sample), to: &bytes)
        }
        return bytes
    }

    /// `duration` of a sine tone, faded in and out so that it starts and ends without a click.
    public static func tone(
        duration: Duration = .seconds(1), frequency: Double = 440, amplitude: Double = 0.3, sampleRate: Int = 16_000
    ) -> [UInt8] {
        let count = Int(duration.seconds * Double(sampleRate))
        let fade = max(1, sampleRate / 100)
        let samples = (0..<count).map { index -> Int16 in
            let envelope = min(1, Double(min(index, count - 1 - index)) / Double(fade))
            let value = sin(2 * Double.pi * frequency * Double(index) / Double(sampleRate)) * amplitude * envelope
            return Int16((value * Double(Int16.max)).rounded())
        }
        return mono16(samples: samples, sampleRate: sampleRate)
    }

    private static func append<T: FixedWidthInteger>(_ value: T, to bytes: inout [UInt8]) {
        withUnsafeBytes(of: value.littleEndian) { bytes += $0 }
    }
}
