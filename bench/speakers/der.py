#!/usr/bin/env python3
"""Diarization error rate of a hypothesis RTTM against a reference RTTM, as NIST md-eval counts it.

    der.py REF.rttm HYP.rttm [--collar 0.25] [--uem UEM]
    der.py --self-test

Prints one JSON object: {"der", "missed", "false_alarm", "confusion", "reference_speech",
"scored_seconds", "speakers_ref", "speakers_hyp", "mapping"}; times in seconds, der a fraction
(0.05 is 5 %). Python 3 standard library only.

RTTM: lines `SPEAKER FILE CHANNEL START DURATION <NA> <NA> SPEAKER <NA> <NA>`; other line types
and `;` comments are ignored. Files are matched by FILE; when each side names exactly one file,
the two are compared whatever their names. Counts are summed over files; each file has its own
speaker mapping.

As md-eval (md-eval-22.pl, run without a UEM file):
- Segments of one speaker that overlap are merged first, on both sides (md-eval rejects such a
  reference; dscore merges them too). Segments that only touch stay apart.
- The evaluated region is the reference's span, from its earliest start to its latest end:
  hypothesis speech outside it is not counted. With --uem (NIST UEM lines `FILE CHANNEL START
  END`, as md-eval's -u) it is the UEM's segments instead, so that speech a system invents
  before the first or after the last reference turn counts as false alarm, and a file with no
  reference speech is scored too. The scored region is that, less a no-score collar of +-COLLAR
  seconds around every reference segment's start and end (--collar 0 scores all).
- Speakers are mapped one to one (Hungarian algorithm) so as to maximise the time where a
  reference speaker and its hypothesis speaker both speak, counted in the evaluated region
  without the collars (as md-eval maps them). A speaker left unmapped is wrong wherever it
  speaks.
- Overlapping speech counts per speaker. In each stretch of scored time with N_ref reference and
  N_hyp hypothesis speakers active, of which N_correct are mapped pairs:
      reference speech += dur * N_ref
      missed           += dur * max(0, N_ref - N_hyp)
      false alarm      += dur * max(0, N_hyp - N_ref)
      confusion        += dur * (min(N_ref, N_hyp) - N_correct)
  DER = (missed + false alarm + confusion) / reference speech.
Times are handled as whole microseconds, so boundaries compare exactly.
"""
import argparse
import itertools
import json
import random
import sys

UNIT = 1_000_000   # microseconds


def parse_rttm(text):
    """{file: {speaker: [(start, end), ...]}} in microseconds, one speaker's segments merged."""
    files = {}
    for number, line in enumerate(text.splitlines(), 1):
        fields = line.split()
        if not fields or fields[0].startswith(";") or fields[0] != "SPEAKER":
            continue
        if len(fields) < 8:
            raise ValueError(f"line {number}: an RTTM SPEAKER line has at least 8 fields: {line!r}")
        start = round(float(fields[3]) * UNIT)
        duration = round(float(fields[4]) * UNIT)
        if duration < 0:
            raise ValueError(f"line {number}: negative duration")
        if duration == 0:
            continue
        files.setdefault(fields[1], {}).setdefault(fields[7], []).append((start, start + duration))
    return {f: {s: merge(segs) for s, segs in speakers.items()} for f, speakers in files.items()}


def merge(segments, touching=False):
    """Merges overlapping segments (and touching ones too if `touching`)."""
    out = []
    for start, end in sorted(segments):
        if out and (start < out[-1][1] or (touching and start == out[-1][1])):
            out[-1] = (out[-1][0], max(out[-1][1], end))
        else:
            out.append((start, end))
    return out


