#!/usr/bin/env python3
"""Scores Steno's transcripts of podcast-like episodes against their ground truth.

    score.py --episodes-dir DIR [--details FILE] [--summary-json FILE] [--examples N] RUN_DIR...
    score.py --self-test [EPISODE_JSON]

DIR holds episode-NAME.json as scripts/make-episodes writes it: `text`, `sentences` [{start,
end, voice, text, over}] and `nonspeech` [{start, end, label}], which together tile the file.
Each RUN_DIR holds run.json (written by bench/quality/quality: speech_detection, speedup,
shape, granularities, chunk_seconds, episode, wall_seconds, media_id and the chunk figures read
from the database: paid_seconds, detected_speech_seconds, usage_seconds, chunks,
uploaded_chunks, skipped_chunks; sent_seconds; recover_speech), transcript.json (`steno
transcript ID --format json`) and, when there, chunks.json (the chunk rows, with each chunk's
detected `speech`) and worker.log.

Words are lowercase letters, digits and apostrophes; anything else separates words (as Steno's
HallucinationPhrases.normalized does: "forty-two" is "forty two"). A segment with a "flag" (a
reason: text Steno's gates held back) is flagged; everything else is the transcript proper.

Non-speech is the ground truth's `nonspeech` regions except the pauses between sentences: the
label "pause", and a region under 1 s that lies between two sentences (make-episodes labels a
pause under a music bed with the bed's label, music or music-beat).

Per run:

- words outside speech: unflagged words whose middle lies more than 0.25 s (EDGE_TOLERANCE)
  inside non-speech, by label. The depth is measured in the stretch of touching non-speech
  regions (music then silence is one stretch) from its edges that meet speech or a pause; the
  file's own start and end are no such edge. The tolerance absorbs word-timing imprecision:
  neither the model's word boundaries nor the ground truth's (each sentence's audio trimmed at
  0.5 % of its peak by make-episodes) are finer than a quarter of a second, while the failure
  measured is a word placed seconds into music or silence. A word's times are the segment's
  `words` when the export has them (and they spell the segment's text), else the segment's
  span spread over its words by their length;
- flagged: segments and words held back, and how many of those words lie over speech (not in
  non-speech: possibly real speech lost);
- invented phrases: unflagged segments holding a run of 2 or more words that a word-level
  Levenshtein alignment against the ground truth marks as inserted and that lies in non-speech
  (music, silence, noise, a pause), or whose whole text is a phrase Whisper is known to invent
  ("you", "thank you", "thanks for watching", ...) with no word aligned as equal to the ground
  truth. An inserted run inside a spoken sentence is the model mishearing speech ("pump can
  somewhere no about" for "pumpkins somewhere nobody"): it counts in WER and is listed as
  `inserted_in_speech`, not as invented;
- paid seconds (chunks uploaded and succeeded: end - start, overlaps included: audio on the
  media's clock), detected speech (sum of the chunks' speech_seconds), true speech (sum of the
  sentences' durations), and paid / true speech; usage seconds (what the backend reported as
  billed, summed; none for a backend that reports tokens); sent seconds (paid / the worker's
  STENO_SPEEDUP: the audio the backend heard, shorter by the speed-up) and sent / true speech,
  the cost side of a speed-up;
- segment starts: each unflagged segment's first word aligned as equal (among its first 4)
  gives the ground-truth word; expected start = the start of its sentence + (index of the word
  in the sentence / the sentence's word count) x the sentence's duration (the index moved back
  by the segment's words before it that the alignment pairs with a ground-truth word, not before
  the sentence's first). Starts more than 1 s from that, and the largest distance; the same
  against the sentence's start alone;
- segments spanning non-speech: unflagged segments whose [start, end] covers more than 2 s of
  non-speech;
- WER: (substitutions + deletions + insertions) / ground-truth words, all unflagged words in
  order against the episode's `text`;
- speech without words: seconds of the speech the worker's detector found (the union of the
  chunks' `speech`, only chunks that have it) that lie more than 0.3 s from every unflagged word
  with its own times (0.5 s from the segment's [start, end] when the segment has none), counted
  in spans of uncovered pieces joined across gaps under 1 s that hold at least 1 s of speech:
  bench/fidelity/compare.py's measure (imported from there), the worker's SpeechCoverage test;
  None when chunks.json has no `speech`;
- words recovered, asked again: from worker.log, the words the worker put in place of speech an
  answer had left without any, and how many spans it asked for again (compare.py's
  recovery_counts); None without a log or with recovery off.
"""

import argparse
import json
import os
import sys

# Speech without words and the worker log's recovery counts: the fidelity bench's measure, one
# definition for both benches (standard library only, as this file).
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "fidelity"))
from compare import (SEGMENT_REACH, WORD_REACH, load_speech, recovery_counts,  # noqa: E402
                     speech_without_words)

EDGE_TOLERANCE = 0.25 # seconds: a word's middle must lie deeper than this in non-speech to be outside speech
OFF_LIMIT = 1.0       # seconds: a segment start further than this from its first word is "off"
SPAN_LIMIT = 2.0      # seconds of non-speech inside one segment that make it "spanning"
BED_PAUSE = 1.0       # a region between two sentences shorter than this is a pause
START_WINDOW = 4      # first words of a segment searched for one aligned as equal

# Whisper's usual inventions, normalised. The same list as Steno's own gate
# (Sources/StenoCore/Quality/HallucinationPhrases.swift), kept here so that the bench reads no
# Swift source; what matters is whether such a phrase reaches the transcript unflagged.
HALLUCINATIONS = {
    "you", "thank you", "thanks", "thanks for watching", "thank you for watching",
    "thank you so much for watching", "thank you very much for watching",
    "thanks for watching and see you next time", "thank you for watching and see you next time",
    "please subscribe", "please subscribe to my channel", "subscribe to my channel",
    "like and subscribe", "don't forget to like and subscribe", "please like and subscribe",
    "thanks for listening", "thank you for listening", "see you next time",
    "see you in the next video", "i'll see you in the next video", "bye", "bye bye", "goodbye",
    "thank you very much", "thank you so much", "so", "okay", "oh", "uh", "um", "hmm", "mm", "ah",
    "subtitles by the amara org community", "subtitles by", "transcription by castingwords",
    "transcribed by", "captions by", "captioning by", "subtitled by", "translated by",
    "english subtitles", "the end", "music", "applause", "laughter", "silence", "foreign",
    "background music", "upbeat music", "soft music", "dramatic music", "gentle music",
    "instrumental music", "music playing", "indistinct chatter", "inaudible", "i'm sorry",
    "i don't know", "what", "yeah", "yes", "no", "hey", "hello", "hi", "we'll be right back",
    "we'll see you next time", "thank you for your attention", "thanks for your attention",
    "www mooji org", "please visit our website", "for more information visit", "copyright",
    "all rights reserved",
}


