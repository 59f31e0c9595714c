#!/usr/bin/env python3
"""Compares Steno's transcripts with a one-shot reference of the same Whisper model.

    compare.py --reference DIR --chapters TSV [--details FILE] [--examples N] RUN_DIR...
    compare.py --self-test

DIR holds chapter-N.json: the server's verbose_json answer (faster-whisper shape, word and
segment granularities) to one request with the whole chapter N. TSV holds one line per chapter:
number, start and end in seconds on the book's clock (reference times are chapter-relative and
are moved by the start). Each RUN_DIR holds run.json (shape, granularities, chunk_seconds,
wall_seconds), transcript.json (`steno transcript --format json`), optionally transcript.txt
(the text export, checked against the JSON) and chunks.json (the chunk rows: where the cuts are).

Per run, against the reference, chapter by chapter (words compared as lowercase letters and
digits; a word that has none, such as a lone "-", is left out):

- WER: (substituted + deleted + inserted) / reference words, from a Levenshtein alignment.
- doubled: inserted words that repeat the 1-4 words right before or after them in Steno's
  output (a run spoken once but written twice, the typical defect at a chunk cut).
- dropped: reference words deleted in Steno's output; inserted: Steno words the reference
  does not have (doubled ones included). Next to a dropped word, the cheapest alignment may
  pair a doubled word with the dropped one as a substitution: such a pair counts as one word
  doubled (inserted) and one dropped. sub/del/ins are the alignment's own counts. "(at cuts)": how many of them lie within 3 s of a cut
  (the middle of the overlap of two neighbouring chunks, from chunks.json), placed by the
  reference's clock: a dropped word at its own time, an inserted one at the end of the
  reference word before it.
- . ? ! kept, commas kept, capitals kept: of the reference words ending a sentence, ending in a
  comma, or starting with a capital, the share whose aligned Steno word does the same (a
  dropped word keeps nothing). added . ? !: Steno words ending a sentence where the aligned
  reference word does not (or that have no reference word).
- segment starts: each Steno segment's first word that the alignment pairs with a reference
  word (among its first 4 words) gives the reference time; off > 1 s counts the segments whose
  start is more than 1 s from it, max off the largest distance, out of order the segments that
  start before the segment before them. words > 1 s off: Steno words with times whose start is
  more than 1 s from the reference word they equal.
"""

import argparse
import json
import os
import re
import sys

SENTENCE_END = ".?!"
AT_CUT = 3.0  # seconds: a defect this close to a cut is counted "at cuts"
CLOSERS = "\"')]}\u201d\u2019"


# --------------------------------------------------------------------------------------------
# words


def norm(word):
    """What two renderings of one spoken word share: lowercase letters and digits."""
    return "".join(ch for ch in word.lower() if ch.isalnum())


def final_mark(word):
    """The sentence-final mark (. ? !) or comma a word ends with, closing quotes ignored."""
    w = word.rstrip(CLOSERS)
    if w and w[-1] in SENTENCE_END + ",":
        return w[-1]
    return ""


def ends_sentence(word):
    return final_mark(word) in tuple(SENTENCE_END)


def capitalised(word):
    for ch in word:
        if ch.isalpha():
            return ch.isupper()
    return False


def join_pieces(raw):
    """faster-whisper's words: a piece without a leading space continues the word before it
    (" 9" ",000" -> "9,000", " twenty" "-four" -> "twenty-four"). raw: (word, start, end)."""
    words = []
    for text, start, end in raw:
        stripped = text.strip()
        if not stripped:
            continue
        if words and text[:1] and not text[:1].isspace():
            w, s, e = words[-1]
            words[-1] = (w + stripped, s, max(e, end))
        else:
            words.append((stripped, start, end))
    return words


# --------------------------------------------------------------------------------------------
# alignment