def hungarian(weights):
    """Assignment maximising the total weight; weights is a list of rows (any shape).
    Returns {row: column} for the rows that get a column (all rows if rows <= columns)."""
    rows = len(weights)
    cols = len(weights[0]) if rows else 0
    if rows == 0 or cols == 0:
        return {}
    transpose = rows > cols
    if transpose:
        weights = [list(column) for column in zip(*weights)]
        rows, cols = cols, rows
    top = max(max(row) for row in weights)
    cost = [[top - w for w in row] for row in weights]      # minimise cost, all >= 0
    inf = float("inf")
    # e-maxx's O(rows^2 * cols) Hungarian algorithm, 1-based with a virtual column 0
    u = [0.0] * (rows + 1)
    v = [0.0] * (cols + 1)
    owner = [0] * (cols + 1)        # owner[j]: the row assigned to column j
    way = [0] * (cols + 1)
    for i in range(1, rows + 1):
        owner[0] = i
        j0 = 0
        minv = [inf] * (cols + 1)
        used = [False] * (cols + 1)
        while True:
            used[j0] = True
            i0 = owner[j0]
            delta = inf
            j1 = 0
            for j in range(1, cols + 1):
                if not used[j]:
                    cur = cost[i0 - 1][j - 1] - u[i0] - v[j]
                    if cur < minv[j]:
                        minv[j] = cur
                        way[j] = j0
                    if minv[j] < delta:
                        delta = minv[j]
                        j1 = j
            for j in range(cols + 1):
                if used[j]:
                    u[owner[j]] += delta
                    v[j] -= delta
                else:
                    minv[j] -= delta
            j0 = j1
            if owner[j0] == 0:
                break
        while True:
            j1 = way[j0]
            owner[j0] = owner[j1]
            j0 = j1
            if j0 == 0:
                break
    assignment = {owner[j] - 1: j - 1 for j in range(1, cols + 1) if owner[j]}
    if transpose:
        assignment = {c: r for r, c in assignment.items()}
    return assignment


def stretches(ref, hyp, collar, uem=None):
    """Scored stretches: (duration, set of ref speakers, set of hyp speakers), in microseconds.
    `uem`: the evaluated segments [(start, end)] in microseconds; None: the reference's span."""
    if uem is None:
        bounds = [t for segs in ref.values() for seg in segs for t in seg]
        if not bounds:
            return []
        uem = [(min(bounds), max(bounds))]      # the reference's span, as md-eval's default UEM
    uem = merge(uem, touching=True)
    if not uem:
        return []
    first, last = uem[0][0], uem[-1][1]
    noscore = merge([(t - collar, t + collar) for segs in ref.values() for seg in segs for t in seg],
                    touching=True) if collar > 0 else []
    # the gaps between UEM segments are not evaluated: treated as no-score time
    noscore = merge(noscore + [(a[1], b[0]) for a, b in zip(uem, uem[1:])], touching=True)
    events = {first: [], last: []}

    def add(t, what):
        events.setdefault(t, []).append(what)

    for side, speakers in (("r", ref), ("h", hyp)):
        for speaker, segs in speakers.items():
            for start, end in segs:
                add(start, (side, speaker, +1))
                add(end, (side, speaker, -1))
    for start, end in noscore:
        add(start, ("n", None, +1))
        add(end, ("n", None, -1))
    active = {"r": {}, "h": {}}
    blocked = 0
    out = []
    times = sorted(events)
    for t, t_next in zip(times, times[1:] + [None]):
        for side, speaker, change in events[t]:
            if side == "n":
                blocked += change
            else:
                count = active[side].get(speaker, 0) + change
                if count:
                    active[side][speaker] = count
                else:
                    active[side].pop(speaker, None)
        if t_next is None or t < first or t >= last:
            continue
        end = min(t_next, last)
        if blocked == 0 and end > t:
            out.append((end - t, frozenset(active["r"]), frozenset(active["h"])))
    return out


def score_file(ref, hyp, collar, uem=None):
    parts = stretches(ref, hyp, collar, uem)
    ref_speakers = sorted(ref)
    hyp_speakers = sorted(hyp)
    overlap = [[0] * len(hyp_speakers) for _ in ref_speakers]
    r_index = {s: i for i, s in enumerate(ref_speakers)}
    h_index = {s: i for i, s in enumerate(hyp_speakers)}
    for duration, rs, hs in stretches(ref, hyp, 0, uem):
        for r in rs:
            for h in hs:
                overlap[r_index[r]][h_index[h]] += duration
    assignment = hungarian(overlap) if ref_speakers and hyp_speakers else {}
    mapping = {ref_speakers[r]: hyp_speakers[h] for r, h in assignment.items() if overlap[r][h] > 0}
    counts = {"reference_speech": 0, "missed": 0, "false_alarm": 0, "confusion": 0, "scored": 0}
    for duration, rs, hs in parts:
        n_ref, n_hyp = len(rs), len(hs)
        correct = sum(1 for r in rs if mapping.get(r) in hs)
        counts["scored"] += duration
        counts["reference_speech"] += duration * n_ref
        counts["missed"] += duration * max(0, n_ref - n_hyp)
        counts["false_alarm"] += duration * max(0, n_hyp - n_ref)
        counts["confusion"] += duration * (min(n_ref, n_hyp) - correct)
    return counts, mapping