# --------------------------------------------------------------------------------------------
# words


def tokens(text):
    """Lowercase letters, digits and apostrophes; anything else separates words."""
    kept = []
    for ch in (text or "").lower().replace("\u2019", "'"):
        kept.append(ch if ch.isalnum() or ch == "'" else " ")
    out = []
    for piece in "".join(kept).split():
        piece = piece.strip("'")
        if piece:
            out.append(piece)
    return out


def spread(toks, start, end):
    """Times for words without their own: the span shared by length (a space each)."""
    weights = [len(t) + 1 for t in toks]
    total = float(sum(weights)) or 1.0
    out, at = [], start
    for t, w in zip(toks, weights):
        step = (end - start) * w / total
        out.append((t, at, at + step))
        at += step
    return out


def align(ref, hyp):
    """Levenshtein alignment of two word lists: [(op, i, j)] with op eq, sub, del (ref[i]
    missing, j None), ins (hyp[j] extra, i None), in order."""
    n, m = len(ref), len(hyp)
    cost = [[0] * (m + 1) for _ in range(n + 1)]
    for i in range(1, n + 1):
        cost[i][0] = i
    for j in range(1, m + 1):
        cost[0][j] = j
    for i in range(1, n + 1):
        row, prev, r = cost[i], cost[i - 1], ref[i - 1]
        for j in range(1, m + 1):
            row[j] = min(prev[j - 1] + (0 if r == hyp[j - 1] else 1), prev[j] + 1, row[j - 1] + 1)
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


# --------------------------------------------------------------------------------------------
# reading


def load_truth(episode):
    """The ground truth: ref words [(word, sentence index, index in sentence)], sentences
    [(start, end, word count)], non-speech [(start, end, label)] (pauses left out), true speech
    seconds, duration, notes."""
    sentences, ref, notes, texts = [], [], [], []
    for si, s in enumerate(episode["sentences"]):
        toks = tokens(s["text"])
        sentences.append((float(s["start"]), float(s["end"]), len(toks)))
        texts.append(s["text"])
        ref += [(t, si, k) for k, t in enumerate(toks)]
    if "text" in episode and tokens(episode["text"]) != [w for w, _, _ in ref]:
        notes.append("the ground truth's text is not its sentences' words; the sentences are used")
    ends = {round(s, 3) for _, s, _ in sentences}
    starts = {round(s, 3) for s, _, _ in sentences}
    nonspeech = []
    for region in episode.get("nonspeech") or []:
        start, end, label = float(region["start"]), float(region["end"]), region["label"]
        if label == "pause":
            continue
        if round(start, 3) in ends and round(end, 3) in starts and end - start < BED_PAUSE:
            continue   # a pause under a music bed
        nonspeech.append((start, end, label))
    nonspeech.sort()
    speech = sum(e - s for s, e, _ in sentences)
    duration = float(episode.get("duration") or 0.0)
    return dict(ref=ref, sentences=sentences, texts=texts, nonspeech=nonspeech, speech=speech,
                stretches=stretches(nonspeech, duration), duration=duration, notes=notes)


def stretches(nonspeech, duration):
    """Touching non-speech regions joined: [(start, end)], an edge at the file's start or end
    (nothing spoken beyond it) made infinite."""
    out = []
    for start, end, _ in nonspeech:
        if out and start <= out[-1][1] + 1e-6:
            out[-1][1] = max(out[-1][1], end)
        else:
            out.append([start, end])
    last = max([duration] + [e for _, e in out])
    return [(float("-inf") if a <= 1e-6 else a, float("inf") if b >= last - 1e-6 else b) for a, b in out]


def depth_in_nonspeech(truth, t):
    """How far t lies inside non-speech from the nearest edge that meets speech or a pause (0
    when t is not in non-speech)."""
    for a, b in truth["stretches"]:
        if a <= t < b:
            return min(t - a, b - t)
        if a > t:
            break
    return 0.0


def flag_reason(segment):
    flag = segment.get("flag")
    if flag is None or flag is False or flag == "":
        return None
    if isinstance(flag, dict):
        return str(flag.get("reason") or json.dumps(flag, sort_keys=True))
    return str(flag)


def load_export(transcript):
    """Segments in order: {start, end, text, flag, tokens [(word, start, end)], timed}."""
    segments, notes = [], []
    for chapter in transcript.get("chapters") or []:
        if chapter.get("state") not in (None, "succeeded"):
            notes.append("chapter %s is %s" % (chapter.get("number"), chapter.get("state")))
        for seg in chapter.get("segments") or []:
            start, end = float(seg["start"]), float(seg["end"])
            toks = tokens(seg.get("text"))
            words = seg.get("words") or []
            timed = False
            if words:
                from_words = [(t, float(w["start"]), float(w["end"])) for w in words for t in tokens(w.get("word"))]
                if [t for t, _, _ in from_words] == toks:
                    timed_toks, timed = from_words, True
                else:
                    notes.append("segment at %.2f s: its words do not spell its text; its span is spread" % start)
            if not timed:
                timed_toks = spread(toks, start, end)
            segments.append(dict(start=start, end=end, text=seg.get("text") or "", flag=flag_reason(seg),
                                 tokens=timed_toks, timed=timed))
    return segments, notes


# --------------------------------------------------------------------------------------------
# scoring


def region_at(nonspeech, t):
    for start, end, label in nonspeech:
        if start <= t < end:
            return label
        if start > t:
            break
    return None


def overlap(nonspeech, start, end):
    total, labels = 0.0, []
    for s, e, label in nonspeech:
        o = min(end, e) - max(start, s)
        if o > 0:
            total += o
            labels.append(label)
    return total, labels


def where(truth, t):
    return region_at(truth["nonspeech"], t) or "speech"


