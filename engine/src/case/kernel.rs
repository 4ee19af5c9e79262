//! The scan's kernels: the instructions that score a batch of boards against a query (the
//! retrieval's scans, and the build's lists, which compare every board with their centroids).
//!
//! Three kernels give the same scores ([`crate::case::similarity`]): a portable one, one for
//! AVX-512 with its per-word population count (`VPOPCNTDQ`), and one for AVX2, which has no
//! vector population count. The AVX2 kernel takes four boards at a time into one register per
//! bit plane (a 4 × 4 transpose), folds the four kinds of square into three masks of weight 4,
//! 2 and 1 (a same-colour other-piece square scores 3 = 2 + 1), counts each mask's bits with a
//! nibble lookup (`vpshufb`, Muła's method) in which the weight is already multiplied, and sums
//! a board's 32 bytes of weighted counts with one `vpsadbw`. The portable code compiled for
//! AVX2, which counted four masks with the compiler's generic lookup, ran at half this speed
//! in cache and at 52–63 % of the memory's speed on an AVX2-only EPYC (`docs/scaling.md`).
//!
//! The fastest kernel the CPU runs is chosen at the first scan; [`use_kernel`] forces another,
//! as the `PRECEDENT_KERNEL` environment variable does for the command line
//! ([`kernel_from_environment`]): to measure or check the AVX2 path on an AVX-512 machine.

use std::sync::atomic::{AtomicU8, Ordering};

use crate::case::{Planes, similarity};
use crate::choice::Choice;

/// Boards scored per call of a kernel (at most).
pub(crate) const BATCH: usize = 64;

/// Scores a batch of boards against a query: `out[i]` for `boards[i]`.
pub(crate) type ScoreFn = fn(&Planes, &[Planes], &mut [u16; BATCH]);

/// A way to score boards, by the instructions it needs (fastest first: [`Choice::VALUES`]).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Kernel {
    /// AVX-512 (F, BW, VL, VPOPCNTDQ): a population count per 64-bit word.
    Avx512,
    /// AVX2: nibble lookups over four boards at a time.
    Avx2,
    /// Plain Rust, any processor.
    Portable,
}

impl Kernel {
    /// Whether this CPU runs the kernel.
    pub fn supported(self) -> bool {
        match self {
            #[cfg(target_arch = "x86_64")]
            Kernel::Avx512 => {
                is_x86_feature_detected!("avx512f")
                    && is_x86_feature_detected!("avx512bw")
                    && is_x86_feature_detected!("avx512vl")
                    && is_x86_feature_detected!("avx512vpopcntdq")
                    && is_x86_feature_detected!("popcnt")
            }
            #[cfg(target_arch = "x86_64")]
            Kernel::Avx2 => is_x86_feature_detected!("avx2"),
            #[cfg(not(target_arch = "x86_64"))]
            Kernel::Avx512 | Kernel::Avx2 => false,
            Kernel::Portable => true,
        }
    }

    /// The fastest kernel this CPU runs.
    pub fn best() -> Kernel {
        Kernel::VALUES
            .iter()
            .copied()
            .find(|k| k.supported())
            .unwrap_or(Kernel::Portable)
    }

    /// The kernel's scoring function, if this CPU runs it.
    pub(crate) fn score_fn(self) -> Option<ScoreFn> {
        if !self.supported() {
            return None;
        }
        Some(match self {
            // SAFETY (both): the features the functions enable were just detected.
            #[cfg(target_arch = "x86_64")]
            Kernel::Avx512 => |q, b, o| unsafe { score_batch_avx512(q, b, o) },
            #[cfg(target_arch = "x86_64")]
            Kernel::Avx2 => |q, b, o| unsafe { score_batch_avx2(q, b, o) },
            _ => score_batch_portable,
        })
    }
}

crate::choice::choice!(Kernel, "scan kernel", [
    Avx512 => "avx512",
    Avx2 => "avx2",
    Portable => "portable",
]);

/// The kernel in use: 0 until chosen, else 1 + its index in [`Kernel::VALUES`].
static CHOSEN: AtomicU8 = AtomicU8::new(0);

/// Makes every later scan use `kernel`; an error if this CPU cannot run it.
pub fn use_kernel(kernel: Kernel) -> Result<(), String> {
    if !kernel.supported() {
        return Err(format!(
            "scan kernel {kernel}: this processor lacks its instructions"
        ));
    }
    let index = Kernel::VALUES
        .iter()
        .position(|&k| k == kernel)
        .unwrap_or(2);
    CHOSEN.store(index as u8 + 1, Ordering::Relaxed);
    Ok(())
}

/// The environment variable that forces the kernel.
pub const KERNEL_VARIABLE: &str = "PRECEDENT_KERNEL";

