use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use shakmaty::{Board, Color, Piece, Role, Square};

use super::*;
use crate::case::similarity;
use crate::casebase::Bucket;
use crate::choice::Choice;

/// A random board with about `pieces` pieces.
pub(crate) fn random_planes(rng: &mut StdRng, pieces: usize) -> Planes {
    let mut board = Board::empty();
    for _ in 0..pieces {
        let sq = Square::new(rng.random_range(0..64));
        let role = Role::ALL[rng.random_range(0..6)];
        board.set_piece_at(
            sq,
            Piece {
                color: Color::from_white(rng.random_bool(0.5)),
                role,
            },
        );
    }
    Planes::from_board(&board)
}

fn limits(k: usize, seed: u64) -> ScanLimits<'static> {
    ScanLimits {
        k,
        seed,
        deadline: None,
        stop: None,
        probes: 0,
    }
}

fn naive_top(boards: &[Planes], query: &Planes, k: usize, seed: u64) -> Vec<(usize, u32)> {
    let mut all: Vec<(usize, u32)> = boards
        .iter()
        .enumerate()
        .map(|(i, b)| {
            (
                i,
                crate::case::similarity_naive(&query.to_board(), &b.to_board()),
            )
        })
        .collect();
    all.sort_by_key(|&(i, s)| (std::cmp::Reverse(s), tie_key(seed, i)));
    all.truncate(k);
    all
}

/// The scoring functions of every kernel this CPU runs.
fn kernels() -> Vec<(Kernel, ScoreFn)> {
    Kernel::VALUES
        .iter()
        .copied()
        .filter_map(|k| Some((k, k.score_fn()?)))
        .collect()
}

#[test]
fn top_k_equals_a_sorted_naive_scan_with_every_kernel() {
    let mut rng = StdRng::seed_from_u64(1);
    // Few pieces on few squares: many equal scores, so ties at the cut are exercised. A length
    // that is no multiple of a batch, so every kernel's tail runs.
    let boards: Vec<Planes> = (0..40_009).map(|_| random_planes(&mut rng, 6)).collect();
    for trial in 0..5 {
        let query = random_planes(&mut rng, 6);
        for k in [1, 7, 32] {
            let seg = [Segment::plain(&boards, 0, query)];
            let want = naive_top(&boards, &query, k, trial);
            for (kernel, score) in kernels() {
                let got = scan_using(score, &seg, &limits(k, trial));
                let got: Vec<(usize, u32)> = got.hits.iter().map(|h| (h.index, h.score)).collect();
                assert_eq!(got, want, "{kernel} k={k} trial={trial}");
            }
        }
    }
}

#[test]
fn counts_ties_at_the_top_score() {
    let mut rng = StdRng::seed_from_u64(2);
    let mut boards: Vec<Planes> = (0..50_000).map(|_| random_planes(&mut rng, 20)).collect();
    let query = Planes::from_board(&Board::new());
    for i in [5, 17_000, 49_999] {
        boards[i] = query;
    }
    let r = scan(&[Segment::plain(&boards, 0, query)], &limits(2, 9));
    assert_eq!(
        (r.top_score, r.ties_at_top, r.scanned, r.total),
        (256, 3, 50_000, 50_000)
    );
    assert!(r.complete());
}

#[test]
fn ties_are_broken_uniformly_at_random_and_reproducibly() {
    let query = Planes::from_board(&Board::new());
    let boards = vec![query; 10];
    let seg = [Segment::plain(&boards, 100, query)];
    let mut counts = [0u32; 10];
    let runs = 5000;
    for seed in 0..runs {
        let r = scan(&seg, &limits(1, seed));
        counts[r.hits[0].index - 100] += 1;
        assert_eq!(
            scan(&seg, &limits(1, seed)).hits,
            r.hits,
            "same seed, same choice"
        );
    }
    // Chi-square with 9 degrees of freedom; 27.88 is the 0.1 % critical value.
    let expected = f64::from(runs as u32) / 10.0;
    let chi2: f64 = counts
        .iter()
        .map(|&c| (f64::from(c) - expected).powi(2) / expected)
        .sum();
    assert!(chi2 < 27.88, "counts {counts:?}, chi2 {chi2}");
}