def score(truth, segments):
    """Every figure of one run, with the lists behind them."""
    nonspeech, ref, sentences = truth["nonspeech"], truth["ref"], truth["sentences"]
    proper = [k for k, s in enumerate(segments) if s["flag"] is None]
    flagged = [k for k, s in enumerate(segments) if s["flag"] is not None]
    r = dict(segments=len(proper), ref_words=len(ref))

    # flagged
    held, held_over_speech = [], 0
    for k in flagged:
        s = segments[k]
        over = sum(1 for _, a, b in s["tokens"] if region_at(nonspeech, (a + b) / 2) is None)
        held_over_speech += over
        held.append(dict(start=round(s["start"], 3), end=round(s["end"], 3), text=s["text"].strip(),
                         reason=s["flag"], words=len(s["tokens"]), words_over_speech=over,
                         where=where(truth, (s["start"] + s["end"]) / 2)))
    r.update(flagged_segments=len(flagged), flagged_words=sum(len(segments[k]["tokens"]) for k in flagged),
             flagged_words_over_speech=held_over_speech, flagged=held)

    # the transcript proper, word by word
    hyp, owner = [], []
    for k in proper:
        for n, tok in enumerate(segments[k]["tokens"]):
            hyp.append(tok)
            owner.append((k, n))
    r["words"] = len(hyp)
    timed = [segments[k]["timed"] for k in proper if segments[k]["tokens"]]
    r["word_times"] = "none" if not timed else "backend" if all(timed) else "spread" if not any(timed) else "mixed"

    outside, by_label = [], {}
    for p, (word, a, b) in enumerate(hyp):
        label = region_at(nonspeech, (a + b) / 2)
        depth = depth_in_nonspeech(truth, (a + b) / 2)
        if label is not None and depth > EDGE_TOLERANCE:
            by_label[label] = by_label.get(label, 0) + 1
            outside.append(dict(word=word, start=round(a, 3), end=round(b, 3), label=label,
                                depth=None if depth == float("inf") else round(depth, 3),
                                segment_start=round(segments[owner[p][0]]["start"], 3),
                                segment_end=round(segments[owner[p][0]]["end"], 3),
                                segment_text=segments[owner[p][0]]["text"].strip()))
    r.update(words_outside_speech=len(outside), words_outside_speech_by_label=by_label, outside_speech=outside)

    # alignment, WER
    ops = align([w for w, _, _ in ref], [w for w, _, _ in hyp])
    counts = dict(eq=0, sub=0, ins=0)
    counts["del"] = 0
    ref_of = {}      # hyp index -> (ref index, op)
    for op, i, j in ops:
        counts[op] += 1
        if j is not None:
            ref_of[j] = (i, op)
    errors = counts["sub"] + counts["del"] + counts["ins"]
    r.update(sub=counts["sub"], dele=counts["del"], ins=counts["ins"],
             wer=round(100.0 * errors / len(ref), 2) if ref else (0.0 if not hyp else 100.0))

    # invented phrases: inserted runs of 2+ words, and known phrases aligned to nothing
    invented_words, invented_segments, invented, misheard = set(), set(), [], []
    j = 0
    while j < len(hyp):
        if ref_of.get(j, (None, None))[1] != "ins":
            j += 1
            continue
        end = j
        while end < len(hyp) and ref_of.get(end, (None, None))[1] == "ins":
            end += 1
        if end - j >= 2:
            run = range(j, end)
            segs = sorted({owner[p][0] for p in run})
            a, b = hyp[j][1], hyp[end - 1][2]
            found = dict(kind="inserted run", text=" ".join(hyp[p][0] for p in run), words=end - j,
                         start=round(a, 3), end=round(b, 3), where=where(truth, (a + b) / 2),
                         segment_text=" / ".join(segments[k]["text"].strip() for k in segs))
            if found["where"] == "speech":
                misheard.append(found)
            else:
                invented_words.update(run)
                invented_segments.update(segs)
                invented.append(found)
        j = end
    first_of = {}
    for p, (k, n) in enumerate(owner):
        first_of.setdefault(k, p)
    for k in proper:
        s = segments[k]
        if not s["tokens"] or " ".join(t for t, _, _ in s["tokens"]) not in HALLUCINATIONS:
            continue
        span = range(first_of[k], first_of[k] + len(s["tokens"]))
        if any(ref_of.get(p, (None, None))[1] == "eq" for p in span):
            continue
        if k in invented_segments:
            continue   # already counted as an inserted run
        invented_segments.add(k)
        invented_words.update(span)
        invented.append(dict(kind="known phrase", text=s["text"].strip(), words=len(s["tokens"]),
                             start=round(s["start"], 3), end=round(s["end"], 3),
                             where=where(truth, (s["start"] + s["end"]) / 2), segment_text=s["text"].strip()))
    invented.sort(key=lambda x: x["start"])
    r.update(invented_segments=len(invented_segments), invented_words=len(invented_words), invented=invented,
             inserted_in_speech=misheard, inserted_in_speech_runs=len(misheard),
             inserted_in_speech_words=sum(x["words"] for x in misheard))

    # segment starts
    matched, off_word, off_sentence, late = 0, [], [], []
    for k in proper:
        s = segments[k]
        if not s["tokens"]:
            continue
        base = first_of[k]
        for n in range(min(START_WINDOW, len(s["tokens"]))):
            i, op = ref_of.get(base + n, (None, None))
            if op != "eq":
                continue
            _, si, index = ref[i]
            before = sum(1 for q in range(n) if ref_of.get(base + q, (None, None))[1] in ("eq", "sub"))
            index = max(0, index - before)
            start, end, count = sentences[si]
            spoken = start + (index / float(count)) * (end - start)
            d_word, d_sentence = s["start"] - spoken, s["start"] - start
            matched += 1
            off_word.append(abs(d_word))
            off_sentence.append(abs(d_sentence))
            if abs(d_word) > OFF_LIMIT or abs(d_sentence) > OFF_LIMIT:
                late.append(dict(start=round(s["start"], 3), text=s["text"].strip(), word=ref[i][0],
                                 spoken=round(spoken, 3), off=round(d_word, 3), sentence_start=round(start, 3),
                                 off_sentence=round(d_sentence, 3)))
            break
    r.update(segments_matched=matched,
             starts_over_1s=sum(1 for d in off_word if d > OFF_LIMIT),
             max_start_off_seconds=round(max(off_word), 3) if off_word else None,
             starts_over_1s_sentence=sum(1 for d in off_sentence if d > OFF_LIMIT),
             max_start_off_sentence_seconds=round(max(off_sentence), 3) if off_sentence else None,
             starts_off=late)

    # segments spanning non-speech
    spanning, widest = [], 0.0
    for k in proper:
        s = segments[k]
        total, labels = overlap(nonspeech, s["start"], s["end"])
        widest = max(widest, total)
        if total > SPAN_LIMIT:
            spanning.append(dict(start=round(s["start"], 3), end=round(s["end"], 3), nonspeech_seconds=round(total, 3),
                                 labels=labels, text=s["text"].strip()))
    r.update(segments_spanning_nonspeech=len(spanning), max_nonspeech_in_segment_seconds=round(widest, 3),
             spanning=spanning)
    return r