/// Applies `PRECEDENT_KERNEL` (`avx512`, `avx2` or `portable`) if it is set, e.g. to measure or
/// check the AVX2 path on an AVX-512 machine; an error names the variable and what is wrong.
pub fn kernel_from_environment() -> Result<(), String> {
    let name = match std::env::var(KERNEL_VARIABLE) {
        Err(std::env::VarError::NotPresent) => return Ok(()),
        Err(std::env::VarError::NotUnicode(_)) => {
            return Err(format!("{KERNEL_VARIABLE}: not a kernel's name"));
        }
        Ok(name) => name,
    };
    let kernel: Kernel = name
        .parse()
        .map_err(|e| format!("{KERNEL_VARIABLE}: {e}"))?;
    use_kernel(kernel).map_err(|e| format!("{KERNEL_VARIABLE}: {e}"))
}

/// The kernel scans use: the one forced by [`use_kernel`], else the fastest this CPU runs.
pub fn kernel() -> Kernel {
    match CHOSEN.load(Ordering::Relaxed) {
        0 => {
            let best = Kernel::best();
            // `best` is supported by construction.
            let _ = use_kernel(best);
            best
        }
        n => Kernel::VALUES[usize::from(n - 1)],
    }
}

/// The scoring function of [`kernel`].
pub(crate) fn score_fn() -> ScoreFn {
    kernel().score_fn().unwrap_or(score_batch_portable)
}

#[inline(always)]
fn score_batch_generic(query: &Planes, boards: &[Planes], out: &mut [u16; BATCH]) {
    for (o, b) in out.iter_mut().zip(boards) {
        *o = similarity(query, b) as u16;
    }
}

fn score_batch_portable(query: &Planes, boards: &[Planes], out: &mut [u16; BATCH]) {
    score_batch_generic(query, boards, out)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vpopcntdq,popcnt")]
fn score_batch_avx512(query: &Planes, boards: &[Planes], out: &mut [u16; BATCH]) {
    score_batch_generic(query, boards, out)
}

/// The AVX2 kernel (the module comment says how it counts).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn score_batch_avx2(query: &Planes, boards: &[Planes], out: &mut [u16; BATCH]) {
    use std::arch::x86_64::*;

    /// Boards per step: four groups of four, whose scores fill one register of 16 `u16`s.
    const STEP: usize = 16;
    let steps = boards.len().min(BATCH) / STEP;
    let q = avx2::Query::new(query);
    let base = boards.as_ptr().cast::<__m256i>();
    for step in 0..steps {
        // SAFETY: `Planes` is 32 bytes of plain data (`repr(C)`, four `u64`s) and
        // `(step + 1) · 16 ≤ boards.len()`, so every load is of one whole board in bounds;
        // the store writes 16 `u16`s ending at `(step + 1) · 16 ≤ BATCH` of `out`.
        unsafe {
            let at = |i: usize| _mm256_loadu_si256(base.add(step * STEP + i));
            // Group g holds boards g, g + 4, g + 8, g + 12: shifted by 16·g bits within its
            // lane, the 16 scores land in board order.
            let s0 = avx2::score4(&q, at(0), at(4), at(8), at(12));
            let s1 = avx2::score4(&q, at(1), at(5), at(9), at(13));
            let s2 = avx2::score4(&q, at(2), at(6), at(10), at(14));
            let s3 = avx2::score4(&q, at(3), at(7), at(11), at(15));
            let packed = _mm256_or_si256(
                _mm256_or_si256(s0, _mm256_slli_epi64(s1, 16)),
                _mm256_or_si256(_mm256_slli_epi64(s2, 32), _mm256_slli_epi64(s3, 48)),
            );
            _mm256_storeu_si256(out.as_mut_ptr().add(step * STEP).cast(), packed);
        }
    }
    let done = steps * STEP;
    for (o, b) in out[done..].iter_mut().zip(&boards[done..]) {
        *o = similarity(query, b) as u16;
    }
}

/// The AVX2 kernel's steps.
#[cfg(target_arch = "x86_64")]
mod avx2 {
    use std::arch::x86_64::*;

    use crate::case::Planes;

    /// The query's planes broadcast to every lane, and the kernel's constants.
    pub(super) struct Query {
        white: __m256i,
        r0: __m256i,
        r1: __m256i,
        r2: __m256i,
        occupied: __m256i,
        /// Bits set in each nibble, times 4, 2 and 1 (at most 16: a byte's three weighted
        /// counts of 8 squares sum to at most 32).
        tables: [__m256i; 3],
    }

    impl Query {
        #[target_feature(enable = "avx2")]
        pub(super) fn new(query: &Planes) -> Query {
            let q = |plane: u64| _mm256_set1_epi64x(plane as i64);
            let table = |w: i8| {
                let bytes: [i8; 32] = std::array::from_fn(|i| (i % 16).count_ones() as i8 * w);
                // SAFETY: 32 bytes read from a 32-byte array.
                unsafe { _mm256_loadu_si256(bytes.as_ptr().cast()) }
            };
            Query {
                white: q(query.white),
                r0: q(query.r0),
                r1: q(query.r1),
                r2: q(query.r2),
                occupied: q(query.occupied()),
                tables: [table(4), table(2), table(1)],
            }
        }
    }

