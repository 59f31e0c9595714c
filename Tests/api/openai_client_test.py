#!/usr/bin/env python3
"""Steno's POST /v1/audio/transcriptions driven by the official `openai` Python client, as any
OpenAI user would drive it, against a running steno-api and worker fleet (scripts/api-test).

Checks, each with an assertion that fails loudly:
- a recording longer than an hour and larger than OpenAI's 25 MB limit is transcribed whole;
- every response_format parses as the client expects it (json, verbose_json with words, text,
  srt, vtt) and stream=True yields transcript.text.delta events, then transcript.text.done;
- response_format=diarized_json parses as the client's TranscriptionDiarized, with a speaker on
  every segment, and a voice sent as known_speaker_references[] comes back under its name;
- bad input comes back as the client's typed errors: 415 for a file no decoder reads,
  400 naming the field, 401 for an unknown key;
- audio.translations.create takes OpenAI's fields only, and a fleet whose backend cannot
  translate (steno-asr) answers with that backend's reason.
"""
import argparse
import os
import sys
import time

import openai
from openai import OpenAI


def check(condition, message):
    if not condition:
        print(f"FAILED: {message}", file=sys.stderr)
        sys.exit(1)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--base-url", required=True)
    parser.add_argument("--long", required=True, help="a recording over an hour and over 25 MB")
    parser.add_argument("--book", required=True, help="the three-chapter fixture book")
    parser.add_argument("--not-audio", required=True)
    parser.add_argument("--conversation", required=True, help="a talk of two synthetic voices, with its .rttm beside it")
    parser.add_argument("--reference", required=True, help="a clip of one of the talk's voices alone")
    args = parser.parse_args()
    key = os.environ["STENO_TEST_API_KEY"]
    client = OpenAI(base_url=args.base_url, api_key=key, timeout=3600.0, max_retries=0)

    size = os.path.getsize(args.long)
    check(size > 25 * 1024 * 1024, f"{args.long} is {size} bytes, not over 25 MB")

    # The book first: every format on a short recording.
    with open(args.book, "rb") as audio:
        verbose = client.audio.transcriptions.create(
            model="whisper-1", file=audio, response_format="verbose_json", timestamp_granularities=["word", "segment"])
    book_words = verbose.text.split()
    check(len(book_words) >= 20, f"the book's transcript has {len(book_words)} words: {verbose.text!r}")
    check(verbose.duration > 25, f"verbose_json duration {verbose.duration}")
    starts = [segment.start for segment in verbose.segments]
    check(starts == sorted(starts) and len(starts) >= 3, f"segment starts {starts}")
    check(verbose.words and len(verbose.words) >= len(book_words) // 2, "verbose_json has no words although they were asked for")
    print(f"verbose_json: {len(verbose.segments)} segments, {len(verbose.words)} words, duration {verbose.duration:.1f} s")

    with open(args.book, "rb") as audio:
        plain = client.audio.transcriptions.create(model="whisper-1", file=audio)
    check(plain.text.split() == book_words, "json text differs from verbose_json text")
    for format, test in [("text", lambda t: t.strip() == verbose.text.strip()), ("srt", lambda t: "-->" in t and t.lstrip().startswith("1")),
                         ("vtt", lambda t: t.startswith("WEBVTT") and "-->" in t)]:
        with open(args.book, "rb") as audio:
            answer = client.audio.transcriptions.create(model="whisper-1", file=audio, response_format=format)
        check(isinstance(answer, str) and test(answer), f"response_format={format} gave {answer[:200]!r}")
        print(f"{format}: {len(answer)} characters")

    with open(args.book, "rb") as audio:
        stream = client.audio.transcriptions.create(model="whisper-1", file=audio, stream=True)
        deltas, done = [], None
        for event in stream:
            if event.type == "transcript.text.delta":
                deltas.append(event.delta)
            elif event.type == "transcript.text.done":
                done = event.text
    check(done is not None, "the stream ended without transcript.text.done")
    check(len(deltas) >= 2, f"the stream sent {len(deltas)} deltas for three chapters")
    check("".join(deltas).split() == done.split(), "the deltas do not add up to the final text")
    check(done.split() == book_words, "the streamed text differs from the one-shot text")
    print(f"stream: {len(deltas)} deltas, then done")

    # Bad input, as the client's own error types.
    with open(args.not_audio, "rb") as audio:
        try:
            client.audio.transcriptions.create(model="whisper-1", file=audio)
            check(False, "a file that is not audio was accepted")
        except openai.APIStatusError as error:
            check(error.status_code == 415, f"not audio: {error.status_code} {error.message}")
            print(f"not audio: {error.status_code} {error.message}")
    with open(args.book, "rb") as audio:
        try:
            client.audio.transcriptions.create(model="whisper-1", file=audio, response_format="docx")
            check(False, "response_format docx was accepted")
        except openai.BadRequestError as error:
            check(error.body.get("param") == "response_format", f"bad format: {error.body}")
    # Translations: OpenAI's fields only, and a fleet whose backend (steno-asr) cannot translate
    # says so through the client's own error type.
    with open(args.book, "rb") as audio:
        try:
            client.audio.translations.create(model="whisper-1", file=audio, extra_body={"language": "de"})
            check(False, "a translation with a language field was accepted")
        except openai.BadRequestError as error:
            check(error.body.get("param") == "language", f"translation with language: {error.body}")
    with open(args.book, "rb") as audio:
        try:
            client.audio.translations.create(model="whisper-1", file=audio)
            check(False, "steno-asr cannot translate, yet the translation succeeded")
        except openai.APIStatusError as error:
            check("does not translate" in str(error.message), f"the failure does not say why: {error.status_code} {error.message}")
            print(f"translations through a backend that cannot translate: {error.status_code} {error.message[:160]}")
    try:
        OpenAI(base_url=args.base_url, api_key="stk_" + "A" * 43, max_retries=0).models.list()
        check(False, "an unknown key was accepted")
    except openai.AuthenticationError as error:
        check(key not in str(error), "the error shows the key")

    # Who said what, in OpenAI's diarized shape; one voice named by a reference clip.
    import base64
    with open(args.reference, "rb") as clip:
        reference = "data:audio/wav;base64," + base64.b64encode(clip.read()).decode()
    with open(args.conversation, "rb") as audio:
        diarized = client.audio.transcriptions.create(
            model="gpt-4o-transcribe-diarize", file=audio, response_format="diarized_json", chunking_strategy="auto",
            known_speaker_names=["Sally"], known_speaker_references=[reference])
    check(type(diarized).__name__ == "TranscriptionDiarized", f"diarized_json parsed as {type(diarized).__name__}")
    speakers = {segment.speaker for segment in diarized.segments}
    check(len(speakers) == 2, f"two voices, {len(speakers)} speakers: {speakers}")
    check("Sally" in speakers, f"the known voice is not named: {speakers}")
    reference_turns = []
    with open(os.path.splitext(args.conversation)[0] + ".rttm") as rttm:
        for line in rttm:
            fields = line.split()
            reference_turns.append((float(fields[3]), float(fields[3]) + float(fields[4]), fields[7]))
    def spoken_by(time):
        return next((who for start, end, who in reference_turns if start <= time < end), None)
    named = [segment for segment in diarized.segments if segment.speaker == "Sally"]
    right = sum(1 for segment in named if spoken_by((segment.start + segment.end) / 2) == "flite-slt")
    check(named and right >= 0.9 * len(named), f"{right} of {len(named)} segments named Sally are hers")
    print(f"diarized_json: {len(diarized.segments)} segments, speakers {sorted(speakers)}, {right}/{len(named)} of Sally's are hers")

    # Over an hour, over 25 MB: transcribed whole by the fleet behind one request.
    start = time.monotonic()
    with open(args.long, "rb") as audio:
        long = client.audio.transcriptions.create(model="whisper-1", file=audio, response_format="verbose_json")
    elapsed = time.monotonic() - start
    check(long.duration > 3600, f"the long recording's duration is {long.duration} s")
    long_words = long.text.split()
    ratio = len(long_words) / len(book_words)
    # The recording holds the book's speech six times; the rest is quiet noise with nothing to say.
    check(4.5 <= ratio <= 7.5, f"the hour's transcript has {len(long_words)} words, {ratio:.2f} times the book's (expected about 6)")
    last = max(segment.end for segment in long.segments)
    check(last > 5 * 629, f"the last segment ends at {last:.0f} s: the end of the recording is missing")
    print(f"openai client: {long.duration / 60:.1f} min, {size / 1e6:.1f} MB transcribed in {elapsed:.1f} s "
          f"({len(long_words)} words, {ratio:.2f}x the book's, last segment ends at {last:.0f} s)")


if __name__ == "__main__":
    main()