def covered_by(segments):
    """What the unflagged segments account for: each word with its own times widened by
    WORD_REACH, a segment without them (times spread here, not heard) widened by SEGMENT_REACH."""
    out = []
    for s in segments:
        if s["flag"] is not None or not s["tokens"]:
            continue
        if s["timed"]:
            out += [(a - WORD_REACH, max(a, b) + WORD_REACH) for _, a, b in s["tokens"]]
        else:
            out.append((s["start"] - SEGMENT_REACH, max(s["start"], s["end"]) + SEGMENT_REACH))
    return out


def speech_figures(r, truth, speech, segments, log_path):
    """Adds speech without words (seconds and spans, with the sentences they lie in) and the
    worker's recovery counts to the figures r. speech: {chapter: [(start, end)]} or None."""
    if speech is None:
        r.update(speech_without_words_seconds=None, speech_without_words=[])
    else:
        seconds, spans = speech_without_words([p for pieces in speech.values() for p in pieces], covered_by(segments))
        found = []
        for start, end, inside in spans:
            said = [truth["texts"][k] for k, (a, b, _) in enumerate(truth["sentences"]) if a < end and b > start]
            found.append(dict(start=round(start, 3), end=round(end, 3), seconds=round(inside, 3),
                              where=where(truth, (start + end) / 2), said=" / ".join(said)))
        r.update(speech_without_words_seconds=round(seconds, 3), speech_without_words=found)
    counts = recovery_counts(log_path)
    off = str(r.get("recover_speech", "on")).lower() == "off"
    if counts is None or off or ("recover_speech" not in r and not any(counts.values())):
        # No log, recovery off, or a run from before the option with no sign of it in its log.
        r.update(words_recovered=None, asked_again=None, asked_again_empty=None, asked_again_failed=None)
    else:
        r.update(words_recovered=counts["words_recovered"], asked_again=counts["asked_recovered"] + counts["asked_empty"],
                 asked_again_empty=counts["asked_empty"], asked_again_failed=counts["asked_failed"])


def score_run(directory, episodes_dir):
    with open(os.path.join(directory, "run.json")) as f:
        run = json.load(f)
    path = os.path.join(episodes_dir, "episode-%s.json" % run["episode"])
    with open(path) as f:
        truth = load_truth(json.load(f))
    with open(os.path.join(directory, "transcript.json")) as f:
        segments, notes = load_export(json.load(f))
    r = dict(run)
    r.update(score(truth, segments))
    r["truth_speech_seconds"] = round(truth["speech"], 3)
    r["duration_seconds"] = truth["duration"]
    paid = run.get("paid_seconds")
    r["paid_over_speech"] = round(paid / truth["speech"], 3) if paid is not None and truth["speech"] else None
    # With a speed-up the backend heard paid / speedup seconds (a run.json of before has none: 1).
    r["speedup"] = float(run.get("speedup") or 1.0)
    if r.get("sent_seconds") is None and paid is not None:
        r["sent_seconds"] = round(paid / r["speedup"], 3)
    sent = r.get("sent_seconds")
    r["sent_over_speech"] = round(sent / truth["speech"], 3) if sent is not None and truth["speech"] else None
    r["notes"] = truth["notes"] + notes + list(run.get("notes") or [])
    speech_figures(r, truth, load_speech(os.path.join(directory, "chunks.json")), segments,
                   os.path.join(directory, "worker.log"))
    return r


# --------------------------------------------------------------------------------------------
# output


def fmt(value, digits=1):
    if value is None:
        return "-"
    if isinstance(value, float):
        return "%.*f" % (digits, value)
    return str(value)


COLUMNS = ["detection", "recovery", "speedup", "shape", "chunk s", "episode", "wall s", "words", "WER %", "sub/del/ins",
           "words outside speech", "flagged words (over speech)", "invented phrases (words)",
           "inserted in speech (words)", "paid s", "usage s", "sent s", "detected speech s", "true speech s",
           "paid / true speech", "sent / true speech", "segments",
           "starts > 1 s off (max s)", "> 1 s from sentence start (max s)", "spanning > 2 s non-speech",
           "speech s without words", "words recovered", "asked again"]


def row(r, total=False):
    return [r.get("speech_detection", "on"), r.get("recover_speech", "on"), "%g" % r.get("speedup", 1.0), r["shape"], fmt(r["chunk_seconds"], 0),
            r["episode"], fmt(r.get("wall_seconds")), str(r["words"]), fmt(r["wer"]),
            "%d/%d/%d" % (r["sub"], r["dele"], r["ins"]), str(r["words_outside_speech"]),
            "%d (%d)" % (r["flagged_words"], r["flagged_words_over_speech"]),
            "%d (%d)" % (r["invented_segments"], r["invented_words"]),
            "%d (%d)" % (r["inserted_in_speech_runs"], r["inserted_in_speech_words"]),
            fmt(r.get("paid_seconds")), fmt(r.get("usage_seconds")), fmt(r.get("sent_seconds")),
            fmt(r.get("detected_speech_seconds")), fmt(r["truth_speech_seconds"]),
            fmt(r.get("paid_over_speech"), 2), fmt(r.get("sent_over_speech"), 2), str(r["segments"]),
            "%d/%d (%s)" % (r["starts_over_1s"], r["segments_matched"], fmt(r["max_start_off_seconds"], 2)),
            "%d (%s)" % (r["starts_over_1s_sentence"], fmt(r["max_start_off_sentence_seconds"], 2)),
            "%d (%s)" % (r["segments_spanning_nonspeech"], fmt(r["max_nonspeech_in_segment_seconds"], 1)),
            fmt(r.get("speech_without_words_seconds")), fmt(r.get("words_recovered")),
            "-" if r.get("asked_again") is None
            else "%d%s" % (r["asked_again"], " (%d failed)" % r["asked_again_failed"] if r.get("asked_again_failed") else "")]


