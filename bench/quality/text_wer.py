#!/usr/bin/env python3
"""WER of Steno's transcripts against the text that was spoken.

    text_wer.py (--book BOOK_TXT | --text TEXT_FILE) RUN_DIR_OR_TRANSCRIPT_JSON...

--book reads bench/fidelity/fidelity's book.txt (kept as media/book.txt with --keep): chapters
separated by blank lines, each starting with a title line (chapter metadata, not spoken), then
`voice|sentence` lines and a `(fast)` marker; only the sentences are the reference. --text reads
any plain text as the reference.

Each argument is a run directory holding transcript.json (`steno transcript ID --format json`)
or such a file. The hypothesis is every unflagged segment's text in order (a segment with a
"flag" is text Steno's gates held back, left out as the txt export leaves it out). Words and the
alignment are score.py's: lowercase letters, digits and apostrophes, anything else separating
words; WER = (substitutions + deletions + insertions) / reference words.

The fidelity bench itself compares chunked transcripts with the same model's one-shot ones;
this compares them with the truth, so that the model's own errors count too.
"""

import argparse
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from score import align, load_export, tokens  # noqa: E402


def book_sentences(path):
    """The spoken sentences of a fidelity book.txt, in order."""
    sentences, expect_title = [], True
    with open(path) as f:
        for line in f.read().split("\n"):
            line = line.strip()
            if not line:
                expect_title = True
                continue
            if expect_title:
                expect_title = False   # the chapter's title: metadata, not spoken
                continue
            if line == "(fast)":
                continue
            if "|" not in line:
                raise SystemExit("text_wer.py: %s: %r is neither a title, (fast) nor voice|sentence" % (path, line))
            sentences.append(line.split("|", 1)[1])
    return sentences


def wer(ref, hyp):
    counts = dict(eq=0, sub=0, ins=0)
    counts["del"] = 0
    for op, _, _ in align(ref, hyp):
        counts[op] += 1
    errors = counts["sub"] + counts["del"] + counts["ins"]
    return dict(ref_words=len(ref), words=len(hyp), sub=counts["sub"], dele=counts["del"], ins=counts["ins"],
                wer=round(100.0 * errors / len(ref), 2) if ref else (0.0 if not hyp else 100.0))


def run_words(path):
    """Unflagged words of a run directory's transcript.json (or of that file), and the run's
    name and run.json when there is one."""
    directory = path if os.path.isdir(path) else os.path.dirname(path)
    transcript = os.path.join(path, "transcript.json") if os.path.isdir(path) else path
    with open(transcript) as f:
        segments, notes = load_export(json.load(f))
    run = {}
    if os.path.exists(os.path.join(directory, "run.json")):
        with open(os.path.join(directory, "run.json")) as f:
            run = json.load(f)
    words = [t for s in segments if s["flag"] is None for t, _, _ in s["tokens"]]
    flagged = sum(len(s["tokens"]) for s in segments if s["flag"] is not None)
    return os.path.basename(os.path.normpath(directory)), run, words, flagged, notes


def self_test():
    import tempfile
    book = "Title One\nslt|Hello there, forty-two cats.\n(fast)\nkal|Why?\n\nTitle Two\nslt|Goodbye.\n"
    with tempfile.TemporaryDirectory() as d:
        with open(os.path.join(d, "book.txt"), "w") as f:
            f.write(book)
        check = book_sentences(os.path.join(d, "book.txt"))
        assert check == ["Hello there, forty-two cats.", "Why?", "Goodbye."], check
        ref = tokens(" ".join(check))
        export = dict(chapters=[dict(number=1, state="succeeded", segments=[
            dict(start=0, end=2, text=" Hello there, 42 cats."),
            dict(start=2, end=3, text=" Thank you.", flag="known_hallucination"),
            dict(start=3, end=4, text=" Why? Goodbye. Bye.")])])
        with open(os.path.join(d, "transcript.json"), "w") as f:
            json.dump(export, f)
        name, _, words, flagged, _ = run_words(d)
        r = wer(ref, words)
        # "forty two" against "42": a substitution and a deletion; "bye" inserted; the
        # flagged "Thank you." left out.
        got = (flagged, r["ref_words"], r["sub"], r["dele"], r["ins"], r["wer"])
        assert got == (2, 7, 1, 1, 1, round(300.0 / 7, 2)), got
    print("text_wer.py self-test: ok")


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--book", help="a fidelity book.txt (titles and voice|sentence lines)")
    ap.add_argument("--text", help="a plain text file")
    ap.add_argument("--json", help="write the figures to this file")
    ap.add_argument("--self-test", action="store_true")
    ap.add_argument("runs", nargs="*")
    args = ap.parse_args(argv)
    if args.self_test:
        self_test()
        return 0
    if bool(args.book) == bool(args.text) or not args.runs:
        ap.error("one of --book and --text, and at least one run, are needed")
    if args.book:
        ref = tokens(" ".join(book_sentences(args.book)))
    else:
        with open(args.text) as f:
            ref = tokens(f.read())
    rows, out = [], []
    for path in args.runs:
        name, run, words, flagged, notes = run_words(path)
        r = dict(name=name, shape=run.get("shape"), granularities=run.get("granularities"),
                 chunk_seconds=run.get("chunk_seconds"), flagged_words=flagged, notes=notes)
        r.update(wer(ref, words))
        out.append(r)
        rows.append("| %s | %s | %s | %d | %d | %.2f | %d/%d/%d | %d |" % (
            r["shape"] or name, r["granularities"] or "-", r["chunk_seconds"] if r["chunk_seconds"] is not None else "-",
            r["words"], r["ref_words"], r["wer"], r["sub"], r["dele"], r["ins"], flagged))
    print("| shape | granularities | chunk s | words | text words | WER % vs text | sub/del/ins | flagged words |")
    print("|---|---|---|---|---|---|---|---|")
    print("\n".join(rows))
    for r in out:
        for note in r["notes"]:
            print("note: %s: %s" % (r["name"], note))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(out, f, indent=1, sort_keys=True)
            f.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
