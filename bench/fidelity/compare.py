#!/usr/bin/env python3
"""Compares Steno's transcripts with a one-shot reference of the same Whisper model.

    compare.py --reference DIR --chapters TSV [--details FILE] [--examples N] RUN_DIR...
    compare.py --self-test

DIR holds chapter-N.json: the server's verbose_json answer (faster-whisper shape, word and
segment granularities) to one request with the whole chapter N. TSV holds one line per chapter:
number, start and end in seconds on the book's clock (reference times are chapter-relative and
are moved by the start). Each RUN_DIR holds run.json (shape, granularities, chunk_seconds,
wall_seconds, recover_speech), transcript.json (`steno transcript --format json`), optionally
transcript.txt (the text export, checked against the JSON), chunks.json (the chunk rows: where
the cuts are, each chunk's answer and, when exported, its detected `speech`) and worker.log.

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
- speech s without words: per chapter, the union of the chunks' detected `speech` (only chunks
  that have it; "-" when none does) less what Steno's transcript accounts for: each word's
  [start, end] widened by 0.3 s, or, for a segment without word times, its [start, end] widened
  by 0.5 s. The uncovered pieces, joined across gaps under 1 s, count when they hold at least 1 s
  of speech (the worker's SpeechCoverage, without its shared chunk edges: the union has none
  inside a chapter); summed over chapters. In parentheses the same for the one-shot reference's
  words against the same speech: what the one-shot answer leaves without words too.
- words recovered, asked again: from worker.log, the `words` of every "recovered words for
  speech the answer had left without any" line, and how many such lines and "... came back
  without words again" lines there are (failed asks are added in parentheses); "-" without a
  log, with recovery off, or for a run from before the option whose log has none of them.
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
    None, end or None)]}, and a list of notes about the export. Segments the gates held back
    (`"flag"`) are not the transcript: they are left out, and counted by flagged_words()."""
    with open(path) as f:
        transcript = json.load(f)
    chapters, notes = {}, []
    for chapter in transcript["chapters"]:
        segments = []
        for seg in chapter.get("segments") or []:
            if seg.get("flag"):
                notes.append("chapter %d segment at %.2f s held back (%s): %r"
                             % (chapter["number"], seg["start"], seg["flag"], seg["text"][:60]))
                continue
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


def flagged_words(transcript):
    """Words in segments the gates held back."""
    return sum(len(s["text"].split()) for c in transcript["chapters"] for s in c.get("segments") or [] if s.get("flag"))