def table(rows):
    lines = ["| " + " | ".join(COLUMNS) + " |", "|" + "---|" * len(COLUMNS)]
    lines += ["| " + " | ".join(cells) + " |" for cells in rows]
    return "\n".join(lines)


def totals(results):
    """Each (detection, recovery, speed-up, shape, chunk length) over its episodes: counts
    summed, WER pooled, paid and sent over true speech pooled, maxima of maxima."""
    groups = {}
    for r in results:
        groups.setdefault((r.get("speech_detection", "on"), r.get("recover_speech", "on"), r.get("speedup", 1.0), r["shape"],
                           r["chunk_seconds"]), []).append(r)
    out = []
    for (mode, recovery, speedup, shape, seconds), rs in groups.items():
        def total(key):
            return sum(x[key] for x in rs)

        def most(key):
            values = [x[key] for x in rs if x[key] is not None]
            return max(values) if values else None

        def add(key):
            values = [x.get(key) for x in rs]
            return None if any(v is None for v in values) else round(sum(values), 3)

        t = dict(speech_detection=mode, recover_speech=recovery, speedup=speedup, shape=shape, chunk_seconds=seconds,
                 episode=",".join(x["episode"] for x in rs), wall_seconds=add("wall_seconds"))
        for key in ("words", "ref_words", "sub", "dele", "ins", "words_outside_speech", "flagged_words",
                    "flagged_words_over_speech", "invented_segments", "invented_words", "segments",
                    "inserted_in_speech_runs", "inserted_in_speech_words",
                    "starts_over_1s", "segments_matched", "starts_over_1s_sentence", "segments_spanning_nonspeech"):
            t[key] = total(key)
        for key in ("max_start_off_seconds", "max_start_off_sentence_seconds", "max_nonspeech_in_segment_seconds"):
            t[key] = most(key)
        t["wer"] = round(100.0 * (t["sub"] + t["dele"] + t["ins"]) / t["ref_words"], 2) if t["ref_words"] else 0.0
        t["paid_seconds"] = add("paid_seconds")
        t["usage_seconds"] = add("usage_seconds")
        t["sent_seconds"] = add("sent_seconds")
        t["detected_speech_seconds"] = add("detected_speech_seconds")
        for key in ("speech_without_words_seconds", "words_recovered", "asked_again", "asked_again_empty", "asked_again_failed"):
            t[key] = add(key)
        t["truth_speech_seconds"] = round(total("truth_speech_seconds"), 3)
        t["paid_over_speech"] = (round(t["paid_seconds"] / t["truth_speech_seconds"], 3)
                                 if t["paid_seconds"] is not None and t["truth_speech_seconds"] else None)
        t["sent_over_speech"] = (round(t["sent_seconds"] / t["truth_speech_seconds"], 3)
                                 if t["sent_seconds"] is not None and t["truth_speech_seconds"] else None)
        out.append(t)
    return out


def depth_text(x):
    return "%.2f" % x["depth"] if x.get("depth") is not None else "inf (from the file's edge)"


def details(r):
    lines = ["## %s" % r.get("name", r["shape"]), ""]
    lines.append("media %s, %s word times, wall %s s; chunks %s (uploaded %s, never sent %s); paid %s s, "
                 "speed-up %g: sent %s s; detected speech %s s, true speech %s s, backend usage %s s"
                 % (r.get("media_id"), r["word_times"], fmt(r.get("wall_seconds")), r.get("chunks"),
                    r.get("uploaded_chunks"), r.get("skipped_chunks"), fmt(r.get("paid_seconds"), 2),
                    r.get("speedup", 1.0), fmt(r.get("sent_seconds"), 2),
                    fmt(r.get("detected_speech_seconds"), 2), fmt(r["truth_speech_seconds"], 2),
                    fmt(r.get("usage_seconds"), 2)))
    for note in r["notes"]:
        lines.append("note: " + note)
    lines.append("")
    lines.append("flagged (%d segments, %d words, %d over speech):" % (r["flagged_segments"], r["flagged_words"], r["flagged_words_over_speech"]))
    for x in r["flagged"]:
        lines.append("  %8.2f-%8.2f  %-20s %-12s %r" % (x["start"], x["end"], x["reason"], x["where"], x["text"]))
    lines.append("words outside speech, middle more than %.2f s into non-speech (%d):" % (EDGE_TOLERANCE, r["words_outside_speech"]))
    for x in r["outside_speech"]:
        lines.append("  %8.2f-%8.2f  %-12s %-14s %s s in, of %.2f-%.2f %r"
                     % (x["start"], x["end"], x["label"], x["word"], depth_text(x), x["segment_start"], x["segment_end"], x["segment_text"]))
    lines.append("invented phrases (%d segments, %d words):" % (r["invented_segments"], r["invented_words"]))
    for x in r["invented"]:
        lines.append("  %8.2f-%8.2f  %-12s %-12s %r in %r" % (x["start"], x["end"], x["kind"], x["where"], x["text"], x["segment_text"]))
    lines.append("segment starts more than 1 s from the word or sentence (%d of %d matched):" % (len(r["starts_off"]), r["segments_matched"]))
    for x in r["starts_off"]:
        lines.append("  start %8.2f  %+6.2f s from %r spoken at %.2f, %+6.2f s from its sentence at %.2f: %r"
                     % (x["start"], x["off"], x["word"], x["spoken"], x["off_sentence"], x["sentence_start"], x["text"]))
    lines.append("segments spanning more than 2 s of non-speech (%d):" % r["segments_spanning_nonspeech"])
    for x in r["spanning"]:
        lines.append("  %8.2f-%8.2f  %.2f s of %s: %r" % (x["start"], x["end"], x["nonspeech_seconds"], ",".join(x["labels"]), x["text"]))
    if r.get("speech_without_words_seconds") is None:
        lines.append("speech without words: no figure (chunks.json has no `speech`)")
    else:
        lines.append("speech without words, more than %.1f s from every word (%.1f s from a segment without word times), "
                     "in spans of 1 s or more (%.2f s):" % (WORD_REACH, SEGMENT_REACH, r["speech_without_words_seconds"]))
    for x in r.get("speech_without_words") or []:
        lines.append("  %8.2f-%8.2f  %.2f s of speech, %-10s said: %r" % (x["start"], x["end"], x["seconds"], x["where"], x["said"]))
    lines.append("speech asked again: %s" % (
        "recovery off" if str(r.get("recover_speech", "on")).lower() == "off" else "no record" if r.get("asked_again") is None
        else "%d times (%d came back without words again, %d failed), %d words recovered"
        % (r["asked_again"], r["asked_again_empty"], r["asked_again_failed"], r["words_recovered"])))
    lines.append("")
    return "\n".join(lines)


