//! Every line a GUI can send: `uci::parse_command`, then what the engine does with the parsed
//! arguments that come from the GUI (FEN, move lists, option values, clock values).
//! Nothing here may panic.

#![no_main]

use std::time::{Duration, Instant};

use libfuzzer_sys::fuzz_target;
use precedent::position::{fen_of, parse_fen, play_moves};
use precedent::think::{Clock, budget};
use precedent::uci::{Command, GoParams, parse_command};
use precedent::uci::Options;
use shakmaty::Chess;

/// What the engine computes from a `go` line for one side (mirrors `Uci::clock` and `Uci::go`).
fn clock_for(params: &GoParams, time: Option<u64>, inc: Option<u64>, overhead: u64) {
    let ms = Duration::from_millis;
    let clock = Clock {
        remaining: time.map(ms),
        increment: inc.map_or(Duration::ZERO, ms),
        moves_to_go: params.movestogo.filter(|&m| m > 0),
        move_time: params.movetime.map(ms),
        infinite: params.infinite || params.ponder,
    };
    if let Some(b) = budget(&clock, ms(overhead)) {
        // The engine turns the budget into a deadline with `received + b`.
        let _ = Instant::now() + b;
    }
}

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let mut options = Options::default();
    for line in text.lines() {
        let Ok(command) = parse_command(line) else {
            continue;
        };
        match command {
            Command::Position { fen, moves } => {
                let start = match fen.as_deref() {
                    Some(fen) => match parse_fen(fen) {
                        Ok(pos) => {
                            // A position the engine accepted must print as a FEN it accepts.
                            let printed = fen_of(&pos);
                            if let Err(e) = parse_fen(&printed) {
                                panic!("fen_of gave {printed:?} for {fen:?}, which does not parse: {e}");
                            }
                            pos
                        }
                        Err(_) => continue,
                    },
                    None => Chess::default(),
                };
                if let Ok(pos) = play_moves(start, &moves) {
                    let _ = fen_of(&pos);
                }
            }
            Command::SetOption { name, value } => {
                // `CaseBase` makes the engine load a file: not for fuzzing.
                if name.eq_ignore_ascii_case("casebase") {
                    continue;
                }
                let _ = Options::default().set(&name, value.as_deref());
                // And on the options as changed so far, as the engine keeps them.
                let _ = options.set(&name, value.as_deref());
            }
            Command::Go(params) => {
                clock_for(&params, params.wtime, params.winc, options.move_overhead);
                clock_for(&params, params.btime, params.binc, options.move_overhead);
            }
            _ => {}
        }
    }
});
