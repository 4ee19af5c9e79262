//! `precedent frontier`: how a level's ways to err trade blunders against move-matching.
//!
//! A level must blunder about as often as its players and still match as many of their moves
//! as it can. An `eval --judge` run measures one setting in minutes. The evidence that `fit
//! --save-evidence` gathers (every legal move's features, the search's values among them) is
//! all a setting needs to choose its move, so here a whole family of settings is traced in
//! seconds on the same positions: the level's model at each search weight, playing its most
//! probable move or erring by the errors rule at each ratio, against the default style. With a
//! judge, every move any of them chose (and the human's) is judged as `eval --judge` judges.

use rayon::prelude::*;
use serde::Serialize;
use shakmaty::{Chess, Move};

use crate::Progress;
use crate::client::Limit;
use crate::eval::{BLUNDER_CP, EvalError, judge_moves, paired_delta, wilson};
use crate::fit::{BLUNDER_PAWNS, Item};
use precedent::engine::config::Errors;
use precedent::engine::draw;
use precedent::model::fit::probabilities;
use precedent::model::{LOSS_LAST_FEATURE, N_FEATURES, most_probable};
use precedent::position::key;

/// How a way to play picks its move from the model's probabilities.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub enum Choice {
    /// The most probable move: the `imitate` style, and a level drawing at a temperature near
    /// 0 (at 0.1 it nearly always plays it).
    MostProbable,
    /// A move drawn with probability ∝ P^(1/temperature), as a level without an errors rule
    /// draws it, seeded by `seed` and the position (as a seeded engine draws).
    Draw {
        /// The temperature.
        temperature: f64,
        /// The seed.
        seed: u64,
    },
    /// The errors rule of a level.
    Rule(Errors),
}

/// A way to play: a model's weights (in [`precedent::model::FEATURES`] order) and how the move
/// is picked from its probabilities.
#[derive(Clone, Debug, PartialEq)]
pub struct Policy {
    /// What the report calls it.
    pub name: String,
    /// The level's search weight, when the model is a level's.
    pub search_weight: Option<f64>,
    /// The model's weights, the level's search weight applied.
    pub weights: Vec<f64>,
    /// How the move is picked.
    pub choice: Choice,
}

impl Policy {
    /// The index of the move this way to play chooses among `item`'s moves, as the engine
    /// chooses it from the same evidence.
    pub fn choose(&self, item: &Item) -> usize {
        self.choose_among(&item.features, &item.position)
    }

    /// The same with the one-game case base's evidence of the item (the cases ablation), when
    /// it was gathered.
    pub fn choose_one_game(&self, item: &Item) -> Option<usize> {
        Some(self.choose_among(item.ablated.as_ref()?, &item.position))
    }

    fn choose_among(&self, features: &[[f64; N_FEATURES]], position: &Chess) -> usize {
        let rows: Vec<Vec<f64>> = features.iter().map(|x| x.to_vec()).collect();
        let p = probabilities(&rows, &self.weights);
        match self.choice {
            Choice::MostProbable => most_probable(&p),
            Choice::Draw { temperature, seed } => draw(&p, temperature, Some(seed ^ key(position))),
            Choice::Rule(rule) => {
                let losses: Vec<f64> = features
                    .iter()
                    .map(|x| x[LOSS_LAST_FEATURE] * 100.0)
                    .collect();
                rule.choose(&p, &losses).map_or(0, |(i, _)| i)
            }
        }
    }
}

/// The judge's verdict on the moves of a row.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Verdict {
    /// Share of the moves losing at least [`BLUNDER_CP`] by the judge.
    pub blunder_rate: f64,
    /// Mean loss by the judge, centipawns.
    pub mean_cp_loss: f64,
}