    /// Each byte's set bits, weighted by `table`.
    #[target_feature(enable = "avx2")]
    #[inline]
    fn count(table: __m256i, m: __m256i) -> __m256i {
        let nibbles = _mm256_set1_epi8(0x0f);
        let lo = _mm256_and_si256(m, nibbles);
        let hi = _mm256_and_si256(_mm256_srli_epi16(m, 4), nibbles);
        _mm256_add_epi8(
            _mm256_shuffle_epi8(table, lo),
            _mm256_shuffle_epi8(table, hi),
        )
    }

    /// The scores of boards a, b, c and d (each loaded as its four planes), one per 64-bit lane.
    #[target_feature(enable = "avx2")]
    #[inline]
    pub(super) fn score4(q: &Query, a: __m256i, b: __m256i, c: __m256i, d: __m256i) -> __m256i {
        // Rows (white, r0, r1, r2) of the four boards → one register a plane.
        let ab_lo = _mm256_unpacklo_epi64(a, b); // a.white b.white a.r1 b.r1
        let ab_hi = _mm256_unpackhi_epi64(a, b); // a.r0 b.r0 a.r2 b.r2
        let cd_lo = _mm256_unpacklo_epi64(c, d);
        let cd_hi = _mm256_unpackhi_epi64(c, d);
        let white = _mm256_permute2x128_si256(ab_lo, cd_lo, 0x20);
        let r1 = _mm256_permute2x128_si256(ab_lo, cd_lo, 0x31);
        let r0 = _mm256_permute2x128_si256(ab_hi, cd_hi, 0x20);
        let r2 = _mm256_permute2x128_si256(ab_hi, cd_hi, 0x31);
        let occupied = _mm256_or_si256(r0, _mm256_or_si256(r1, r2));
        let diff_type = _mm256_or_si256(
            _mm256_xor_si256(r0, q.r0),
            _mm256_or_si256(_mm256_xor_si256(r1, q.r1), _mm256_xor_si256(r2, q.r2)),
        );
        let diff_colour = _mm256_xor_si256(white, q.white);
        let both = _mm256_and_si256(occupied, q.occupied);
        // The four kinds of square of `similarity` score 4 (same), 3 (same colour, other piece),
        // 2 (one empty) and 1 (same piece, other colour): as masks of weight 4, 2 and 1, the
        // same squares; those where the piece differs unless both hold a piece of other colours
        // (3 or 2: an empty square has no colour, so one-empty squares count); and those where
        // both hold a piece and exactly one of piece and colour differs (3 or 1).
        let same = _mm256_andnot_si256(
            _mm256_or_si256(diff_type, diff_colour),
            _mm256_set1_epi8(-1),
        );
        let twos = _mm256_andnot_si256(_mm256_and_si256(both, diff_colour), diff_type);
        let units = _mm256_and_si256(both, _mm256_xor_si256(diff_type, diff_colour));
        let [t4, t2, t1] = q.tables;
        let bytes = _mm256_add_epi8(
            count(t4, same),
            _mm256_add_epi8(count(t2, twos), count(t1, units)),
        );
        _mm256_sad_epu8(bytes, _mm256_setzero_si256())
    }
}

#[cfg(test)]
mod tests {
    use rand::SeedableRng;
    use rand::rngs::StdRng;

    use super::*;
    use crate::retrieve::tests::random_planes;

    #[test]
    fn every_kernel_scores_as_the_per_square_oracle() {
        let mut rng = StdRng::seed_from_u64(9);
        for pieces in [0, 2, 8, 16, 32, 64] {
            let query = random_planes(&mut rng, pieces);
            // Every batch length, so the AVX2 kernel's tail is exercised too.
            for len in [0, 1, 15, 16, 17, 31, 33, 48, 63, 64] {
                let boards: Vec<Planes> = (0..len)
                    .map(|i| random_planes(&mut rng, (pieces + i) % 40))
                    .collect();
                let oracle: Vec<u16> = boards
                    .iter()
                    .map(|b| crate::case::similarity_naive(&query.to_board(), &b.to_board()) as u16)
                    .collect();
                for kernel in Kernel::VALUES.iter().copied().filter(|k| k.supported()) {
                    let mut out = [u16::MAX; BATCH];
                    (kernel.score_fn().expect("supported"))(&query, &boards, &mut out);
                    assert_eq!(out[..len], oracle[..], "{kernel}, {pieces} pieces, {len}");
                }
            }
        }
    }

    #[test]
    fn kernel_names_parse_back_and_a_misspelt_one_is_an_error() {
        for &k in Kernel::VALUES {
            assert_eq!(k.word().parse::<Kernel>(), Ok(k));
        }
        assert!(
            "avx3"
                .parse::<Kernel>()
                .unwrap_err()
                .contains("avx512, avx2")
        );
    }
}