#[test]
fn results_do_not_depend_on_the_thread_count() {
    let mut rng = StdRng::seed_from_u64(3);
    let boards: Vec<Planes> = (0..100_000).map(|_| random_planes(&mut rng, 8)).collect();
    let query = random_planes(&mut rng, 8);
    let seg = [Segment::plain(&boards, 0, query)];
    let one = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .expect("pool");
    let two = rayon::ThreadPoolBuilder::new()
        .num_threads(2)
        .build()
        .expect("pool");
    let a = one.install(|| scan(&seg, &limits(32, 4)));
    let b = two.install(|| scan(&seg, &limits(32, 4)));
    assert_eq!(a.hits, b.hits);
    assert_eq!(a.ties_at_top, b.ties_at_top);
}

#[test]
fn anytime_scan_stops_at_its_deadline_with_the_best_so_far() {
    let mut rng = StdRng::seed_from_u64(5);
    let one: Vec<Planes> = (0..1000).map(|_| random_planes(&mut rng, 16)).collect();
    let boards: Vec<Planes> = one.iter().cycle().take(4_000_000).copied().collect();
    let query = random_planes(&mut rng, 16);
    let seg = [Segment::plain(&boards, 0, query)];
    let past = ScanLimits {
        deadline: Some(Instant::now()),
        ..limits(4, 1)
    };
    let r = scan(&seg, &past);
    assert!(
        r.scanned >= BLOCK as u64 && r.scanned < r.total,
        "scanned {}",
        r.scanned
    );
    assert_eq!(r.hits.len(), 4);
    // Every returned hit is as good as the best of the scanned part.
    let best = boards[..BLOCK]
        .iter()
        .map(|b| similarity(&query, b))
        .max()
        .expect("cases");
    assert_eq!(r.hits[0].score, best);

    let stop = AtomicBool::new(true);
    let stopped = scan(
        &seg,
        &ScanLimits {
            stop: Some(&stop),
            probes: 0,
            ..limits(4, 1)
        },
    );
    assert!(stopped.scanned < stopped.total);

    let soon = ScanLimits {
        deadline: Some(Instant::now() + Duration::from_millis(2)),
        ..limits(4, 1)
    };
    let started = Instant::now();
    let r = scan(&seg, &soon);
    // One block takes tens of microseconds; even a loaded machine stays far below 1 s.
    assert!(
        started.elapsed() < Duration::from_secs(1),
        "{:?} for {} cases",
        started.elapsed(),
        r.scanned
    );
}

#[test]
fn thesis_mode_compares_black_mover_cases_as_they_stood() {
    // A case base is not needed: the segments are what the modes differ in.
    let start = Planes::from_board(&Board::new());
    let mut after_e4 = Board::new();
    after_e4.discard_piece_at(Square::E2);
    after_e4.set_piece_at(
        Square::E4,
        Piece {
            color: Color::White,
            role: Role::Pawn,
        },
    );
    let q = Planes::from_board(&after_e4);
    // Stored (mirrored) board of a Black-to-move case whose real board was `after_e4`.
    let stored = q.mirrored();
    let boards = [start, stored];
    let thesis = [
        Segment::plain(&boards[..1], 0, q),
        Segment::plain(&boards[1..], 1, q.mirrored()),
    ];
    let r = scan(&thesis, &limits(1, 0));
    assert_eq!((r.hits[0].index, r.hits[0].score), (1, 256));
}

