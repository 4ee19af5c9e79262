"""Prepare query boards (masters games) and verify Hamming identity. No timing here.
Outputs in $ANN_OUT/data/: q_default_b4.npy, q_pool_b4.npy (+ meta json)."""
import json, os, random, sys
import numpy as np
import common

os.makedirs(f'{common.OUT}/data', exist_ok=True)
rng = random.Random(12345)
games = common.masters_game_texts()
print('masters games', len(games))

# default queries: first games of the file, at most 2 White-to-move positions per game, ply >= 10
q, meta, gi = [], [], 0
while len(q) < 1000:
    pos = common.white_positions(games[gi])
    pick = rng.sample(pos, min(2, len(pos)))
    for ply, b4 in pick:
        if len(q) < 1000:
            q.append(b4); meta.append((gi, ply))
    gi += 1
print('default queries', len(q), 'from games 0..', gi - 1, 'distinct games', len({m[0] for m in meta}))
np.save(f'{common.OUT}/data/q_default_b4.npy', np.array(q, dtype=np.uint64))
json.dump(dict(games_used=gi, meta=meta), open(f'{common.OUT}/data/q_default_meta.json', 'w'))

# pool queries: last 2000 games, one random White-to-move position (ply>=10) per game, then 1000 of those at random
last = list(range(len(games) - 2000, len(games)))
cand = []
for g in last:
    pos = common.white_positions(games[g])
    if pos:
        ply, b4 = rng.choice(pos)
        cand.append((g, ply, b4))
print('pool candidate games with a position', len(cand))
sel = sorted(rng.sample(range(len(cand)), 1000))
qp = [cand[i][2] for i in sel]
np.save(f'{common.OUT}/data/q_pool_b4.npy', np.array(qp, dtype=np.uint64))
json.dump(dict(meta=[(cand[i][0], cand[i][1]) for i in sel]), open(f'{common.OUT}/data/q_pool_meta.json', 'w'))
plies = [cand[i][1] for i in sel]
print('pool queries', len(qp), 'ply median', int(np.median(plies)), 'default ply median', int(np.median([m[1] for m in meta])))
