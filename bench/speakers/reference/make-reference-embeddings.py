#!/usr/bin/env python3
"""Reference mel frames and speaker embeddings from Resemblyzer 0.1.4, for Steno's Swift encoder.

Writes two fixtures in Tests/Fixtures/voices/ (--set synthetic | librispeech | all, the default):

  synthetic-reference-embeddings.json  from the committed synthetic-reference.flac (flite and
      espeak-ng voices, made by `bench/speakers/make-conversations --synthetic-reference`), the
      pieces placed by its stretch labels (synthetic-reference.txt); always available, for CI.
  reference-embeddings.json  from the real LibriSpeech voices, which are not in the repository:
      --voices, else $STENO_VOICES_DIR, else ../shared/voices next to the repository (exit 3 if
      they are missing; the file is then left as it is).

For each piece (file, start sample, end sample at 16 kHz; for the synthetic one also the voice):
the number of mel frames, the 256-value embedding of the GE2E encoder run over ALL the piece's
frames as one sequence (VoiceEncoder.forward on a batch of one), and the full mel of the first
piece. No preprocess_wav: no volume normalisation and no VAD trimming (the gain
normalize_volume would apply is recorded per piece, for information).

Set-up (Debian 12; the venv is throwaway, nothing of it is committed):

    apt-get install -y ffmpeg python3-venv python3-torch python3-numpy python3-scipy
    /usr/bin/python3 -m venv --system-site-packages /tmp/rz-venv     # sees Debian's torch
    /tmp/rz-venv/bin/pip install librosa==0.11.0 webrtcvad-wheels   # audio.py imports webrtcvad
    mkdir -p /tmp/rz-wheel
    /tmp/rz-venv/bin/pip download --no-deps resemblyzer==0.1.4 -d /tmp/rz-wheel
    /tmp/rz-venv/bin/pip install --no-deps /tmp/rz-wheel/Resemblyzer-0.1.4-py3-none-any.whl

Run, from the repository root (--set synthetic for the committed clip only):

    nice -n 10 /tmp/rz-venv/bin/python bench/speakers/reference/make-reference-embeddings.py \
        --wheel /tmp/rz-wheel/Resemblyzer-0.1.4-py3-none-any.whl

It also checks itself: a plain-numpy mel (the parameters spelled out, as the Swift side has to
do it) and a plain-numpy LSTM must agree with librosa and torch; it prints the differences.
Versions seen when the committed fixture was made: librosa 0.11.0, numpy 1.24.2, scipy 1.10.1,
torch 1.13.0a0 (Debian 12), Python 3.11.2.
"""
import argparse
import hashlib
import json
import os
import subprocess
import sys

import numpy as np
import torch

import librosa
import resemblyzer
from resemblyzer import VoiceEncoder
from resemblyzer.audio import normalize_volume, wav_to_mel_spectrogram
from resemblyzer.hparams import audio_norm_target_dBFS

SR = 16000
# (file, start sample, end sample): the first piece's mel is stored whole.
PIECES = [
    ("87.flac", 16000, 24000),      # 0.5 s, F
    ("87.flac", 80000, 105600),     # 1.6 s
    ("405.flac", 80000, 96000),     # 1.0 s, M
    ("405.flac", 112000, 150437),   # 2.4 s + 37 samples: a length that is no multiple of the hop
    ("5322.flac", 67200, 92800),    # 1.6 s, M
    ("5322.flac", 152000, 200000),  # 3.0 s: embed_utterance(rate=1.3) is recorded for it too
]
# The committed synthetic clip: (stretch label in synthetic-reference.txt, offset from the
# stretch's start, length), in samples. The first piece's mel is stored whole.
SYNTHETIC_PIECES = [
    ("flite-slt", 800, 8000),        # 0.5 s, female (flite slt)
    ("flite-slt", 9600, 38400),      # 2.4 s
    ("espeak-m3", 400, 48000),       # 3.0 s, male (espeak-ng en-us+m3): embed_utterance(rate=1.3) too
    ("flite-rms", 800, 16000),       # 1.0 s, male (flite rms)
    ("flite-rms", 17600, 25600),     # 1.6 s
    ("flite-rms", 44000, 19717),     # 1.232 s: 123 hops + 37 samples, no multiple of the hop
    ("near-silence", 800, 16000),    # 1.0 s of -60 dBFS white noise: a degenerate input
]
SYNTHETIC_UTTERANCE_PIECE = 2


