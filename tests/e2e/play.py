#!/usr/bin/env python3
"""Plays whole games between two UCI engines with python-chess's chess.engine, keeping real
clocks, and checks every move: legal, and made before the mover's flag fell.

Usage: play.py WHITE_CMD BLACK_CMD --games N --base SECONDS --inc SECONDS [--max-plies N]
Engine commands are split on spaces. Prints one JSON object:
{"games": N, "results": {...}, "plies": N, "illegal": 0, "time_losses": 0, "errors": [...],
 "max_move_ms": …, "min_clock_ms": …}
Exit status 1 if any move was illegal, late, or an engine failed.
"""
import argparse
import json
import sys
import time

import chess
import chess.engine


def play_game(white, black, base, inc, max_plies, opening_moves):
    board = chess.Board()
    for uci in opening_moves:
        board.push_uci(uci)
    clocks = {chess.WHITE: base, chess.BLACK: base}
    engines = {chess.WHITE: white, chess.BLACK: black}
    stats = {"illegal": 0, "time_losses": 0, "max_move_ms": 0.0, "min_clock_ms": base * 1000, "plies": 0}
    result = None
    while not board.is_game_over(claim_draw=True):
        if stats["plies"] >= max_plies:
            result = "1/2-1/2 (max plies)"
            break
        mover = board.turn
        limit = chess.engine.Limit(
            white_clock=clocks[chess.WHITE], black_clock=clocks[chess.BLACK], white_inc=inc, black_inc=inc
        )
        started = time.monotonic()
        played = engines[mover].play(board, limit)
        used = time.monotonic() - started
        stats["max_move_ms"] = max(stats["max_move_ms"], used * 1000)
        clocks[mover] -= used
        stats["min_clock_ms"] = min(stats["min_clock_ms"], clocks[mover] * 1000)
        if clocks[mover] < 0:
            stats["time_losses"] += 1
            result = "time loss"
            break
        clocks[mover] += inc
        if played.move is None or played.move not in board.legal_moves:
            stats["illegal"] += 1
            result = f"illegal move {played.move}"
            break
        board.push(played.move)
        stats["plies"] += 1
    if result is None:
        result = board.result(claim_draw=True)
    return result, stats


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("white")
    ap.add_argument("black")
    ap.add_argument("--games", type=int, default=1)
    ap.add_argument("--base", type=float, default=10.0)
    ap.add_argument("--inc", type=float, default=0.1)
    ap.add_argument("--max-plies", type=int, default=400)
    args = ap.parse_args()
    openings = [[], ["e2e4", "c7c5"], ["d2d4", "g8f6", "c2c4"], ["e2e4", "e7e5", "g1f3", "b8c6"]]
    summary = {"games": 0, "results": {}, "plies": 0, "illegal": 0, "time_losses": 0, "errors": [],
               "max_move_ms": 0.0, "min_clock_ms": args.base * 1000}
    for g in range(args.games):
        try:
            with chess.engine.SimpleEngine.popen_uci(args.white.split()) as w, \
                 chess.engine.SimpleEngine.popen_uci(args.black.split()) as b:
                result, st = play_game(w, b, args.base, args.inc, args.max_plies, openings[g % len(openings)])
        except (chess.engine.EngineError, chess.engine.EngineTerminatedError, TimeoutError) as e:
            summary["errors"].append(f"game {g + 1}: {type(e).__name__}: {e}")
            continue
        summary["games"] += 1
        summary["results"][result] = summary["results"].get(result, 0) + 1
        for k in ("plies", "illegal", "time_losses"):
            summary[k] += st[k]
        summary["max_move_ms"] = max(summary["max_move_ms"], st["max_move_ms"])
        summary["min_clock_ms"] = min(summary["min_clock_ms"], st["min_clock_ms"])
    print(json.dumps(summary))
    ok = not summary["errors"] and summary["illegal"] == 0 and summary["time_losses"] == 0
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
