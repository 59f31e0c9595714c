"""Summarises query plans for bench/scale/scale (standard library only).

  plans.py statements LABEL N  < server log with auto_explain's JSON plans; the N largest shown
  plans.py explain LABEL...    < psql output of EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON), one label a plan

For each plan: its time, the shared buffers it touched, the scans it made (index or sequential,
with the rows each read: returned plus removed by a filter) and whether JIT compiled it.
"""
import json
import sys


def nodes(plan):
    yield plan
    for child in plan.get("Plans", []):
        yield from nodes(child)


def scans(plan):
    found = []
    for node in nodes(plan):
        kind = node.get("Node Type", "")
        if "Scan" not in kind or kind in ("Subquery Scan", "CTE Scan", "Function Scan", "Values Scan", "Result"):
            continue
        loops = node.get("Actual Loops", 1) or 1
        read = (node.get("Actual Rows", 0) + node.get("Rows Removed by Filter", 0) + node.get("Rows Removed by Index Recheck", 0)) * loops
        where = node.get("Index Name") or node.get("Relation Name") or ""
        heap = f", {node['Heap Fetches']} heap fetches" if "Heap Fetches" in node else ""
        found.append((kind, where, int(read), heap))
    return found


def buffers(plan):
    return plan.get("Shared Hit Blocks", 0) + plan.get("Shared Read Blocks", 0)


def describe(entry):
    plan = entry["Plan"]
    text = ", ".join(f"{kind} {where}: {read} rows{heap}" for kind, where, read, heap in scans(plan))
    return buffers(plan), text, "JIT" in entry


def decode_all(text, start_marker=None):
    decoder = json.JSONDecoder()
    position = 0
    while True:
        if start_marker:
            found = text.find(start_marker, position)
            if found < 0:
                return
            position = found + len(start_marker)
        next_brace = min([i for i in (text.find("{", position), text.find("[", position)) if i >= 0], default=-1)
        if next_brace < 0:
            return
        try:
            value, end = decoder.raw_decode(text, next_brace)
        except json.JSONDecodeError:
            position = next_brace + 1
            continue
        position = end
        yield value


def statements(label, shown):
    text = sys.stdin.read()
    entries = [value for value in decode_all(text, "plan:") if isinstance(value, dict) and "Plan" in value]
    jit = sum(1 for entry in entries if "JIT" in entry)
    milliseconds = sum(entry["Plan"].get("Actual Total Time", 0) for entry in entries)
    touched = sum(buffers(entry["Plan"]) for entry in entries)
    rows = sum(read for entry in entries for _, _, read, _ in scans(entry["Plan"]))
    print(f"{label}: {len(entries)} statements, {milliseconds:.1f} ms in them, {touched} buffers, {rows} rows read, JIT in {jit}")
    for entry in sorted(entries, key=lambda entry: -buffers(entry["Plan"]))[:shown]:
        touched, text_scans, _ = describe(entry)
        query = " ".join(entry.get("Query Text", "").split())[:100]
        print(f"    {entry['Plan'].get('Actual Total Time', 0):7.1f} ms {touched:6d} buffers  {query}")
        print(f"        {text_scans}")


def explain(labels):
    text = sys.stdin.read()
    plans = [value[0] for value in decode_all(text) if isinstance(value, list) and value and isinstance(value[0], dict) and "Plan" in value[0]]
    for label, entry in zip(labels, plans):
        touched, text_scans, jit = describe(entry)
        print(f"{label}: {entry.get('Execution Time', 0):.2f} ms, {touched} buffers{', JIT' if jit else ''}")
        print(f"    {text_scans}")
    if len(plans) != len(labels):
        print(f"(expected {len(labels)} plans, read {len(plans)})\n{text[-2000:]}")


if __name__ == "__main__":
    if sys.argv[1] == "statements":
        statements(sys.argv[2], int(sys.argv[3]))
    else:
        explain(sys.argv[2:])