def examples(r, count):
    out = []
    for x in r["invented"][:count]:
        out.append("  invented (%s, %s) at %.2f s: %r" % (x["kind"], x["where"], x["start"], x["text"]))
    for x in r["outside_speech"][:count]:
        out.append("  outside speech (%s) %r at %.2f-%.2f s, %s s in, of %.2f-%.2f %r"
                   % (x["label"], x["word"], x["start"], x["end"], depth_text(x), x["segment_start"], x["segment_end"], x["segment_text"][:80]))
    for x in r["flagged"][:count]:
        out.append("  flagged %s (%s) at %.2f s: %r" % (x["reason"], x["where"], x["start"], x["text"]))
    for x in r["starts_off"][:count]:
        out.append("  start %.2f s is %+.2f s from %r: %r" % (x["start"], x["off"], x["word"], x["text"][:60]))
    for x in r["spanning"][:count]:
        out.append("  segment %.2f-%.2f s spans %.1f s of %s: %r" % (x["start"], x["end"], x["nonspeech_seconds"], ",".join(x["labels"]), x["text"][:80]))
    for x in (r.get("speech_without_words") or [])[:count]:
        out.append("  speech without words %.2f-%.2f s (%.1f s, %s): %r" % (x["start"], x["end"], x["seconds"], x["where"], x["said"][:80]))
    if out:
        out.insert(0, "%s:" % r.get("name", r["shape"]))
    for note in r["notes"]:
        out.append("  note: " + note)
    return out


# --------------------------------------------------------------------------------------------
# self-test


def fake_export(episode, with_words=True, extra=()):
    """The ground truth's sentences as a Steno JSON export, one segment each, with word times
    spread over the sentence when with_words; extra segments are added and sorted in."""
    segments = []
    for s in episode["sentences"]:
        seg = dict(start=s["start"], end=s["end"], text=" " + s["text"])
        if with_words:
            seg["words"] = [dict(word=" " + w, start=a, end=b) for w, a, b in spread(s["text"].split(), s["start"], s["end"])]
        segments.append(seg)
    segments += [dict(x) for x in extra]
    segments.sort(key=lambda x: x["start"])
    return dict(media_id=1, title="fake", source="fake", chapters=[
        dict(number=1, title=None, start=0.0, end=episode.get("duration", 0.0), state="succeeded",
             text=" ".join(x["text"].strip() for x in segments if not x.get("flag")), segments=segments)])


def check(label, got, want):
    if got != want:
        raise AssertionError("%s: got %r, want %r" % (label, got, want))


def clean_checks(episode, name):
    """A transcript that is the ground truth itself scores perfectly, with and without words."""
    truth = load_truth(episode)
    for with_words in (True, False):
        segments, notes = load_export(fake_export(episode, with_words))
        r = score(truth, segments)
        tag = "%s (%s)" % (name, "words" if with_words else "segment times")
        check(tag + " notes", notes + truth["notes"], [])
        check(tag + " WER", r["wer"], 0.0)
        check(tag + " words", r["words"], len(truth["ref"]))
        check(tag + " outside", r["words_outside_speech"], 0)
        check(tag + " flagged", r["flagged_words"], 0)
        check(tag + " invented", r["invented_segments"], 0)
        check(tag + " starts off", (r["starts_over_1s"], r["starts_over_1s_sentence"]), (0, 0))
        check(tag + " matched", r["segments_matched"], len(episode["sentences"]))
        check(tag + " max off", r["max_start_off_seconds"], 0.0)
        check(tag + " spanning", r["segments_spanning_nonspeech"], 0)
        check(tag + " word times", r["word_times"], "backend" if with_words else "spread")
    return truth


SYNTHETIC = dict(
    duration=30.0,
    text="Hello there, this is a test of the bench. Thanks, I came here by train today. Goodbye for now.",
    sentences=[
        dict(start=5.0, end=9.0, voice="slt", text="Hello there, this is a test of the bench.", over=None),
        dict(start=9.5, end=13.0, voice="awb", text="Thanks, I came here by train today.", over="music"),
        dict(start=13.6, end=15.0, voice="awb", text="Goodbye for now.", over="music"),
    ],
    nonspeech=[
        dict(start=0.0, end=5.0, label="music"),
        dict(start=9.0, end=9.5, label="pause"),
        dict(start=13.0, end=13.6, label="music"),   # a pause under the bed
        dict(start=15.0, end=21.0, label="silence"),
        dict(start=21.0, end=30.0, label="applause"),
    ],
)