def parse_uem(text):
    """{file: [(start, end), ...]} in microseconds from NIST UEM lines `FILE CHANNEL START END`."""
    out = {}
    for number, line in enumerate(text.splitlines(), 1):
        fields = line.split()
        if not fields or fields[0].startswith(";"):
            continue
        if len(fields) < 4:
            raise ValueError(f"UEM line {number}: FILE CHANNEL START END: {line!r}")
        out.setdefault(fields[0], []).append((round(float(fields[2]) * UNIT), round(float(fields[3]) * UNIT)))
    return out


def score(ref_text, hyp_text, collar=0.25, uem_text=None):
    """Counts summed over the files of REF (each file with its own speaker mapping); with
    `uem_text`, each file is evaluated over its UEM segments (a file missing from it: its
    reference's span)."""
    ref_files = parse_rttm(ref_text)
    hyp_files = parse_rttm(hyp_text)
    uems = parse_uem(uem_text) if uem_text is not None else {}
    if len(uems) == 1 and len(ref_files) <= 1 and len(hyp_files) <= 1:
        # one file each: compared whatever their names, as below; an empty reference with a UEM
        # is scored over the UEM (all false alarm)
        name = next(iter(uems))
        ref_files = {name: next(iter(ref_files.values()), {})}
        hyp_files = {name: next(iter(hyp_files.values()), {})}
    if len(ref_files) == 1 and len(hyp_files) == 1:
        pairs = [(next(iter(ref_files.values())), next(iter(hyp_files.values())), next(iter(ref_files)))]
    else:
        for name in sorted(set(hyp_files) - set(ref_files)):
            print(f"der.py: hypothesis file {name} is not in the reference; ignored", file=sys.stderr)
        pairs = [(ref_files[name], hyp_files.get(name, {}), name) for name in sorted(ref_files)]
    if not pairs:
        raise ValueError("the reference has no SPEAKER line (give a UEM to score a file without speech)")
    if len(pairs) == 1 and len(uems) == 1:
        uems = {pairs[0][2]: next(iter(uems.values()))}
    totals = {"reference_speech": 0, "missed": 0, "false_alarm": 0, "confusion": 0, "scored": 0}
    mappings = {}
    ref_speakers = set()
    hyp_speakers = set()
    for ref, hyp, name in pairs:
        counts, mapping = score_file(ref, hyp, round(collar * UNIT), uems.get(name))
        for key in totals:
            totals[key] += counts[key]
        mappings[name] = mapping
        ref_speakers |= {(name, s) for s in ref}
        hyp_speakers |= {(name, s) for s in hyp}
    errors = totals["missed"] + totals["false_alarm"] + totals["confusion"]
    speech = totals["reference_speech"]
    result = {
        "der": round(errors / speech, 6) if speech else (0.0 if errors == 0 else None),
        "missed": totals["missed"] / UNIT,
        "false_alarm": totals["false_alarm"] / UNIT,
        "confusion": totals["confusion"] / UNIT,
        "reference_speech": speech / UNIT,
        "scored_seconds": totals["scored"] / UNIT,
        "speakers_ref": len(ref_speakers),
        "speakers_hyp": len(hyp_speakers),
        "collar": collar,
        "mapping": mappings[pairs[0][2]] if len(pairs) == 1 else mappings,
    }
    return result


# ---------------------------------------------------------------- self-test

def rttm(*segments, name="f"):
    return "".join(f"SPEAKER {name} 1 {s:.3f} {e - s:.3f} <NA> <NA> {spk} <NA> <NA>\n" for spk, s, e in segments)


