//! Scheduling: one thread (everything inline) or a reader thread, a rayon pool and the sink
//! on the calling thread, with tokens bounding the chunks in flight and a reorder by sequence.

use super::*;

/// One thread (`-j1`): the reader hands each chunk to the worker code and then to the sink on
/// the calling thread, in order; no queue, no hand-off (like ripgrep's `-j1`). For one process
/// per core, as the Spark driver runs it.
pub(super) fn sequential(
    inputs: &[InputSpec],
    opts: &RunOptions,
    sink: &mut Sink<'_>,
    progress: &Progress,
    cancel: &Arc<AtomicBool>,
) -> Result<RunStats, RunError> {
    let spares = sink.spares.1.clone();
    let mut r = Reader::new(opts, Dispatch::Inline(sink), spares, progress, cancel);
    r.read_all(inputs);
    let (stats, error) = (std::mem::take(&mut r.stats), r.error.take());
    drop(r);
    // The calling thread's repeat table is not kept past the run.
    drop(REPEATS.take());
    if let Some(e) = error {
        return Err(e);
    }
    sink.reader_done(&stats)?;
    Ok(stats)
}

/// `threads` workers: the reader on its own thread, rayon workers, the sink on the calling
/// thread taking chunk results in sequence order.
pub(super) fn parallel(
    inputs: &[InputSpec],
    opts: &RunOptions,
    threads: usize,
    sink: &mut Sink<'_>,
    progress: &Progress,
    cancel: &Arc<AtomicBool>,
) -> Result<RunStats, RunError> {
    let in_flight = if opts.in_flight == 0 {
        4 * threads
    } else {
        opts.in_flight
    }
    .max(2);
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .thread_name(|i| format!("linksieve-worker-{i}"))
        .build()
        .map_err(|e| RunError::Threads(e.to_string()))?;
    let (token_tx, token_rx) = bounded::<()>(in_flight);
    for _ in 0..in_flight {
        let _ = token_tx.send(());
    }
    let (result_tx, result_rx) = unbounded::<(u64, Message)>();
    sink.spare_limit = in_flight;
    std::thread::scope(|scope| -> Result<RunStats, RunError> {
        let reader_tx = result_tx.clone();
        let (pool, token_rx) = (&pool, &token_rx);
        let spares = sink.spares.1.clone();
        let reader = scope.spawn(move || {
            let dispatch = Dispatch::Pool {
                pool,
                token_rx,
                result_tx: reader_tx,
            };
            let mut r = Reader::new(opts, dispatch, spares, progress, cancel);
            r.read_all(inputs);
            // The last message carries the reader's counters.
            let seq = r.seq;
            let stats = std::mem::take(&mut r.stats);
            if let Dispatch::Pool { result_tx, .. } = &r.dispatch {
                let _ = result_tx.send((seq, Message::ReaderEnd(stats)));
            }
            drop(r);
        });
        drop(result_tx);
        let res = sink.consume(&result_rx, &token_tx);
        if res.is_err() {
            // Stop the reader: it waits for tokens that the sink no longer returns.
            cancel.store(true, Ordering::Relaxed);
            for _ in 0..in_flight {
                let _ = token_tx.try_send(());
            }
            // Drain so that workers can finish.
            while result_rx.recv().is_ok() {
                let _ = token_tx.try_send(());
            }
        }
        let _ = reader.join();
        res
    })
}