def check_text_export(path, transcript):
    """The text export must hold the JSON's words (title and chapter headings aside)."""
    with open(path) as f:
        blocks = [b.strip() for b in re.split(r"\n\s*\n", f.read()) if b.strip()]
    if blocks and transcript.get("title") and blocks[0] == transcript["title"]:
        blocks = blocks[1:]
    blocks = [b for b in blocks if not re.match(r"^Chapter \d+(: .*)?$", b)]
    txt = [w for w in map(norm, " ".join(blocks).split()) if w]
    js = [w for c in transcript["chapters"] for s in c.get("segments") or [] if not s.get("flag")
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
# faithfulness: Steno's transcript against what the backend wrote for each chunk


EDGE_WINDOW = 24  # words at a chunk's edge that may be heard by its neighbour too
HEARD_SLACK = 0.25  # seconds: a dropped timed word is the neighbour's too if one of its words is this close


def partly_alike(a, b):
    """Two renderings of an edge word one side heard cut off ("limbed", "climbed"): at least
    three letters alike at the start or the end (as the merge's own test)."""
    if len(a) < 3 or len(b) < 3:
        return False
    prefix = 0
    for x, y in zip(a, b):
        if x != y:
            break
        prefix += 1
    suffix = 0
    for x, y in zip(reversed(a), reversed(b)):
        if x != y:
            break
        suffix += 1
    return prefix >= 3 or suffix >= 3


def load_chunk_answers(path):
    """{chapter number: [chunk]} in start order, each chunk {start, end, tokens, times}: the
    words of the backend's own `text` for that chunk (split on white space, those with letters or
    digits), as stored in the chunk's row, and their (start, end) from the stored word times when
    those are the same words (None otherwise: untimed shapes). Split chunks (replaced by their
    pieces) are left out."""
    with open(path) as f:
        rows = json.load(f) or []
    chapters = {}
    for row in rows:
        if row.get("state") == "split":
            continue
        tokens = [t for t in (row.get("text") or "").split() if norm(t)]
        words = [w for w in (row.get("words") or []) if norm(w["word"])]
        times = None
        if words and [norm(w["word"]) for w in words] == [norm(t) for t in tokens]:
            times = [(float(w["start"]), float(w["end"])) for w in words]
        chapters.setdefault(row["chapter_index"] + 1, []).append(
            {"start": float(row["start_seconds"]), "end": float(row["end_seconds"]), "tokens": tokens,
             "times": times, "state": row.get("state")})
    for chunks in chapters.values():
        chunks.sort(key=lambda c: c["start"])
    return chapters


def align_exact(backend, steno, droppable):
    """Alignment of the backend's words with Steno's, words compared as written (a changed mark
    or capital is a substitution); deleting a backend word flagged in `droppable` costs almost
    nothing (a little, so that of two readings the one keeping more words wins).
    Returns [(op, i, j)] as align does."""
    n, m = len(backend), len(steno)
    free = 1e-3
    cost = [[0.0] * (m + 1) for _ in range(n + 1)]
    for i in range(1, n + 1):
        cost[i][0] = cost[i - 1][0] + (free if droppable[i - 1] else 1)
    for j in range(1, m + 1):
        cost[0][j] = j
    for i in range(1, n + 1):
        row, prev, b = cost[i], cost[i - 1], backend[i - 1]
        drop = free if droppable[i - 1] else 1
        for j in range(1, m + 1):
            row[j] = min(prev[j - 1] + (0 if b == steno[j - 1] else 1), prev[j] + drop, row[j - 1] + 1)
    ops = []
    i, j = n, m
    while i > 0 or j > 0:
        if i > 0 and j > 0 and abs(cost[i][j] - (cost[i - 1][j - 1] + (0 if backend[i - 1] == steno[j - 1] else 1))) < 1e-9:
            ops.append(("eq" if backend[i - 1] == steno[j - 1] else "sub", i - 1, j - 1))
            i, j = i - 1, j - 1
        elif i > 0 and abs(cost[i][j] - (cost[i - 1][j] + (free if droppable[i - 1] else 1))) < 1e-9:
            ops.append(("del", i - 1, None))
            i -= 1
        else:
            ops.append(("ins", None, j - 1))
            j -= 1
    ops.reverse()
    return ops


def decompose(chunks, steno):
    """Steno's words as one contiguous slice of each chunk's words, in order: a chunk may lose
    words only at an edge it shares with an overlapping neighbour (the merge drops one copy of
    the words both sides heard). Returns (slices [(first, end)] per chunk, lost) where lost
    counts dropped words the neighbour did not write too, or None when no such reading exists
    (Steno wrote a word no chunk has, changed one, or dropped one away from an overlap)."""
    pieces = [c for c in chunks if c["tokens"]]
    m = len(pieces)
    overlaps_next = [k + 1 < m and pieces[k]["end"] > pieces[k + 1]["start"] for k in range(m)]
    normed = [[norm(t) for t in c["tokens"]] for c in pieces]

    def heard_beside(k, p, other):
        """Whether the neighbour `other` wrote word p of chunk k too: the same word (or an edge
        word heard cut off) near its edge, or, with times on both sides, any word of its own
        over the same stretch of audio (a word the two sides heard differently)."""
        word = normed[k][p]
        window = normed[other][:EDGE_WINDOW] if other > k else normed[other][-EDGE_WINDOW:]
        if any(word == o or partly_alike(word, o) for o in window):
            return True
        mine, theirs = pieces[k].get("times"), pieces[other].get("times")
        if mine and theirs:
            start, end = mine[p]
            return any(s < end + HEARD_SLACK and e > start - HEARD_SLACK for s, e in theirs)
        return False

    def lost_at_head(k, a):
        return sum(not heard_beside(k, p, k - 1) for p in range(a))

    def lost_at_tail(k, end):
        return sum(not heard_beside(k, p, k + 1) for p in range(end, len(normed[k])))

    sys.setrecursionlimit(10000)
    memo = {}

    def best(k, j):
        """(lost, slices) for steno[j:] made from pieces[k:], or None."""
        if k == m:
            return (0, []) if j == len(steno) else None
        key = (k, j)
        if key in memo:
            return memo[key]
        tokens, n = pieces[k]["tokens"], len(pieces[k]["tokens"])
        answer = None
        heads = range(0, min(n, EDGE_WINDOW) + 1) if k > 0 and overlaps_next[k - 1] else [0]
        for a in heads:
            matched = 0
            while a + matched < n and j + matched < len(steno) and tokens[a + matched] == steno[j + matched]:
                matched += 1
            for length in range(matched, -1, -1):
                end = a + length
                if end < n and (not overlaps_next[k] or n - end > EDGE_WINDOW):
                    continue
                rest = best(k + 1, j + length)
                if rest is None:
                    continue
                lost = rest[0] + lost_at_head(k, a) + lost_at_tail(k, end)
                if answer is None or lost < answer[0]:
                    answer = (lost, [(a, end)] + rest[1])
                if end == n:
                    break
        memo[key] = answer
        return answer

    found = best(0, 0)
    if found is None:
        return None
    return found[1], found[0]


def faithfulness(answers, steno, examples=3):
    """Per run: what Steno kept of the words the backend wrote for each chunk. answers: {chapter:
    [chunk]} as load_chunk_answers gives; steno: {chapter: [segment]} as load_steno gives.
    Every count but the backend's own is Steno's doing, whatever the model heard."""
    r = dict(backend_words=0, kept=0, dropped_doubled=0, dropped_lost=0, invented=0, changed=0,
             dropped_elsewhere=0, doubled_at_seam=0, backend_finals=0, finals_kept=0, finals_dropped=0,
             backend_caps=0, caps_kept=0, unexplained_chapters=0)
    found_examples = []
    for number in sorted(set(answers) | set(steno)):
        chunks = answers.get(number, [])
        words = [t for seg in steno.get(number, []) for t, _, _ in seg["tokens"] if norm(t)]
        backend = [t for c in chunks for t in c["tokens"]]
        r["backend_words"] += len(backend)
        r["backend_finals"] += sum(ends_sentence(t) for t in backend)
        r["backend_caps"] += sum(capitalised(t) for t in backend)
        result = decompose(chunks, words)
        if result is not None:
            slices, lost = result
            pieces = [c for c in chunks if c["tokens"]]
            for chunk, (a, end) in zip(pieces, slices):
                kept = chunk["tokens"][a:end]
                dropped = chunk["tokens"][:a] + chunk["tokens"][end:]
                r["kept"] += len(kept)
                r["finals_kept"] += sum(ends_sentence(t) for t in kept)
                r["caps_kept"] += sum(capitalised(t) for t in kept)
                r["finals_dropped"] += sum(ends_sentence(t) for t in dropped)
                if dropped and len(found_examples) < examples:
                    found_examples.append("chapter %d, chunk at %.2f s: dropped %r at its head, %r at its tail"
                                          % (number, chunk["start"], chunk["tokens"][:a], chunk["tokens"][end:]))
            # Both copies of what two overlapping chunks wrote: the kept runs meet with the same
            # 1-4 words on either side of the seam.
            for k in range(len(pieces) - 1):
                if pieces[k]["end"] <= pieces[k + 1]["start"]:
                    continue
                left = [norm(t) for t in pieces[k]["tokens"][slice(*slices[k])]]
                right = [norm(t) for t in pieces[k + 1]["tokens"][slice(*slices[k + 1])]]
                for width in range(4, 0, -1):
                    if len(left) >= width and len(right) >= width and left[-width:] == right[:width]:
                        r["doubled_at_seam"] += width
                        found_examples.append("chapter %d: %r written twice at the seam of the chunks at %.2f and %.2f s"
                                              % (number, " ".join(right[:width]), pieces[k]["start"], pieces[k + 1]["start"]))
                        break
            dropped_total = len(backend) - len(words)
            r["dropped_lost"] += lost
            r["dropped_doubled"] += dropped_total - lost
            continue
        # No reading of Steno's words as slices of the chunks: count what differs, with the
        # words a merge may drop (at an edge shared with an overlapping neighbour) free to go.
        r["unexplained_chapters"] += 1
        pieces = [c for c in chunks if c["tokens"]]
        droppable = []
        for k, c in enumerate(pieces):
            n = len(c["tokens"])
            head = k > 0 and pieces[k - 1]["end"] > c["start"]
            tail = k + 1 < len(pieces) and c["end"] > pieces[k + 1]["start"]
            droppable += [(head and p < EDGE_WINDOW) or (tail and p >= n - EDGE_WINDOW) for p in range(n)]
        ops = align_exact(backend, words, droppable)
        for op, i, j in ops:
            if op == "eq":
                r["kept"] += 1
                r["finals_kept"] += ends_sentence(backend[i])
                r["caps_kept"] += capitalised(backend[i])
            elif op == "ins":
                r["invented"] += 1
            elif op == "sub":
                r["changed"] += 1
            elif not droppable[i]:
                r["dropped_elsewhere"] += 1
        differing = [op for op in ops if not (op[0] == "del" and droppable[op[1]])]
        for k, end in difference_runs(differing):
            if len(found_examples) >= examples * 3:
                break
            bs = [backend[i] for _, i, _ in differing[k:end] if i is not None]
            hs = [words[j] for _, _, j in differing[k:end] if j is not None]
            found_examples.append("chapter %d: the backend wrote %r, Steno %r" % (number, " ".join(bs), " ".join(hs)))
    return r, found_examples


# --------------------------------------------------------------------------------------------
# speech without words: detected speech no word of the transcript accounts for


WORD_REACH = 0.3      # seconds: speech this close to a word's times is that word's (SpeechCoverage.wordReach)
SEGMENT_REACH = 0.5   # the same for a segment, when there are no word times (SpeechCoverage.segmentReach)
JOINED_ACROSS = 1.0   # uncovered pieces less than this apart are one span (SpeechCoverage.joinedAcross)
SHORTEST_SPAN = 1.0   # a span counts when it holds at least this much uncovered speech (SpeechCoverage.shortestSpan)
RECOVERED = "recovered words for speech the answer had left without any"
EMPTY_AGAIN = "speech left without words came back without words again"
ASK_FAILED = "asking again for speech left without words failed"


def joined(ranges, across=0.0):
    """Ranges [(start, end)] sorted and merged where they overlap or touch (across 0), or where
    the gap between them is less than `across` seconds."""
    out = []
    for start, end in sorted((float(s), float(e)) for s, e in ranges if e > s):
        if out and (start <= out[-1][1] if across <= 0 else start - out[-1][1] < across):
            out[-1][1] = max(out[-1][1], end)
        else:
            out.append([start, end])
    return [(s, e) for s, e in out]


def subtracting(covered, regions):
    """`regions` less `covered` (both as joined() gives them)."""
    left = []
    for start, end in regions:
        at = start
        for a, b in covered:
            if b <= at or a >= end:
                continue
            if a > at:
                left.append((at, a))
            at = max(at, b)
        if at < end:
            left.append((at, end))
    return left


def seconds_of(ranges):
    return sum(e - s for s, e in ranges)


def speech_without_words(speech, covered):
    """The detected speech (ranges) that lies outside every covered range, counted as the
    worker's SpeechCoverage finds it: uncovered pieces joined across gaps under JOINED_ACROSS
    make a span, and a span counts when it holds at least SHORTEST_SPAN seconds of uncovered
    speech. Returns (seconds, [(span start, span end, uncovered seconds in it)])."""
    uncovered = subtracting(joined(covered), joined(speech))
    spans = []
    for start, end in joined(uncovered, JOINED_ACROSS):
        inside = sum(min(e, end) - max(s, start) for s, e in uncovered if s < end and e > start)
        if inside >= SHORTEST_SPAN - 1e-9:
            spans.append((start, end, inside))
    return float(sum(x for _, _, x in spans)), spans


def word_cover(words):
    """What timed words account for: each word's [start - WORD_REACH, end + WORD_REACH]."""
    return [(s - WORD_REACH, max(s, e) + WORD_REACH) for _, s, e in words if s is not None]


def steno_cover(segments):
    """What Steno's segments (load_steno's, flagged ones already left out) account for: their
    words' times when they have them, else the segment's [start, end] widened by SEGMENT_REACH.
    Segments without a word of letters or digits account for nothing."""
    out = []
    for seg in segments:
        if not any(norm(t) for t, _, _ in seg["tokens"]):
            continue
        if all(s is not None for _, s, _ in seg["tokens"]):
            out += word_cover(seg["tokens"])
        else:
            out.append((seg["start"] - SEGMENT_REACH, max(seg["start"], seg["end"]) + SEGMENT_REACH))
    return out


def load_speech(path):
    """{chapter number: [(start, end)]}: the union of the detected speech of the chapter's chunks
    (the rows' `speech`, on the media's clock, clipped to each chunk), from the chunks that have
    it (split chunks left out: their pieces hold it). None when no chunk has it (rows exported
    before the bench read the column, or chunks planned before it existed)."""
    if not path or not os.path.exists(path):
        return None
    with open(path) as f:
        rows = json.load(f) or []
    found, chapters = False, {}
    for row in rows:
        if row.get("state") == "split" or row.get("speech") is None:
            continue
        found = True
        lo, hi = float(row["start_seconds"]), float(row["end_seconds"])
        pieces = [(max(lo, float(s)), min(hi, float(e))) for s, e in row["speech"]]
        chapters.setdefault(row["chapter_index"] + 1, []).extend(p for p in pieces if p[1] > p[0])
    if not found:
        return None
    return {number: joined(pieces) for number, pieces in chapters.items()}


def uncovered_speech(speech, covers):
    """speech: {chapter: [(start, end)]}; covers: {chapter: [(start, end)]}. Returns (seconds
    of speech without words summed over the chapters, [(chapter, start, end, seconds)])."""
    total, spans = 0.0, []
    for number in sorted(speech):
        seconds, found = speech_without_words(speech[number], covers.get(number, []))
        total += seconds
        spans += [(number, s, e, x) for s, e, x in found]
    return total, spans


def recovery_counts(path):
    """From a worker log (JSON lines, or swift-log's plain `key=value` lines): the words recovered
    (the `words` of every "recovered words for speech ..." line), the asks that came back with
    words, without words again, and failed. None when there is no log."""
    if not path or not os.path.exists(path):
        return None
    r = dict(words_recovered=0, asked_recovered=0, asked_empty=0, asked_failed=0)
    with open(path, errors="replace") as f:
        for line in f:
            message, words = line, None
            if line.startswith("{"):
                try:
                    entry = json.loads(line)
                    message, words = str(entry.get("message", "")), entry.get("words")
                except ValueError:
                    pass
            if RECOVERED in message:
                if words is None:
                    found = re.search(r'\bwords="?(\d+)', line)
                    words = found.group(1) if found else 0
                r["asked_recovered"] += 1
                r["words_recovered"] += int(words)
            elif EMPTY_AGAIN in message:
                r["asked_empty"] += 1
            elif ASK_FAILED in message:
                r["asked_failed"] += 1
    return r


# --------------------------------------------------------------------------------------------
# output


COLUMNS = ["shape", "granularities", "chunk s", "wall s", "cuts", "ref words", "Steno words",
           "WER %", "sub/del/ins", "doubled (at cuts)", "inserted (at cuts)", "dropped (at cuts)",
           ". ? ! kept", "added . ? ! (at cuts)", "commas kept", "capitals kept", "segments",
           "starts > 1 s off", "max start off s", "out of order", "words > 1 s off",
           "speech s without words (one-shot)", "words recovered", "asked again"]


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
            "%d/%d" % (r["words_off"], r["timed_words"]) if r["timed_words"] else "- (no word times)",
            "-" if r.get("speech_without_words") is None
            else "%.1f (%.1f)" % (r["speech_without_words"], r["speech_without_words_reference"]),
            "-" if r.get("words_recovered") is None else str(r["words_recovered"]),
            "-" if r.get("asked_again") is None
            else "%d%s" % (r["asked_again"], " (%d failed)" % r["asked_failed"] if r.get("asked_failed") else "")]