/// Boards sorted by material with their buckets, and a random number of cases each (1–3).
fn bucketed(boards: &mut [Planes], rng: &mut StdRng) -> (Vec<Bucket>, Vec<u32>) {
    boards.sort_by_key(|b| (b.material(), [b.white, b.r0, b.r1, b.r2]));
    let mut buckets: Vec<Bucket> = Vec::new();
    let mut occ = vec![0u32];
    for (i, b) in boards.iter().enumerate() {
        if buckets.last().is_none_or(|k| k.material != b.material()) {
            buckets.push(Bucket {
                material: b.material(),
                first: i as u32,
            });
        }
        occ.push(occ[i] + rng.random_range(1..=3));
    }
    (buckets, occ)
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(64))]

    /// The bounded scan returns exactly the full scan's top k (indices, scores, tie keys), with
    /// the same top score and ties, and accounts for every case as scanned or pruned, with every
    /// kernel against the portable one's full scan.
    #[test]
    fn bounded_scan_equals_the_full_scan_with_every_kernel(seed in 0u64..1_000_000, k in 0usize..80, pieces in 2usize..24) {
        let mut rng = StdRng::seed_from_u64(seed);
        // Few pieces: many equal materials and scores, so buckets and ties are exercised.
        let mut boards: Vec<Planes> = (0..3_000)
            .map(|_| {
                let n = rng.random_range(1..=pieces);
                random_planes(&mut rng, n)
            })
            .collect();
        let (buckets, occ) = bucketed(&mut boards, &mut rng);
        let query = if rng.random_bool(0.3) {
            boards[rng.random_range(0..boards.len())]
        } else {
            random_planes(&mut rng, pieces)
        };
        // Two segments, as a case base's two sides are: the split falls on a bucket boundary.
        let split = buckets[buckets.len() / 2].first as usize;
        let cut = buckets.partition_point(|b| (b.first as usize) < split);
        let segs = [
            Segment { boards: &boards[..split], offset: 0, occ: Some(&occ), buckets: &buckets[..cut], query, lists: None },
            Segment { boards: &boards[split..], offset: split, occ: Some(&occ), buckets: &buckets[cut..], query: query.mirrored(), lists: None },
        ];
        let full = scan_using(kernel::Kernel::Portable.score_fn().unwrap(), &segs, &limits(k, seed));
        for (_, score) in kernels() {
            let bounded = scan_bounded_using(score, &segs, &limits(k, seed));
            proptest::prop_assert_eq!(&bounded.hits, &full.hits);
            proptest::prop_assert_eq!((bounded.top_score, bounded.ties_at_top), (full.top_score, full.ties_at_top));
            proptest::prop_assert!(bounded.complete());
        }
        proptest::prop_assert_eq!(full.total, u64::from(*occ.last().unwrap()));
    }
}

#[test]
fn bounded_scan_skips_buckets_that_cannot_matter() {
    let mut rng = StdRng::seed_from_u64(5);
    // More boards than the first, unpruned round of the bounded scan visits.
    let mut boards: Vec<Planes> = (0..300_000)
        .map(|i| random_planes(&mut rng, 2 + i % 30))
        .collect();
    let (buckets, occ) = bucketed(&mut boards, &mut rng);
    let query = boards[7];
    let segs = [Segment {
        boards: &boards,
        offset: 0,
        occ: Some(&occ),
        buckets: &buckets,
        query,
        lists: None,
    }];
    let r = scan_bounded(&segs, &limits(4, 1));
    assert_eq!(r.hits, scan(&segs, &limits(4, 1)).hits);
    assert!(
        r.pruned > 0 && r.scanned < r.total / 2,
        "scanned {} of {}",
        r.scanned,
        r.total
    );
    assert!(r.complete());
}

#[test]
fn bounded_scan_stops_at_its_deadline_with_the_best_buckets_first() {
    let mut rng = StdRng::seed_from_u64(6);
    let mut boards: Vec<Planes> = (0..200_000).map(|_| random_planes(&mut rng, 12)).collect();
    let (buckets, occ) = bucketed(&mut boards, &mut rng);
    let segs = [Segment {
        boards: &boards,
        offset: 0,
        occ: Some(&occ),
        buckets: &buckets,
        query: boards[3],
        lists: None,
    }];
    let past = ScanLimits {
        deadline: Some(Instant::now() - Duration::from_millis(1)),
        ..limits(4, 1)
    };
    let r = scan_bounded(&segs, &past);
    // The first round always runs: the query's own bucket (bound 256) is in it.
    assert_eq!(r.hits[0].score, 256);
    assert!(r.scanned < r.total && !r.complete());
}

/// Boards in two sides (White's first) with several cases on some, and their lists.
fn listed(rng: &mut StdRng, n: usize, lists: usize) -> (Vec<Planes>, Vec<u32>, Listed) {
    let boards: Vec<Planes> = (0..n).map(|i| random_planes(rng, 4 + i % 24)).collect();
    // Board i holds 1 + i % 3 cases.
    let mut occ = vec![0u32];
    for i in 0..n {
        occ.push(occ[i] + 1 + (i % 3) as u32);
    }
    let mut copies = Vec::new();
    let built = crate::casebase::lists::build(
        &mut &boards[..],
        &mut &occ[..],
        (n / 2, n),
        lists,
        &mut |c| {
            copies.extend_from_slice(c);
            Ok(())
        },
    )
    .expect("in memory");
    (boards, occ, (built, copies))
}

/// Lists built over boards, and the boards copied in their order.
type Listed = (crate::casebase::lists::Built, Vec<Planes>);