def self_test():
    failures = 0
    checks = 0

    def check(label, ref, hyp, collar, expect):
        nonlocal failures, checks
        checks += 1
        got = score(ref, hyp, collar)
        bad = {k: (got[k], v) for k, v in expect.items() if abs(got[k] - v) > 1e-6}
        print(("ok   " if not bad else "FAIL ") + label + ("" if not bad else f": got/expected {bad}"))
        failures += bool(bad)

    two = rttm(("A", 0, 10), ("B", 10, 20))
    check("perfect hypothesis, other labels, collar 0", two, rttm(("x", 0, 10), ("y", 10, 20)), 0,
          {"der": 0, "missed": 0, "false_alarm": 0, "confusion": 0, "reference_speech": 20})
    check("perfect hypothesis, collar 0.25", two, rttm(("y", 0, 10), ("x", 10, 20)), 0.25,
          {"der": 0, "reference_speech": 19.0})
    check("one speaker for a 50/50 two-speaker reference: confusion 0.5", two, rttm(("x", 0, 20)), 0,
          {"der": 0.5, "confusion": 10, "missed": 0, "false_alarm": 0})
    # collar: no-score [-0.25,0.25], [9.75,10.25], [19.75,20.25]; B scored 10.25..19.75 = 9.5 of 19
    check("one speaker, 50/50 reference, collar 0.25", two, rttm(("x", 0, 20)), 0.25,
          {"der": 0.5, "confusion": 9.5, "reference_speech": 19})
    check("missed region: hypothesis stops 2 s early", rttm(("A", 0, 10)), rttm(("x", 0, 8)), 0,
          {"der": 0.2, "missed": 2, "false_alarm": 0, "confusion": 0})
    # scored [0.25, 9.75] (the span is 0..10 less the collars); missed 8..9.75
    check("missed region with collar 0.25", rttm(("A", 0, 10)), rttm(("x", 0, 8)), 0.25,
          {"missed": 1.75, "reference_speech": 9.5, "der": 1.75 / 9.5})
    check("speaker change 0.2 s late, collar 0.25: not counted", two, rttm(("x", 0, 10.2), ("y", 10.2, 20)), 0.25,
          {"der": 0, "confusion": 0})
    check("speaker change 0.2 s late, collar 0: 0.2 s confusion", two, rttm(("x", 0, 10.2), ("y", 10.2, 20)), 0,
          {"der": 0.01, "confusion": 0.2})
    check("false alarm in a pause", rttm(("A", 0, 10), ("A", 12, 20)), rttm(("x", 0, 20)), 0,
          {"false_alarm": 2, "der": 2 / 18})
    check("hypothesis past the reference's span is not scored (md-eval's default UEM)",
          rttm(("A", 1, 10)), rttm(("x", 0, 12)), 0, {"false_alarm": 0, "der": 0})
    # overlap: A 0-10, B 5-15 (20 s of reference speech); one hypothesis speaker 0-15, mapped to
    # A or B (a tie): 5 s missed in the overlap and 5 s confused, either way
    check("overlap counted per speaker", rttm(("A", 0, 10), ("B", 5, 15)), rttm(("x", 0, 15)), 0,
          {"reference_speech": 20, "missed": 5, "confusion": 5, "der": 0.5})
    check("overlap, both speakers found", rttm(("A", 0, 10), ("B", 5, 15)), rttm(("y", 0, 10), ("x", 5, 15)), 0,
          {"der": 0})
    check("more hypothesis speakers than reference ones", two,
          rttm(("x", 0, 10), ("y", 10, 15), ("z", 15, 20)), 0, {"confusion": 5, "der": 0.25})
    check("touching segments of one speaker keep their collars (as md-eval)",
          rttm(("A", 0, 5), ("A", 5, 10)), rttm(("x", 0, 10)), 0.25, {"der": 0, "reference_speech": 9.0})
    check("overlapping segments of one speaker are merged",
          rttm(("A", 0, 6), ("A", 4, 10)), rttm(("x", 0, 10)), 0.25, {"der": 0, "reference_speech": 9.5})
    check("empty hypothesis: all missed", two, "", 0.25, {"der": 1, "missed": 19})

    # a UEM of the whole file: speech outside the reference's span is false alarm
    def check_uem(label, ref, hyp, collar, uem, expect):
        nonlocal failures, checks
        checks += 1
        got = score(ref, hyp, collar, uem)
        bad = {k: (got[k], v) for k, v in expect.items() if abs(got[k] - v) > 1e-6}
        print(("ok   " if not bad else "FAIL ") + label + ("" if not bad else f": got/expected {bad}"))
        failures += bool(bad)

    check_uem("UEM 0-12: hypothesis past the reference's span is false alarm",
              rttm(("A", 1, 10)), rttm(("x", 0, 12)), 0, "f 1 0 12\n", {"false_alarm": 3, "der": 3 / 9})
    check_uem("UEM 0-12, collar 0.25", rttm(("A", 1, 10)), rttm(("x", 0, 12)), 0.25, "f 1 0 12\n",
              {"false_alarm": 0.75 + 1.75, "reference_speech": 8.5})
    check_uem("UEM in two parts: the gap is not scored", rttm(("A", 1, 10)), rttm(("x", 0, 12)), 0,
              "f 1 0 5\nf 1 6 12\n", {"false_alarm": 3, "reference_speech": 8})
    check_uem("UEM of the reference's span: as without one", two, rttm(("x", 0, 10.2), ("y", 10.2, 20)), 0,
              "f 1 0 20\n", {"der": 0.01, "confusion": 0.2})
    checks += 1
    got = score("", rttm(("x", 3, 5)), 0, "f 1 0 30\n")
    ok = got["false_alarm"] == 2 and got["reference_speech"] == 0 and got["der"] is None and got["speakers_hyp"] == 1
    print(("ok   " if ok else "FAIL ") + "no reference speech, a UEM: false alarm counted, DER undefined"
          + ("" if ok else f": {got}"))
    failures += not ok

    # several files in one RTTM: counts summed over files, each file mapped on its own
    f1_ref, f1_hyp = rttm(("A", 0, 10), ("B", 10, 20), name="one"), rttm(("x", 0, 12), ("y", 12, 20), name="one")
    f2_ref, f2_hyp = rttm(("C", 0, 5), ("D", 4, 9), name="two"), rttm(("x", 0, 9), name="two")
    for collar in (0, 0.25):
        checks += 1
        a, b = score(f1_ref, f1_hyp, collar), score(f2_ref, f2_hyp, collar)
        pooled = score(f1_ref + f2_ref, f2_hyp + f1_hyp, collar)
        bad = {k: (pooled[k], a[k] + b[k]) for k in ("missed", "false_alarm", "confusion", "reference_speech",
                                                     "scored_seconds", "speakers_ref", "speakers_hyp")
               if abs(pooled[k] - (a[k] + b[k])) > 1e-6}
        errors = a["missed"] + a["false_alarm"] + a["confusion"] + b["missed"] + b["false_alarm"] + b["confusion"]
        if abs(pooled["der"] - errors / (a["reference_speech"] + b["reference_speech"])) > 1e-6:
            bad["der"] = pooled["der"]
        if pooled["mapping"] != {"one": a["mapping"], "two": b["mapping"]}:
            bad["mapping"] = pooled["mapping"]
        print(("ok   " if not bad else "FAIL ") + f"two files pooled, collar {collar}: the sums of each file's counts, "
              "each file mapped on its own" + (f" {bad}" if bad else ""))
        failures += bool(bad)

    # the Hungarian mapping against exhaustive search on random overlap matrices
    rng = random.Random(7)
    mismatches = 0
    for trial in range(300):
        n, m = rng.randint(1, 6), rng.randint(1, 6)
        w = [[rng.choice([0, 0, rng.randint(1, 50)]) for _ in range(m)] for _ in range(n)]
        got = hungarian(w)
        total = sum(w[r][c] for r, c in got.items())
        best = 0
        if n <= m:
            for perm in itertools.permutations(range(m), n):
                best = max(best, sum(w[r][perm[r]] for r in range(n)))
        else:
            for perm in itertools.permutations(range(n), m):
                best = max(best, sum(w[perm[c]][c] for c in range(m)))
        if total != best or len(set(got.values())) != len(got):
            mismatches += 1
    print(("ok   " if not mismatches else "FAIL ") + f"Hungarian = exhaustive search on 300 random matrices"
          + (f" ({mismatches} differ)" if mismatches else ""))
    failures += bool(mismatches)
    checks += 1

    # a bigger case against a brute-force scorer on a 10 ms grid
    ref_segs, hyp_segs = [], []
    t = 0
    for k in range(40):
        length = rng.randint(50, 400)
        ref_segs.append((rng.choice("ABCD"), t / 100, (t + length) / 100))
        t += length + rng.randint(0, 60)
    for k in range(12):
        s = rng.randint(0, t)
        ref_segs.append((rng.choice("ABCD"), s / 100, (s + rng.randint(20, 200)) / 100))   # overlaps
    for spk, s, e in ref_segs:
        if rng.random() < 0.9:
            hs = max(0, round(s + rng.randint(-30, 30) / 100, 2))
            he = max(round(hs + 0.1, 2), round(e + rng.randint(-30, 30) / 100, 2))
            hyp_segs.append((("p", "q", "r", "s", "t")["ABCD".index(spk) if rng.random() < 0.85 else 4], hs, he))
    ref_text, hyp_text = rttm(*ref_segs), rttm(*hyp_segs)
    for collar in (0, 0.25):
        got = score(ref_text, hyp_text, collar)
        brute = brute_force(ref_segs, hyp_segs, collar, got["mapping"])
        bad = {k: (got[k], v) for k, v in brute.items() if abs(got[k] - v) > 1e-6}
        print(("ok   " if not bad else "FAIL ") + f"random 4-speaker case, collar {collar}: equals a 10 ms grid count"
              + (f" {bad}" if bad else ""))
        failures += bool(bad)
        checks += 1

    passed = checks - failures
    print(f"{passed} passed, {failures} failed")
    return failures == 0