def align(ref, hyp):
    """Levenshtein alignment of two lists of normalised words. Returns a list of
    (op, i, j) with op in eq, sub, del (ref[i] missing from hyp, j None), ins (hyp[j] not in
    ref, i None), in order."""
    n, m = len(ref), len(hyp)
    # cost[i][j]: edit distance of ref[:i] and hyp[:j]
    cost = [[0] * (m + 1) for _ in range(n + 1)]
    for i in range(1, n + 1):
        cost[i][0] = i
    for j in range(1, m + 1):
        cost[0][j] = j
    for i in range(1, n + 1):
        row, prev, r = cost[i], cost[i - 1], ref[i - 1]
        for j in range(1, m + 1):
            diag = prev[j - 1] + (0 if r == hyp[j - 1] else 1)
            up = prev[j] + 1
            left = row[j - 1] + 1
            row[j] = min(diag, up, left)
    ops = []
    i, j = n, m
    while i > 0 or j > 0:
        if i > 0 and j > 0 and cost[i][j] == cost[i - 1][j - 1] + (0 if ref[i - 1] == hyp[j - 1] else 1):
            ops.append(("eq" if ref[i - 1] == hyp[j - 1] else "sub", i - 1, j - 1))
            i, j = i - 1, j - 1
        elif j > 0 and cost[i][j] == cost[i][j - 1] + 1:
            ops.append(("ins", None, j - 1))
            j -= 1
        else:
            ops.append(("del", i - 1, None))
            i -= 1
    ops.reverse()
    return ops


def doubled_runs(hyp, candidates):
    """Which of the candidate hyp positions (words the alignment could not pair as equal) are
    extra copies: runs of 1-4 words written several times in a row (a chain of equal runs).
    A chain of c copies holds c - 1 extra ones, at most as many as its candidate copies (a
    copy paired as equal is one the reference has). Returns [(j, length)], longest runs first."""
    found = []
    cand = set(candidates)
    used = set()
    for j in sorted(cand):
        if j in used:
            continue
        for length in range(4, 0, -1):
            run = range(j, j + length)
            if j + length > len(hyp) or any(p not in cand or p in used for p in run):
                continue
            piece = hyp[j:j + length]
            first = j
            while first - length >= 0 and hyp[first - length:first] == piece:
                first -= length
            last = j + length
            while hyp[last:last + length] == piece:
                last += length
            copies = (last - first) // length
            if copies < 2:
                continue
            spare = [c for c in range(first, last, length)
                     if all(p in cand and p not in used for p in range(c, c + length))]
            for c in spare[:copies - 1]:
                found.append((c, length))
            for c in spare:
                used.update(range(c, c + length))
            break
    return sorted(found)


# --------------------------------------------------------------------------------------------
# reading


def load_reference(directory, chapters_tsv):
    """Returns {chapter number: [(word, start, end)]} with times on the book's clock."""
    starts = {}
    with open(chapters_tsv) as f:
        for line in f:
            if line.strip():
                number, start, _end = line.split("\t")[:3]
                starts[int(number)] = float(start)
    reference = {}
    for number, offset in sorted(starts.items()):
        path = os.path.join(directory, "chapter-%d.json" % number)
        with open(path) as f:
            answer = json.load(f)
        raw = answer.get("words")
        if raw is None:  # words nested in segments only
            raw = [w for s in answer.get("segments") or [] for w in (s.get("words") or [])]
        if not raw:
            raise SystemExit("compare: %s has no word times (ask for timestamp_granularities[]=word)" % path)
        words = join_pieces([(w["word"], float(w["start"]), float(w["end"])) for w in raw])
        text_tokens = answer.get("text", "").split()
        if [w for w, _, _ in words] != text_tokens:
            sys.stderr.write("compare: note: chapter %d: the reference's joined words differ from its text\n" % number)
        reference[number] = [(w, s + offset, e + offset) for w, s, e in words]
    return reference


def load_steno(path):
    """Returns {chapter number: [segment]}, each segment {start, end, tokens: [(word, start or
    None, end or None)]}, and a list of notes about the export."""
    with open(path) as f:
        transcript = json.load(f)
    chapters, notes = {}, []
    for chapter in transcript["chapters"]:
        segments = []
        for seg in chapter.get("segments") or []:
            tokens = seg["text"].split()
            words = seg.get("words")
            if words and [w["word"] for w in words] == tokens:
                timed = [(w["word"], float(w["start"]), float(w["end"])) for w in words]
            else:
                if words:
                    notes.append("chapter %d segment at %.2f s: its words %r are not its text %r"
                                 % (chapter["number"], seg["start"], [w["word"] for w in words][:8],
                                    seg["text"][:60]))
                timed = [(t, None, None) for t in tokens]
            segments.append({"start": float(seg["start"]), "end": float(seg["end"]), "tokens": timed})
        chapters[chapter["number"]] = segments
        if chapter.get("text") is not None:
            seg_words = [norm(t) for s in segments for t, _, _ in s["tokens"] if norm(t)]
            text_words = [w for w in map(norm, chapter["text"].split()) if w]
            if seg_words != text_words:
                notes.append("chapter %d: the chapter's text is not its segments' words" % chapter["number"])
        if chapter.get("state") != "succeeded":
            notes.append("chapter %d is %s" % (chapter["number"], chapter.get("state")))
    return transcript, chapters, notes