def self_test(episode_path=None):
    truth = clean_checks(SYNTHETIC, "synthetic")
    check("bed pause left out", [label for _, _, label in truth["nonspeech"]], ["music", "silence", "applause"])
    check("tokens", tokens("Forty-two, o'clock \u2018quoted\u2019 9,000!"), ["forty", "two", "o'clock", "quoted", "9", "000"])
    check("align", [op for op, _, _ in align("a b c".split(), "a x c d".split())], ["eq", "sub", "eq", "ins"])

    # An invented "Thank you." over the applause, a flagged phrase over the silence, three
    # inserted words inside a sentence's segment, one segment 2 s late, one over the silence.
    def seg(start, end, text, **more):
        words = [dict(word=" " + w, start=a, end=b) for w, a, b in spread(text.split(), start, end)]
        return dict(start=start, end=end, text=" " + text, words=words, **more)

    episode = json.loads(json.dumps(SYNTHETIC))
    export = fake_export(episode, extra=[seg(24.0, 25.0, "Thank you."),
                                         seg(16.0, 17.0, "Thanks for watching.", flag="known_hallucination")])
    segments, _ = load_export(export)
    r = score(truth, segments)
    check("thank you: outside", (r["words_outside_speech"], r["words_outside_speech_by_label"]), (2, {"applause": 2}))
    check("thank you: invented", (r["invented_segments"], r["invented_words"]), (1, 2))
    check("thank you: kind", [x["kind"] for x in r["invented"]], ["inserted run"])
    check("flagged", (r["flagged_segments"], r["flagged_words"], r["flagged_words_over_speech"]), (1, 3, 0))
    check("flagged reason", r["flagged"][0]["reason"], "known_hallucination")
    check("flagged not in WER", (r["sub"], r["dele"], r["ins"]), (0, 0, 2))

    # A lone known phrase between real words is not an inserted run of 2: caught as a phrase.
    export = fake_export(episode, extra=[seg(18.0, 18.5, "You.")])
    r = score(truth, load_export(export)[0])
    check("you: invented", ([x["kind"] for x in r["invented"]], r["invented_words"]), (["known phrase"], 1))
    check("you: outside", r["outside_speech"][0]["label"], "silence")

    # "Thanks" said in the text is no invention, even alone in a segment.
    sentences = episode["sentences"]
    split = [dict(start=9.5, end=10.0, text=" Thanks,"), dict(start=10.0, end=13.0, text=" I came here by train today.")]
    ex = fake_export(dict(episode, sentences=[sentences[0], sentences[2]]), with_words=False, extra=split)
    r = score(truth, load_export(ex)[0])
    check("thanks said", (r["invented_segments"], r["wer"]), (0, 0.0))
    check("thanks said: starts", r["starts_over_1s"], 0)
    # "I came" starts 1/7 into its sentence: 0.5 s, on time by word position.
    check("thanks said: max off", r["max_start_off_seconds"], 0.0)

    # Inserted words inside a sentence, and a segment 2 s late.
    ex = fake_export(episode, with_words=False)
    segs = ex["chapters"][0]["segments"]
    segs[0]["text"] = " Hello there, this is a big fat lovely test of the bench."
    segs[2]["start"] += 2.0
    segs[2]["end"] += 2.0
    r = score(truth, load_export(ex)[0])
    # Inside a spoken sentence: misheard speech, counted in WER, not invented.
    check("inserted run", (r["invented_segments"], r["invented_words"], r["ins"]), (0, 0, 3))
    check("inserted text", [x["text"] for x in r["inserted_in_speech"]], ["big fat lovely"])
    check("late", (r["starts_over_1s"], r["max_start_off_seconds"]), (1, 2.0))
    check("late vs sentence", r["starts_over_1s_sentence"], 1)
    check("late WER", r["wer"], round(100.0 * 3 / len(truth["ref"]), 2))

    # A segment running over the whole silence spans non-speech; a substitution and a
    # deletion count in WER, not as inventions.
    ex = fake_export(episode, with_words=False)
    segs = ex["chapters"][0]["segments"]
    segs[2]["end"] = 19.0
    segs[1]["text"] = " Thanks, I came hear by train."
    r = score(truth, load_export(ex)[0])
    check("spanning", (r["segments_spanning_nonspeech"], r["max_nonspeech_in_segment_seconds"]), (1, 4.0))
    check("sub/del", (r["sub"], r["dele"], r["ins"], r["invented_segments"]), (1, 1, 0, 0))
    # "Goodbye for now." spread over 13.6-19.0 by length (8, 4, 4): "for" (16.3-17.65) and
    # "now" (17.65-19.0) have their middles in the silence from 15.0.
    check("spread words outside", (r["words_outside_speech"], [x["word"] for x in r["outside_speech"]]), (2, ["for", "now"]))

    # The tolerance, both ways: a word whose middle lies 0.2 s into non-speech is not outside
    # speech, one 0.4 s in is. "Hello" before the first sentence (5.0) in the intro music, "now"
    # after the last (15.0) in the silence; the intro's start is the file's, no edge.
    def shifted(middle_hello, middle_now):
        ex = fake_export(episode)
        segs = ex["chapters"][0]["segments"]
        segs[0]["words"][0].update(start=middle_hello - 0.2, end=middle_hello + 0.2)
        segs[0]["start"] = middle_hello - 0.2
        segs[-1]["words"][-1].update(start=middle_now - 0.2, end=middle_now + 0.2)
        segs[-1]["end"] = middle_now + 0.2
        return score(truth, load_export(ex)[0])
    r = shifted(5.0 - 0.2, 15.0 + 0.2)
    check("0.2 s in: not outside", r["words_outside_speech"], 0)
    r = shifted(5.0 - 0.4, 15.0 + 0.4)
    check("0.4 s in: outside", ([(x["word"], x["label"], x["depth"]) for x in r["outside_speech"]]),
          [("hello", "music", 0.4), ("now", "silence", 0.4)])
    check("0.4 s in: segment text", r["outside_speech"][1]["segment_text"], "Goodbye for now.")
    # The silence (15-21) and the applause (21-30) are one stretch: a word just past their
    # border is 6 s into non-speech, counted under the applause.
    ex = fake_export(episode, extra=[seg(21.0, 21.2, "Hello.")])
    r = score(truth, load_export(ex)[0])
    check("border of two regions", [(x["label"], x["depth"]) for x in r["outside_speech"]], [("applause", 6.1)])
    check("tolerance", EDGE_TOLERANCE, 0.25)

    # Words that do not spell the text: the span is spread, with a note.
    ex = fake_export(episode)
    ex["chapters"][0]["segments"][0]["words"][0]["word"] = " Hullo"
    segments, notes = load_export(ex)
    check("mismatch note", len(notes), 1)
    check("mismatch spread", segments[0]["timed"], False)

    # A flag written as an object is read too.
    check("flag object", flag_reason({"flag": {"reason": "no_speech"}}), "no_speech")
    check("no flag", flag_reason({"flag": None}), None)

    # Totals pool the episodes.
    a = dict(score(truth, load_export(fake_export(episode))[0]), speech_detection="on", shape="openai",
             chunk_seconds=20, episode="x", wall_seconds=1.0, paid_seconds=10.0, detected_speech_seconds=9.0,
             truth_speech_seconds=9.0, duration_seconds=30.0, paid_over_speech=None, speedup=1.0,
             usage_seconds=11.0, sent_seconds=10.0)
    t = totals([a, dict(a, episode="y")])
    check("totals", (t[0]["words"], t[0]["paid_seconds"], t[0]["paid_over_speech"], t[0]["episode"]),
          (2 * a["words"], 20.0, round(20.0 / 18.0, 3), "x,y"))
    check("totals: sent", (t[0]["usage_seconds"], t[0]["sent_seconds"], t[0]["sent_over_speech"]), (22.0, 20.0, round(20.0 / 18.0, 3)))
    # A speed-up is a group of its own; a backend without usage (tokens) sums to none.
    fast = dict(a, speedup=2.0, sent_seconds=5.0, usage_seconds=None)
    t = totals([a, fast, dict(fast, episode="y")])
    check("totals: speed-ups", [(x["speedup"], x["episode"], x["sent_seconds"], x["usage_seconds"]) for x in t],
          [(1.0, "x", 10.0, 11.0), (2.0, "x,y", 10.0, None)])
    check("totals: sent / speech", t[1]["sent_over_speech"], round(10.0 / 18.0, 3))

    # Speech without words: the detector's speech is the three sentences (chunks' `speech`
    # clipped to each chunk, their overlap joined). All of it covered: 0.
    import tempfile
    with tempfile.TemporaryDirectory() as tmp:
        chunks = os.path.join(tmp, "chunks.json")
        with open(chunks, "w") as f:
            json.dump([dict(chapter_index=0, index=0, start_seconds=0.0, end_seconds=11.0, state="succeeded",
                            speech=[[5.0, 9.0], [9.5, 13.0]]),
                       dict(chapter_index=0, index=1, start_seconds=10.0, end_seconds=30.0, state="succeeded",
                            speech=[[10.0, 13.0], [13.6, 15.0]])], f)
        speech = load_speech(chunks)
        check("speech union", speech, {1: [(5.0, 9.0), (9.5, 13.0), (13.6, 15.0)]})
        for with_words in (True, False):
            r = {}
            speech_figures(r, truth, speech, load_export(fake_export(episode, with_words))[0], None)
            check("all covered (%s)" % with_words, (r["speech_without_words_seconds"], r["words_recovered"]), (0.0, None))
            # "Goodbye for now." (13.6-15.0) held back: 1.4 s of speech without words, more than
            # 0.3 s from "today." (ending at 13.0), and 0.5 s from its segment without word times.
            ex = fake_export(episode, with_words)
            ex["chapters"][0]["segments"][-1]["flag"] = "no_speech"
            r = {}
            speech_figures(r, truth, speech, load_export(ex)[0], None)
            check("last sentence without words (%s)" % with_words,
                  [(x["start"], x["end"], x["seconds"], x["said"]) for x in r["speech_without_words"]],
                  [(13.6, 15.0, 1.4, "Goodbye for now.")])
            check("last sentence seconds (%s)" % with_words, r["speech_without_words_seconds"], 1.4)
        # Rows without `speech` (an older run): no figure.
        with open(chunks, "w") as f:
            json.dump([dict(chapter_index=0, index=0, start_seconds=0.0, end_seconds=30.0, state="succeeded")], f)
        r = {}
        speech_figures(r, truth, load_speech(chunks), load_export(fake_export(episode))[0], None)
        check("no speech column", r["speech_without_words_seconds"], None)
        check("no speech column: row", row(dict(a, **r))[-3:], ["-", "-", "-"])
        # The worker's log: words recovered and asks.
        log = os.path.join(tmp, "worker.log")
        with open(log, "w") as f:
            f.write('{"level":"info","message":"recovered words for speech the answer had left without any","words":"4"}\n')
            f.write('{"level":"notice","message":"speech left without words came back without words again; it stays so"}\n')
        r = dict(recover_speech="on")
        speech_figures(r, truth, speech, load_export(fake_export(episode))[0], log)
        check("recovered", (r["words_recovered"], r["asked_again"], r["asked_again_empty"]), (4, 2, 1))
        check("recovered: row", row(dict(a, **r))[-3:], ["0.0", "4", "2"])
        r = dict(recover_speech="off")
        speech_figures(r, truth, speech, load_export(fake_export(episode))[0], log)
        check("recovery off", (r["words_recovered"], r["asked_again"]), (None, None))
        t = totals([dict(a, speech_without_words_seconds=1.4, words_recovered=4, asked_again=2),
                    dict(a, episode="y", speech_without_words_seconds=0.5, words_recovered=1, asked_again=1),
                    dict(a, recover_speech="off", speech_without_words_seconds=3.0)])
        check("totals: recovery", [(x["recover_speech"], x["speech_without_words_seconds"], x["words_recovered"], x["asked_again"]) for x in t],
              [("on", 1.9, 5, 3), ("off", 3.0, None, None)])

    if episode_path:
        with open(episode_path) as f:
            clean_checks(json.load(f), os.path.basename(episode_path))
    print("score.py self-test: ok" + (" (and %s)" % episode_path if episode_path else ""))