/// What one way to play (or the humans) does on the positions.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Row {
    /// The way to play.
    pub name: String,
    /// The level's search weight, when it plays a level's model.
    pub search_weight: Option<f64>,
    /// The errors rule's ratio, when it errs by the rule.
    pub ratio: Option<f64>,
    /// The temperature, when it draws.
    pub temperature: Option<f64>,
    /// Share of the positions where it chose the human's move.
    pub matching: f64,
    /// 95 % Wilson interval of `matching`.
    pub ci_low: f64,
    /// Upper end.
    pub ci_high: f64,
    /// Matching minus the first row's (the default style's) on the same positions, with its
    /// paired 95 % interval: (difference, low, high).
    pub delta: (f64, f64, f64),
    /// Share of its moves that the evidence's own search found at least [`BLUNDER_PAWNS`]
    /// worse than the best (the errors rule's measure of an error).
    pub search_blunders: f64,
    /// The judge's verdict, when judged.
    pub judged: Option<Verdict>,
    /// The cases ablation, when the evidence holds the one-game case base's votes: matching
    /// with the one-game case base (the same search, the same way to play).
    pub one_game_matching: Option<f64>,
    /// Δcases: matching with the case base minus with the one-game case base, on the same
    /// positions, with its paired 95 % interval.
    pub delta_cases: Option<(f64, f64, f64)>,
    /// The index of the chosen move in each position.
    #[serde(skip)]
    pub chosen: Vec<usize>,
}

impl Row {
    /// The row of `policy` (`None`: the humans' own moves), named `name`.
    fn new(
        name: String,
        policy: Option<&Policy>,
        items: &[&Item],
        chosen: Vec<usize>,
        baseline: Option<&[bool]>,
    ) -> Row {
        let hits: Vec<bool> = items
            .iter()
            .zip(&chosen)
            .map(|(it, c)| it.played == *c)
            .collect();
        let n = items.len() as u64;
        let k = hits.iter().filter(|h| **h).count() as u64;
        let (ci_low, ci_high) = wilson(k, n);
        let blunders = items
            .iter()
            .zip(&chosen)
            .filter(|(it, c)| it.features[**c][LOSS_LAST_FEATURE] >= BLUNDER_PAWNS)
            .count();
        let (ratio, temperature) = match policy.map(|p| p.choice) {
            Some(Choice::Rule(r)) => (Some(r.ratio), None),
            Some(Choice::Draw { temperature, .. }) => (None, Some(temperature)),
            Some(Choice::MostProbable) | None => (None, None),
        };
        Row {
            name,
            search_weight: policy.and_then(|p| p.search_weight),
            ratio,
            temperature,
            matching: k as f64 / n.max(1) as f64,
            ci_low,
            ci_high,
            delta: baseline.map_or((0.0, 0.0, 0.0), |b| paired_delta(&hits, b)),
            search_blunders: blunders as f64 / n.max(1) as f64,
            judged: None,
            one_game_matching: None,
            delta_cases: None,
            chosen,
        }
    }

    /// Whether each position's choice was the human's move.
    fn hits(&self, items: &[&Item]) -> Vec<bool> {
        items
            .iter()
            .zip(&self.chosen)
            .map(|(it, c)| it.played == *c)
            .collect()
    }
}

/// The trace: the humans' own row (their moves, matching 100 %), then one row per way to play,
/// the first of them the baseline every `delta` is taken against.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Frontier {
    /// Positions traced.
    pub positions: usize,
    /// The humans' moves.
    pub humans: Row,
    /// The ways to play, in the order given.
    pub rows: Vec<Row>,
}

/// The moves every policy chooses on `items`, the first policy the baseline.
pub fn trace(items: &[&Item], policies: &[Policy]) -> Frontier {
    let humans = Row::new(
        "humans".into(),
        None,
        items,
        items.iter().map(|it| it.played).collect(),
        None,
    );
    let mut rows: Vec<Row> = Vec::with_capacity(policies.len());
    for p in policies {
        let chosen: Vec<usize> = items.par_iter().map(|it| p.choose(it)).collect();
        let baseline = rows.first().map(|b| b.hits(items));
        let mut row = Row::new(p.name.clone(), Some(p), items, chosen, baseline.as_deref());
        // The cases ablation, when every position has the one-game case base's evidence.
        let one_game: Option<Vec<usize>> =
            items.par_iter().map(|it| p.choose_one_game(it)).collect();
        if let Some(one_game) = one_game.filter(|_| !items.is_empty()) {
            let hits: Vec<bool> = items
                .iter()
                .zip(&one_game)
                .map(|(it, c)| it.played == *c)
                .collect();
            let k = hits.iter().filter(|h| **h).count();
            row.one_game_matching = Some(k as f64 / items.len() as f64);
            row.delta_cases = Some(paired_delta(&row.hits(items), &hits));
        }
        rows.push(row);
    }
    Frontier {
        positions: items.len(),
        humans,
        rows,
    }
}