/// The two sides of `listed` boards as segments with their lists, for `query`.
fn listed_segments<'a>(
    boards: &'a [Planes],
    occ: &'a [u32],
    (built, copies): &'a Listed,
    query: Planes,
) -> Vec<Segment<'a>> {
    let (n, half) = (boards.len(), boards.len() / 2);
    let both = Lists {
        centroids: &built.centroids,
        starts: &built.starts,
        cases: &built.cases,
        members: &built.members,
        boards: copies,
    };
    [0..half, half..n]
        .into_iter()
        .enumerate()
        .map(|(s, side)| Segment {
            boards: &boards[side.clone()],
            offset: side.start,
            occ: Some(occ),
            buckets: &[],
            query,
            lists: Some(both.side(built.lists, s, side)),
        })
        .collect()
}

#[test]
fn probing_every_list_returns_the_exact_top_k_and_fewer_a_subset_of_the_boards() {
    let mut rng = StdRng::seed_from_u64(11);
    let (boards, occ, built) = listed(&mut rng, 6_000, 32);
    for q in 0..20 {
        let query = if q % 2 == 0 {
            boards[q * 97]
        } else {
            random_planes(&mut rng, 10)
        };
        let segs = listed_segments(&boards, &occ, &built, query);
        let exact = scan(&segs, &limits(16, q as u64));
        let all = ScanLimits {
            probes: 32,
            ..limits(16, q as u64)
        };
        let listed = retrieve(&segs, &all);
        assert_eq!(listed.hits, exact.hits);
        assert_eq!((listed.scanned, listed.total), (exact.total, exact.total));
        assert_eq!(
            (listed.top_score, listed.ties_at_top),
            (exact.top_score, exact.ties_at_top)
        );
        let few = scan_lists(&segs, &ScanLimits { probes: 2, ..all });
        // The oracle: the exact top k of the boards of each side's two lists whose centroids
        // are most similar to the query (the first of equals).
        let mut probed: Vec<(usize, u32)> = Vec::new();
        for seg in &segs {
            let lists = seg.lists.expect("listed");
            let mut order: Vec<usize> = (0..lists.len()).collect();
            order.sort_by_key(|&l| std::cmp::Reverse(similarity(&query, &lists.centroids[l])));
            for &l in &order[..2] {
                for &m in &lists.members[lists.range(l)] {
                    let b = m as usize;
                    probed.extend(
                        (occ[b]..occ[b + 1]).map(|c| (c as usize, similarity(&query, &boards[b]))),
                    );
                }
            }
        }
        assert_eq!(few.scanned, probed.len() as u64);
        assert!(few.scanned < few.total);
        probed.sort_by_key(|&(c, s)| (std::cmp::Reverse(s), tie_key(q as u64, c)));
        let oracle: Vec<(usize, u32)> = probed.into_iter().take(16).collect();
        let got: Vec<(usize, u32)> = few.hits.iter().map(|h| (h.index, h.score)).collect();
        assert_eq!(got, oracle);
        // A query that is a board of the base finds it: its list's centroid is its nearest.
        if q % 2 == 0 {
            assert_eq!(few.top_score, 256);
        }
    }
}

#[test]
fn without_probes_or_lists_retrieval_is_exact() {
    let mut rng = StdRng::seed_from_u64(12);
    let (boards, occ, built) = listed(&mut rng, 3_000, 16);
    let query = random_planes(&mut rng, 12);
    let segs = listed_segments(&boards, &occ, &built, query);
    let exact = scan(&segs, &limits(8, 3));
    assert_eq!(retrieve(&segs, &limits(8, 3)).hits, exact.hits);
    let plain: Vec<Segment<'_>> = segs.iter().map(|s| Segment { lists: None, ..*s }).collect();
    let probed = ScanLimits {
        probes: 1,
        ..limits(8, 3)
    };
    assert_eq!(retrieve(&plain, &probed).hits, exact.hits);
}

#[test]
fn listed_scan_past_its_deadline_scans_its_best_list() {
    let mut rng = StdRng::seed_from_u64(13);
    let (boards, occ, built) = listed(&mut rng, 4_000, 16);
    let segs = listed_segments(&boards, &occ, &built, boards[5]);
    let past = ScanLimits {
        deadline: Some(Instant::now() - Duration::from_millis(1)),
        probes: 16,
        ..limits(4, 1)
    };
    let r = scan_lists(&segs, &past);
    assert_eq!(r.hits[0].score, 256);
    assert!(r.scanned < r.total);
}