def brute_force(ref_segs, hyp_segs, collar, mapping):
    """The same counts on a 10 ms grid (all times in the test are multiples of 10 ms)."""
    def cells(segs):
        out = {}
        for spk, s, e in segs:
            for k in range(round(s * 100), round(e * 100)):
                out.setdefault(k, set()).add(spk)
        return out
    rc, hc = cells(ref_segs), cells(hyp_segs)
    times = [t for _, s, e in ref_segs for t in (s, e)]
    lo, hi = round(min(times) * 100), round(max(times) * 100)
    blocked = set()
    if collar:
        c = round(collar * 100)
        for _, s, e in merge_by_speaker(ref_segs):   # overlapping ones merged, touching kept
            for b in (round(s * 100), round(e * 100)):
                blocked.update(range(b - c, b + c))
    counts = {"missed": 0, "false_alarm": 0, "confusion": 0, "reference_speech": 0}
    for k in range(lo, hi):
        if k in blocked:
            continue
        rs, hs = rc.get(k, set()), hc.get(k, set())
        correct = sum(1 for r in rs if mapping.get(r) in hs)
        counts["reference_speech"] += len(rs)
        counts["missed"] += max(0, len(rs) - len(hs))
        counts["false_alarm"] += max(0, len(hs) - len(rs))
        counts["confusion"] += min(len(rs), len(hs)) - correct
    return {k: v / 100 for k, v in counts.items()}


def merge_by_speaker(segs):
    by = {}
    for spk, s, e in segs:
        by.setdefault(spk, []).append((round(s * 100), round(e * 100)))
    return [(spk, s / 100, e / 100) for spk, lst in by.items() for s, e in merge(lst)]


def main():
    ap = argparse.ArgumentParser(description="Diarization error rate (NIST md-eval style) of HYP against REF.")
    ap.add_argument("ref", nargs="?")
    ap.add_argument("hyp", nargs="?")
    ap.add_argument("--collar", type=float, default=0.25, help="no-score collar, +- seconds (default 0.25)")
    ap.add_argument("--uem", help="NIST UEM file: the evaluated segments per file (default: the reference's span)")
    ap.add_argument("--self-test", action="store_true")
    args = ap.parse_args()
    if args.self_test:
        sys.exit(0 if self_test() else 1)
    if not args.ref or not args.hyp:
        ap.error("REF and HYP are required")
    with open(args.ref) as f:
        ref = f.read()
    with open(args.hyp) as f:
        hyp = f.read()
    uem = None
    if args.uem:
        with open(args.uem) as f:
            uem = f.read()
    print(json.dumps(score(ref, hyp, args.collar, uem)))


if __name__ == "__main__":
    main()