def check_text_export(path, transcript):
    """The text export must hold the JSON's words (title and chapter headings aside)."""
    with open(path) as f:
        blocks = [b.strip() for b in re.split(r"\n\s*\n", f.read()) if b.strip()]
    if blocks and transcript.get("title") and blocks[0] == transcript["title"]:
        blocks = blocks[1:]
    blocks = [b for b in blocks if not re.match(r"^Chapter \d+(: .*)?$", b)]
    txt = [w for w in map(norm, " ".join(blocks).split()) if w]
    js = [w for c in transcript["chapters"] for s in c.get("segments") or []
          for w in map(norm, s["text"].split()) if w]
    if txt != js:
        return ["the text export's words (%d) differ from the JSON's (%d)" % (len(txt), len(js))]
    return []


def load_cuts(path):
    """Cut points per chapter index (0-based in the table, 1-based here): the middle of each
    overlap between neighbouring chunks."""
    cuts = {}
    if not path or not os.path.exists(path):
        return cuts
    with open(path) as f:
        rows = json.load(f) or []
    by_chapter = {}
    for row in rows:
        if row.get("state") == "split":
            continue
        by_chapter.setdefault(row["chapter_index"] + 1, []).append(row)
    for number, rows in by_chapter.items():
        rows.sort(key=lambda r: r["start_seconds"])
        cuts[number] = [(a["end_seconds"] + b["start_seconds"]) / 2 for a, b in zip(rows, rows[1:])]
    return cuts


# --------------------------------------------------------------------------------------------
# comparing


def difference_runs(ops):
    """(start, end) of each run of alignment ops other than "eq", in order."""
    k = 0
    while k < len(ops):
        if ops[k][0] == "eq":
            k += 1
            continue
        end = k
        while end < len(ops) and ops[end][0] != "eq":
            end += 1
        yield k, end
        k = end


