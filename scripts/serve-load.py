#!/usr/bin/env python3
"""Plays N games at once through `precedent serve`'s HTTP interface (each user move the first
legal one, the engine at its movetime) and prints the engine's reply times and the server's
resident memory after each round: the measurements behind docs/web.md's concurrency and soak
lines. With --resign, the user resigns each game after its plies, so that it ends (a soak: the
server's memory should stay flat however many games have been played).

Usage: serve-load.py URL PID [--games 20] [--plies 20] [--movetime 100] [--rounds 1] [--resign]
"""

import argparse
import concurrent.futures
import json
import statistics
import time
import urllib.request

import chess


def call(url, path, body=None):
    data = json.dumps(body).encode() if body is not None else None
    req = urllib.request.Request(url + path, data=data, headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=120) as r:
        return json.load(r)


def one_game(url, plies, movetime, k, resign):
    times = []
    opponent = {"kind": "level", "elo": [1000, 1400, 1800, 2200][k % 4]} if k % 5 else {"kind": "default"}
    view = call(url, "/api/games", {"opponent": opponent, "color": "white", "movetime_ms": movetime})
    for _ in range(plies):
        if view["result"]:
            break
        board = chess.Board(view["fen"])
        move = next(iter(board.legal_moves))
        start = time.monotonic()
        view = call(url, f"/api/games/{view['id']}/move", {"move": move.uci()})
        times.append(time.monotonic() - start)
    if resign and not view["result"]:
        call(url, f"/api/games/{view['id']}/resign", {})
    return times


def rss_mb(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return float("nan")


def main():
    p = argparse.ArgumentParser()
    p.add_argument("url")
    p.add_argument("pid", type=int)
    p.add_argument("--games", type=int, default=20)
    p.add_argument("--plies", type=int, default=20)
    p.add_argument("--movetime", type=int, default=100)
    p.add_argument("--rounds", type=int, default=1)
    p.add_argument("--resign", action="store_true")
    a = p.parse_args()
    url = a.url.rstrip("/")
    print(f"resident before: {rss_mb(a.pid):.0f} MB")
    for r in range(a.rounds):
        with concurrent.futures.ThreadPoolExecutor(a.games) as pool:
            runs = list(pool.map(lambda k: one_game(url, a.plies, a.movetime, k, a.resign), range(a.games)))
        times = sorted(t for run in runs for t in run)
        q = statistics.quantiles(times, n=20)
        print(f"round {r + 1}: {a.games} games at once, {len(times)} engine replies: median "
              f"{statistics.median(times):.2f} s, 95th percentile {q[18]:.2f} s, longest {times[-1]:.2f} s; "
              f"resident {rss_mb(a.pid):.0f} MB")


if __name__ == "__main__":
    main()
