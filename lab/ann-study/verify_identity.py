"""Verify Hamming(code_a, code_b) == 2*(256 - similarity(a,b)) against a direct per-square implementation."""
import numpy as np, common
rng = np.random.default_rng(7)
base, h = common.load_white_boards(common.CASEBASES['default'])
print('header', h)
qd = np.load(f'{common.OUT}/data/q_default_b4.npy'); qp = np.load(f'{common.OUT}/data/q_pool_b4.npy')

# sanity of base decoding: exactly one white king and one black king per board, white subset of occupied
def popc(x): return np.bitwise_count(x).astype(int)
for name, B in [('base', base), ('q_default', qd), ('q_pool', qp)]:
    w, r0, r1, r2 = (B[:, i] for i in range(4))
    occ = r0 | r1 | r2; king = ~r0 & r1 & r2
    wk = popc(king & w); bk = popc(king & ~w)
    print(name, 'n', len(B), 'one wK & one bK:', np.mean((wk == 1) & (bk == 1)), 'white subset occ:', np.all((w & ~occ) == 0),
          'role7 squares:', int(popc(r0 & r1 & r2).sum()), 'pawns on rank1/8:', int(popc((r0 & ~r1 & ~r2) & np.uint64(0xFF000000000000FF)).sum()))

def rand_boards(n):
    out = []
    for _ in range(n):
        occ = rng.random(64) < rng.uniform(0.05, 0.9)
        role = rng.integers(1, 7, 64); col = rng.random(64) < 0.5
        w = r0 = r1 = r2 = 0
        for s in range(64):
            if occ[s]:
                m = 1 << s
                if col[s]: w |= m
                if role[s] & 1: r0 |= m
                if role[s] & 2: r1 |= m
                if role[s] & 4: r2 |= m
        out.append((w, r0, r1, r2))
    return np.array(out, dtype=np.uint64)

pairs = []
for _ in range(1500):  # base-base
    i, j = rng.integers(0, len(base), 2); pairs.append((base[i], base[j]))
for _ in range(1000):  # query-base
    pairs.append((qd[rng.integers(len(qd))], base[rng.integers(len(base))]))
for _ in range(500):   # query-query (default vs pool queries)
    pairs.append((qd[rng.integers(len(qd))], qp[rng.integers(len(qp))]))
R = rand_boards(1000)
for k in range(500):   # synthetic random boards (arbitrary piece mixes)
    pairs.append((R[2 * k], R[2 * k + 1]))
for k in range(200):   # identical pairs
    pairs.append((base[k * 1000], base[k * 1000]))
A = np.array([p[0] for p in pairs], dtype=np.uint64); B = np.array([p[1] for p in pairs], dtype=np.uint64)
ca, cb = common.encode(A), common.encode(B)
ham = np.bitwise_count(ca ^ cb).sum(axis=1).astype(int)
sim = np.array([common.similarity_direct(tuple(int(x) for x in a), tuple(int(x) for x in b)) for a, b in zip(A, B)])
ok = ham == 2 * (256 - sim)
print('pairs', len(pairs), 'identity holds for', int(ok.sum()), 'mismatches', int((~ok).sum()))
print('similarity range', sim.min(), sim.max(), 'hamming range', ham.min(), ham.max())