# --------------------------------------------------------------------------------------------


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--episodes-dir", help="directory of episode-NAME.json ground truths")
    ap.add_argument("--details", help="write every finding, per run, to this file")
    ap.add_argument("--summary-json", help="write every run's figures (and its run.json) to this file")
    ap.add_argument("--examples", type=int, default=3, help="examples per kind and run printed (3)")
    ap.add_argument("--self-test", action="store_true", help="check the scorer itself (and an episode given as argument)")
    ap.add_argument("runs", nargs="*", help="run directories (with --self-test: an episode JSON)")
    args = ap.parse_args(argv)
    if args.self_test:
        self_test(args.runs[0] if args.runs else None)
        return 0
    if not args.episodes_dir or not args.runs:
        ap.error("--episodes-dir and at least one run directory are needed")
    results = [score_run(d, args.episodes_dir) for d in args.runs]
    print(table([row(r) for r in results]))
    groups = totals(results)
    if len(groups) < len(results):
        print()
        print("All episodes of each run (counts summed, WER and paid / true speech pooled, maxima of maxima):")
        print()
        print(table([row(t) for t in groups]))
    lines = [line for r in results for line in examples(r, args.examples)]
    if lines:
        print()
        print("\n".join(lines))
    if args.details:
        with open(args.details, "w") as f:
            f.write("\n".join(details(r) for r in results))
    if args.summary_json:
        with open(args.summary_json, "w") as f:
            json.dump(dict(runs=results, totals=groups), f, indent=1, sort_keys=True)
            f.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