/// Per position, the distinct indices of the moves chosen by anyone (the humans included),
/// ascending: each is judged once.
fn distinct_choices(frontier: &Frontier) -> Vec<Vec<usize>> {
    (0..frontier.positions)
        .map(|i| {
            let mut d: Vec<usize> = std::iter::once(&frontier.humans)
                .chain(&frontier.rows)
                .map(|r| r.chosen[i])
                .collect();
            d.sort_unstable();
            d.dedup();
            d
        })
        .collect()
}

/// Fills in every row's verdict from the judge's losses of each position's `distinct` moves.
fn fill_verdicts(frontier: &mut Frontier, distinct: &[Vec<usize>], losses: &[Vec<i32>]) {
    for row in std::iter::once(&mut frontier.humans).chain(frontier.rows.iter_mut()) {
        let l: Vec<i32> = row
            .chosen
            .iter()
            .enumerate()
            .filter_map(|(i, j)| {
                let k = distinct.get(i)?.binary_search(j).ok()?;
                losses.get(i)?.get(k).copied()
            })
            .collect();
        let n = l.len().max(1) as f64;
        row.judged = Some(Verdict {
            blunder_rate: l.iter().filter(|&&x| x >= BLUNDER_CP).count() as f64 / n,
            mean_cp_loss: l.iter().map(|&x| f64::from(x)).sum::<f64>() / n,
        });
    }
}

