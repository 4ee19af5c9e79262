"""ANN benchmark on 768-bit chess board codes (FAISS binary indexes, Hamming).
usage: python bench.py BASE CONFIG [CONFIG ...]   (BASE: default | pool | path to .cb;   queries chosen accordingly)
CONFIG: flat | hnsw:M=16[:efc=40][:ef=64,128,256,512] | ivf:nlist=4096[:train=200000][:nprobe=8,32,128,512][:niter=25]
Options via env: NB (limit base size, debug), NQ (limit queries, debug), TAG (result-file suffix).
Results appended as JSON lines to $ANN_OUT/results/<BASE><TAG>.jsonl ; log to stdout."""
import json, os, sys, time
import numpy as np
import faiss
import common

K = 64
BASES = {name: (cb, f'{common.OUT}/data/q_{name}_b4.npy') for name, cb in common.CASEBASES.items()}
base_name = sys.argv[1]
cb_path, q_path = BASES[base_name]
NB = int(os.environ.get('NB', 0)); NQ = int(os.environ.get('NQ', 0)); TAG = os.environ.get('TAG', '')
os.makedirs(f'{common.OUT}/results', exist_ok=True)
res_path = f'{common.OUT}/results/{base_name}{TAG}.jsonl'

def log(*a):
    print(time.strftime('%H:%M:%S'), *a, flush=True)

def record(d):
    d = dict(base=base_name, nb=int(nb), nq=int(nq), k=K, **d)
    with open(res_path, 'a') as f:
        f.write(json.dumps(d) + '\n')
    log('RESULT', json.dumps(d))

b4, hdr = common.load_white_boards(cb_path)
if NB: b4 = b4[:NB]
xb = common.encode(b4); del b4
xq = common.encode(np.load(q_path))
if NQ: xq = xq[:NQ]
nb, nq = len(xb), len(xq)
d = 768
log('base', cb_path, 'header', hdr, 'nb', nb, 'nq', nq)

# ---------------- exact ground truth (cached) ----------------
gt_path = f'{common.OUT}/data/gt_{base_name}{TAG}_{nb}_{nq}.npz'
if os.path.exists(gt_path):
    z = np.load(gt_path); GD, GI = z['D'], z['I']
    log('loaded ground truth', gt_path)
else:
    faiss.omp_set_num_threads(2)
    flat = faiss.IndexBinaryFlat(d); flat.add(xb)
    GD, GI = flat.search(xq, K)
    # tie statistics: how many base boards are within the exact 64th distance (search with larger k)
    KK = 2048
    D2, _ = flat.search(xq, KK)
    within = (D2 <= GD[:, K - 1:K]).sum(axis=1)
    np.savez(gt_path, D=GD, I=GI, within=within)
    del flat
z = np.load(gt_path)
within = z['within']
kth = GD[:, K - 1].astype(np.int64); best = GD[:, 0].astype(np.int64)
# consistency: faiss exact distances equal numpy popcount distances
chk = np.array([np.array_equal(common.hamming_np(xq[i], xb[GI[i]]), GD[i].astype(np.int64)) for i in range(min(nq, 200))])
log('GT check numpy==faiss on', len(chk), 'queries:', bool(chk.all()))
log('exact: queries with exact match (dist 0):', int((best == 0).sum()),
    '| best dist median', float(np.median(best)), '| 64th dist median', float(np.median(kth)),
    '| #base boards within 64th dist: median', float(np.median(within)), 'min', int(within.min()),
    'share of queries with >=2048 (capped)', float((within >= 2048).mean()))
record(dict(config='exact-stats', queries_with_exact_match=int((best == 0).sum()),
            best_dist_median=float(np.median(best)), best_dist_mean=float(best.mean()),
            kth_dist_median=float(np.median(kth)), kth_dist_mean=float(kth.mean()),
            within_kth_median=float(np.median(within)), within_kth_mean_capped2048=float(within.mean()),
            within_kth_ge2048=int((within >= 2048).sum()), within_kth_eq64=int((within == 64).sum()),
            top1_ties_median=float(np.median((GD == GD[:, :1]).sum(axis=1)))))

def quality(I):
    rec = np.empty(nq); t1 = np.empty(nq, bool); nmiss = 0
    for i in range(nq):
        ids = I[i]
        valid = ids >= 0
        nmiss += int((~valid).sum())
        dist = np.full(K, 10**9, np.int64)
        if valid.any():
            dist[valid] = common.hamming_np(xq[i], xb[ids[valid]])
        rec[i] = np.mean(dist <= kth[i])
        t1[i] = dist.min() == best[i]
    return rec, t1, nmiss

