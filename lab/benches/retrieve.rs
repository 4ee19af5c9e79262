//! Retrieval scan speed: top-1 and top-32 over 100 k, 1 M and 10 M cases, on 1 and 2 threads.
//! The boards are the embedded case base's real (distinct) positions, repeated (mirrored on odd laps) to
//! reach the size. Throughput is reported in cases per second. The kernel is the fastest the
//! processor runs, or `PRECEDENT_KERNEL`'s.

use std::hint::black_box;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use precedent::casebase::CaseBase;
use precedent::retrieve::{ScanLimits, Segment, scan};
use precedent_lab::bench::repeat_boards;

fn retrieve(c: &mut Criterion) {
    // `PRECEDENT_KERNEL=avx2 cargo bench --bench retrieve` measures the AVX2 path.
    precedent::retrieve::kernel_from_environment().expect("PRECEDENT_KERNEL names a kernel");
    let cb = CaseBase::embedded().expect("the embedded case base loads");
    let queries: Vec<_> = cb
        .boards()
        .iter()
        .step_by(cb.boards().len() / 31)
        .copied()
        .collect();
    for &n in &[100_000usize, 1_000_000, 10_000_000] {
        let boards = repeat_boards(cb.boards(), n);
        let mut group = c.benchmark_group(format!("scan_{}k_cases", n / 1000));
        group.throughput(Throughput::Elements(n as u64));
        group.sample_size(if n >= 10_000_000 { 20 } else { 50 });
        for threads in [1, 2] {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .expect("thread pool");
            for k in [1, 32] {
                let mut q = 0;
                group.bench_function(
                    BenchmarkId::new(format!("top{k}"), format!("{threads}t")),
                    |b| {
                        b.iter(|| {
                            q = (q + 1) % queries.len();
                            let segs = [Segment::plain(&boards, 0, queries[q])];
                            pool.install(|| {
                                black_box(scan(
                                    &segs,
                                    &ScanLimits {
                                        k,
                                        seed: q as u64,
                                        deadline: None,
                                        stop: None,
                                        probes: 0,
                                    },
                                ))
                            })
                        })
                    },
                );
            }
        }
        group.finish();
    }
}

criterion_group!(benches, retrieve);
criterion_main!(benches);