/// Judges every move chosen in `frontier` (each distinct move of a position once) with an
/// external engine, as `eval --judge` does, and fills in every row's verdict.
pub fn judge(
    frontier: &mut Frontier,
    items: &[&Item],
    command: &str,
    options: &[(String, String)],
    limit: Limit,
    threads: usize,
    progress: &dyn Progress,
) -> Result<(), EvalError> {
    let distinct = distinct_choices(frontier);
    let listed: Vec<(Chess, Vec<Move>)> = items
        .iter()
        .zip(&distinct)
        .map(|(it, d)| {
            (
                it.position.clone(),
                d.iter().map(|&j| it.moves[j]).collect(),
            )
        })
        .collect();
    let losses = judge_moves(command, options, limit, &listed, threads, progress)?;
    fill_verdicts(frontier, &distinct, &losses);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use precedent::model::N_FEATURES;
    use precedent::position::parse_fen;

    /// A position of three moves: the human played move 1; move 0 is the model's favourite;
    /// move 2 is an error of 3 pawns by the search, tempting at `error_score`.
    fn item(played: usize, error_score: f64) -> Item {
        let position = parse_fen("4k3/8/8/8/8/8/8/4K2R w K - 0 1").expect("fen");
        let moves: Vec<Move> = shakmaty::Position::legal_moves(&position)
            .into_iter()
            .take(3)
            .collect();
        let mut features = vec![[0.0; N_FEATURES]; 3];
        // Feature 0 carries the model's preference; the loss feature the search's verdict.
        features[0][0] = 2.0;
        features[1][0] = 1.0;
        features[2][0] = error_score;
        features[2][LOSS_LAST_FEATURE] = 3.0;
        Item {
            position,
            moves,
            features,
            ablated: None,
            played,
            elo: Some(1500),
            ply: 20,
            test: true,
        }
    }

    fn policy(name: &str, choice: Choice) -> Policy {
        let mut weights = vec![0.0; N_FEATURES];
        weights[0] = 1.0;
        Policy {
            name: name.into(),
            search_weight: Some(1.0),
            weights,
            choice,
        }
    }

    #[test]
    fn a_rule_errs_where_tempted_and_the_rows_count_it() {
        // Position a: the error scores 1.5 (P ratio e^-0.5 ≈ 0.61 to the favourite); b: -2.0
        // (ratio e^-4 ≈ 0.018). The humans played the error in a and move 1 in b.
        let items = [item(2, 1.5), item(1, -2.0)];
        let refs: Vec<&Item> = items.iter().collect();
        let rule = |ratio| Choice::Rule(Errors { loss: 200, ratio });
        let f = trace(
            &refs,
            &[
                policy("default", Choice::MostProbable),
                policy("rule 0.5", rule(0.5)),
                policy("rule 0.01", rule(0.01)),
            ],
        );
        assert_eq!(f.positions, 2);
        assert_eq!(f.humans.search_blunders, 0.5, "the humans erred once");
        assert_eq!(f.humans.matching, 1.0);
        let [default, half, tiny] = &f.rows[..] else {
            panic!("three rows")
        };
        assert_eq!(default.chosen, vec![0, 0]);
        assert_eq!((default.matching, default.search_blunders), (0.0, 0.0));
        // At ratio 0.5 only position a's error tempts enough: a match and an error.
        assert_eq!(half.chosen, vec![2, 0]);
        assert_eq!((half.matching, half.search_blunders), (0.5, 0.5));
        assert_eq!(half.ratio, Some(0.5));
        assert!((half.delta.0 - 0.5).abs() < 1e-12, "{:?}", half.delta);
        // At 0.01 both errors are played: b's matches no more than the favourite would, and errs.
        assert_eq!(tiny.chosen, vec![2, 2]);
        assert_eq!((tiny.matching, tiny.search_blunders), (0.5, 1.0));
    }

    #[test]
    fn a_draw_at_a_low_temperature_is_the_most_probable_move_and_is_seeded() {
        let items = [item(1, 1.5), item(0, -2.0)];
        let refs: Vec<&Item> = items.iter().collect();
        let draw = |temperature, seed| Choice::Draw { temperature, seed };
        let f = trace(
            &refs,
            &[
                policy("most probable", Choice::MostProbable),
                policy("cold", draw(0.01, 1)),
                policy("hot", draw(100.0, 7)),
                policy("hot again", draw(100.0, 7)),
            ],
        );
        assert_eq!(f.rows[1].chosen, f.rows[0].chosen);
        assert_eq!(f.rows[1].temperature, Some(0.01));
        assert_eq!(
            f.rows[2].chosen, f.rows[3].chosen,
            "the same seed, the same draws"
        );
    }

    #[test]
    fn every_row_gets_the_judges_loss_of_its_own_moves() {
        // Two positions; the humans, the default and the rule chose these moves.
        let items = [item(2, 1.5), item(1, -2.0)];
        let refs: Vec<&Item> = items.iter().collect();
        let rule = Choice::Rule(Errors {
            loss: 200,
            ratio: 0.5,
        });
        let mut f = trace(
            &refs,
            &[
                policy("default", Choice::MostProbable),
                policy("rule", rule),
            ],
        );
        // humans 2, 1; default 0, 0; rule 2, 0.
        let distinct = distinct_choices(&f);
        assert_eq!(distinct, vec![vec![0, 2], vec![0, 1]]);
        // The judge: position a's move 2 loses 300, b's move 1 loses 50, the others nothing.
        fill_verdicts(&mut f, &distinct, &[vec![0, 300], vec![0, 50]]);
        let verdict = |r: &Row| r.judged.map(|j| (j.blunder_rate, j.mean_cp_loss));
        assert_eq!(verdict(&f.humans), Some((0.5, 175.0)));
        assert_eq!(verdict(&f.rows[0]), Some((0.0, 0.0)));
        assert_eq!(verdict(&f.rows[1]), Some((0.5, 150.0)));
    }

    #[test]
    fn the_cases_ablation_plays_the_same_way_with_the_one_game_evidence() {
        // With the case base the model prefers move 1, the human's; with the one-game case
        // base (feature 0 emptied) only the search's difference is left, and move 0 wins.
        let mut a = item(1, -2.0);
        a.features[1][0] = 3.0;
        a.features[0][1] = 0.5;
        let mut ablated = a.features.clone();
        for x in &mut ablated {
            x[0] = 0.0;
        }
        a.ablated = Some(ablated);
        let mut weights = vec![0.0; N_FEATURES];
        weights[0] = 1.0;
        weights[1] = 1.0;
        let p = Policy {
            name: "most probable".into(),
            search_weight: None,
            weights,
            choice: Choice::MostProbable,
        };
        let f = trace(&[&a], std::slice::from_ref(&p));
        let row = &f.rows[0];
        assert_eq!((row.matching, row.one_game_matching), (1.0, Some(0.0)));
        assert_eq!(row.delta_cases.map(|d| d.0), Some(1.0));
        // Without the one-game evidence there is no ablation to report.
        let f = trace(&[&item(1, -2.0)], &[p]);
        assert_eq!(f.rows[0].delta_cases, None);
    }
}