def measure(index, label, extra):
    # 1 thread, per query
    faiss.omp_set_num_threads(1)
    for i in range(min(20, nq)):
        index.search(xq[i:i + 1], K)
    lat = np.empty(nq); I1 = np.empty((nq, K), np.int64)
    for i in range(nq):
        t0 = time.perf_counter()
        _, I = index.search(xq[i:i + 1], K)
        lat[i] = time.perf_counter() - t0
        I1[i] = I[0]
    # 2 threads, whole batch, 3 runs
    faiss.omp_set_num_threads(2)
    bt = []
    for r in range(3):
        t0 = time.perf_counter()
        _, IB = index.search(xq, K)
        bt.append(time.perf_counter() - t0)
    rec, t1, nmiss = quality(I1)
    recb, t1b, _ = quality(IB)
    record(dict(config=label, **extra,
                recall=float(rec.mean()), recall_min=float(rec.min()), share_recall1=float((rec == 1).mean()),
                top1=float(t1.mean()), missing_ids=nmiss,
                lat_med_ms=float(np.median(lat) * 1e3), lat_p99_ms=float(np.percentile(lat, 99) * 1e3),
                lat_mean_ms=float(lat.mean() * 1e3),
                batch_s=[round(x, 4) for x in bt], qps2=float(nq / np.median(bt)), qps2_best=float(nq / min(bt)),
                batch_recall=float(recb.mean()), batch_top1=float(t1b.mean())))

def serialized_bpv(index):
    return len(faiss.serialize_index_binary(index)) / nb

for cfg in sys.argv[2:]:
    parts = cfg.split(':'); kind = parts[0]
    opts = dict(p.split('=') for p in parts[1:])
    faiss.omp_set_num_threads(2)
    if kind == 'flat':
        index = faiss.IndexBinaryFlat(d)
        t0 = time.perf_counter(); index.add(xb); bt = time.perf_counter() - t0
        measure(index, 'flat', dict(build_s=bt, bytes_per_vec=serialized_bpv(index)))
    elif kind == 'hnsw':
        M = int(opts.get('M', 32)); efc = int(opts.get('efc', 40))
        efs = [int(x) for x in opts.get('ef', '64,128,256,512').split(',')]
        index = faiss.IndexBinaryHNSW(d, M)
        index.hnsw.efConstruction = efc
        log(f'building HNSW M={M} efC={efc}')
        t0 = time.perf_counter(); index.add(xb); bt = time.perf_counter() - t0
        bpv = serialized_bpv(index)
        levels = faiss.vector_to_array(index.hnsw.levels)
        log(f'HNSW built in {bt:.2f}s, serialized bytes/vec {bpv:.1f}, max level {levels.max()}')
        for ef in efs:
            index.hnsw.efSearch = ef
            measure(index, f'HNSW M={M} efC={efc} efSearch={ef}', dict(build_s=bt, bytes_per_vec=bpv, M=M, efConstruction=efc, efSearch=ef))
        del index
    elif kind == 'ivf':
        nlist = int(opts.get('nlist', 4096)); ntrain = int(opts.get('train', 200000)); niter = int(opts.get('niter', 25))
        nprobes = [int(x) for x in opts.get('nprobe', '8,32,128,512').split(',')]
        quantizer = faiss.IndexBinaryFlat(d)
        index = faiss.IndexBinaryIVF(quantizer, d, nlist)
        index.cp.niter = niter
        index.cp.seed = 1234
        index.cp.verbose = bool(int(os.environ.get('VERBOSE', 1)))
        rs = np.random.default_rng(99)
        tr = xb[np.sort(rs.choice(nb, min(ntrain, nb), replace=False))]
        log(f'training IVF nlist={nlist} on {len(tr)} niter={niter}')
        t0 = time.perf_counter(); index.train(tr); tt = time.perf_counter() - t0
        log(f'trained in {tt:.2f}s; adding')
        t0 = time.perf_counter(); index.add(xb); ta = time.perf_counter() - t0
        bpv = serialized_bpv(index)
        sizes = np.array([index.invlists.list_size(i) for i in range(nlist)])
        log(f'added in {ta:.2f}s; bytes/vec {bpv:.1f}; list sizes: empty {int((sizes==0).sum())}, median {np.median(sizes)}, max {sizes.max()}, '
            f'expected scanned per probe (size-weighted) {float((sizes**2).sum()/sizes.sum()):.0f}')
        for npb in nprobes:
            index.nprobe = npb
            measure(index, f'IVF nlist={nlist} nprobe={npb}', dict(build_s=tt + ta, train_s=tt, add_s=ta, bytes_per_vec=bpv,
                                                                   nlist=nlist, nprobe=npb, ntrain=len(tr), niter=niter,
                                                                   list_max=int(sizes.max()), list_empty=int((sizes == 0).sum())))
        del index
log('done')