def recovery_off(run):
    return str(run.get("recover_speech", "on")).lower() == "off"


def speech_figures(r, run, speech, steno, reference, log_path):
    """Adds the speech-without-words and recovery figures of one run to its counts r, and returns
    a line per span of speech without words (Steno's, then the one-shot reference's)."""
    lines = []
    r["speech_seconds"] = None if speech is None else round(sum(seconds_of(v) for v in speech.values()), 3)
    if speech is None:
        r["speech_without_words"] = r["speech_without_words_reference"] = None
    else:
        seconds, spans = uncovered_speech(speech, {n: steno_cover(segs) for n, segs in steno.items()})
        ref_seconds, ref_spans = uncovered_speech(speech, {n: word_cover(ws) for n, ws in reference.items()})
        r["speech_without_words"] = round(seconds, 3)
        r["speech_without_words_reference"] = round(ref_seconds, 3)
        r["speech_without_words_spans"] = len(spans)

        def heard(number, start, end):
            words = [w for w, s, e in reference.get(number, []) if s < end + WORD_REACH and e > start - WORD_REACH]
            return " ".join(words) or "nothing"
        for number, start, end, x in spans:
            lines.append("speech without words: chapter %d %.2f-%.2f s (%.2f s of speech); one-shot heard there: %r"
                         % (number, start, end, x, heard(number, start, end)))
        for number, start, end, x in ref_spans:
            lines.append("speech without words in the one-shot reference: chapter %d %.2f-%.2f s (%.2f s of speech)"
                         % (number, start, end, x))
    counts = recovery_counts(log_path)
    if counts is None or recovery_off(run) or ("recover_speech" not in run and not any(counts.values())):
        # No log, recovery off, or a run from before the option with no sign of it in its log.
        r["words_recovered"] = r["asked_again"] = r["asked_failed"] = None
    else:
        r["words_recovered"] = counts["words_recovered"]
        r["asked_again"] = counts["asked_recovered"] + counts["asked_empty"]
        r["asked_again_empty"] = counts["asked_empty"]
        r["asked_failed"] = counts["asked_failed"]
    return lines