def compare(reference, steno, cuts=None, examples=3):
    """reference: {chapter: [(word, start, end)]}; steno: {chapter: [segment]} as load_steno
    gives; cuts: {chapter: [seconds]}. Returns (counts, every defect as a line, up to
    `examples` lines per kind of defect)."""
    cuts = cuts or {}
    r = dict(ref_words=0, hyp_words=0, eq=0, sub=0, dele=0, ins=0, doubled=0, doubled_runs=0,
             doubled_at_cut=0, inserted=0, inserted_at_cut=0, dropped=0, dropped_at_cut=0,
             final_ref=0, final_kept=0, final_added=0, final_added_at_cut=0, comma_ref=0,
             comma_kept=0, caps_ref=0, caps_kept=0, segments=0, starts_matched=0, starts_off=0,
             max_off=0.0, out_of_order=0, timed_words=0, words_off=0,
             cuts=sum(len(v) for v in cuts.values()))
    lines = []
    examples_of = {}

    def example(kind, text):
        examples_of.setdefault(kind, [])
        if len(examples_of[kind]) < examples:
            examples_of[kind].append(text)
        lines.append("%s: %s" % (kind, text))

    def nearest_cut(number, t):
        if t is None or not cuts.get(number):
            return None
        return min(cuts[number], key=lambda x: abs(x - t))

    def near_cut(number, t):
        c = nearest_cut(number, t)
        return "" if c is None else " (cut at %.2f s, %+.2f s away)" % (c, t - c)

    def at_cut(number, t):
        c = nearest_cut(number, t)
        return c is not None and abs(t - c) <= AT_CUT

    previous_start = None
    for number in sorted(set(reference) | set(steno)):
        ref = [(w, s, e) for w, s, e in reference.get(number, []) if norm(w)]
        segments = steno.get(number, [])
        hyp, seg_of = [], []
        for k, seg in enumerate(segments):
            for tok in seg["tokens"]:
                if norm(tok[0]):
                    hyp.append(tok)
                    seg_of.append(k)
        ref_n = [norm(w) for w, _, _ in ref]
        hyp_n = [norm(w) for w, _, _ in hyp]
        ops = align(ref_n, hyp_n)
        r["ref_words"] += len(ref)
        r["hyp_words"] += len(hyp)
        # Where each Steno word is in the book, by the reference's clock: the time of the
        # reference word it is paired with, or for an inserted word the end of the reference
        # word before it (Steno's own times may be spread, not heard).
        ref_of_hyp, anchor = {}, {}
        last_end = ref[0][1] if ref else 0.0
        for op, i, j in ops:
            if i is not None:
                last_end = ref[i][2]
            if j is not None:
                anchor[j] = ref[i][1] if i is not None else last_end
        for op, i, j in ops:
            r[{"eq": "eq", "sub": "sub", "del": "dele", "ins": "ins"}[op]] += 1
            if op in ("eq", "sub"):
                ref_of_hyp[j] = i
        # Doubled words: in each run of differences, Steno words that repeat their neighbours.
        # Next to a dropped word, the alignment pairs a doubled word with the dropped one (a
        # substitution, as cheap as a deletion plus an insertion): such a pair counts as one
        # word inserted (doubled) and one dropped.
        doubled = []
        for k, end in difference_runs(ops):
            doubled += doubled_runs(hyp_n, [j for _, _, j in ops[k:end] if j is not None])
        doubled_at = {p for j, length in doubled for p in range(j, j + length)}
        dropped = sorted([i for op, i, _ in ops if op == "del"]
                         + [i for op, i, j in ops if op == "sub" and j in doubled_at])
        extra = sorted([j for op, _, j in ops if op == "ins"]
                       + [j for op, _, j in ops if op == "sub" and j in doubled_at])
        r["dropped"] += len(dropped)
        r["dropped_at_cut"] += sum(at_cut(number, ref[i][1]) for i in dropped)
        r["inserted"] += len(extra)
        r["inserted_at_cut"] += sum(at_cut(number, anchor[j]) for j in extra)

        def context(words, lo, hi, mark_lo, mark_hi):
            out = []
            for p in range(max(0, lo), min(len(words), hi)):
                w = words[p][0]
                out.append("[" + w + "]" if mark_lo <= p < mark_hi else w)
            return " ".join(out)

        # every difference, for the details file: runs of ops other than eq
        for k, end in difference_runs(ops):
            rs = [ref[i][0] for _, i, _ in ops[k:end] if i is not None]
            hs = [hyp[j][0] for _, _, j in ops[k:end] if j is not None]
            t = next((ref[i][1] for _, i, _ in ops[k:end] if i is not None), None)
            if t is None:
                t = anchor[next(j for _, _, j in ops[k:end] if j is not None)]
            lines.append("differs: chapter %d at %.2f s%s: reference %r, Steno %r"
                         % (number, t, near_cut(number, t), " ".join(rs), " ".join(hs)))
        for j, length in doubled:
            r["doubled"] += length
            r["doubled_runs"] += 1
            t = anchor[j]
            if at_cut(number, t):
                r["doubled_at_cut"] += length
            example("doubled", "chapter %d at %.2f s%s: ... %s ..."
                    % (number, t, near_cut(number, t), context(hyp, j - 5, j + length + 5, j, j + length)))
        # inserted words at cuts (doubled or not), by runs
        run = []
        for j in extra + [None]:
            if j is not None and (not run or j == run[-1] + 1):
                run.append(j)
                continue
            if run and any(at_cut(number, anchor[p]) for p in run):
                t = anchor[run[0]]
                example("inserted at a cut", "chapter %d at %.2f s%s: ... %s ..."
                        % (number, t, near_cut(number, t), context(hyp, run[0] - 5, run[-1] + 6, run[0], run[-1] + 1)))
            run = [j]
        # dropped words, by runs
        run = []
        for i in dropped + [None]:
            if i is not None and (not run or i == run[-1] + 1):
                run.append(i)
                continue
            if run:
                t = ref[run[0]][1]
                example("dropped", "chapter %d at %.2f s%s: reference ... %s ..."
                        % (number, t, near_cut(number, t), context(ref, run[0] - 5, run[-1] + 6, run[0], run[-1] + 1)))
            run = [i]
        # punctuation and capitals
        for op, i, j in ops:
            # A doubled word paired with a dropped one: the dropped word keeps nothing.
            paired = i is not None and j is not None and j not in doubled_at
            if i is not None:
                rw = ref[i][0]
                hw = hyp[j][0] if paired else None
                mark = final_mark(rw)
                if ends_sentence(rw):
                    r["final_ref"] += 1
                    if hw is not None and final_mark(hw) == mark:
                        r["final_kept"] += 1
                    else:
                        example("lost . ? !", "chapter %d at %.2f s: reference %r, Steno %r" % (number, ref[i][1], rw, hw))
                elif mark == ",":
                    r["comma_ref"] += 1
                    if hw is not None and final_mark(hw) == ",":
                        r["comma_kept"] += 1
                if capitalised(rw):
                    r["caps_ref"] += 1
                    if hw is not None and capitalised(hw):
                        r["caps_kept"] += 1
            if j is not None:
                rw = ref[i][0] if paired else None
                if ends_sentence(hyp[j][0]) and (rw is None or not ends_sentence(rw)):
                    r["final_added"] += 1
                    t = anchor[j]
                    r["final_added_at_cut"] += at_cut(number, t)
                    example("added . ? !", "chapter %d at %.2f s%s: Steno %r, reference %r"
                            % (number, t, near_cut(number, t), hyp[j][0], rw))
        # word times
        for op, i, j in ops:
            if op == "eq" and hyp[j][1] is not None:
                r["timed_words"] += 1
                if abs(hyp[j][1] - ref[i][1]) > 1.0:
                    r["words_off"] += 1
                    example("word > 1 s off", "chapter %d: %r at %.2f s, reference %.2f s%s"
                            % (number, hyp[j][0], hyp[j][1], ref[i][1], near_cut(number, ref[i][1])))
        # segment starts
        first_of_segment = {}
        for j, k in enumerate(seg_of):
            first_of_segment.setdefault(k, j)
        for k, seg in enumerate(segments):
            r["segments"] += 1
            if previous_start is not None and seg["start"] < previous_start - 1e-6:
                r["out_of_order"] += 1
                example("out of order", "chapter %d: segment %d starts at %.2f s, the one before at %.2f s: %r"
                        % (number, k, seg["start"], previous_start, " ".join(t for t, _, _ in seg["tokens"][:8])))
            previous_start = seg["start"]
            j0 = first_of_segment.get(k)
            if j0 is None:
                continue
            matched = None
            for j in range(j0, min(j0 + 4, len(hyp))):
                if seg_of[j] != k:
                    break
                if j in ref_of_hyp and j not in doubled_at:
                    matched = ref_of_hyp[j]
                    break
            if matched is None:
                continue
            r["starts_matched"] += 1
            off = seg["start"] - ref[matched][1]
            r["max_off"] = max(r["max_off"], abs(off))
            if abs(off) > 1.0:
                r["starts_off"] += 1
                example("start > 1 s off", "chapter %d: segment %d starts at %.2f s, reference %r at %.2f s (%+.2f s)%s: %r"
                        % (number, k, seg["start"], ref[matched][0], ref[matched][1], off,
                           near_cut(number, ref[matched][1]), " ".join(t for t, _, _ in seg["tokens"][:8])))
    r["wer"] = (r["sub"] + r["dele"] + r["ins"]) / r["ref_words"] if r["ref_words"] else 0.0
    return r, lines, examples_of


