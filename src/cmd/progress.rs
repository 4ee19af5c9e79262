//! Progress bars on stderr, for the library's progress reports (the library itself never draws).

use std::time::Duration;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use precedent_lab::Progress;

/// A bar of `len` steps counting `what` (hidden when stderr is not a terminal).
pub fn bar(len: u64, what: &str) -> ProgressBar {
    let bar = ProgressBar::with_draw_target(Some(len), ProgressDrawTarget::stderr_with_hz(4));
    let style = ProgressStyle::with_template(&format!(
        "{{bar:30}} {{pos}}/{{len}} {what} {{msg}} ({{elapsed}} elapsed, about {{eta}} left)"
    ))
    .unwrap_or_else(|_| ProgressStyle::default_bar());
    bar.set_style(style);
    bar
}

/// A spinner with a message, for work of unknown length.
pub fn spinner() -> ProgressBar {
    let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr_with_hz(4));
    bar.set_style(
        ProgressStyle::with_template("{spinner} {elapsed_precise} {msg}")
            .unwrap_or_else(|_| ProgressStyle::default_spinner()),
    );
    bar.enable_steady_tick(Duration::from_millis(250));
    bar
}

/// The lab's progress reports drawn as a bar.
pub struct Bar {
    bar: ProgressBar,
}

impl Bar {
    /// A bar counting `what`; its length is set when the task starts.
    pub fn new(what: &str) -> Bar {
        Bar { bar: bar(0, what) }
    }
}

impl Progress for Bar {
    fn start(&self, total: u64) {
        self.bar.set_length(total);
        self.bar.set_position(0);
    }

    fn advance(&self, steps: u64) {
        self.bar.inc(steps);
    }

    fn status(&self, message: &str) {
        self.bar.set_message(message.to_string());
    }

    fn note(&self, line: &str) {
        // Printed even when the bar is hidden (stderr not a terminal), unlike `println`.
        self.bar.suspend(|| eprintln!("{line}"));
    }

    fn finish(&self) {
        self.bar.finish_and_clear();
    }
}

/// A bar for each of a workflow's passes.
pub struct Bars;

impl precedent_lab::eval::Bars for Bars {
    fn bar(&self, what: &str) -> Box<dyn Progress + '_> {
        Box::new(Bar::new(what))
    }
}
