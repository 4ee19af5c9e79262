#!/usr/bin/env python3
"""Independent count of the cases `precedent build` should make, using python-chess.

Counts the moves made by movers whose rating lies in [min_elo, max_elo], replaying every game
with python-chess (illegal games are reported and not counted). Usage:
    count_cases.py FILE.pgn[.zst] MIN_ELO MAX_ELO
Prints one JSON object: {"games": …, "games_with_errors": …, "cases": …}.
"""
import io
import json
import sys

import chess.pgn


def open_text(path):
    if path.endswith(".zst"):
        import subprocess
        proc = subprocess.Popen(["zstd", "-dc", path], stdout=subprocess.PIPE)
        return io.TextIOWrapper(proc.stdout, encoding="utf-8", errors="replace")
    return open(path, encoding="utf-8", errors="replace")


def elo(headers, key):
    try:
        return int(headers.get(key, ""))
    except ValueError:
        return None


def main():
    path, lo, hi = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    games = errors = cases = 0
    with open_text(path) as f:
        while True:
            game = chess.pgn.read_game(f)
            if game is None:
                break
            games += 1
            if game.errors:
                errors += 1
                continue
            we, be = elo(game.headers, "WhiteElo"), elo(game.headers, "BlackElo")
            board = game.board()
            for move in game.mainline_moves():
                mover_elo = we if board.turn == chess.WHITE else be
                if mover_elo is not None and lo <= mover_elo <= hi:
                    cases += 1
                board.push(move)
    print(json.dumps({"games": games, "games_with_errors": errors, "cases": cases}))


if __name__ == "__main__":
    main()