# --------------------------------------------------------------------------------------------
# output


COLUMNS = ["shape", "granularities", "chunk s", "wall s", "cuts", "ref words", "Steno words",
           "WER %", "sub/del/ins", "doubled (at cuts)", "inserted (at cuts)", "dropped (at cuts)",
           ". ? ! kept", "added . ? ! (at cuts)", "commas kept", "capitals kept", "segments",
           "starts > 1 s off", "max start off s", "out of order", "words > 1 s off"]


def pct(kept, total):
    return "%d/%d (%.0f%%)" % (kept, total, 100.0 * kept / total) if total else "-"


def row(run, r):
    return [run.get("shape", "?"), run.get("granularities", "?"), "%g" % run.get("chunk_seconds", 0),
            "%.1f" % run.get("wall_seconds", 0), str(r["cuts"]), str(r["ref_words"]), str(r["hyp_words"]),
            "%.1f" % (100 * r["wer"]), "%d/%d/%d" % (r["sub"], r["dele"], r["ins"]),
            "%d (%d)" % (r["doubled"], r["doubled_at_cut"]), "%d (%d)" % (r["inserted"], r["inserted_at_cut"]),
            "%d (%d)" % (r["dropped"], r["dropped_at_cut"]),
            pct(r["final_kept"], r["final_ref"]), "%d (%d)" % (r["final_added"], r["final_added_at_cut"]),
            pct(r["comma_kept"], r["comma_ref"]), pct(r["caps_kept"], r["caps_ref"]),
            str(r["segments"]), "%d/%d" % (r["starts_off"], r["starts_matched"]), "%.2f" % r["max_off"],
            str(r["out_of_order"]),
            "%d/%d" % (r["words_off"], r["timed_words"]) if r["timed_words"] else "- (no word times)"]


