"""Times the web view's pages on a big library, as a signed-in browser asks for them.

Prints, per page, the server's time (Server-Timing: app;dur=...) and the whole request's, as
p50 and p95 over the runs. Search queries are drawn from the library itself: words of every
frequency, pairs of words, and phrases copied from segments.
"""

import argparse
import http.cookiejar
import random
import re
import statistics
import subprocess
import time
import urllib.parse
import urllib.request


def percentile(values, fraction):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(fraction * (len(ordered) - 1))))]


class Browser:
    def __init__(self, base):
        self.base = base
        self.opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar()))

    def get(self, path):
        request = urllib.request.Request(self.base + path, headers={"Accept": "text/html"})
        started = time.perf_counter()
        with self.opener.open(request, timeout=60) as answer:
            body = answer.read()
            wall = (time.perf_counter() - started) * 1000
            timing = answer.headers.get("Server-Timing", "")
        match = re.search(r"dur=([0-9.]+)", timing)
        return body, wall, float(match.group(1)) if match else None

    def sign_in(self, key):
        form, _, _ = self.get("/sign-in")
        token = re.search(rb'name="csrf" value="([^"]+)"', form).group(1).decode()
        data = urllib.parse.urlencode({"key": key, "csrf": token, "next": "/"}).encode()
        self.opener.open(urllib.request.Request(self.base + "/sign-in", data=data), timeout=60).read()


def report(name, samples):
    walls = [wall for wall, _ in samples]
    servers = [server for _, server in samples if server is not None]
    line = f"{name:<34} p50 {percentile(walls, 0.5):7.1f} ms, p95 {percentile(walls, 0.95):7.1f} ms"
    if servers:
        line += f"   (server p50 {percentile(servers, 0.5):6.1f} ms, p95 {percentile(servers, 0.95):6.1f} ms)"
    print(line + f", {len(samples)} requests")


def sql(conninfo, statement):
    return subprocess.run(["psql", conninfo, "-Atc", statement], check=True, capture_output=True, text=True).stdout.split("\n")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--base-url", required=True)
    parser.add_argument("--key", required=True)
    parser.add_argument("--book", type=int, required=True)
    parser.add_argument("--runs", type=int, default=40)
    parser.add_argument("--conninfo", required=True)
    arguments = parser.parse_args()
    random.seed(7)
    browser = Browser(arguments.base_url)
    browser.sign_in(arguments.key)

    def time_pages(name, paths):
        browser.get(paths[0])  # a first request warms the connection pool
        samples = []
        for path in paths:
            body, wall, server = browser.get(path)
            samples.append((wall, server))
        report(name, samples)
        return samples

    runs = arguments.runs
    time_pages("overview (admin: with the fleet)", ["/"] * runs)
    time_pages("media list", ["/media"] * runs)
    time_pages("media list, state=succeeded, title", ["/media?state=succeeded&q=Book+1"] * runs)

    # Search: words by frequency from the lexemes the database keeps, pairs, and phrases.
    words = [line.split("|")[0] for line in sql(arguments.conninfo,
             "SELECT word FROM ts_stat('SELECT search FROM segments WHERE media_id <= 40') ORDER BY nentry DESC") if line]
    texts = [line for line in sql(arguments.conninfo,
             "SELECT text FROM segments TABLESAMPLE SYSTEM (1) WHERE media_id < 2000 LIMIT 200") if line]
    queries = []
    for _ in range(runs):
        queries.append(random.choice(words[: max(1, len(words) // 20)]))   # common
        queries.append(random.choice(words))                                  # any
        queries.append(" ".join(random.sample(words[: len(words) // 4], 2)))  # two words
        text = random.choice(texts).split()
        start = random.randrange(0, max(1, len(text) - 3))
        queries.append('"' + " ".join(text[start:start + 3]) + '"')          # a phrase
    samples = time_pages("search (" + str(len(queries)) + " queries)", ["/search?q=" + urllib.parse.quote_plus(q) for q in queries])
    slowest = sorted(zip(samples, queries), key=lambda pair: -(pair[0][1] or 0))[:3]
    print("  slowest searches: " + "; ".join(f"{q!r} {s[1]:.1f} ms" for s, q in slowest))

    moments = [random.uniform(0, 144000) for _ in range(runs)]
    reader = time_pages("reader, 40-hour book at a moment", [f"/media/{arguments.book}/read?t={moment:.1f}" for moment in moments])
    body, _, _ = browser.get(f"/media/{arguments.book}/read?t=72000")
    shown = body.count(b'<li id="s-')
    print(f"  one reader page: {len(body) / 1024:.0f} KiB, {shown} of the chapter's 40,000 segments")
    time_pages("media page of the 40-hour book", [f"/media/{arguments.book}"] * runs)


if __name__ == "__main__":
    main()
