#!/usr/bin/env python3
"""Steno's POST /v1/audio/translations driven by the official `openai` Python client against a
running steno-api and a fleet whose backend is a real multilingual Whisper model (faster-whisper
`base` through scripts/whisper/server.py; scripts/api-test --translation).

Checks, each with an assertion that fails loudly:
- a German recording larger than OpenAI's 25 MB limit comes back whole, in English, through
  audio.translations.create (json, the client's default);
- verbose_json says English and covers the whole recording with segments in order.
"""
import argparse
import os
import re
import sys
import time

from openai import OpenAI

# Words the lecture's English translation holds whatever the model's wording: its trains, its
# places and the closing thanks. (`base` leaves some names and nouns as they were said, such as
# "Eisenbahn" and "Fürth": German function words are what shows an untranslated answer.)
EXPECTED = ["germany", "england", "berlin", "hamburg", "train", "locomotive", "time", "thank"]
GERMAN = ["und", "der", "die", "das", "nicht", "ist", "mit", "wir"]


def check(condition, message):
    if not condition:
        print(f"FAILED: {message}", file=sys.stderr)
        sys.exit(1)


def words(text):
    return re.findall(r"[a-zäöüß]+", text.lower())


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--base-url", required=True)
    parser.add_argument("--german", required=True, help="a German recording over 25 MB")
    args = parser.parse_args()
    client = OpenAI(base_url=args.base_url, api_key=os.environ["STENO_TEST_API_KEY"], max_retries=0, timeout=1800)
    size = os.path.getsize(args.german)
    check(size > 25 * 1024 * 1024, f"{args.german} is {size} bytes, not over 25 MB")

    started = time.monotonic()
    with open(args.german, "rb") as audio:
        translation = client.audio.translations.create(model="whisper-1", file=audio)
    elapsed = time.monotonic() - started
    found = [word for word in EXPECTED if any(w.startswith(word) for w in words(translation.text))]
    check(len(found) >= 6, f"the translation lacks the lecture's words ({found} of {EXPECTED}): {translation.text[:600]}")
    said = words(translation.text)
    german = sum(1 for w in said if w in GERMAN)
    check(len(said) > 250 and german <= len(said) // 50, f"{german} German words in {len(said)}: {translation.text[:600]}")
    # Read twice: both readings' openings are in the answer.
    check(translation.text.lower().count("good morning") >= 2, f"one reading is missing: {translation.text[:1200]}")
    print(f"openai client: {size / 1e6:.1f} MB of German translated in {elapsed:.1f} s: {translation.text[:200]}...")

    with open(args.german, "rb") as audio:
        verbose = client.audio.translations.create(model="whisper-1", file=audio, response_format="verbose_json")
    check(verbose.language == "english", f"verbose_json language {verbose.language}")
    check(verbose.duration > 170, f"verbose_json duration {verbose.duration}")
    starts = [segment.start for segment in verbose.segments]
    check(starts == sorted(starts) and starts[-1] > 150, f"segments out of order or short of the end: {starts[-5:]}")
    print("translations: json and verbose_json as the openai client reads them")


if __name__ == "__main__":
    main()