def sha256(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def decode_int16(path):
    raw = subprocess.run(
        ["ffmpeg", "-v", "error", "-i", path, "-f", "s16le", "-ac", "1", "-ar", str(SR), "-"],
        check=True, capture_output=True).stdout
    return np.frombuffer(raw, dtype="<i2")


def g7(x):
    return float("%.7g" % float(x))


# ---- plain-numpy checks: the same computation with every parameter written out ----

def numpy_mel(wav):
    """librosa 0.11 melspectrogram(sr=16000, n_fft=400, hop_length=160, n_mels=40), by hand."""
    n_fft, hop = 400, 160
    y = np.pad(wav, n_fft // 2, mode="constant")          # center=True, pad_mode="constant"
    n_frames = 1 + len(wav) // hop
    k = np.arange(n_fft)
    window = 0.5 - 0.5 * np.cos(2 * np.pi * k / n_fft)    # periodic Hann (fftbins=True)
    frames = np.stack([y[t * hop:t * hop + n_fft] for t in range(n_frames)]) * window
    power = np.abs(np.fft.rfft(frames, axis=1)) ** 2       # power=2.0, 201 bins
    fb = librosa.filters.mel(sr=SR, n_fft=n_fft, n_mels=40)  # checked against slaney_filterbank
    return (power @ fb.T.astype(np.float64)).astype(np.float32)


def slaney_filterbank(sr=16000, n_fft=400, n_mels=40, fmin=0.0, fmax=8000.0):
    """librosa.filters.mel(htk=False, norm='slaney'), by hand (float64, cast to float32)."""
    f_sp = 200.0 / 3
    min_log_hz = 1000.0
    min_log_mel = min_log_hz / f_sp
    logstep = np.log(6.4) / 27.0

    def hz_to_mel(f):
        f = np.asarray(f, dtype=np.float64)
        return np.where(f >= min_log_hz, min_log_mel + np.log(np.maximum(f, 1e-10) / min_log_hz) / logstep, f / f_sp)

    def mel_to_hz(m):
        m = np.asarray(m, dtype=np.float64)
        return np.where(m >= min_log_mel, min_log_hz * np.exp(logstep * (m - min_log_mel)), f_sp * m)

    fftfreqs = np.linspace(0, sr / 2, 1 + n_fft // 2)
    mel_f = mel_to_hz(np.linspace(hz_to_mel(fmin), hz_to_mel(fmax), n_mels + 2))
    fdiff = np.diff(mel_f)
    ramps = mel_f[:, None] - fftfreqs[None, :]
    lower = -ramps[:-2] / fdiff[:-1, None]
    upper = ramps[2:] / fdiff[1:, None]
    weights = np.maximum(0, np.minimum(lower, upper))
    enorm = 2.0 / (mel_f[2:n_mels + 2] - mel_f[:n_mels])
    return (weights * enorm[:, None]).astype(np.float32)


def numpy_encoder(state, mel):
    """torch.nn.LSTM (3 layers, 256, gates i, f, g, o) + linear + ReLU + L2, by hand."""
    def sigmoid(x):
        return 1.0 / (1.0 + np.exp(-x))
    x = mel.astype(np.float64)
    for layer in range(3):
        w_ih = state[f"lstm.weight_ih_l{layer}"].numpy().astype(np.float64)
        w_hh = state[f"lstm.weight_hh_l{layer}"].numpy().astype(np.float64)
        b = (state[f"lstm.bias_ih_l{layer}"] + state[f"lstm.bias_hh_l{layer}"]).numpy().astype(np.float64)
        pre = x @ w_ih.T + b
        h = np.zeros(256)
        c = np.zeros(256)
        out = []
        for t in range(len(x)):
            g = pre[t] + w_hh @ h
            i, f, gg, o = sigmoid(g[:256]), sigmoid(g[256:512]), np.tanh(g[512:768]), sigmoid(g[768:])
            c = f * c + i * gg
            h = o * np.tanh(c)
            out.append(h)
        x = np.array(out)
    e = np.maximum(0, state["linear.weight"].numpy().astype(np.float64) @ x[-1] + state["linear.bias"].numpy())
    return e / np.linalg.norm(e)


def default_voices_dir(root):
    """STENO_VOICES_DIR, else ../shared/voices next to the repository's root."""
    return os.environ.get("STENO_VOICES_DIR") or os.path.join(os.path.dirname(root), "shared", "voices")


def synthetic_pieces(fixtures):
    """SYNTHETIC_PIECES as (file, start, end, label), from the clip's stretch labels."""
    stretches = {}
    with open(os.path.join(fixtures, "synthetic-reference.txt")) as f:
        for line in f:
            if line.startswith("#") or not line.strip():
                continue
            a, b, label = line.split("\t")[:3]
            stretches[label] = (int(a), int(b))
    pieces = []
    for label, offset, length in SYNTHETIC_PIECES:
        a, b = stretches[label]
        start, end = a + offset, a + offset + length
        assert end <= b, (label, offset, length, a, b)
        pieces.append(("synthetic-reference.flac", start, end, label))
    return pieces, [{"voice": k, "start": v[0], "end": v[1]} for k, v in stretches.items()]


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    root = os.path.abspath(os.path.join(here, "..", "..", ".."))
    fixtures = os.path.join(root, "Tests", "Fixtures", "voices")
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--set", choices=["synthetic", "librispeech", "all"], default="all",
                    help="synthetic: Tests/Fixtures/voices/synthetic-reference.flac -> "
                         "synthetic-reference-embeddings.json; librispeech: the real voices -> "
                         "reference-embeddings.json; all (default): both")
    ap.add_argument("--voices", default=None,
                    help="the LibriSpeech FLACs (default: $STENO_VOICES_DIR, else ../shared/voices)")
    ap.add_argument("--out-dir", default=fixtures, help="where the JSON files go (default: %(default)s)")
    ap.add_argument("--wheel", default=None, help="the downloaded Resemblyzer-0.1.4 wheel, for its sha256")
    args = ap.parse_args()

    torch.set_num_threads(1)
    pt = os.path.join(os.path.dirname(resemblyzer.__file__), "pretrained.pt")
    encoder = VoiceEncoder("cpu", verbose=False)   # loads pretrained.pt itself (torch.load, legacy pickle)
    encoder.eval()
    state = torch.load(pt, map_location="cpu")["model_state"]

    fb_err = float(np.abs(slaney_filterbank() - librosa.filters.mel(sr=SR, n_fft=400, n_mels=40)).max())
    print(f"mel filter bank: by-hand vs librosa max abs diff {fb_err:.3g}", file=sys.stderr)

    if args.set in ("synthetic", "all"):
        pieces, stretches = synthetic_pieces(fixtures)
        write_fixture(pieces, fixtures, os.path.join(args.out_dir, "synthetic-reference-embeddings.json"),
                      encoder, state, pt, args.wheel, utterance_piece=SYNTHETIC_UTTERANCE_PIECE,
                      extra={"clip": "synthetic-reference.flac (made by bench/speakers/make-conversations "
                                     "--synthetic-reference; stretches from synthetic-reference.txt)",
                             "stretches": stretches})
    if args.set in ("librispeech", "all"):
        voices = args.voices or default_voices_dir(root)
        missing = [n for n in sorted({p[0] for p in PIECES}) if not os.path.isfile(os.path.join(voices, n))]
        if missing:
            print(f"the real voices are not here: {os.path.abspath(voices)} lacks {', '.join(missing)}; put the "
                  "LibriSpeech FLACs (Tests/Fixtures/voices/README.md) in ../shared/voices next to the "
                  "repository or set STENO_VOICES_DIR; reference-embeddings.json left as it is", file=sys.stderr)
            sys.exit(3)
        write_fixture([p + (None,) for p in PIECES], voices, os.path.join(args.out_dir, "reference-embeddings.json"),
                      encoder, state, pt, args.wheel, utterance_piece=len(PIECES) - 1)


def write_fixture(piece_list, audio_dir, out, encoder, state, pt, wheel, utterance_piece, extra=None):
    pieces = []
    mel_first = None
    decoded = {}
    for idx, (name, start, end, voice) in enumerate(piece_list):
        if name not in decoded:
            decoded[name] = decode_int16(os.path.join(audio_dir, name))
        pcm = decoded[name][start:end]
        assert len(pcm) == end - start, (name, start, end, len(pcm))
        wav = pcm.astype(np.float32) / 32768.0
        mel = wav_to_mel_spectrogram(wav)                      # [frames, 40] float32
        with torch.no_grad():
            emb = encoder.forward(torch.from_numpy(mel[None])).numpy()[0]
            raw = torch.relu(encoder.linear(encoder.lstm(torch.from_numpy(mel[None]))[1][0][-1])).numpy()[0]

        # normalize_volume(wav, -30 dBFS, increase_only=True), as preprocess_wav would do it
        rms = float(np.sqrt(np.mean((wav.astype(np.float64) * 32767) ** 2)))
        dbfs = 20 * np.log10(rms / 32767)
        change = audio_norm_target_dBFS - dbfs
        normalized = normalize_volume(wav, audio_norm_target_dBFS, increase_only=True)
        gain = float(np.max(np.abs(normalized)) / max(np.max(np.abs(wav)), 1e-12))

        mel_np = numpy_mel(wav)
        mel_rel = float(np.abs(mel_np - mel).max() / mel.max())
        emb_np = numpy_encoder(state, mel)
        emb_err = float(np.abs(emb_np - emb).max())
        print(f"{name} {voice or ''} [{start},{end}) {len(wav) / SR:.3f}s frames={len(mel)} "
              f"mel by-hand rel.diff {mel_rel:.2g}; embedding by-hand max diff {emb_err:.2g}; "
              f"rms {dbfs:.1f} dBFS, normalize_volume gain x{gain:.3f} ({max(change, 0):.1f} dB); "
              f"pre-normalisation norm {np.linalg.norm(raw):.4g}, {int((raw > 0).sum())} of 256 positive",
              file=sys.stderr)
        piece = {"file": name}
        if voice is not None:
            piece["voice"] = voice
        piece.update({
            "start": start, "end": end, "frames": int(mel.shape[0]),
            "rms_dbfs": round(float(dbfs), 2),
            "normalize_volume_gain_db": round(float(max(change, 0.0)), 2),
        })
        if voice is not None:
            piece["raw_norm"] = g7(np.linalg.norm(raw))
        piece["embedding"] = [g7(v) for v in emb]
        if idx == utterance_piece:
            utt = encoder.embed_utterance(wav, rate=1.3)
            piece["embed_utterance_rate_1_3"] = [g7(v) for v in utt]
            piece["cosine_forward_vs_embed_utterance"] = g7(float(np.dot(utt, emb)))
            print(f"  embed_utterance(rate=1.3) vs one-sequence forward: cosine {np.dot(utt, emb):.4f}",
                  file=sys.stderr)
        if mel_first is None:
            mel_first = [[g7(v) for v in row] for row in mel]
        pieces.append(piece)

    embs = np.array([p["embedding"] for p in pieces])
    print("cosine similarity between pieces:\n" + np.array2string(embs @ embs.T, precision=3), file=sys.stderr)

    fixture = {
        "model": {
            "wheel": "resemblyzer==0.1.4 (PyPI), Resemblyzer-0.1.4-py3-none-any.whl",
            "wheel_sha256": sha256(wheel) if wheel else None,
            "pt": "resemblyzer/pretrained.pt",
            "pt_sha256": sha256(pt),
        },
        "librosa": librosa.__version__,
        "versions": {"numpy": np.__version__, "torch": torch.__version__,
                     "scipy": __import__("scipy").__version__, "python": sys.version.split()[0]},
        "audio": "ffmpeg -i FILE -f s16le -ac 1 -ar 16000 - ; wav = int16 / 32768 ; "
                 "samples [start, end) ; no preprocess_wav (no normalize_volume, no VAD trim)",
        "mel_params": {
            "call": "librosa.feature.melspectrogram(y=wav, sr=16000, n_fft=400, hop_length=160, n_mels=40)"
                    ".astype(float32).T",
            "sr": SR, "n_fft": 400, "win_length": 400, "hop_length": 160, "window": "hann (periodic)",
            "center": True, "pad_mode": "constant", "power": 2.0, "n_mels": 40, "fmin": 0.0,
            "fmax": 8000.0, "htk": False, "norm": "slaney", "log": False,
            "frames": "1 + len(wav) // 160",
        },
        "encoder": "3-layer LSTM(40->256) over all frames as one sequence, last layer's final h, "
                   "linear 256x256, ReLU, L2-normalise: VoiceEncoder.forward(mel[None])",
    }
    head = list(fixture)
    if extra:
        fixture.update(extra)
        head += list(extra)
    fixture["pieces"] = pieces
    fixture["mel_of_first_piece"] = mel_first
    # One piece, one mel row per line: readable diffs, still plain JSON.
    def dumps(v):
        return json.dumps(v, separators=(",", ":"), allow_nan=False)
    lines = ["{"]
    for key in head:
        lines.append(f" {dumps(key)}:{dumps(fixture[key])},")
    lines.append(' "pieces":[')
    lines.append(",\n".join("  " + dumps(p) for p in pieces))
    lines.append(" ],")
    lines.append(' "mel_of_first_piece":[')
    lines.append(",\n".join("  " + dumps(row) for row in mel_first))
    lines.append(" ]")
    lines.append("}")
    text = "\n".join(lines) + "\n"
    assert json.loads(text) == json.loads(dumps(fixture))
    with open(out, "w") as f:
        f.write(text)
    print(f"wrote {out} ({os.path.getsize(out)} bytes)", file=sys.stderr)


if __name__ == "__main__":
    main()