def table(rows):
    out = ["| " + " | ".join(COLUMNS) + " |", "|" + "---|" * len(COLUMNS)]
    out += ["| " + " | ".join(cells) + " |" for cells in rows]
    return "\n".join(out)


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--reference", help="directory of chapter-N.json one-shot answers")
    ap.add_argument("--chapters", help="TSV: chapter number, start, end (seconds)")
    ap.add_argument("--details", help="write every defect found, per run, to this file")
    ap.add_argument("--examples", type=int, default=3, help="examples per kind and run printed (3)")
    ap.add_argument("--summary-json", help="write every run's counts (and its run.json) to this file, for tests")
    ap.add_argument("--self-test", action="store_true", help="check the comparer itself and exit")
    ap.add_argument("runs", nargs="*", help="run directories")
    args = ap.parse_args(argv)
    if args.self_test:
        self_test()
        print("compare.py self-test: ok")
        return 0
    if not args.reference or not args.chapters or not args.runs:
        ap.error("--reference, --chapters and at least one run directory are needed")
    reference = load_reference(args.reference, args.chapters)
    rows, details, printed, summary = [], [], [], []
    for directory in args.runs:
        with open(os.path.join(directory, "run.json")) as f:
            run = json.load(f)
        transcript, steno, notes = load_steno(os.path.join(directory, "transcript.json"))
        text_path = os.path.join(directory, "transcript.txt")
        if os.path.exists(text_path):
            notes += check_text_export(text_path, transcript)
        cuts = load_cuts(os.path.join(directory, "chunks.json"))
        r, lines, examples_of = compare(reference, steno, cuts, args.examples)
        rows.append(row(run, r))
        summary.append(dict(run=run, counts=r, notes=notes))
        name = "%s, %s, %g s chunks" % (run.get("shape"), run.get("granularities"), run.get("chunk_seconds", 0))
        details.append("## " + name)
        details.append("cuts (s): " + "; ".join("chapter %d: %s" % (n, ", ".join("%.2f" % c for c in cs) or "none")
                                                 for n, cs in sorted(cuts.items())))
        details += ["note: " + n for n in notes] + lines + [""]
        shown = ["note: " + n for n in notes]
        for kind in ("doubled", "inserted at a cut", "dropped", "added . ? !", "lost . ? !", "start > 1 s off", "out of order", "word > 1 s off"):
            shown += ["%s: %s" % (kind, e) for e in examples_of.get(kind, [])]
        if shown:
            printed.append("- " + name + ":\n" + "\n".join("  - " + s for s in shown))
    print(table(rows))
    if printed:
        print("\nExamples (at most %d of each kind per run; all of them with --details):\n" % args.examples)
        print("\n".join(printed))
    if args.details:
        with open(args.details, "w") as f:
            f.write("\n".join(details) + "\n")
    if args.summary_json:
        with open(args.summary_json, "w") as f:
            json.dump(summary, f, indent=1, sort_keys=True)
    return 0


# --------------------------------------------------------------------------------------------
# self-test


def _segments(text, start=0.0, step=0.5, per_segment=None, timed=True):
    """Steno-like segments from text: one word every `step` s, a segment per sentence."""
    words = text.split()
    segments, current, t = [], [], start
    for w in words:
        current.append((w, t if timed else None, t + step * 0.8 if timed else None))
        t += step
        if ends_sentence(w) or (per_segment and len(current) >= per_segment):
            segments.append(current)
            current = []
    if current:
        segments.append(current)
    out = []
    for seg in segments:
        s = seg[0][1] if timed else start
        e = seg[-1][2] if timed else start
        out.append({"start": s, "end": e, "tokens": seg})
    return out