FAITHFUL_COLUMNS = ["shape", "granularities", "chunk s", "backend words", "kept", "dropped: doubled in an overlap",
                    "dropped: no copy beside", "invented", "changed", "dropped elsewhere", "doubled at a seam", ". ? ! kept",
                    "capitals kept"]


def faithful_row(run, f):
    explained = f["unexplained_chapters"] == 0
    return [run.get("shape", "?"), run.get("granularities", "?"), "%g" % run.get("chunk_seconds", 0),
            str(f["backend_words"]), str(f["kept"]), str(f["dropped_doubled"]), str(f["dropped_lost"]),
            str(f["invented"]), str(f["changed"]), str(f["dropped_elsewhere"]), str(f["doubled_at_seam"]),
            "%d/%d (%d dropped)" % (f["finals_kept"], f["backend_finals"], f["finals_dropped"]) if explained
            else "%d/%d" % (f["finals_kept"], f["backend_finals"]),
            "%d/%d" % (f["caps_kept"], f["backend_caps"])]


def table(rows, columns=COLUMNS):
    out = ["| " + " | ".join(columns) + " |", "|" + "---|" * len(columns)]
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
    rows, details, printed, summary, faithful_rows = [], [], [], [], []
    for directory in args.runs:
        with open(os.path.join(directory, "run.json")) as f:
            run = json.load(f)
        transcript, steno, notes = load_steno(os.path.join(directory, "transcript.json"))
        text_path = os.path.join(directory, "transcript.txt")
        if os.path.exists(text_path):
            notes += check_text_export(text_path, transcript)
        cuts = load_cuts(os.path.join(directory, "chunks.json"))
        r, lines, examples_of = compare(reference, steno, cuts, args.examples)
        r["flagged_words"] = flagged_words(transcript)
        chunks_path = os.path.join(directory, "chunks.json")
        uncovered_lines = speech_figures(r, run, load_speech(chunks_path), steno, reference,
                                         os.path.join(directory, "worker.log"))
        lines += uncovered_lines
        examples_of["speech without words"] = [e.split(": ", 1)[1] for e in uncovered_lines
                                               if e.startswith("speech without words:")][:args.examples]
        rows.append(row(run, r))
        if os.path.exists(chunks_path):
            faithful, faithful_examples = faithfulness(load_chunk_answers(chunks_path), steno, args.examples)
            r.update({"faithful_" + k: v for k, v in faithful.items()})
            faithful_rows.append(faithful_row(run, faithful))
            lines += ["faithful: " + e for e in faithful_examples]
            examples_of["unfaithful"] = [e for e in faithful_examples if "the backend wrote" in e]
        summary.append(dict(run=run, counts=r, notes=notes))
        name = "%s, %s, %g s chunks" % (run.get("shape"), run.get("granularities"), run.get("chunk_seconds", 0))
        details.append("## " + name)
        details.append("cuts (s): " + "; ".join("chapter %d: %s" % (n, ", ".join("%.2f" % c for c in cs) or "none")
                                                 for n, cs in sorted(cuts.items())))
        if r["speech_seconds"] is None:
            details.append("detected speech: none in chunks.json (no `speech` column exported)")
        else:
            details.append("detected speech: %.2f s, without words %.2f s (one-shot reference %.2f s)"
                           % (r["speech_seconds"], r["speech_without_words"], r["speech_without_words_reference"]))
        details.append("speech asked again: %s" % (
            "recovery off" if recovery_off(run) else "no record" if r["asked_again"] is None
            else "%d times (%d came back without words again, %d failed), %d words recovered"
            % (r["asked_again"], r["asked_again_empty"], r["asked_failed"], r["words_recovered"])))
        details += ["note: " + n for n in notes] + lines + [""]
        shown = ["note: " + n for n in notes]
        for kind in ("unfaithful", "doubled", "inserted at a cut", "dropped", "added . ? !", "lost . ? !", "start > 1 s off", "out of order", "word > 1 s off",
                     "speech without words"):
            shown += ["%s: %s" % (kind, e) for e in examples_of.get(kind, [])]
        if shown:
            printed.append("- " + name + ":\n" + "\n".join("  - " + s for s in shown))
    print(table(rows))
    if faithful_rows:
        print("\nFaithful to the backend (the words each chunk's answer wrote, against Steno's transcript):\n")
        print(table(faithful_rows, FAITHFUL_COLUMNS))
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

    # 6. faithful to the backend: Steno's words are slices of the chunks' answers
    def chunk(start, end, text):
        return {"start": start, "end": end, "tokens": text.split(), "state": "succeeded"}
    answers = {1: [chunk(0, 21.5, "We went to the market garden and"), chunk(20, 40, "Garden and bought beans."),
                   chunk(40, 60, "Nobody knew why.")]}
    f, _ = faithfulness(answers, {1: _segments("We went to the market garden and bought beans. Nobody knew why.")})
    check(f["unexplained_chapters"] == 0 and f["kept"] == 12 and f["dropped_doubled"] == 2, "faithful merge: %r" % (f,))
    check(f["dropped_lost"] == 0 and f["invented"] == 0 and f["changed"] == 0, "faithful merge: %r" % (f,))
    check(f["backend_finals"] == 2 == f["finals_kept"] and f["backend_caps"] == 3, "faithful finals: %r" % (f,))
    f, ex = faithfulness(answers, {1: _segments("We went to the market garden and bought fresh beans. Nobody knew why.")})
    check(f["unexplained_chapters"] == 1 and f["invented"] == 1 and f["changed"] == 0, "an invented word: %r" % (f,))
    check("fresh" in ex[0], "the invented word is named: %r" % ex)
    f, _ = faithfulness(answers, {1: _segments("We went to the market garden and bought beans Nobody knew why.")})
    check(f["unexplained_chapters"] == 1 and f["changed"] == 1 and f["finals_kept"] == 1, "a lost sentence end: %r" % (f,))
    # no overlap between the second and third chunk: nothing may be dropped there
    f, _ = faithfulness(answers, {1: _segments("We went to the market garden and bought beans. knew why.")})
    check(f["unexplained_chapters"] == 1 and f["dropped_elsewhere"] == 1, "a word dropped away from an overlap: %r" % (f,))
    # a word dropped in an overlap that the other side did not write is lost, not doubled
    f, _ = faithfulness({1: [chunk(0, 21.5, "the keeper climbed the stairs every"), chunk(20, 40, "morning he lit it.")]},
                        {1: _segments("the keeper climbed the stairs morning he lit it.")})
    check(f["unexplained_chapters"] == 0 and f["dropped_lost"] == 1 and f["dropped_doubled"] == 0, "a lost word: %r" % (f,))
    # the same stretch heard differently by the two sides ("etched." and "that she"): with times
    # on both sides, the dropped copy is the neighbour's too
    left = chunk(100, 125.7, "until his arms etched.")
    left["times"] = [(123.5, 123.75), (123.75, 124.0), (124.0, 124.3), (124.3, 124.77)]
    right = chunk(124.2, 141, "that she did any")
    right["times"] = [(124.19, 124.61), (124.61, 124.71), (124.71, 125.39), (125.39, 125.59)]
    f, _ = faithfulness({1: [left, right]}, {1: _segments("until his arms etched. did any")})
    check(f["unexplained_chapters"] == 0 and f["dropped_doubled"] == 2 and f["dropped_lost"] == 0, "heard differently: %r" % (f,))
    right["times"] = [(125.1, 125.2), (125.2, 125.3), (125.3, 125.39), (125.39, 125.59)]
    f, _ = faithfulness({1: [left, right]}, {1: _segments("until his arms etched. did any")})
    check(f["dropped_lost"] == 2, "words only one side heard, dropped: %r" % (f,))

    # both copies of an overlap kept: the backend's words, but written twice
    f, ex = faithfulness(answers, {1: _segments("We went to the market garden and Garden and bought beans. Nobody knew why.")})
    check(f["unexplained_chapters"] == 0 and f["doubled_at_seam"] == 2, "both copies kept: %r" % (f,))
    check("written twice" in ex[-1], "the doubled words are named: %r" % ex)

    # an empty chunk between two others is skipped, its neighbours keep their words
    f, _ = faithfulness({1: [chunk(0, 21.5, "one two three"), chunk(20, 41.5, ""), chunk(40, 60, "four five")]},
                        {1: _segments("one two three four five")})
    check(f["unexplained_chapters"] == 0 and f["kept"] == 5 and f["dropped_doubled"] == 0, "an empty chunk: %r" % (f,))

    # 5. cuts from chunk rows: the middle of each overlap
    import tempfile
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "chunks.json")
        with open(path, "w") as f:
            json.dump([{"chapter_index": 0, "index": 0, "start_seconds": 0, "end_seconds": 20.75, "state": "succeeded"},
                       {"chapter_index": 0, "index": 1, "start_seconds": 19.25, "end_seconds": 35, "state": "succeeded"}], f)
        check(load_cuts(path) == {1: [20.0]}, "cuts")
        # rows exported without `speech` (an older bench): no figure, not zero
        check(load_speech(path) is None, "no speech column: None")
        # the union of the chunks' speech, each clipped to its chunk; a chunk without speech and
        # a split one are left out
        with open(path, "w") as f:
            json.dump([{"chapter_index": 0, "index": 0, "start_seconds": 0, "end_seconds": 20.75, "state": "succeeded",
                        "speech": [[1.0, 5.0], [18.0, 21.5]]},
                       {"chapter_index": 0, "index": 1, "start_seconds": 19.25, "end_seconds": 35, "state": "succeeded",
                        "speech": [[19.25, 24.0]]},
                       {"chapter_index": 0, "index": 2, "start_seconds": 35, "end_seconds": 50, "state": "succeeded", "speech": None},
                       {"chapter_index": 1, "index": 0, "start_seconds": 50, "end_seconds": 70, "state": "split",
                        "speech": [[50.0, 70.0]]},
                       {"chapter_index": 1, "index": 1, "start_seconds": 50, "end_seconds": 60, "state": "succeeded",
                        "speech": [[52.0, 58.0]]}], f)
        check(load_speech(path) == {1: [(1.0, 5.0), (18.0, 24.0)], 2: [(52.0, 58.0)]}, "speech union: %r" % (load_speech(path),))

        # the worker's log: JSON lines, and swift-log's plain lines
        log = os.path.join(tmp, "worker.log")
        with open(log, "w") as f:
            f.write('{"level":"info","message":"transcribed chunk","words":"40"}\n')
            f.write('{"chunk.index":"2","level":"info","message":"%s","span_end":"31.20","span_start":"29.70","words":"5"}\n' % RECOVERED)
            f.write('2026-11-27T15:17:47+0000 info steno.worker : chunk.index=3 words=3 [StenoWorker] %s\n' % RECOVERED)
            f.write('{"level":"notice","message":"%s; it stays so"}\n' % EMPTY_AGAIN)
            f.write('{"level":"warning","message":"%s; keeping the answer as it is"}\n' % ASK_FAILED)
            f.write('not a log line\n')
        check(recovery_counts(log) == dict(words_recovered=8, asked_recovered=2, asked_empty=1, asked_failed=1),
              "recovery counts: %r" % (recovery_counts(log),))
        check(recovery_counts(os.path.join(tmp, "missing.log")) is None, "no log")
        r = {}
        speech_figures(r, {"recover_speech": "on"}, None, {}, {}, log)
        check(r["speech_without_words"] is None and r["words_recovered"] == 8 and r["asked_again"] == 3
              and r["asked_failed"] == 1, "figures from the log: %r" % (r,))
        speech_figures(r, {"recover_speech": "off"}, None, {}, {}, log)
        check(r["words_recovered"] is None and r["asked_again"] is None, "recovery off: no figures")

    # 7. speech without words. Speech 10-20 s; words every 0.5 s from 10 s, the last ending at
    # 18.0 s: 2 s of speech after it, less the 0.3 s a word's reach covers.
    speech = {1: [(10.0, 20.0)]}
    early = _segments(" ".join(["word"] * 16), start=10.0, step=0.5)   # last word 17.5-17.9
    early[-1]["tokens"][-1] = ("word", 17.5, 18.0)
    seconds, spans = uncovered_speech(speech, {1: steno_cover(early)})
    check(abs(seconds - 1.7) < 1e-9 and len(spans) == 1 and abs(spans[0][1] - 18.3) < 1e-9, "words stop 2 s early: %r" % (spans,))
    full = _segments(" ".join(["word"] * 20), start=10.0, step=0.5)      # last word 19.5-19.9
    check(uncovered_speech(speech, {1: steno_cover(full)})[0] == 0, "fully covered")
    # gaps between words under 1 s of speech are not counted; pieces less than 1 s apart join
    gappy = [("a", 10.0, 10.5), ("b", 11.9, 12.4), ("c", 13.2, 20.0)]   # 10.8-11.6: 0.8 s alone
    check(uncovered_speech(speech, {1: word_cover(gappy)})[0] == 0, "a gap of 0.8 s is not counted")
    gappy = [("a", 10.0, 10.5), ("b", 11.6, 11.7), ("c", 12.5, 20.0)]   # 10.8-11.3 and 12.0-12.2: 0.5 + 0.2 s
    check(uncovered_speech(speech, {1: word_cover(gappy)})[0] == 0, "0.7 s in two pieces is not counted")
    gappy = [("a", 10.0, 10.5), ("b", 11.7, 11.8), ("c", 12.7, 20.0)]   # 10.8-11.4 and 12.1-12.4: 0.6 + 0.3 s, 0.7 s apart
    check(uncovered_speech(speech, {1: word_cover(gappy)})[0] == 0, "0.9 s in two pieces is not counted")
    gappy = [("a", 10.0, 10.5), ("b", 11.8, 11.9), ("c", 12.9, 20.0)]   # 10.8-11.5 and 12.2-12.6: 0.7 + 0.4 s, 0.7 s apart
    seconds, spans = uncovered_speech(speech, {1: word_cover(gappy)})
    check(abs(seconds - 1.1) < 1e-9 and len(spans) == 1, "1.1 s in two pieces joined: %r" % (spans,))
    # ... but only where there is speech: a pause between words is not missing words
    seconds, _ = uncovered_speech({1: [(10.0, 10.5), (12.9, 20.0)]}, {1: word_cover(gappy)})
    check(seconds == 0, "a pause between words")
    # no word times: the segment's span, widened by 0.5 s
    untimed = [{"start": 10.0, "end": 16.0, "tokens": [("some", None, None), ("words", None, None)]},
               {"start": 16.5, "end": 17.0, "tokens": [("-", None, None)]}]     # no word: covers nothing
    seconds, spans = uncovered_speech(speech, {1: steno_cover(untimed)})
    check(abs(seconds - 3.5) < 1e-9 and abs(spans[0][1] - 16.5) < 1e-9, "untimed segments: %r" % (spans,))
    # a chapter without a transcript: all its speech
    check(uncovered_speech({1: [(0.0, 4.0)], 2: [(40.0, 41.5)]}, {1: word_cover([("a", 0.0, 4.0)])})[0] == 1.5,
          "a chapter without words")
    # the figures of a run, Steno's and the one-shot reference's against the same speech
    r = {}
    one_shot = [("w%d" % k, 10.0 + 0.5 * k, 10.4 + 0.5 * k) for k in range(20)]   # the last 19.5-19.9
    lines = speech_figures(r, {}, speech, {1: early}, {1: one_shot}, None)
    check(abs(r["speech_without_words"] - 1.7) < 1e-9 and r["speech_without_words_reference"] == 0
          and r["speech_seconds"] == 10.0 and r["words_recovered"] is None, "run figures: %r" % (r,))
    check(len(lines) == 1 and "18.30-20.00" in lines[0] and "one-shot heard there: 'w16 w17 w18 w19'" in lines[0],
          "the span and what the one-shot heard there: %r" % (lines,))


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