def self_test():
    def check(cond, what):
        if not cond:
            raise AssertionError("self-test: " + what)

    # normalising and joining
    check(norm("Twenty-four,") == "twentyfour", "norm twenty-four")
    check(norm("9,000") == "9000" and norm("-") == "", "norm digits and lone marks")
    check(final_mark('stop."') == "." and final_mark("well,") == "," and final_mark("9,000") == "", "final marks")
    check(join_pieces([(" Last", 0, 1), (" 9", 1, 2), (",000", 2, 3), (" twenty", 3, 4), ("-four.", 4, 5)])
          == [("Last", 0, 1), ("9,000", 1, 3), ("twenty-four.", 3, 5)], "join pieces")

    # alignment: known distances
    def dist(a, b):
        ops = align(a.split(), b.split())
        check([j for op, _, j in ops if j is not None] == list(range(len(b.split()))), "hyp order")
        check([i for op, i, _ in ops if i is not None] == list(range(len(a.split()))), "ref order")
        return sum(op != "eq" for op, _, _ in ops)
    check(dist("a b c", "a b c") == 0, "equal")
    check(dist("a b c", "a x c") == 1, "one substitution")
    check(dist("a b c d", "a c d") == 1, "one deletion")
    check(dist("kitten sitting on", "sitting kitten on") == 2, "swap costs 2")
    check(dist("", "a b") == 2 and dist("a b", "") == 2, "empty sides")

    text = ("The keeper climbed the stairs at 9,000 feet. Was it twenty-four, or more? "
            "Nobody knew, said Mara. The gluten-free bread sold out by noon!")
    ref_words = [(w, 0.5 * k, 0.5 * k + 0.4) for k, w in enumerate(text.split())]
    reference = {1: ref_words}

    # 1. the reference against itself: nothing wrong
    r, _, _ = compare(reference, {1: _segments(text)})
    check(r["wer"] == 0 and r["doubled"] == 0 and r["dele"] == 0 and r["ins"] == 0, "self: zero errors")
    check(r["final_kept"] == r["final_ref"] == 4, "self: . ? ! kept %r" % ((r["final_kept"], r["final_ref"]),))
    check(r["comma_kept"] == r["comma_ref"] == 2 and r["caps_kept"] == r["caps_ref"] == 5, "self: commas, capitals")
    check(r["starts_off"] == 0 and r["max_off"] == 0 and r["out_of_order"] == 0, "self: times")
    check(r["segments"] == 4 and r["starts_matched"] == 4 and r["words_off"] == 0, "self: segments")

    # 2. a cut that doubles "at 9,000" and drops "Nobody", loses a comma and a capital
    bad = text.replace("at 9,000 feet.", "at 9,000 at 9,000 feet.").replace("Nobody knew,", "knew").replace(
        "The gluten", "the gluten")
    r, lines, ex = compare(reference, {1: _segments(bad)})
    n = len(ref_words)
    check(r["doubled"] == 2 and r["doubled_runs"] == 1, "doubled run of 2: %r" % (r,))
    check(r["ins"] == 2 and r["dele"] == 1 and r["sub"] == 0, "ins/del: %r" % (r,))
    check(r["inserted"] == 2 and r["dropped"] == 1, "inserted/dropped: %r" % (r,))
    check(abs(r["wer"] - 3 / n) < 1e-9, "WER 3/%d" % n)
    check(r["comma_kept"] == 1 and r["caps_kept"] == 3, "lost comma and capitals: %r" % (r,))
    check("[at] [9,000]" in ex["doubled"][0], "doubled example marks the run: %r" % ex["doubled"])
    check("[Nobody]" in ex["dropped"][0], "dropped example: %r" % ex["dropped"])

    # a word written three times where it was said once: two extra copies, not three
    r, _, _ = compare({1: [(w, k, k + 1) for k, w in enumerate("we go home".split())]},
                      {1: _segments("we go go go home")})
    check(r["doubled"] == 2 and r["inserted"] == 2, "tripled word: %r" % (r,))
    r, _, _ = compare({1: [(w, k, k + 1) for k, w in enumerate("with a sea be grey".split())]},
                      {1: _segments("with a c v b b")})
    check(r["doubled"] == 1, "two inserted copies of a new word: one doubled: %r" % (r,))
    # a single doubled word, and a repeat the reference itself has is not a doubling
    r, _, _ = compare({1: [(w, k, k + 1) for k, w in enumerate("no no we go home".split())]},
                      {1: _segments("no no we go go home")})
    check(r["doubled"] == 1 and r["ins"] == 1 and r["wer"] == 0.2, "one doubled word: %r" % (r,))
    r, _, _ = compare({1: [(w, k, k + 1) for k, w in enumerate("no no we go home".split())]},
                      {1: _segments("no no we go home")})
    check(r["doubled"] == 0 and r["wer"] == 0, "the reference's own repeat")
    # an inserted word that repeats nothing is inserted, not doubled
    r, _, _ = compare({1: [(w, k, k + 1) for k, w in enumerate("we go home".split())]},
                      {1: _segments("we go um home")})
    check(r["doubled"] == 0 and r["ins"] == 1, "plain insertion")

    # 3. times: a segment 1.5 s late, then one out of order; an added sentence end
    segs = _segments(text)
    segs[1]["start"] += 1.5
    segs[2]["start"] = segs[1]["start"] - 0.2
    r, _, _ = compare(reference, {1: segs})
    check(r["starts_off"] == 2 and abs(r["max_off"] - 1.5) < 1e-9, "late starts: %r" % (r,))
    check(r["out_of_order"] == 1, "out of order: %r" % (r,))
    r, _, ex = compare(reference, {1: _segments(text.replace("stairs at", "stairs. At"))})
    check(r["final_added"] == 1 and r["caps_kept"] == 5, "added sentence end: %r" % (r,))

    # 4. untimed words (json-only): the segment start is all there is
    r, _, _ = compare(reference, {1: [{"start": 0.0, "end": 20.0, "tokens": [(w, None, None) for w in text.split()]}]})
    check(r["wer"] == 0 and r["timed_words"] == 0 and r["starts_off"] == 0, "untimed")

    # at cuts: a doubled run and a dropped word next to a cut, an insertion far from it
    words = "one two three four five six seven eight nine ten eleven twelve".split()
    ref_t = {1: [(w, float(k), k + 0.5) for k, w in enumerate(words)]}
    hyp_words = "one two three four four five six seven eight nine ten um eleven twelve".split()
    hyp_words.remove("seven")
    r, _, _ = compare(ref_t, {1: _segments(" ".join(hyp_words), step=1.0, per_segment=5)}, cuts={1: [4.2]})
    check(r["doubled"] == 1 and r["doubled_at_cut"] == 1, "doubled at a cut: %r" % (r,))
    check(r["inserted"] == 2 and r["inserted_at_cut"] == 1, "insertions at cuts: %r" % (r,))
    check(r["dropped"] == 1 and r["dropped_at_cut"] == 1 and r["cuts"] == 1, "dropped at a cut: %r" % (r,))

    # a dropped word right before a doubled run: the alignment substitutes, the count does not
    ref_t = {1: [(w, float(k), k + 0.5) for k, w in enumerate("he said proudly the captain left".split())]}
    r, _, ex = compare(ref_t, {1: _segments("he said the captain the captain left")})
    check(r["sub"] + r["dele"] + r["ins"] == 2 and abs(r["wer"] - 2 / 6) < 1e-9, "edit distance 2: %r" % (r,))
    check(r["doubled"] == 2 and r["inserted"] == 2 and r["dropped"] == 1, "drop next to a doubling: %r" % (r,))
    check("[proudly]" in ex["dropped"][0], "the dropped word is named: %r" % ex)
    r, _, ex = compare({1: [(w, float(k), k + 0.5) for k, w in enumerate("he said proudly. The captain left".split())]},
                       {1: _segments("he said The captain The captain left")})
    check(r["final_ref"] == 1 and r["final_kept"] == 0 and r["caps_kept"] == r["caps_ref"] == 1,
          "the dropped word keeps no punctuation: %r" % (r,))

    # 5. cuts from chunk rows: the middle of each overlap
    import tempfile
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "chunks.json")
        with open(path, "w") as f:
            json.dump([{"chapter_index": 0, "index": 0, "start_seconds": 0, "end_seconds": 20.75, "state": "succeeded"},
                       {"chapter_index": 0, "index": 1, "start_seconds": 19.25, "end_seconds": 35, "state": "succeeded"}], f)
        check(load_cuts(path) == {1: [20.0]}, "cuts")


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
